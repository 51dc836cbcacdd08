#pragma once

// The asynchronous Kubernetes API client.
//
// API shape: every call is a coroutine (asio::awaitable) that runs on the awaiting coroutine's
// own executor, from the call down to the socket: no strand of its own, no hand-over, and
// callbacks (a watch's events, a log's chunks) run inline on that executor, one at a time. That
// executor must be a strand (or an io_context run by one thread): the call's deadline watchdog
// runs there too, and relies on never running beside the call's coroutine.
//
// Contract of every call:
//  - it takes an absolute deadline; every step (resolve, connect, TLS handshake, write, read,
//    admission and backoff waits) ends by it, and an InfiniteFuture deadline is rejected;
//  - a cancellation of the awaiting coroutine (Asio's per-operation cancellation, terminal)
//    ends it with kCancelled; so does the coroutine's next await, which then throws as Asio
//    does after a cancellation;
//  - every response body is size-limited; errors of the API server arrive as absl::Status with
//    the HTTP code, reason and message kept (k8s/errors.h: IsK8sNotFound, IsK8sGone, ...);
//  - admission (ClientOptions::limiter): each attempt waits for the rate limit and an in-flight
//    slot within the deadline (DeadlineExceeded past it), or fails at once with
//    ResourceExhausted when the queue of waiters is full;
//  - retries (k8s/retry.h): lost connections and 429/5xx with exponential backoff and jitter within
//    the deadline, 429's Retry-After honoured, only when repeating is safe; a 401 reloads the
//    credentials and retries if they changed (at most 3 times: a token rotating during a request).
//
// Build the call in a statement of its own and co_await the named result
// (`auto get = client.Get(ref, deadline); auto got = co_await std::move(get);`): Debian's GCC 12
// destroys twice a temporary that a co_await's full expression materializes, and the heap breaks.

#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "k8s/connection_config.h"
#include "k8s/metrics.h"
#include "k8s/pod_proxy.h"
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

struct RawResponse {
  int http_code = 0;
  std::string body;
};

class Client {
 public:
  template <class T>
  using Awaitable = boost::asio::awaitable<absl::StatusOr<T>>;
  using EventCallback = std::function<void(const WatchEvent&)>;
  using ChunkCallback = std::function<void(std::string_view)>;

  virtual ~Client() = default;

  virtual const ConnectionConfig& config() const = 0;

  // POST. Never retried once the request may have reached the server (see retry.h): on an
  // Unavailable error the object may exist; resolve it with a Get or the 409 of a new Create.
  virtual Awaitable<std::string> Create(ResourceRef collection, std::string json,
                                        absl::Time deadline) = 0;
  // POST ?dryRun=All: the API server validates, admits and defaults the object as for a
  // Create and answers it as it would store it, storing nothing (no watch event either). A 409
  // means the name is taken. Retried like a read: it changes nothing.
  virtual Awaitable<std::string> CreateDryRun(ResourceRef collection, std::string json,
                                              absl::Time deadline) = 0;
  virtual Awaitable<std::string> Get(ResourceRef ref, absl::Time deadline) = 0;
  // PUT (e.g. with metadata.resourceVersion for optimistic concurrency). Not retried on 5xx.
  virtual Awaitable<std::string> Replace(ResourceRef ref, std::string json,
                                         absl::Time deadline) = 0;
  // Merge patches are retried like reads; JSON patches like creates.
  virtual Awaitable<std::string> Patch(ResourceRef ref, PatchType type, std::string patch,
                                       absl::Time deadline) = 0;
  // Retried (a repeat after a lost response answers 404, which callers read as "gone"). The
  // result is the API server's answer: the object (being deleted) or a Status.
  virtual Awaitable<std::string> Delete(ResourceRef ref, DeleteOptions options,
                                        absl::Time deadline) = 0;
  // One page; pass page.continue_token back in options.continue_token for the next one.
  virtual Awaitable<ListPage> List(ResourceRef collection, ListOptions options,
                                   absl::Time deadline) = 0;
  // Events in order, one at a time, until the deadline (DeadlineExceeded), the coroutine's
  // cancellation (Cancelled), 410 Gone (IsK8sGone(status): relist), or another error. With
  // options.resume, a dropped or server-closed stream is re-opened from the last resourceVersion
  // seen (bookmarks included) without the caller noticing; without it, a server-closed stream
  // ends with OK.
  virtual boost::asio::awaitable<absl::Status> Watch(ResourceRef collection, WatchOptions options,
                                                     absl::Time deadline,
                                                     EventCallback on_event) = 0;
  // pods/{name}/log, bounded by options (tail_lines, limit_bytes) and max_body_bytes.
  // options.follow is ignored here: see StreamLog.
  virtual Awaitable<std::string> Log(ResourceRef pod, LogOptions options, absl::Time deadline) = 0;
  // pods/{name}/log as a stream of chunks (bytes as they arrive, not lines), for logs too large
  // to hold: bounded by options (tail_lines, limit_bytes), not by max_body_bytes. With
  // options.follow the server keeps the stream open while the container runs. OK when the
  // server ends the stream (with follow: when the container stopped).
  virtual boost::asio::awaitable<absl::Status> StreamLog(ResourceRef pod, LogOptions options,
                                                         absl::Time deadline,
                                                         ChunkCallback on_chunk) = 0;
  // GET `path_and_query` of the pod's `port` through the API server's pod proxy
  // (pods/{name}:{port}/proxy, k8s/pod_proxy.h), its body at most `max_body_bytes`
  // (RESOURCE_EXHAUSTED past it). The service's answers, errors and redirects included, are
  // results (a redirect is never followed); the API server's own refusals (a Status object: no
  // such pod, RBAC, the service unreachable) are errors, as for any call. Never retried.
  virtual Awaitable<ProxyResponse> ProxyGet(ResourceRef pod, int port, std::string path_and_query,
                                            size_t max_body_bytes, absl::Time deadline) = 0;
  // Any request (tests, tools): `path_and_query` goes after the server's base path. Non-2xx
  // answers are results here, not errors; retries follow `idempotency`.
  virtual Awaitable<RawResponse> Raw(std::string method, std::string path_and_query,
                                     std::string body, std::string content_type,
                                     Idempotency idempotency, absl::Time deadline) = 0;
};

// Checks the TLS material (CA, client certificate) and builds a client. The io_context runs the
// sockets (not owned; it must outlive every call); the client may be destroyed while calls run
// (they finish).
absl::StatusOr<std::shared_ptr<Client>> NewClient(boost::asio::io_context& io,
                                                  ConnectionConfig config,
                                                  ClientOptions options = {});

}  // namespace kje::k8s
