#include "server/admission.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "server/metrics.h"

namespace kje::server {

Admission::Ticket& Admission::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Release(kind_);
    owner_ = other.owner_;
    kind_ = other.kind_;
    other.owner_ = nullptr;
  }
  return *this;
}

Admission::Ticket::~Ticket() {
  if (owner_ != nullptr) owner_->Release(kind_);
}

Admission::Admission(int64_t max_unary, int64_t max_streams, Metrics* metrics) {
  unary_.max = max_unary;
  unary_.key = "server.maxConcurrentRpcs";
  unary_.what = "unary RPCs in flight";
  streams_.max = max_streams;
  streams_.key = "server.maxStreams";
  streams_.what = "open streams (WatchStatus and FollowOutput)";
  if (metrics != nullptr) {
    for (auto [bound, kind] : {std::pair{&unary_, "unary"}, std::pair{&streams_, "stream"}}) {
      Metrics::AdmissionSeries series = metrics->AdmissionSeriesFor(kind);
      bound->in_flight = series.in_flight;
      bound->refused = series.refused;
    }
  }
}

absl::StatusOr<Admission::Ticket> Admission::Admit(Kind kind) {
  Bound& bound = Slot(kind);
  // Taken first and given back when over: no lock, and a burst can't overshoot the bound.
  if (bound.count.fetch_add(1, std::memory_order_relaxed) >= bound.max) {
    bound.count.fetch_sub(1, std::memory_order_relaxed);
    if (bound.refused != nullptr) bound.refused->Increment();
    return absl::ResourceExhaustedError(
        absl::StrCat("the server holds its most ", ToAbsl(bound.what), " (", ToAbsl(bound.key),
                     ": ", bound.max, "); retry with backoff, or on another replica"));
  }
  if (bound.in_flight != nullptr) bound.in_flight->Increment();
  return Ticket(this, kind);
}

void Admission::Release(Kind kind) {
  Bound& bound = Slot(kind);
  bound.count.fetch_sub(1, std::memory_order_relaxed);
  if (bound.in_flight != nullptr) bound.in_flight->Decrement();
}

}  // namespace kje::server
