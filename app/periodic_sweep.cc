#include "app/periodic_sweep.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <utility>

#include "absl/synchronization/notification.h"

namespace kje::app {

struct PeriodicSweep::Core : std::enable_shared_from_this<Core> {
  Core(const boost::asio::any_io_executor& io, absl::Duration period, absl::Duration slack,
       StartFn start, ReportFn report)
      : period(period),
        slack(slack),
        start(std::move(start)),
        report(std::move(report)),
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
    sweeping = start(absl::Now() + period + slack,
                     [self = shared_from_this()](absl::StatusOr<int64_t> result) {
                       if (!absl::IsCancelled(result.status())) self->report(result);
                       boost::asio::post(self->strand, [self] {
                         self->sweeping = nullptr;
                         self->ArmTimer();
                       });
                     });
  }

  const absl::Duration period;
  const absl::Duration slack;
  const StartFn start;
  const ReportFn report;
  boost::asio::strand<boost::asio::any_io_executor> strand;
  boost::asio::steady_timer timer;
  std::shared_ptr<executor::RpcHandle> sweeping;  // the strand's only
  bool stopped = false;
};

PeriodicSweep::PeriodicSweep(const boost::asio::any_io_executor& io, absl::Duration period,
                             absl::Duration slack, StartFn start, ReportFn report)
    : core_(std::make_shared<Core>(io, period, slack, std::move(start), std::move(report))) {}

void PeriodicSweep::Start() {
  boost::asio::post(core_->strand, [core = core_] { core->ArmTimer(); });
}

void PeriodicSweep::Stop() {
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
