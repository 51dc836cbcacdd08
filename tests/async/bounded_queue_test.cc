#include "async/bounded_queue.h"

#include <boost/asio/awaitable.hpp>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "async/strand_task.h"
#include "async/wakeup.h"
#include "tests/async/io_threads.h"

namespace kje::async {
namespace {

using Io = testing::IoThreads;
using Closing = BoundedQueue<int, Overflow::kCloseOnOverflow>;
using Dropping = BoundedQueue<int, Overflow::kDropAndCount>;

struct Bytes {
  size_t operator()(const std::string& s) const { return s.size(); }
};
using DroppingBytes = BoundedQueue<std::string, Overflow::kDropAndCount, Bytes>;
using ClosingBytes = BoundedQueue<std::string, Overflow::kCloseOnOverflow, Bytes>;

// Runs `call` on a thread of its own and says whether it returned within the time limit: a wake
// run under the queue's lock that calls back into the queue would never return.
template <class F>
bool ReturnsInTime(F call) {
  auto returned = std::make_shared<absl::Notification>();
  std::thread t([call = std::move(call), returned]() mutable {
    call();
    returned->Notify();
  });
  if (returned->WaitForNotificationWithTimeout(absl::Seconds(20))) {
    t.join();
    return true;
  }
  t.detach();  // deadlocked: the test fails, and the process ends with it
  return false;
}

TEST_CASE("bounded queue: close on overflow keeps what it holds and refuses the rest", "[async]") {
  Closing q(3);
  CHECK(q.Push(1));
  CHECK(q.Push(2));
  CHECK(q.Push(3));
  CHECK(q.state() == Closing::State::kOpen);
  CHECK_FALSE(q.Push(4));
  CHECK(q.state() == Closing::State::kOverflowed);
  CHECK_FALSE(q.Push(5));  // overflowed is closed: nothing more, even with room made below
  Closing::Taken taken = q.Take();
  CHECK(taken.items == std::vector<int>{1, 2, 3});
  CHECK(taken.dropped == 0);
  CHECK(taken.ended);
  CHECK_FALSE(q.Push(6));
  q.Close();
  CHECK(q.state() == Closing::State::kOverflowed);  // a close keeps the overflow visible
}

TEST_CASE("bounded queue: drop and count stays open, and reports the drops once", "[async]") {
  Dropping q(3);
  for (int i = 1; i <= 5; ++i) CHECK(q.Push(i) == (i <= 3));
  CHECK(q.state() == Dropping::State::kOpen);
  CHECK(q.size() == 3);
  Dropping::Taken taken = q.Take(2);
  CHECK(taken.items == std::vector<int>{1, 2});
  CHECK(taken.dropped == 2);
  CHECK_FALSE(taken.ended);
  // Room again: the next pushes are kept.
  CHECK(q.Push(6));
  CHECK(q.Push(7));
  CHECK_FALSE(q.Push(8));
  taken = q.Take();
  CHECK(taken.items == std::vector<int>{3, 6, 7});
  CHECK(taken.dropped == 1);
  q.Close();
  CHECK_FALSE(q.Push(9));
  taken = q.Take();
  CHECK(taken.items.empty());
  CHECK(taken.dropped == 0);  // a push after the close is refused, not counted
  CHECK(taken.ended);
  CHECK(q.state() == Dropping::State::kClosed);
}

TEST_CASE("bounded queue: the weigher sets the bound, and a take frees what it took", "[async]") {
  DroppingBytes q(10);
  CHECK(q.Push("aaaa"));
  CHECK(q.Push("bbbb"));
  CHECK_FALSE(q.Push("ccc"));  // 11 > 10
  CHECK(q.Push("dd"));         // exactly 10
  CHECK(q.Push(""));           // weighs nothing
  CHECK(q.weight() == 10);
  CHECK(q.size() == 4);
  DroppingBytes::Taken taken = q.Take(1);
  CHECK(taken.items == std::vector<std::string>{"aaaa"});
  CHECK(taken.dropped == 1);
  CHECK(q.weight() == 6);
  CHECK(q.Push("eeee"));
  CHECK_FALSE(q.Push("f"));
  CHECK(q.Drain() == std::vector<std::string>{"bbbb", "dd", "", "eeee"});
  CHECK(q.weight() == 0);

  ClosingBytes closing(5);
  CHECK(closing.Push("abc"));
  CHECK_FALSE(closing.Push("def"));
  CHECK(closing.state() == ClosingBytes::State::kOverflowed);
}

TEST_CASE("bounded queue: PushAll keeps the order and applies the policy item by item", "[async]") {
  DroppingBytes dropping(6);
  CHECK(dropping.PushAll({"ab", "cdefg", "cd", "ef", "g"}) == 3);
  DroppingBytes::Taken taken = dropping.Take();
  CHECK(taken.items == std::vector<std::string>{"ab", "cd", "ef"});
  CHECK(taken.dropped == 2);

  Closing closing(2);
  CHECK(closing.PushAll({1, 2, 3, 4}) == 2);
  CHECK(closing.state() == Closing::State::kOverflowed);
  CHECK(closing.Drain() == std::vector<int>{1, 2});
}

TEST_CASE("bounded queue: a wake runs once, for an item or the end, at once if one is there",
          "[async]") {
  Dropping q(1);
  int woken = 0;
  auto count = [&woken] { ++woken; };
  q.OnReady(count);
  CHECK(q.Push(1));
  CHECK(woken == 1);
  CHECK_FALSE(q.Push(2));  // the wake has run: none is set now
  CHECK(woken == 1);
  q.OnReady(count);  // something to take: at once
  CHECK(woken == 2);
  Dropping::Taken taken = q.Take();
  CHECK(taken.items == std::vector<int>{1});
  CHECK(taken.dropped == 1);
  q.OnReady(count);  // nothing to take: it waits
  CHECK(woken == 2);
  CHECK(q.Push(3));
  CHECK(woken == 3);
  q.Take();
  q.OnReady(count);
  q.Close();
  CHECK(woken == 4);
  q.OnReady(count);  // ended: at once
  CHECK(woken == 5);
}

TEST_CASE("bounded queue: a dropped item wakes the reader, who learns how many it missed",
          "[async]") {
  DroppingBytes q(3);
  int woken = 0;
  q.OnReady([&woken] { ++woken; });
  CHECK_FALSE(q.Push("abcd"));  // heavier than the whole bound
  CHECK(woken == 1);
  q.OnReady([&woken] { ++woken; });  // the drop is news until taken
  CHECK(woken == 2);
  DroppingBytes::Taken taken = q.Take();
  CHECK(taken.items.empty());
  CHECK(taken.dropped == 1);
  CHECK_FALSE(taken.ended);
  q.OnReady([&woken] { ++woken; });
  CHECK(woken == 2);
}

TEST_CASE("bounded queue: forgotten wakes are not called", "[async]") {
  Closing q(1);
  int woken = 0;
  q.OnReady([&woken] { ++woken; });
  q.OnEnd([&woken] { ++woken; });
  q.ForgetWakes();
  CHECK(q.Push(1));
  CHECK_FALSE(q.Push(2));
  q.Close();
  CHECK(woken == 0);
  CHECK(q.state() == Closing::State::kOverflowed);
}

TEST_CASE("bounded queue: close wakes the reader and the end waiter", "[async]") {
  Closing q(4);
  absl::Notification ready;
  absl::Notification ended;
  q.OnReady([&] { ready.Notify(); });
  q.OnEnd([&] { ended.Notify(); });
  std::thread closer([&] { q.Close(); });
  CHECK(ready.WaitForNotificationWithTimeout(absl::Seconds(20)));
  CHECK(ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
  closer.join();
  CHECK(q.state() == Closing::State::kClosed);
  CHECK(q.Take().ended);
  bool late = false;
  q.OnEnd([&] { late = true; });  // already ended: at once
  CHECK(late);
}

// What a reader coroutine saw when it woke.
struct Seen {
  Closing::State state = Closing::State::kOpen;
  std::vector<int> items;
};

// Waits, as a stream's loop does while it writes, for the end of `q` only (not its items).
asio::awaitable<absl::Status> WaitForEnd(Closing* q, absl::Notification* waiting, Seen* seen) {
  auto wakeup = Wakeup::New();
  q->OnEnd(wakeup->Waker());
  waiting->Notify();
  while (q->state() == Closing::State::kOpen) {
    co_await wakeup->Wait();
  }
  q->ForgetWakes();
  seen->state = q->state();
  seen->items = q->Drain();
  co_return absl::OkStatus();
}

TEST_CASE("bounded queue: an overflow while the reader waits wakes it, and it sees the overflow",
          "[async]") {
  Io io;
  for (int round = 0; round < 50; ++round) {
    Closing q(3);
    absl::Notification waiting;
    absl::Notification done;
    Seen seen;
    StrandTask::Spawn(io.Strand(), WaitForEnd(&q, &waiting, &seen),
                      [&done](const absl::Status&) { done.Notify(); });
    REQUIRE(waiting.WaitForNotificationWithTimeout(absl::Seconds(20)));
    std::thread producer([&] {
      for (int i = 0; i < 4; ++i) q.Push(i);
    });
    producer.join();
    REQUIRE(done.WaitForNotificationWithTimeout(absl::Seconds(20)));
    CHECK(seen.state == Closing::State::kOverflowed);
    CHECK(seen.items == std::vector<int>{0, 1, 2});
  }
}

// Takes everything `producers` threads push (`per_producer` each, as producer * per_producer +
// sequence) until the queue closes, waking on OnReady as a stream's loop does.
asio::awaitable<absl::Status> ReadAll(Closing* q, std::vector<int>* got) {
  auto wakeup = Wakeup::New();
  for (;;) {
    Closing::Taken taken = q->Take(7);  // small batches: order must hold across them
    got->insert(got->end(), taken.items.begin(), taken.items.end());
    if (taken.ended) co_return absl::OkStatus();
    if (!taken.items.empty()) continue;
    q->OnReady(wakeup->Waker());
    co_await wakeup->Wait();
  }
}

TEST_CASE("bounded queue: items come out in the order each producer pushed them", "[async]") {
  Io io;
  constexpr int kProducers = 4;
  constexpr int kPerProducer = 2000;
  Closing q(static_cast<size_t>(kProducers) *
            kPerProducer);  // never full: this is about order, not bounds
  std::vector<int> got;
  absl::Notification done;
  StrandTask::Spawn(io.Strand(), ReadAll(&q, &got),
                    [&done](const absl::Status&) { done.Notify(); });
  std::vector<std::thread> producers;
  producers.reserve(kProducers);
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&q, p] {
      for (int i = 0; i < kPerProducer; ++i) REQUIRE(q.Push(p * kPerProducer + i));
    });
  }
  for (std::thread& t : producers) t.join();
  q.Close();
  REQUIRE(done.WaitForNotificationWithTimeout(absl::Seconds(60)));
  REQUIRE(got.size() == static_cast<size_t>(kProducers * kPerProducer));
  std::vector<int> next(kProducers, 0);
  for (int v : got) {
    int p = v / kPerProducer;
    REQUIRE(v % kPerProducer == next[p]);
    ++next[p];
  }
}

