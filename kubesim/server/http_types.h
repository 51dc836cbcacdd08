#pragma once

// The HTTP exchange as the API layer sees it, independent of the transport (Beast lives only in
// http_server.cc).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kubesim {

struct HttpRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE
  std::string target;  // path and query, as received
  std::string content_type;
  std::string accept;
  std::string authorization;
  bool client_cert_verified = false;  // the client presented a certificate our client CA signed
  std::string body;
};

// A long-running response body (watch, followed logs), polled by the connection whenever the
// notify callback given to the handler fires, and at least once a second.
class BodyStream {
 public:
  virtual ~BodyStream() = default;
  // Returns the bytes to send now (possibly none); sets *done when the stream has ended.
  virtual std::string Poll(int64_t now_ms, bool* done) = 0;
  // Releases the source (the store's watch or log follower). Idempotent.
  virtual void Stop() = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // When set, the response is chunked: `body` (if any) is the first chunk, then the stream.
  std::shared_ptr<BodyStream> stream;
  // Injected faults.
  int64_t latency_ms = 0;       // wait this long before responding
  bool reset_mid_body = false;  // send the headers and half the body, then drop the connection
};

}  // namespace kubesim
