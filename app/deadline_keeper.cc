#include "app/deadline_keeper.h"

#include <boost/asio/post.hpp>
#include <utility>

#include "absl/synchronization/notification.h"
#include "base/log.h"

namespace kje::app {

struct DeadlineKeeper::Core : std::enable_shared_from_this<Core> {
  Core(const boost::asio::any_io_executor& io, executor::Executor& executor, absl::Duration period)
      : executor(executor), period(period), strand(boost::asio::make_strand(io)), timer(strand) {}

  void ArmTimer() {
    if (stopped) return;
    timer.expires_after(absl::ToChronoMilliseconds(period));
    timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->Sweep();
    });
  }

  void Sweep() {
    if (stopped) return;
    // A sweep may take longer than a period (many jobs to stop): the next waits for it.
    sweeping = executor.SweepDeadlines(
        absl::Now() + period + absl::Seconds(30),
        [self = shared_from_this()](absl::StatusOr<int64_t> stopped_jobs) {
          if (!stopped_jobs.ok() && !absl::IsCancelled(stopped_jobs.status())) {
            log::Warn("the deadline sweep failed")
                .Kv("error", std::string(stopped_jobs.status().message()));
          }
          boost::asio::post(self->strand, [self] {
            self->sweeping = nullptr;
            self->ArmTimer();
          });
        });
  }

  executor::Executor& executor;
  const absl::Duration period;
  boost::asio::strand<boost::asio::any_io_executor> strand;
  boost::asio::steady_timer timer;
  // The strand's only.
  std::shared_ptr<executor::RpcHandle> sweeping;
  bool stopped = false;
};

DeadlineKeeper::DeadlineKeeper(const boost::asio::any_io_executor& io, executor::Executor& executor,
                               absl::Duration period)
    : core_(std::make_shared<Core>(io, executor, period)) {}

void DeadlineKeeper::Start() {
  boost::asio::post(core_->strand, [core = core_] { core->ArmTimer(); });
}

void DeadlineKeeper::Stop() {
  absl::Notification stopped;
  boost::asio::post(core_->strand, [core = core_, &stopped] {
    core->stopped = true;
    core->timer.cancel();
    if (core->sweeping != nullptr) core->sweeping->Cancel();
    stopped.Notify();
  });
  stopped.WaitForNotification();
}

}  // namespace kje::app
