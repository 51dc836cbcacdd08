#pragma once

// The gRPC edge's reactors (job_executor_service.cc's handlers make them): what a call's reactor
// shares with every other, the unary one whose work runs in the executor, and the server-streaming
// one an executor coroutine writes through. Internal to server/.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/tsan.h"
#include "executor/job_executor.h"
#include "server/admission.h"
#include "server/rpc_context.h"
#include "server/status_mapping.h"

namespace kje::server {

// What every reactor of ours shares, unary or streaming: it lives until both gRPC is done with it
// (OnDone) and the code that started the work has attached the work's cancel handle, whichever is
// last, since the work may finish, and gRPC call OnDone, before Attach runs. A cancel from gRPC
// (the caller gave up, its deadline passed, the server is shutting down) reaches the work however
// early it comes.
//
// Who may touch a reactor, and until when. The threads that do are three: the handler's (it makes
// the reactor and attaches the work), the work's completion (an io thread: StartWrite and the one
// Finish) and gRPC's (the reactions). The reactor is freed by whichever of OnDone and Attach comes
// last, and OnDone is gRPC's last reaction: gRPC runs it only after the handler has returned the
// reactor, after Finish has been called, and after every other reaction of the call has returned.
// So what must hold is that no code of ours touches the reactor after the call that lets gRPC run
// OnDone:
// - Finish (in Complete and End) is the last thing either does: the status is moved into it, the
//   line is a value of its own (RpcContext::FinishLine keeps nothing of the call's), and the
//   completion callbacks of the handlers below end with Complete or End and hold nothing else of
//   the reactor's. The admission ticket is given back before Finish.
// - StartWrite hands message_ to gRPC, which serialises it before it returns; the next Write comes
//   only after OnWriteDone has run `written` (one write in flight), and End after a write that is
//   still out is allowed (gRPC sends the status after it): message_ is not touched again.
// - A reaction (OnCancel, OnWriteDone) touches the reactor only until it returns, and OnDone comes
//   after it returns.
// - Attach's own access ends with the reference it gives up: an atomic read-modify-write, which
//   orders it before the delete by whichever thread drops the last reference.
// gRPC's ordering of Finish and the reactions before OnDone lives in its uninstrumented library,
// where ThreadSanitizer can't see it: each hand-off to gRPC (HandOff) and the end of each reaction
// (Reaction) releases the reactor's address, and each reaction acquires it first, which tells
// ThreadSanitizer the same order gRPC keeps. The stress test of tests/server runs thousands of
// calls that end while their callers cancel, under ThreadSanitizer in make test-tsan, and checks
// that every reactor made was freed once.
class RpcLifetime {
 public:
  RpcLifetime(grpc::CallbackServerContext* ctx, std::string_view method)
      : rpc_(ctx, method), deadline_(absl::FromChrono(ctx->deadline())) {
    live_.fetch_add(1, std::memory_order_relaxed);
    // The reactor goes to gRPC when the handler returns it.
    HandOff();
  }
  virtual ~RpcLifetime() { live_.fetch_sub(1, std::memory_order_relaxed); }

  // Reactors made and not yet freed, in this process.
  static int64_t Live() { return live_.load(std::memory_order_relaxed); }

  absl::Time Deadline() const { return deadline_; }

  // A field for the call's one `rpc finished` line (RpcContext::Note).
  void Note(std::string_view key, std::string value) { rpc_.Note(key, std::move(value)); }

  // The call's place under the global bounds, given back when the work has answered (before the
  // caller sees the answer, so a caller that calls again at once finds the place free).
  void Hold(Admission::Ticket ticket) { ticket_ = std::move(ticket); }

  // Hands over the work's cancel handle (null when there is no work) and gives up the starter's
  // reference.
  void Attach(const std::shared_ptr<executor::RpcHandle>& handle) {
    bool cancel = false;
    {
      absl::MutexLock lock(&mu_);
      handle_ = handle;
      cancel = cancelled_;
    }
    if (cancel && handle) handle->Cancel();
    Release();
  }

 protected:
  // For the span of one reaction (a gRPC thread): what came before the reaction happens before
  // it, and what it did happens before OnDone.
  class Reaction {
   public:
    explicit Reaction(const RpcLifetime* r) : r_(r) { KJE_TSAN_ACQUIRE(r_); }
    ~Reaction() { KJE_TSAN_RELEASE(r_); }
    Reaction(const Reaction&) = delete;
    Reaction& operator=(const Reaction&) = delete;