TEST_CASE("bounded queue: a wake never runs under the lock, so it may use the queue", "[async]") {
  SECTION("a wake that pushes again") {
    Dropping q(8);
    q.OnReady([&q] { q.Push(2); });
    CHECK(ReturnsInTime([&q] { q.Push(1); }));
    CHECK(q.Drain() == std::vector<int>{1, 2});
  }
  SECTION("a wake run at once, inline, that pushes") {
    Dropping q(8);
    q.Push(1);
    CHECK(ReturnsInTime([&q] { q.OnReady([&q] { q.Push(2); }); }));
    CHECK(q.Drain() == std::vector<int>{1, 2});
  }
  SECTION("wakes of an overflow that read and re-arm") {
    Closing q(1);
    q.Push(1);
    Closing::State seen = Closing::State::kOpen;
    size_t size = 0;
    q.OnReady([&q, &size] { size = q.size(); });
    q.OnEnd([&q, &seen] {
      seen = q.state();
      q.OnEnd([] {});
    });
    CHECK(ReturnsInTime([&q] { q.Push(2); }));
    CHECK(seen == Closing::State::kOverflowed);
    CHECK(size == 1);
  }
  SECTION("wakes of a close that drain and close again") {
    Closing q(4);
    q.Push(1);
    q.Take();
    std::vector<int> drained;
    q.OnReady([&q, &drained] {
      drained = q.Drain();
      q.Close();
    });
    q.OnEnd([&q] { q.ForgetWakes(); });
    CHECK(ReturnsInTime([&q] { q.Close(); }));
    CHECK(drained.empty());
    CHECK(q.state() == Closing::State::kClosed);
  }
  SECTION("a wake dropped by ForgetWakes that uses the queue as it goes") {
    auto q = std::make_shared<Dropping>(4);
    struct UsesQueueWhenDestroyed {
      std::shared_ptr<Dropping> q;
      ~UsesQueueWhenDestroyed() { q->size(); }
    };
    auto holder = std::make_shared<UsesQueueWhenDestroyed>(UsesQueueWhenDestroyed{q});
    q->OnReady([holder] {});
    holder.reset();
    CHECK(ReturnsInTime([q] { q->ForgetWakes(); }));
  }
}

}  // namespace
}  // namespace kje::async
