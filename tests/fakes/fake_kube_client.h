#pragma once

// A scripted k8s::Client for unit tests of its callers: every call is recorded and left pending
// until the test completes it. A call resumes its coroutine on the coroutine's executor, never
// inline, as the real client does. List, Watch, Get, Create, Patch, Delete and StreamLog are
// scripted; Replace, Log and Raw fail with UNIMPLEMENTED. A cancellation of the awaiting coroutine
// marks the call cancelled; with complete_on_cancel it also ends the call with kCancelled, as the
// real client does, and without it the call stays pending until the test completes it. A call
// completes once, whatever comes later.

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "async/wakeup.h"
#include "k8s/client.h"
#include "k8s/connection_config.h"

namespace kje::testing {

// A JSON text as the client hands it over, parsed; aborts the test binary on text that isn't JSON.
inline k8s::ParsedJson Json(std::string_view text) {
  auto parsed = k8s::ParsedJson::Parse(text);
  if (!parsed.ok()) std::abort();
  return *std::move(parsed);
}

inline std::vector<k8s::ParsedJson> Items(std::initializer_list<std::string_view> texts) {
  std::vector<k8s::ParsedJson> items;
  for (std::string_view t : texts) items.push_back(Json(t));
  return items;
}

class FakeKubeClient final : public k8s::Client,
                             public std::enable_shared_from_this<FakeKubeClient> {
 public:
  struct Call {
    // "list", "watch", "get", "create", "patch", "delete", "stream_log", "proxy_get"
    std::string verb;
    k8s::ResourceRef ref;
    k8s::ListOptions list;
    k8s::WatchOptions watch;
    k8s::DeleteOptions delete_options;
    k8s::LogOptions log;
    std::string body;    // create / patch
    int proxy_port = 0;  // proxy_get
    std::string proxy_path;
    size_t proxy_max_body_bytes = 0;
    absl::Time deadline;
    std::atomic<bool> cancelled = false;
    std::atomic<bool> finished = false;

    // Waits (up to `timeout`) until the fake saw the awaiting coroutine's cancellation: it sees it
    // on the io_context, after the canceller's thread returned.
    bool WaitCancelled(absl::Duration timeout = absl::Seconds(10)) {
      return cancel_seen.WaitForNotificationWithTimeout(timeout);
    }
    absl::Notification cancel_seen;

    // What the test sent, in order: watch events, log chunks, then the end. Guarded by mu.
    using Item = std::variant<k8s::WatchEvent, std::string>;
    absl::Mutex mu;
    std::deque<Item> items ABSL_GUARDED_BY(mu);
    std::optional<absl::StatusOr<std::string>> result ABSL_GUARDED_BY(mu);
    std::optional<absl::StatusOr<k8s::ListPage>> page ABSL_GUARDED_BY(mu);
    std::optional<absl::Status> end ABSL_GUARDED_BY(mu);
    std::shared_ptr<async::Wakeup> wakeup = async::Wakeup::New();
  };

  explicit FakeKubeClient(boost::asio::io_context& io) : io_(io) {}

  // Waits (up to `timeout`) for the next call not yet taken, and takes it.
  std::shared_ptr<Call> NextCall(absl::Duration timeout = absl::Seconds(10)) {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return !pending_.empty(); };
    if (!mu_.AwaitWithTimeout(absl::Condition(&ready), timeout)) return nullptr;
    auto call = pending_.front();
    pending_.pop_front();
    return call;
  }

  // Whether a call is pending right now (after a Barrier, "no new call was made").
  bool HasPendingCall() {
    absl::MutexLock lock(&mu_);
    return !pending_.empty();
  }

  // Runs on the io_context after everything posted before it: once it returns, every
  // completion delivered earlier has been handled.
  void Barrier() {
    absl::Notification done;
    boost::asio::post(io_, [&] { done.Notify(); });
    done.WaitForNotification();
  }

  void set_complete_on_cancel(bool on) { complete_on_cancel_ = on; }

