#include "async/wakeup.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "async/strand_task.h"
#include "tests/async/io_threads.h"

namespace kje::async {
namespace {

using Io = testing::IoThreads;

// Waits once, then says so.
asio::awaitable<absl::Status> WaitOnce(std::shared_ptr<Wakeup> wakeup, absl::Time until,
                                       absl::Notification* waiting) {
  if (waiting != nullptr) waiting->Notify();
  co_await wakeup->Wait(until);
  co_return absl::OkStatus();
}

TEST_CASE("wakeup: a firing before the wait is never lost", "[async]") {
  Io io;
  auto wakeup = Wakeup::New();
  wakeup->Fire();
  absl::Notification done;
  StrandTask::Spawn(io.Strand(), WaitOnce(wakeup, absl::InfiniteFuture(), nullptr),
                    [&done](const absl::Status&) { done.Notify(); });
  CHECK(done.WaitForNotificationWithTimeout(absl::Seconds(20)));
}

TEST_CASE("wakeup: a firing from another thread resumes the waiter, however often it fires",
          "[async]") {
  Io io;
  for (int round = 0; round < 200; ++round) {
    auto wakeup = Wakeup::New();
    absl::Notification waiting;
    absl::Notification done;
    StrandTask::Spawn(io.Strand(), WaitOnce(wakeup, absl::InfiniteFuture(), &waiting),
                      [&done](const absl::Status&) { done.Notify(); });
    REQUIRE(waiting.WaitForNotificationWithTimeout(absl::Seconds(20)));
    std::thread a([&] { wakeup->Fire(); });
    std::thread b([&] { wakeup->Waker()(); });
    a.join();
    b.join();
    REQUIRE(done.WaitForNotificationWithTimeout(absl::Seconds(20)));
  }
}

TEST_CASE("wakeup: a wait ends at its time limit without a firing", "[async]") {
  Io io;
  auto wakeup = Wakeup::New();
  absl::Notification done;
  StrandTask::Spawn(io.Strand(), WaitOnce(wakeup, absl::Now() + absl::Milliseconds(1), nullptr),
                    [&done](const absl::Status&) { done.Notify(); });
  CHECK(done.WaitForNotificationWithTimeout(absl::Seconds(20)));
}

TEST_CASE("wakeup: a cancellation ends the wait, and a later firing is kept for the next",
          "[async]") {
  Io io;
  auto wakeup = Wakeup::New();
  absl::Notification waiting;
  absl::Notification done;
  absl::Status ended;
  auto task = StrandTask::Spawn(io.Strand(), WaitOnce(wakeup, absl::InfiniteFuture(), &waiting),
                                [&](absl::Status s) {
                                  ended = std::move(s);
                                  done.Notify();
                                });
  REQUIRE(waiting.WaitForNotificationWithTimeout(absl::Seconds(20)));
  task->Cancel();
  REQUIRE(done.WaitForNotificationWithTimeout(absl::Seconds(20)));
  // The wait returned on the cancellation; whether Asio then throws is the coroutine's business.
  wakeup->Fire();
  absl::Notification second;
  StrandTask::Spawn(io.Strand(), WaitOnce(wakeup, absl::InfiniteFuture(), nullptr),
                    [&second](const absl::Status&) { second.Notify(); });
  CHECK(second.WaitForNotificationWithTimeout(absl::Seconds(20)));
}

}  // namespace
}  // namespace kje::async
