#include "k8s/request_limiter.h"

#include <algorithm>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "k8s/errors.h"

namespace kje::k8s {

RequestLimiter::RequestLimiter(LimiterOptions options, std::function<absl::Time()> now)
    : options_(options), now_(std::move(now)) {
  absl::MutexLock lock(&mu_);
  tokens_ = static_cast<double>(std::max<int64_t>(options_.burst, 1));
  refilled_at_ = now_();
}

bool RequestLimiter::TakeToken(absl::Time now, absl::Time* next) {
  if (options_.qps <= 0) return true;
  const double capacity = static_cast<double>(std::max<int64_t>(options_.burst, 1));
  if (now > refilled_at_) {
    tokens_ =
        std::min(capacity, tokens_ + absl::ToDoubleSeconds(now - refilled_at_) * options_.qps);
    refilled_at_ = now;
  }
  if (tokens_ >= 1) {
    tokens_ -= 1;
    return true;
  }
  *next = now + absl::Seconds((1 - tokens_) / options_.qps);
  return false;
}

absl::StatusOr<RequestLimiter::Decision> RequestLimiter::Ask(const std::shared_ptr<Ticket>& ticket,
                                                             bool long_running) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = now_();
  if (ticket->first_ask_ == absl::InfinitePast()) ticket->first_ask_ = now;
  const bool needs_slot = options_.max_in_flight > 0 && !long_running;
  if (needs_slot && !ticket->has_slot_) {
    if (ticket->queued_) return Decision{};  // still waiting for a hand-over
    if (in_flight_ < options_.max_in_flight && queue_.empty()) {
      ++in_flight_;
      ticket->has_slot_ = true;
    } else if (queue_.size() >= options_.max_in_flight) {
      ++stats_.refused;
      return MakeThrottledStatus(absl::StrCat(
          "kubernetes: ", options_.max_in_flight,
          " requests in flight to the API server and as many waiting (kubernetes.maxInFlight)"));
    } else {
      queue_.push_back(ticket);
      ticket->queued_ = true;
      ticket->waited_slot_ = true;
      return Decision{};
    }
  }
  absl::Time next = absl::InfiniteFuture();
  if (!TakeToken(now, &next)) {
    ticket->waited_rate_ = true;
    return Decision{false, next};  // a held slot stays held while the token comes
  }
  if (ticket->waited_slot_) ++stats_.waited_slot;
  if (ticket->waited_rate_) ++stats_.waited_rate;
  stats_.waited_seconds += absl::ToDoubleSeconds(now - ticket->first_ask_);
  return Decision{true, now};
}

void RequestLimiter::Release(const std::shared_ptr<Ticket>& ticket) {
  std::shared_ptr<Ticket> next;
  {
    absl::MutexLock lock(&mu_);
    if (ticket->queued_) {
      queue_.erase(std::remove(queue_.begin(), queue_.end(), ticket), queue_.end());
      ticket->queued_ = false;
    }
    if (!ticket->has_slot_) return;
    ticket->has_slot_ = false;
    if (queue_.empty()) {
      --in_flight_;
      return;
    }
    // The slot changes hands without ever being free: a newcomer can't take it first.
    next = std::move(queue_.front());
    queue_.pop_front();
    next->queued_ = false;
    next->has_slot_ = true;
  }
  next->wake_();
}

LimiterStats RequestLimiter::Stats() const {
  absl::MutexLock lock(&mu_);
  LimiterStats stats = stats_;
  stats.in_flight = in_flight_;
  stats.waiting_slot = queue_.size();
  return stats;
}

bool RequestLimiter::AwaitStats(const std::function<bool(const LimiterStats&)>& ready,
                                absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto satisfied = [this, &ready]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    LimiterStats stats = stats_;
    stats.in_flight = in_flight_;
    stats.waiting_slot = queue_.size();
    return ready(stats);
  };
  return mu_.AwaitWithTimeout(absl::Condition(&satisfied), timeout);
}

}  // namespace kje::k8s
