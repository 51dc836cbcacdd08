#include "app/staging_sweeper.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <utility>

#include "absl/synchronization/notification.h"
#include "base/log.h"

namespace kje::app {

struct StagingSweeper::Core : std::enable_shared_from_this<Core> {
  Core(const boost::asio::any_io_executor& io, executor::Executor& executor, absl::Duration period,
       absl::Duration grace)
      : executor(executor),
        period(period),
        grace(grace),
        strand(boost::asio::make_strand(io)),
        timer(strand) {}

  void ArmTimer() {
    if (stopped) return;
    timer.expires_after(absl::ToChronoMilliseconds(period));
    timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->Sweep();
    });
  }

  void Sweep() {
    if (stopped) return;
    sweeping = executor.SweepStaged(
        grace, absl::Now() + period + absl::Seconds(60),
        [self = shared_from_this()](absl::StatusOr<int64_t> deleted) {
          if (!deleted.ok() && !absl::IsCancelled(deleted.status())) {
            log::Warn("the sweep of staged files failed; the next one tries again")
                .Kv("error", std::string(deleted.status().message()));
          } else if (deleted.ok() && *deleted > 0) {
            log::Info("staged files removed: no application names them").Kv("files", *deleted);
          }
          boost::asio::post(self->strand, [self] {
            self->sweeping = nullptr;
            self->ArmTimer();
          });
        });
  }

  executor::Executor& executor;
  const absl::Duration period;
  const absl::Duration grace;
  boost::asio::strand<boost::asio::any_io_executor> strand;
  boost::asio::steady_timer timer;
  std::shared_ptr<executor::RpcHandle> sweeping;  // the strand's only
  bool stopped = false;
};

StagingSweeper::StagingSweeper(const boost::asio::any_io_executor& io, executor::Executor& executor,
                               absl::Duration period, absl::Duration grace)
    : core_(std::make_shared<Core>(io, executor, period, grace)) {}

void StagingSweeper::Start() {
  boost::asio::post(core_->strand, [core = core_] { core->ArmTimer(); });
}

void StagingSweeper::Stop() {
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