   private:
    const RpcLifetime* r_;
  };

  RpcContext& rpc() { return rpc_; }
  // Called once, by the one answer (the work's completion comes after Hold, on whatever thread).
  void GiveBackPlace() { ticket_ = Admission::Ticket(); }
  // Right before a call that lets gRPC run reactions on its threads (Finish, StartWrite).
  void HandOff() const { KJE_TSAN_RELEASE(this); }

  // From the reactor's OnCancel: the handle is called outside the lock.
  void CancelWork() {
    Reaction reaction(this);
    std::shared_ptr<executor::RpcHandle> handle;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      handle = handle_;
    }
    if (handle) handle->Cancel();
  }

  // From the reactor's OnDone: gRPC's reference. No Reaction: the reactor may be gone after it.
  void Done() {
    KJE_TSAN_ACQUIRE(this);
    Release();
  }

 private:
  void Release() {
    if (refs_.fetch_sub(1) == 1) delete this;
  }

  static inline std::atomic<int64_t> live_{0};  // NOLINT: one count for the process

  RpcContext rpc_;
  const absl::Time deadline_;
  Admission::Ticket ticket_;
  std::atomic<int> refs_{2};  // gRPC's (released by OnDone) and the starter's (by Attach)
  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<executor::RpcHandle> handle_ ABSL_GUARDED_BY(mu_);
};

// A unary reactor whose work runs elsewhere.
class CallReactor final : public grpc::ServerUnaryReactor, public RpcLifetime {
 public:
  CallReactor(grpc::CallbackServerContext* ctx, std::string_view method)
      : RpcLifetime(ctx, method) {}

  void Complete(const absl::Status& status) {
    GiveBackPlace();
    grpc::Status s = ToGrpcStatus(status);
    log::Event line = rpc().FinishLine(s);
    HandOff();
    Finish(std::move(s));
  }

  void OnCancel() override { CancelWork(); }
  void OnDone() override { Done(); }
};

// A server-streaming reactor driven by an executor coroutine: the coroutine writes one message
// at a time through StreamWriter (converted by `convert`), and the stream finishes from the
// coroutine's completion. Finish() may come while a write is still out (a caller that stopped
// reading and fell too far behind): gRPC sends the status after it.
template <class Msg, class In>
class StreamReactor final : public grpc::ServerWriteReactor<Msg>,
                            public executor::StreamWriter<In>,
                            public RpcLifetime {
 public:
  using Convert = void (*)(const In&, Msg*);

  StreamReactor(grpc::CallbackServerContext* ctx, std::string_view method, Convert convert)
      : RpcLifetime(ctx, method), convert_(convert) {}

  // One write at a time (the executor's contract), so message_ is ours until OnWriteDone.
  void Write(In message, std::function<void(bool)> written) override {
    message_.Clear();
    convert_(message, &message_);
    {
      absl::MutexLock lock(&write_mu_);
      written_ = std::move(written);
    }
    HandOff();
    this->StartWrite(&message_);
  }

  void End(const absl::Status& status) {
    GiveBackPlace();
    grpc::Status s = ToGrpcStatus(status);
    log::Event line = rpc().FinishLine(s);
    HandOff();
    this->Finish(std::move(s));
  }

  void OnWriteDone(bool ok) override {
    Reaction reaction(this);
    std::function<void(bool)> written;
    {
      absl::MutexLock lock(&write_mu_);
      written.swap(written_);
    }
    if (written) written(ok);
  }

  void OnCancel() override { CancelWork(); }
  void OnDone() override { Done(); }

 private:
  const Convert convert_;
  Msg message_;  // the one write in flight
  absl::Mutex write_mu_;
  std::function<void(bool)> written_ ABSL_GUARDED_BY(write_mu_);
};

// UNIMPLEMENTED for `method` on a server built without an executor.
absl::Status NotConfiguredStatus(const char* method);

// Finishes a call answered in the handler itself with gRPC's own reactor: no reactor of ours to
// allocate, and its end runs in place (a reactor of ours ends on gRPC's executor threads, one more
// thread hand-off per call, which a cached Status polled thousands of times a second notices).
grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* ctx, std::string_view method,
                                    const absl::Status& status);

}  // namespace kje::server