  // How many coroutines awaiting a call of this fake still exist (suspended or running): each
  // counts from its call until its frame is destroyed, so a frame that is never freed keeps it
  // above zero. A stop that cancels its calls must bring it back to zero.
  int64_t live_calls() {
    absl::MutexLock lock(&mu_);
    return live_;
  }
  // Waits (up to `timeout`) until no coroutine awaits a call of this fake.
  bool WaitNoLiveCalls(absl::Duration timeout = absl::Seconds(10)) {
    absl::MutexLock lock(&mu_);
    auto none = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return live_ == 0; };
    return mu_.AwaitWithTimeout(absl::Condition(&none), timeout);
  }

  // For the tests' shutdown, once the code under test was stopped and before its io_context
  // stops: every call not finished ends with CANCELLED (as the real client ends a cancelled
  // request), and so does every call made from now on. The coroutines awaiting them run to their
  // end, and with them the work co_spawn holds on the io_context, which can then run out of work.
  void EndEveryCall() {
    std::vector<std::shared_ptr<Call>> all;
    {
      absl::MutexLock lock(&mu_);
      ending_ = true;
      all = all_;
    }
    for (const auto& call : all) EndCall(call);
  }

  // For the tests' shutdown, once the io_context has stopped: a coroutine suspended on a call of
  // this fake waits in the call's wake-up, not in the io_context, and the call is held by that
  // coroutine's frame, so neither would ever be freed. Each call's wake-up is fired: its waiter
  // moves to the stopped io_context's queue, and is destroyed with it.
  void DropPending() {
    std::vector<std::shared_ptr<Call>> all;
    {
      absl::MutexLock lock(&mu_);
      pending_.clear();
      all.swap(all_);
    }
    for (const auto& call : all) call->wakeup->Fire();
  }

  // Completes a get/create/patch/delete.
  void Complete(const std::shared_ptr<Call>& call, absl::StatusOr<std::string> result) {
    Deliver(call, [&](Call& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
      if (!c.result) c.result = std::move(result);
    });
  }
  void SendChunk(const std::shared_ptr<Call>& call, std::string chunk) {
    // Built in place as the string alternative: GCC 12 takes a moved variant's other alternative
    // for uninitialized once this is inlined deep enough (-Wmaybe-uninitialized).
    Deliver(call, [&](Call& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
      c.items.emplace_back(std::in_place_type<std::string>, std::move(chunk));
    });
  }
  void EndStream(const std::shared_ptr<Call>& call, absl::Status status) {
    Deliver(call, [&](Call& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
      if (!c.end) c.end = std::move(status);
    });
  }
  void CompleteList(const std::shared_ptr<Call>& call, absl::StatusOr<k8s::ListPage> page) {
    Deliver(call, [&](Call& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
      if (!c.page) c.page = std::move(page);
    });
  }
  void SendEvent(const std::shared_ptr<Call>& call, k8s::WatchEvent event) {
    Deliver(call, [&](Call& c)
                      ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) { c.items.push_back(std::move(event)); });
  }
  void EndWatch(const std::shared_ptr<Call>& call, absl::Status status) {
    EndStream(call, std::move(status));
  }

  const k8s::ConnectionConfig& config() const override { return config_; }

  Awaitable<k8s::ListPage> List(k8s::ResourceRef collection, k8s::ListOptions options,
                                absl::Time deadline) override {
    auto call = NewCall("list", std::move(collection), deadline);
    call->list = std::move(options);
    Record(call);
    auto waiting = Await<k8s::ListPage>(call, [](Call& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
      return c.page ? std::optional<absl::StatusOr<k8s::ListPage>>(*std::move(c.page))
                    : std::nullopt;
    });
    co_return co_await std::move(waiting);
  }

  boost::asio::awaitable<absl::Status> Watch(k8s::ResourceRef collection, k8s::WatchOptions options,
                                             absl::Time deadline, EventCallback on_event) override {
    auto call = NewCall("watch", std::move(collection), deadline);
    call->watch = std::move(options);
    Record(call);
    auto streaming = Stream(call, [&on_event](const Call::Item& item) {
      if (const auto* event = std::get_if<k8s::WatchEvent>(&item)) on_event(*event);
    });
    co_return co_await std::move(streaming);
  }

  Awaitable<std::string> Create(k8s::ResourceRef collection, std::string json,
                                absl::Time deadline) override {
    return String("create", std::move(collection), std::move(json), deadline);
  }
  Awaitable<std::string> CreateDryRun(k8s::ResourceRef collection, std::string json,
                                      absl::Time deadline) override {
    return String("create_dry_run", std::move(collection), std::move(json), deadline);
  }
  Awaitable<std::string> Get(k8s::ResourceRef ref, absl::Time deadline) override {
    return String("get", std::move(ref), "", deadline);
  }
  Awaitable<std::string> Replace(k8s::ResourceRef, std::string, absl::Time) override {
    co_return absl::UnimplementedError("fake");
  }
  Awaitable<std::string> Patch(k8s::ResourceRef ref, k8s::PatchType, std::string patch,
                               absl::Time deadline) override {
    return String("patch", std::move(ref), std::move(patch), deadline);
  }
  Awaitable<std::string> Delete(k8s::ResourceRef ref, k8s::DeleteOptions options,
                                absl::Time deadline) override {
    auto call = NewCall("delete", std::move(ref), deadline);
    call->delete_options = std::move(options);
    Record(call);
    auto waiting = AwaitString(call);
    co_return co_await std::move(waiting);
  }
  Awaitable<std::string> Log(k8s::ResourceRef, k8s::LogOptions, absl::Time) override {
    co_return absl::UnimplementedError("fake");
  }
  boost::asio::awaitable<absl::Status> StreamLog(k8s::ResourceRef pod, k8s::LogOptions options,
                                                 absl::Time deadline,
                                                 ChunkCallback on_chunk) override {
    auto call = NewCall("stream_log", std::move(pod), deadline);
    call->log = std::move(options);
    Record(call);
    auto streaming = Stream(call, [&on_chunk](const Call::Item& item) {
      if (const auto* chunk = std::get_if<std::string>(&item)) on_chunk(*chunk);
    });
    co_return co_await std::move(streaming);
  }
  Awaitable<k8s::ProxyResponse> ProxyGet(k8s::ResourceRef pod, int port, std::string path,
                                         size_t max_body_bytes, absl::Time deadline) override {
    auto call = NewCall("proxy_get", std::move(pod), deadline);
    call->proxy_port = port;
    call->proxy_path = std::move(path);
    call->proxy_max_body_bytes = max_body_bytes;
    Record(call);
    auto waiting = AwaitString(call);
    auto answer = co_await std::move(waiting);
    if (!answer.ok()) co_return answer.status();
    // The scripted answer is the body of a 200 text/html page.
    co_return k8s::ProxyResponse{200, "text/html", "", *std::move(answer)};
  }
  Awaitable<k8s::RawResponse> Raw(std::string, std::string, std::string, std::string,
                                  k8s::Idempotency, absl::Time) override {
    co_return absl::UnimplementedError("fake");
  }

 private:
  template <class F>
  static void Deliver(const std::shared_ptr<Call>& call, F change) {
    {
      absl::MutexLock lock(&call->mu);
      change(*call);
    }
    call->wakeup->Fire();
  }

  static std::shared_ptr<Call> NewCall(std::string verb, k8s::ResourceRef ref,
                                       absl::Time deadline) {
    auto call = std::make_shared<Call>();
    call->verb = std::move(verb);
    call->ref = std::move(ref);
    call->deadline = deadline;
    return call;
  }

  void Record(const std::shared_ptr<Call>& call) {
    bool ending = false;
    {
      absl::MutexLock lock(&mu_);
      ending = ending_;
      pending_.push_back(call);
      all_.push_back(call);
    }
    if (ending) EndCall(call);
  }

  // Whichever answer the call's verb takes, CANCELLED, unless it has one.
  static void EndCall(const std::shared_ptr<Call>& call) {
    Deliver(call, [](Call& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
      const absl::Status cancelled = absl::CancelledError("the test is shutting down");
      if (!c.page) c.page = cancelled;
      if (!c.result) c.result = cancelled;
      if (!c.end) c.end = cancelled;
    });
  }

  // Counts the coroutine whose frame holds it (live_calls).
  class LiveCall {
   public:
    explicit LiveCall(FakeKubeClient& fake) : fake_(fake.shared_from_this()) {
      absl::MutexLock lock(&fake_->mu_);
      ++fake_->live_;
    }
    LiveCall(const LiveCall&) = delete;
    LiveCall& operator=(const LiveCall&) = delete;
    ~LiveCall() {
      absl::MutexLock lock(&fake_->mu_);
      --fake_->live_;
    }

   private:
    const std::shared_ptr<FakeKubeClient> fake_;
  };

  // Waits for the test's next delivery to the call. True: the awaiting coroutine was cancelled
  // and, with complete_on_cancel, the call ends so. The cancellation is seen here, in the child
  // coroutine: once cancelled, Asio throws at the parent's next co_await. Without
  // complete_on_cancel the fake keeps waiting with that throw switched off (Finish restores it).
  boost::asio::awaitable<bool> WaitMore(Call& call) {
    if (!call.cancelled) {
      auto state = co_await boost::asio::this_coro::cancellation_state;
      if (state.cancelled() == boost::asio::cancellation_type::none) {
        auto waiting = call.wakeup->Wait();
        co_await std::move(waiting);
        if (state.cancelled() == boost::asio::cancellation_type::none) co_return false;
      }
      call.cancelled = true;
      call.cancel_seen.Notify();
      if (complete_on_cancel_) co_return true;
      co_await boost::asio::this_coro::throw_if_cancelled(false);
      co_return false;
    }
    auto waiting = call.wakeup->Wait();
    co_await std::move(waiting);
    co_return false;
  }

  static boost::asio::awaitable<void> Finish(Call& call, bool throws) {
    call.finished = true;
    co_await boost::asio::this_coro::throw_if_cancelled(throws);
  }

  // Waits until `take(call)` (under the call's lock) gives the result.
  template <class T, class Take>
  Awaitable<T> Await(std::shared_ptr<Call> call, Take take) {
    LiveCall live(*this);
    const bool throws = co_await boost::asio::this_coro::throw_if_cancelled();
    for (;;) {
      std::optional<absl::StatusOr<T>> got;
      {
        absl::MutexLock lock(&call->mu);
        got = take(*call);
      }
      if (!got) {
        auto more = WaitMore(*call);
        if (co_await std::move(more)) got = absl::CancelledError("cancelled");
      }
      if (got) {
        co_await Finish(*call, throws);
        co_return *std::move(got);
      }
    }
  }

  Awaitable<std::string> AwaitString(std::shared_ptr<Call> call) {
    return Await<std::string>(std::move(call), [](Call& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
      return c.result ? std::optional<absl::StatusOr<std::string>>(*std::move(c.result))
                      : std::nullopt;
    });
  }

  Awaitable<std::string> String(std::string verb, k8s::ResourceRef ref, std::string body,
                                absl::Time deadline) {
    auto call = NewCall(std::move(verb), std::move(ref), deadline);
    call->body = std::move(body);
    Record(call);
    return AwaitString(std::move(call));
  }

  // Hands the items the test sends to `deliver` (outside the call's lock), one at a time on the
  // awaiting coroutine's executor, until the test ends the stream.
  template <class Deliver>
  boost::asio::awaitable<absl::Status> Stream(std::shared_ptr<Call> call, Deliver deliver) {
    LiveCall live(*this);
    const bool throws = co_await boost::asio::this_coro::throw_if_cancelled();
    for (;;) {
      std::deque<Call::Item> items;
      std::optional<absl::Status> end;
      {
        absl::MutexLock lock(&call->mu);
        items.swap(call->items);
        end = call->end;
      }
      for (const Call::Item& item : items) deliver(item);
      if (!end) {
        auto more = WaitMore(*call);
        if (co_await std::move(more)) end = absl::CancelledError("cancelled");
      }
      if (end) {
        co_await Finish(*call, throws);
        co_return *end;
      }
    }
  }

  boost::asio::io_context& io_;
  std::atomic<bool> complete_on_cancel_ = false;
  k8s::ConnectionConfig config_;
  absl::Mutex mu_;
  std::deque<std::shared_ptr<Call>> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Call>> all_ ABSL_GUARDED_BY(mu_);  // every call, for DropPending
  int64_t live_ ABSL_GUARDED_BY(mu_) = 0;
  bool ending_ ABSL_GUARDED_BY(mu_) = false;  // EndEveryCall
};

}  // namespace kje::testing
