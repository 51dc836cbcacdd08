#include "app/periodic_sweep.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace kje::app {
namespace {

// A sweep the test ends by hand; Cancel ends it CANCELLED, as the executor's sweeps do.
struct Sweeps {
  struct Handle : async::Cancellable {
    void Cancel() override {
      absl::MutexLock lock(&owner->mu);
      ++owner->cancels;
    }
    Sweeps* owner;
  };
  absl::Mutex mu;
  std::vector<PeriodicSweep::Done> pending ABSL_GUARDED_BY(mu);
  int started ABSL_GUARDED_BY(mu) = 0;
  int cancels ABSL_GUARDED_BY(mu) = 0;
  std::vector<absl::StatusOr<int64_t>> reported ABSL_GUARDED_BY(mu);

  PeriodicSweep::StartFn Start() {
    return [this](absl::Time, PeriodicSweep::Done done) {
      absl::MutexLock lock(&mu);
      ++started;
      pending.push_back(std::move(done));
      auto handle = std::make_shared<Handle>();
      handle->owner = this;
      return handle;
    };
  }
  PeriodicSweep::ReportFn Report() {
    return [this](const absl::StatusOr<int64_t>& r) {
      absl::MutexLock lock(&mu);
      reported.push_back(r);
    };
  }
  // Waits, with a deadline, until `n` sweeps have started; then ends the newest with `result`.
  bool EndSweep(int n, absl::StatusOr<int64_t> result) {
    PeriodicSweep::Done done;
    {
      absl::MutexLock lock(&mu);
      auto started_n = [this, n]() ABSL_SHARED_LOCKS_REQUIRED(mu) { return started >= n; };
      if (!mu.AwaitWithTimeout(absl::Condition(&started_n), absl::Seconds(10))) return false;
      done = std::move(pending.back());
      pending.pop_back();
    }
    done(std::move(result));
    return true;
  }
};

struct Loop {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work =
      boost::asio::make_work_guard(io);
  std::thread thread{[this] { io.run(); }};
  ~Loop() {
    work.reset();
    io.stop();
    thread.join();
  }
};

TEST_CASE("periodic sweep: one sweep at a time, the next after the last one ended") {
  Loop loop;
  Sweeps sweeps;
  PeriodicSweep sweep(loop.io.get_executor(), absl::Milliseconds(1), absl::Seconds(1),
                      sweeps.Start(), sweeps.Report());
  sweep.Start();
  REQUIRE(sweeps.EndSweep(1, int64_t{3}));
  // The second starts only once the first has ended: there is never more than one pending.
  REQUIRE(sweeps.EndSweep(2, absl::UnavailableError("the API server is away")));
  REQUIRE(sweeps.EndSweep(3, int64_t{0}));
  sweep.Stop();
  absl::MutexLock lock(&sweeps.mu);
  CHECK(sweeps.pending.size() <= 1);
  REQUIRE(sweeps.reported.size() == 3);
  CHECK(*sweeps.reported[0] == 3);
  CHECK(absl::IsUnavailable(sweeps.reported[1].status()));
  CHECK(*sweeps.reported[2] == 0);
}

TEST_CASE("periodic sweep: Stop cancels the sweep under way, which is then not reported") {
  Loop loop;
  Sweeps sweeps;
  PeriodicSweep sweep(loop.io.get_executor(), absl::Milliseconds(1), absl::Seconds(1),
                      sweeps.Start(), sweeps.Report());
  sweep.Start();
  {
    absl::MutexLock lock(&sweeps.mu);
    auto one = [&sweeps]() ABSL_SHARED_LOCKS_REQUIRED(sweeps.mu) { return sweeps.started >= 1; };
    REQUIRE(sweeps.mu.AwaitWithTimeout(absl::Condition(&one), absl::Seconds(10)));
  }
  sweep.Stop();
  sweep.Stop();  // idempotent
  PeriodicSweep::Done done;
  {
    absl::MutexLock lock(&sweeps.mu);
    CHECK(sweeps.cancels >= 1);  // a handle's Cancel is idempotent: a second Stop may repeat it
    done = std::move(sweeps.pending.back());
  }
  done(absl::CancelledError("stopped"));
  absl::MutexLock lock(&sweeps.mu);
  CHECK(sweeps.reported.empty());
  CHECK(sweeps.started == 1);  // no sweep starts after Stop
}

}  // namespace
}  // namespace kje::app
