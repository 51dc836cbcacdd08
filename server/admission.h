#pragma once

// Global bounds on what the server holds for its callers, beside each stream's own: the unary
// RPCs in flight (waiting for Kubernetes or the informer; an answer from memory, given at once,
// holds nothing and is never refused) and the open streams (WatchStatus and FollowOutput
// together). Past a bound a new call is refused RESOURCE_EXHAUSTED at once, naming the limit; a
// call already admitted is never touched, so a flood costs the flood only. One atomic per bound:
// admitting takes no lock.

#include <atomic>
#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace prometheus {
class Counter;
class Gauge;
}  // namespace prometheus

namespace kje::server {

class Metrics;

class Admission {
 public:
  enum class Kind { kUnary, kStream };

  // A place held for one call; given back when it goes. Move-only.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept : owner_(other.owner_), kind_(other.kind_) {
      other.owner_ = nullptr;
    }
    Ticket& operator=(Ticket&& other) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket();

   private:
    friend class Admission;
    Ticket(Admission* owner, Kind kind) : owner_(owner), kind_(kind) {}
    Admission* owner_ = nullptr;
    Kind kind_ = Kind::kUnary;
  };

  // A bound of 0 admits nothing of its kind. With `metrics` (not owned, outliving this),
  // k8s_job_executor_rpcs_in_flight{kind} and k8s_job_executor_rpcs_refused_total{kind} follow.
  Admission(int64_t max_unary, int64_t max_streams, Metrics* metrics = nullptr);

  // A ticket, or RESOURCE_EXHAUSTED naming the bound and its configuration key.
  absl::StatusOr<Ticket> Admit(Kind kind);

  int64_t in_flight(Kind kind) const { return Slot(kind).count.load(std::memory_order_relaxed); }

 private:
  struct Bound {
    int64_t max = 0;
    std::string_view key;   // the configuration key that sets it
    std::string_view what;  // what it counts, for the message
    std::atomic<int64_t> count{0};
    prometheus::Gauge* in_flight = nullptr;
    prometheus::Counter* refused = nullptr;
  };
  Bound& Slot(Kind kind) { return kind == Kind::kUnary ? unary_ : streams_; }
  const Bound& Slot(Kind kind) const { return kind == Kind::kUnary ? unary_ : streams_; }
  void Release(Kind kind);

  Bound unary_;
  Bound streams_;
};

}  // namespace kje::server
