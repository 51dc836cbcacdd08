#include "async/one_shot.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "async/strand_task.h"
#include "tests/async/io_threads.h"

namespace kje::async {
namespace {

using Io = testing::IoThreads;

// One wait on a strand of `io`, its outcome kept for the test's thread.
template <class T>
class Waiter {
 public:
  Waiter(Io& io, std::shared_ptr<OneShot<T>> shot, absl::Time until) {
    task_ = StrandTask::Spawn(io.Strand(), Run(std::move(shot), until, this),
                              [this](const absl::Status& ended) {
                                ended_ = ended;
                                done_.Notify();
                              });
  }

  // Set once the coroutine is about to wait (it may not have suspended yet).
  bool Waiting() { return waiting_.WaitForNotificationWithTimeout(absl::Seconds(20)); }
  bool Done() { return done_.WaitForNotificationWithTimeout(absl::Seconds(20)); }
  void Cancel() { task_->Cancel(); }
  // Valid once Done: what Wait returned (unset when Asio threw instead), and how the task ended.
  const std::optional<absl::StatusOr<T>>& result() const { return result_; }
  const absl::Status& ended() const { return ended_; }

 private:
  static asio::awaitable<absl::Status> Run(std::shared_ptr<OneShot<T>> shot, absl::Time until,
                                           Waiter* self) {
    self->waiting_.Notify();
    self->result_ = co_await shot->Wait(until);
    co_return self->result_->status();
  }

  absl::Notification waiting_;
  absl::Notification done_;
  std::optional<absl::StatusOr<T>> result_;
  absl::Status ended_;
  std::shared_ptr<StrandTask> task_;
};

TEST_CASE("one-shot: a value set before the waiter arrives is handed over at once", "[async]") {
  Io io;
  auto shot = OneShot<std::unique_ptr<int>>::New();
  CHECK(shot->Set(std::make_unique<int>(7)));
  CHECK_FALSE(shot->Set(std::make_unique<int>(8)));
  CHECK(shot->is_set());
  Waiter<std::unique_ptr<int>> waiter(io, shot, absl::InfiniteFuture());
  REQUIRE(waiter.Done());
  REQUIRE(waiter.result().has_value());
  REQUIRE(waiter.result()->ok());
  CHECK(*waiter.result()->value() == 7);  // the first value, not the refused one

  // Handed over means taken: a second wait is told so instead of waiting forever.
  Waiter<std::unique_ptr<int>> again(io, shot, absl::InfiniteFuture());
  REQUIRE(again.Done());
  REQUIRE(again.result().has_value());
  CHECK(again.result()->status().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("one-shot: a value set from another thread resumes the waiter", "[async]") {
  Io io;
  for (int round = 0; round < 200; ++round) {
    auto shot = OneShot<int>::New();
    Waiter<int> waiter(io, shot, absl::InfiniteFuture());
    REQUIRE(waiter.Waiting());
    std::thread setter([&] { CHECK(shot->Set(round)); });
    setter.join();
    REQUIRE(waiter.Done());
    REQUIRE(waiter.result().has_value());
    REQUIRE(waiter.result()->ok());
    CHECK(**waiter.result() == round);
  }
}

TEST_CASE("one-shot: a value set after the waiter's deadline is kept for the next wait",
          "[async]") {
  Io io;
  auto shot = OneShot<int>::New();
  Waiter<int> late(io, shot, absl::Now() + absl::Milliseconds(1));
  REQUIRE(late.Done());
  REQUIRE(late.result().has_value());
  CHECK(late.result()->status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK_FALSE(shot->is_set());

  // Nobody had set it: this Set is the one that counts.
  CHECK(shot->Set(42));
  CHECK_FALSE(shot->Set(43));
  Waiter<int> next(io, shot, absl::Now() + absl::Milliseconds(1));
  REQUIRE(next.Done());
  REQUIRE(next.result().has_value());
  REQUIRE(next.result()->ok());
  CHECK(**next.result() == 42);
}

TEST_CASE("one-shot: a deadline already passed still returns a value that is there", "[async]") {
  Io io;
  auto shot = OneShot<int>::New();
  CHECK(shot->Set(5));
  Waiter<int> waiter(io, shot, absl::InfinitePast());
  REQUIRE(waiter.Done());
  REQUIRE(waiter.result().has_value());
  REQUIRE(waiter.result()->ok());
  CHECK(**waiter.result() == 5);
}

TEST_CASE("one-shot: of many threads setting at once exactly one wins, and its value arrives",
          "[async]") {
  Io io;
  constexpr int kSetters = 8;
  for (int round = 0; round < 50; ++round) {
    auto shot = OneShot<int>::New();
    Waiter<int> waiter(io, shot, absl::InfiniteFuture());
    absl::Notification go;
    std::atomic<int> winners{0};
    std::atomic<int> winner{-1};
    std::vector<std::thread> setters;
    setters.reserve(kSetters);
    for (int i = 0; i < kSetters; ++i) {
      setters.emplace_back([&, i] {
        go.WaitForNotification();
        if (shot->Set(i)) {
          ++winners;
          winner = i;
        }
      });
    }
    go.Notify();
    for (std::thread& t : setters) t.join();
    CHECK(winners.load() == 1);
    REQUIRE(waiter.Done());
    REQUIRE(waiter.result().has_value());
    REQUIRE(waiter.result()->ok());
    CHECK(**waiter.result() == winner.load());
  }
}

TEST_CASE("one-shot: cancelling the waiting coroutine ends its wait, and the value still comes",
          "[async]") {
  Io io;
  auto shot = OneShot<int>::New();
  Waiter<int> waiter(io, shot, absl::InfiniteFuture());
  REQUIRE(waiter.Waiting());
  waiter.Cancel();
  REQUIRE(waiter.Done());
  // Wait returned CANCELLED, or Asio threw at it: the task ends CANCELLED either way.
  CHECK(waiter.ended().code() == absl::StatusCode::kCancelled);
  if (waiter.result().has_value()) {
    CHECK(waiter.result()->status().code() == absl::StatusCode::kCancelled);
  }
  CHECK(shot->Set(9));
  Waiter<int> next(io, shot, absl::InfiniteFuture());
  REQUIRE(next.Done());
  REQUIRE(next.result().has_value());
  REQUIRE(next.result()->ok());
  CHECK(**next.result() == 9);
}

}  // namespace
}  // namespace kje::async
