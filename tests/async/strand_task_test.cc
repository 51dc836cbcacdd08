#include "async/strand_task.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "tests/async/io_threads.h"

namespace kje::async {
namespace {

using Io = testing::IoThreads;

// What a task's done saw, and how often it was called.
template <class R>
struct Outcome {
  absl::Mutex mu;
  int calls ABSL_GUARDED_BY(mu) = 0;
  std::optional<R> result ABSL_GUARDED_BY(mu);
  absl::Notification done;

  auto Done() {
    return [this](R r) {
      {
        absl::MutexLock lock(&mu);
        ++calls;
        result = std::move(r);
      }
      if (!done.HasBeenNotified()) done.Notify();
    };
  }
  R Wait() {
    REQUIRE(done.WaitForNotificationWithTimeout(absl::Seconds(20)));
    absl::MutexLock lock(&mu);
    return *result;
  }
  int Calls() {
    absl::MutexLock lock(&mu);
    return calls;
  }
};

// Waits on a timer that never fires by itself: only a cancellation ends it.
asio::awaitable<absl::Status> Forever(absl::Notification* started) {
  asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::hours(24));
  started->Notify();
  co_await timer.async_wait(asio::use_awaitable);
  co_return absl::OkStatus();
}

TEST_CASE("strand task: the coroutine's result reaches done, on the strand", "[async]") {
  Io io;
  auto strand = io.Strand();
  Outcome<absl::StatusOr<int>> out;
  auto on_strand = std::make_shared<std::atomic<bool>>(false);
  auto work = []() -> asio::awaitable<absl::StatusOr<int>> { co_return 42; };
  auto task = StrandTask::Spawn(strand, work(), [&out, strand, on_strand](absl::StatusOr<int> r) {
    on_strand->store(strand.running_in_this_thread());
    out.Done()(std::move(r));
  });
  absl::StatusOr<int> r = out.Wait();
  REQUIRE(r.ok());
  CHECK(*r == 42);
  CHECK(on_strand->load());
  task->Cancel();  // after the end: harmless
  CHECK(out.Calls() == 1);
}

TEST_CASE("strand task: a cancel reaches the running coroutine, from any thread, once", "[async]") {
  Io io;
  absl::Notification started;
  Outcome<absl::Status> out;
  auto task = StrandTask::Spawn(io.Strand(), Forever(&started), out.Done());
  REQUIRE(started.WaitForNotificationWithTimeout(absl::Seconds(20)));
  std::vector<std::thread> cancellers;
  cancellers.reserve(4);
  for (int i = 0; i < 4; ++i) cancellers.emplace_back([&task] { task->Cancel(); });
  for (std::thread& t : cancellers) t.join();
  absl::Status s = out.Wait();
  CHECK(absl::IsCancelled(s));
  CHECK(task->cancel_requested());
  CHECK(out.Calls() == 1);
}

TEST_CASE("strand task: a cancel before the start means the work never runs", "[async]") {
  Io io;
  auto strand = io.Strand();
  // Hold the strand so the task can't start before the cancel.
  absl::Notification hold;
  absl::Notification holding;
  asio::post(strand, [&] {
    holding.Notify();
    hold.WaitForNotification();
  });
  REQUIRE(holding.WaitForNotificationWithTimeout(absl::Seconds(20)));
  auto ran = std::make_shared<std::atomic<bool>>(false);
  auto work = [](std::shared_ptr<std::atomic<bool>> ran) -> asio::awaitable<absl::Status> {
    ran->store(true);
    co_return absl::OkStatus();
  };
  Outcome<absl::Status> out;
  auto task = StrandTask::Spawn(strand, work(ran), out.Done());
  task->Cancel();
  hold.Notify();
  CHECK(absl::IsCancelled(out.Wait()));
  CHECK_FALSE(ran->load());
}

TEST_CASE("strand task: tasks one after another on one strand are each cancelled alone",
          "[async]") {
  // The informer's page fetches: each next one starts as the previous one ends. A stop must reach
  // whichever runs, however the previous one's end and the next one's start interleave.
  Io io;
  auto strand = io.Strand();
  for (int i = 0; i < 500; ++i) {
    absl::Notification first_started;
    Outcome<absl::Status> first;
    auto a = StrandTask::Spawn(strand, Forever(&first_started), first.Done());
    REQUIRE(first_started.WaitForNotificationWithTimeout(absl::Seconds(20)));
    absl::Notification second_started;
    Outcome<absl::Status> second;
    a->Cancel();
    auto b = StrandTask::Spawn(strand, Forever(&second_started), second.Done());
    CHECK(absl::IsCancelled(first.Wait()));
    REQUIRE(second_started.WaitForNotificationWithTimeout(absl::Seconds(20)));
    b->Cancel();
    REQUIRE(absl::IsCancelled(second.Wait()));
  }
}

TEST_CASE("strand task: a coroutine that throws ends with INTERNAL", "[async]") {
  Io io;
  auto work = []() -> asio::awaitable<absl::Status> {
    throw std::runtime_error("a bug");
    co_return absl::OkStatus();
  };
  Outcome<absl::Status> out;
  StrandTask::Spawn(io.Strand(), work(), out.Done());
  absl::Status s = out.Wait();
  CHECK(s.code() == absl::StatusCode::kInternal);
  CHECK(s.message() == "a bug");
}

}  // namespace
}  // namespace kje::async
