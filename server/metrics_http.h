#pragma once

// The /metrics endpoint: a small HTTP/1.1 server on its own port and its own thread, so a slow or
// misbehaving scraper can never hold up a gRPC call. GET /metrics answers the rendered text
// (Prometheus text format 0.0.4); other paths 404, other methods 405. Keep-alive, a request
// header size limit, a read deadline per request, a bounded number of connections (the
// longest-waiting one makes room for a new one).

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kje::server {

struct MetricsHttpOptions {
  std::string listen;  // host:port; port 0 lets the OS choose
  // A request (its header, and the body of a misdirected non-GET) must arrive within this long;
  // a keep-alive connection idle for this long is closed.
  absl::Duration read_timeout = absl::Seconds(5);
  absl::Duration write_timeout = absl::Seconds(10);
  size_t max_header_bytes = 8 * 1024;  // larger: 431, and the connection is closed
  size_t max_body_bytes = 4 * 1024;    // larger: 413, and the connection is closed
  // When this many are open, a new connection closes the one that has waited longest for its
  // request (so half-sent requests can't keep a scrape out); only when every one is busy
  // answering is the new one closed on accept.
  size_t max_connections = 32;
};

class MetricsHttpServer {
 public:
  // Binds, starts its thread and returns; `render` (called on that thread, once per scrape)
  // produces the body. Fails when the address can't be parsed or bound.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(
      MetricsHttpOptions options, std::function<std::string()> render);

  // Stop().
  ~MetricsHttpServer();

  // The bound port (the chosen one when the configured port was 0) and "host:port".
  int Port() const;
  std::string Address() const;

  // Stops accepting, closes idle connections, lets responses being written finish (each within
  // write_timeout), then joins the thread. Idempotent.
  void Stop();

  class Impl;

 private:
  explicit MetricsHttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kje::server
