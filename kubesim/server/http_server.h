#pragma once

// kubesim's HTTPS transport (Boost.Beast, confined to http_server.cc): TLS with an optional
// client CA, HTTP/1.1 keep-alive, deadlines on every read and write, a request-body limit (413
// beyond), chunked streaming of watches and followed logs, and the injected transport faults
// (latency, a connection reset mid-body).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "kubesim/server/http_types.h"

namespace kubesim {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;     // 0: any free port
  std::string cert_pem;  // server certificate chain
  std::string key_pem;
  std::string client_ca_pem;                // when set, client certificates it signed authenticate
  size_t max_body_bytes = 3 * 1024 * 1024;  // as the API server's default
  int64_t handshake_timeout_ms = 10000;
  int64_t idle_timeout_ms = 120000;  // waiting for (the rest of) a request
  int64_t write_timeout_ms = 60000;
  int threads = 2;
};

using HttpHandler =
    std::function<HttpResponse(const HttpRequest&, const std::function<void()>& notify)>;

class HttpServer {
 public:
  virtual ~HttpServer() = default;
  virtual uint16_t port() const = 0;
  // Stops accepting, drops every connection (ending their streams) and joins the threads.
  virtual void Stop() = 0;
};

// Binds, listens and starts serving on its own threads. Null with *error on failure.
std::unique_ptr<HttpServer> StartHttpServer(const HttpServerOptions& options, HttpHandler handler,
                                            std::string* error);

}  // namespace kubesim
