#pragma once

// A scripted k8s::Client for unit tests of its callers: every call is recorded and left pending
// until the test completes it. Completions run on the io_context, never inline, as with the real
// client. Only List and Watch are scripted; the other verbs fail with UNIMPLEMENTED.

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/connection_config.h"

namespace kje::testing {

class FakeKubeClient final : public k8s::Client,
                             public std::enable_shared_from_this<FakeKubeClient> {
 public:
  struct Call {
    std::string verb;  // "list", "watch"
    k8s::ResourceRef ref;
    k8s::ListOptions list;
    k8s::WatchOptions watch;
    absl::Time deadline;
    Callback<k8s::ListPage> list_done;
    EventCallback on_event;
    DoneCallback watch_done;
    bool cancelled = false;
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

  void CompleteList(const std::shared_ptr<Call>& call, absl::StatusOr<k8s::ListPage> page) {
    boost::asio::post(
        io_, [call, page = std::move(page)]() mutable { call->list_done(std::move(page)); });
  }
  void SendEvent(const std::shared_ptr<Call>& call, k8s::WatchEvent event) {
    boost::asio::post(io_, [call, event = std::move(event)] { call->on_event(event); });
  }
  void EndWatch(const std::shared_ptr<Call>& call, absl::Status status) {
    boost::asio::post(io_, [call, status = std::move(status)] { call->watch_done(status); });
  }

  const k8s::ConnectionConfig& config() const override { return config_; }

  std::shared_ptr<k8s::CallHandle> List(const k8s::ResourceRef& collection,
                                        const k8s::ListOptions& options, absl::Time deadline,
                                        Callback<k8s::ListPage> done) override {
    auto call = std::make_shared<Call>();
    call->verb = "list";
    call->ref = collection;
    call->list = options;
    call->deadline = deadline;
    call->list_done = std::move(done);
    return Record(call);
  }

  std::shared_ptr<k8s::CallHandle> Watch(const k8s::ResourceRef& collection,
                                         const k8s::WatchOptions& options, absl::Time deadline,
                                         EventCallback on_event, DoneCallback done) override {
    auto call = std::make_shared<Call>();
    call->verb = "watch";
    call->ref = collection;
    call->watch = options;
    call->deadline = deadline;
    call->on_event = std::move(on_event);
    call->watch_done = std::move(done);
    return Record(call);
  }

  std::shared_ptr<k8s::CallHandle> Create(const k8s::ResourceRef&, std::string, absl::Time,
                                          Callback<std::string> done) override {
    return Unimplemented(std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Get(const k8s::ResourceRef&, absl::Time,
                                       Callback<std::string> done) override {
    return Unimplemented(std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Replace(const k8s::ResourceRef&, std::string, absl::Time,
                                           Callback<std::string> done) override {
    return Unimplemented(std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Patch(const k8s::ResourceRef&, k8s::PatchType, std::string,
                                         absl::Time, Callback<std::string> done) override {
    return Unimplemented(std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Delete(const k8s::ResourceRef&, const k8s::DeleteOptions&,
                                          absl::Time, Callback<std::string> done) override {
    return Unimplemented(std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> Log(const k8s::ResourceRef&, const k8s::LogOptions&, absl::Time,
                                       Callback<std::string> done) override {
    return Unimplemented(std::move(done));
  }
  std::shared_ptr<k8s::CallHandle> StreamLog(const k8s::ResourceRef&, const k8s::LogOptions&,
                                             absl::Time, ChunkCallback,
                                             DoneCallback done) override {
    boost::asio::post(io_, [done] { done(absl::UnimplementedError("fake")); });
    return std::make_shared<Handle>(nullptr);
  }
  std::shared_ptr<k8s::CallHandle> Raw(std::string, std::string, std::string, std::string,
                                       k8s::Idempotency, absl::Time,
                                       Callback<k8s::RawResponse> done) override {
    boost::asio::post(io_, [done] { done(absl::UnimplementedError("fake")); });
    return std::make_shared<Handle>(nullptr);
  }

 private:
  struct Handle final : k8s::CallHandle {
    explicit Handle(std::shared_ptr<Call> c) : call(std::move(c)) {}
    void Cancel() override {
      if (call) call->cancelled = true;
    }
    std::shared_ptr<Call> call;
  };

  std::shared_ptr<k8s::CallHandle> Record(std::shared_ptr<Call> call) {
    absl::MutexLock lock(&mu_);
    pending_.push_back(call);
    return std::make_shared<Handle>(std::move(call));
  }

  template <typename T>
  std::shared_ptr<k8s::CallHandle> Unimplemented(Callback<T> done) {
    boost::asio::post(io_, [done] { done(absl::UnimplementedError("fake")); });
    return std::make_shared<Handle>(nullptr);
  }

  boost::asio::io_context& io_;
  k8s::ConnectionConfig config_;
  absl::Mutex mu_;
  std::deque<std::shared_ptr<Call>> pending_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::testing
