#pragma once

// The asynchronous Kubernetes API client.
//
// API shape: callbacks plus a cancel handle, so that no Asio header leaks past this file (a Beast
// TU costs ~25 s on 2 cores; every includer would pay it). Internally each call is a C++20
// coroutine on the caller's io_context, on a strand of its own.
//
// Contract of every call:
//  - it takes an absolute deadline; every step (resolve, connect, TLS handshake, write, read,
//    backoff waits) ends by it, and an InfiniteFuture deadline is rejected;
//  - its completion callback runs exactly once, on an io_context thread (never inline in the
//    call), and must not block; a streaming call's event callbacks run one at a time before it;
//  - CallHandle::Cancel() (any thread) ends it with kCancelled unless it already finished;
//  - every response body is size-limited; errors of the API server arrive as absl::Status with
//    the HTTP code, reason and message kept (k8s/errors.h: IsK8sNotFound, IsK8sGone, ...);
//  - admission (ClientOptions::limiter): each attempt waits for the rate limit and an in-flight
//    slot within the deadline (DeadlineExceeded past it), or fails at once with
//    ResourceExhausted when the queue of waiters is full;
//  - retries (k8s/retry.h): lost connections and 429/5xx with exponential backoff and jitter within
//    the deadline, 429's Retry-After honoured, only when repeating is safe; a 401 reloads the
//    credentials and retries if they changed (at most 3 times: a token rotating during a request).

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "k8s/connection_config.h"
#include "k8s/metrics.h"
#include "k8s/request_limiter.h"
#include "k8s/resource.h"
#include "k8s/retry.h"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace kje::k8s {

struct ClientOptions {
  RetryPolicy retry;
  // The keep-alive pool holds at most this many idle connections to the API server; more
  // concurrent requests open more connections, which are closed instead of pooled.
  size_t max_idle_connections = 16;
  absl::Duration max_idle_time = absl::Seconds(50);
  size_t max_body_bytes = 64 << 20;         // every non-streaming response
  size_t max_error_body_bytes = 1 << 20;    // an error response of a streaming call
  size_t max_watch_event_bytes = 16 << 20;  // one line of a watch stream
  std::string user_agent = "k8s-job-executor";
  RequestMetrics* metrics = nullptr;  // not owned; may be null
  // Admission of every attempt (k8s/request_limiter.h): a call waits for its token and, unless it
  // is a watch or a followed log, for a slot, within its deadline; a full slot queue fails it
  // with RESOURCE_EXHAUSTED at once. Null: no limit. Shared by every call of the client.
  std::shared_ptr<RequestLimiter> limiter;
  // Uniform in [0, 1), for backoff jitter. Default: a thread-safe absl::BitGen.
  std::function<double()> random01;
};

// Cancels one call; thread-safe, idempotent, harmless after completion.
class CallHandle {
 public:
  virtual ~CallHandle() = default;
  virtual void Cancel() = 0;
};

struct RawResponse {
  int http_code = 0;
  std::string body;
};

class Client {
 public:
  template <class T>
  using Callback = std::function<void(absl::StatusOr<T>)>;
  using DoneCallback = std::function<void(absl::Status)>;
  using EventCallback = std::function<void(const WatchEvent&)>;
  using ChunkCallback = std::function<void(std::string_view)>;

  virtual ~Client() = default;

  virtual const ConnectionConfig& config() const = 0;

  // POST. Never retried once the request may have reached the server (see retry.h): on an
  // Unavailable error the object may exist; resolve it with a Get or the 409 of a new Create.
  virtual std::shared_ptr<CallHandle> Create(const ResourceRef& collection, std::string json,
                                             absl::Time deadline, Callback<std::string> done) = 0;
  virtual std::shared_ptr<CallHandle> Get(const ResourceRef& ref, absl::Time deadline,
                                          Callback<std::string> done) = 0;
  // PUT (e.g. with metadata.resourceVersion for optimistic concurrency). Not retried on 5xx.
  virtual std::shared_ptr<CallHandle> Replace(const ResourceRef& ref, std::string json,
                                              absl::Time deadline, Callback<std::string> done) = 0;
  // Merge patches are retried like reads; JSON patches like creates.
  virtual std::shared_ptr<CallHandle> Patch(const ResourceRef& ref, PatchType type,
                                            std::string patch, absl::Time deadline,
                                            Callback<std::string> done) = 0;
  // Retried (a repeat after a lost response answers 404, which callers read as "gone"). The
  // result is the API server's answer: the object (being deleted) or a Status.
  virtual std::shared_ptr<CallHandle> Delete(const ResourceRef& ref, const DeleteOptions& options,
                                             absl::Time deadline, Callback<std::string> done) = 0;
  // One page; pass page.continue_token back in options.continue_token for the next one.
  virtual std::shared_ptr<CallHandle> List(const ResourceRef& collection,
                                           const ListOptions& options, absl::Time deadline,
                                           Callback<ListPage> done) = 0;
  // Events in order, one at a time, until the deadline (done: DeadlineExceeded), Cancel()
  // (Cancelled), 410 Gone (IsK8sGone(status): relist), or another error. With options.resume, a
  // dropped or server-closed stream is re-opened from the last resourceVersion seen (bookmarks
  // included) without the caller noticing; without it, a server-closed stream ends with OK.
  virtual std::shared_ptr<CallHandle> Watch(const ResourceRef& collection,
                                            const WatchOptions& options, absl::Time deadline,
                                            EventCallback on_event, DoneCallback done) = 0;
  // pods/{name}/log, bounded by options (tail_lines, limit_bytes) and max_body_bytes.
  // options.follow is ignored here: see StreamLog.
  virtual std::shared_ptr<CallHandle> Log(const ResourceRef& pod, const LogOptions& options,
                                          absl::Time deadline, Callback<std::string> done) = 0;
  // pods/{name}/log as a stream of chunks (bytes as they arrive, not lines), for logs too large
  // to hold: bounded by options (tail_lines, limit_bytes), not by max_body_bytes. With
  // options.follow the server keeps the stream open while the container runs. done gets OK when
  // the server ends the stream.
  virtual std::shared_ptr<CallHandle> StreamLog(const ResourceRef& pod, const LogOptions& options,
                                                absl::Time deadline, ChunkCallback on_chunk,
                                                DoneCallback done) = 0;
  // StreamLog with options.follow on: done gets OK when the container stopped.
  std::shared_ptr<CallHandle> FollowLog(const ResourceRef& pod, LogOptions options,
                                        absl::Time deadline, ChunkCallback on_chunk,
                                        DoneCallback done) {
    options.follow = true;
    return StreamLog(pod, options, deadline, std::move(on_chunk), std::move(done));
  }
  // Any request (tests, tools): `path_and_query` goes after the server's base path. Non-2xx
  // answers are results here, not errors; retries follow `idempotency`.
  virtual std::shared_ptr<CallHandle> Raw(std::string method, std::string path_and_query,
                                          std::string body, std::string content_type,
                                          Idempotency idempotency, absl::Time deadline,
                                          Callback<RawResponse> done) = 0;
};

// Checks the TLS material (CA, client certificate) and builds a client. The io_context is not
// owned and must outlive every call; the client may be destroyed while calls run (they finish).
absl::StatusOr<std::shared_ptr<Client>> NewClient(boost::asio::io_context& io,
                                                  ConnectionConfig config,
                                                  ClientOptions options = {});

}  // namespace kje::k8s
