#pragma once

// A scripted k8s::Client for unit tests of its callers: every call is recorded and left pending
// until the test completes it. Completions run on the io_context, never inline, as with the real
// client. List, Watch, Get, Create, Patch, Delete and StreamLog are scripted; Replace, Log and Raw
// fail with UNIMPLEMENTED. With complete_on_cancel, Cancel() ends a pending call with kCancelled,
// as the real client does; a call completes once, whatever comes later.

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cstdlib>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
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
    std::string verb;  // "list", "watch", "get", "create", "patch", "delete", "stream_log"
    k8s::ResourceRef ref;
    k8s::ListOptions list;
    k8s::WatchOptions watch;
    k8s::DeleteOptions delete_options;
    k8s::LogOptions log;
    std::string body;  // create / patch
    absl::Time deadline;
    Callback<k8s::ListPage> list_done;
    EventCallback on_event;
    DoneCallback watch_done;  // also the end of stream_log
    Callback<std::string> string_done;
    ChunkCallback on_chunk;
    std::atomic<bool> cancelled = false;
    std::atomic<bool> finished = false;
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

  // Destroys the completion handlers of every call never completed, as destroying an io_context
  // destroys the handlers of the real client's pending operations. A coroutine suspended on a
  // call holds the call's handle, and the call holds the coroutine's handler: without this, a
  // test that ends with a call pending leaks both. Call after the io_context's threads have
  // stopped (a handler's destruction runs the coroutine's destructors).
  void DropPending() {
    std::vector<std::shared_ptr<Call>> calls;
    {
      absl::MutexLock lock(&mu_);
      for (const auto& weak : made_) {
        if (auto call = weak.lock()) calls.push_back(std::move(call));
      }
      made_.clear();
      pending_.clear();
    }
    for (const auto& call : calls) {
      if (call->finished.exchange(true)) continue;
      call->list_done = nullptr;
      call->on_event = nullptr;
      call->watch_done = nullptr;
      call->string_done = nullptr;
      call->on_chunk = nullptr;
    }
  }

  // Completes a get/create/patch/delete.
  void Complete(const std::shared_ptr<Call>& call, absl::StatusOr<std::string> result) {
    boost::asio::post(io_, [call, result = std::move(result)]() mutable {
      if (!call->finished.exchange(true)) call->string_done(std::move(result));
    });
  }
  void SendChunk(const std::shared_ptr<Call>& call, std::string chunk) {
    boost::asio::post(io_, [call, chunk = std::move(chunk)] {
      if (!call->finished) call->on_chunk(chunk);
    });
  }
  void EndStream(const std::shared_ptr<Call>& call, absl::Status status) {
    boost::asio::post(io_, [call, status = std::move(status)] {
      if (!call->finished.exchange(true)) call->watch_done(status);
    });
  }

  void CompleteList(const std::shared_ptr<Call>& call, absl::StatusOr<k8s::ListPage> page) {
    boost::asio::post(io_, [call, page = std::move(page)]() mutable {
      if (!call->finished.exchange(true)) call->list_done(std::move(page));
    });
  }
  void SendEvent(const std::shared_ptr<Call>& call, k8s::WatchEvent event) {
    boost::asio::post(io_, [call, event = std::move(event)] { call->on_event(event); });
  }
  void EndWatch(const std::shared_ptr<Call>& call, absl::Status status) {
    boost::asio::post(io_, [call, status = std::move(status)] {
      if (!call->finished.exchange(true)) call->watch_done(status);
    });
  }

  const k8s::ConnectionConfig& config() const override { return config_; }

  std::shared_ptr<k8s::CallHandle> List(const k8s::ResourceRef& collection,
                                        const k8s::ListOptions& options, absl::Time deadline,
                                        Callback<k8s::ListPage> done) override {
    auto call = NewCall("list", collection, deadline);
    call->list = options;
    call->list_done = std::move(done);
    return Record(call);
  }

  std::shared_ptr<k8s::CallHandle> Watch(const k8s::ResourceRef& collection,
                                         const k8s::WatchOptions& options, absl::Time deadline,
                                         EventCallback on_event, DoneCallback done) override {
    auto call = NewCall("watch", collection, deadline);
    call->watch = options;
    call->on_event = std::move(on_event);
    call->watch_done = std::move(done);
    return Record(call);
  }

  std::shared_ptr<k8s::CallHandle> Create(const k8s::ResourceRef& collection, std::string json,
                                          absl::Time deadline,
                                          Callback<std::string> done) override {
    return RecordString("create", collection, std::move(json), deadline, std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Get(const k8s::ResourceRef& ref, absl::Time deadline,
                                       Callback<std::string> done) override {
    return RecordString("get", ref, "", deadline, std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Replace(const k8s::ResourceRef&, std::string, absl::Time,
                                           Callback<std::string> done) override {
    return Unimplemented(std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Patch(const k8s::ResourceRef& ref, k8s::PatchType,
                                         std::string patch, absl::Time deadline,
                                         Callback<std::string> done) override {
    return RecordString("patch", ref, std::move(patch), deadline, std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Delete(const k8s::ResourceRef& ref,
                                          const k8s::DeleteOptions& options, absl::Time deadline,
                                          Callback<std::string> done) override {
    auto call = NewCall("delete", ref, deadline);
    call->delete_options = options;
    call->string_done = std::move(done);
    return Record(call);
  }
  std::shared_ptr<k8s::CallHandle> Log(const k8s::ResourceRef&, const k8s::LogOptions&, absl::Time,
                                       Callback<std::string> done) override {
    return Unimplemented(std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> StreamLog(const k8s::ResourceRef& pod,
                                             const k8s::LogOptions& options, absl::Time deadline,
                                             ChunkCallback on_chunk, DoneCallback done) override {
    auto call = NewCall("stream_log", pod, deadline);
    call->log = options;
    call->on_chunk = std::move(on_chunk);
    call->watch_done = std::move(done);
    return Record(call);
  }
  std::shared_ptr<k8s::CallHandle> Raw(std::string, std::string, std::string, std::string,
                                       k8s::Idempotency, absl::Time,
                                       Callback<k8s::RawResponse> done) override {
    boost::asio::post(io_, [done] { done(absl::UnimplementedError("fake")); });
    return std::make_shared<Handle>(nullptr, &io_, false);
  }

 private:
  struct Handle final : k8s::CallHandle {
    Handle(std::shared_ptr<Call> c, boost::asio::io_context* io, bool complete)
        : call(std::move(c)), io(io), complete(complete) {}
    void Cancel() override {
      if (!call) return;
      call->cancelled = true;
      if (!complete) return;
      boost::asio::post(*io, [c = call] {
        if (c->finished.exchange(true)) return;
        absl::Status cancelled = absl::CancelledError("cancelled");
        if (c->string_done) c->string_done(cancelled);
        if (c->list_done) c->list_done(cancelled);
        if (c->watch_done) c->watch_done(cancelled);
      });
    }
    std::shared_ptr<Call> call;
    boost::asio::io_context* io;
    bool complete;
  };

  static std::shared_ptr<Call> NewCall(std::string verb, const k8s::ResourceRef& ref,
                                       absl::Time deadline) {
    auto call = std::make_shared<Call>();
    call->verb = std::move(verb);
    call->ref = ref;
    call->deadline = deadline;
    return call;
  }

  std::shared_ptr<k8s::CallHandle> Record(std::shared_ptr<Call> call) {
    absl::MutexLock lock(&mu_);
    pending_.push_back(call);
    made_.push_back(call);
    return std::make_shared<Handle>(std::move(call), &io_, complete_on_cancel_.load());
  }

  std::shared_ptr<k8s::CallHandle> RecordString(std::string verb, const k8s::ResourceRef& ref,
                                                std::string body, absl::Time deadline,
                                                Callback<std::string> done) {
    auto call = NewCall(std::move(verb), ref, deadline);
    call->body = std::move(body);
    call->string_done = std::move(done);
    return Record(call);
  }

  template <typename T>
  std::shared_ptr<k8s::CallHandle> Unimplemented(Callback<T> done) {
    boost::asio::post(io_, [done] { done(absl::UnimplementedError("fake")); });
    return std::make_shared<Handle>(nullptr, &io_, false);
  }

  boost::asio::io_context& io_;
  std::atomic<bool> complete_on_cancel_ = false;
  k8s::ConnectionConfig config_;
  absl::Mutex mu_;
  std::deque<std::shared_ptr<Call>> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<std::weak_ptr<Call>> made_ ABSL_GUARDED_BY(mu_);  // for DropPending
};

}  // namespace kje::testing
