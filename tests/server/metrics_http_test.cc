#include "server/metrics_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kje::server {
namespace {

// A plain-socket HTTP/1.1 client, independent of the server's Beast code. Every read and write
// has a 10 s deadline (SO_RCVTIMEO / SO_SNDTIMEO).
class Client {
 public:
  explicit Client(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd_ >= 0);
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  }
  ~Client() { ::close(fd_); }

  bool Send(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  struct Response {
    int status = 0;
    std::map<std::string, std::string> headers;  // lowercase names
    std::string body;
  };

  // One response (Content-Length framed), or status 0 if the connection ended first.
  Response Read() {
    Response r;
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return r;
    }
    std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    size_t line_end = head.find("\r\n");
    std::string status_line = head.substr(0, line_end);
    // "HTTP/1.1 200 OK"
    if (status_line.size() < 12 || !absl::SimpleAtoi(status_line.substr(9, 3), &r.status)) {
      r.status = -1;
      return r;
    }
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t next = head.find("\r\n", pos);
      if (next == std::string::npos) next = head.size();
      std::string line = head.substr(pos, next - pos);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string value = line.substr(colon + 1);
        absl::StripAsciiWhitespace(&value);
        r.headers[absl::AsciiStrToLower(line.substr(0, colon))] = value;
      }
      pos = next + 2;
    }
    size_t length = 0;
    if (!absl::SimpleAtoi(r.headers["content-length"], &length)) {
      r.status = -1;
      return r;
    }
    while (buffer_.size() < length) {
      if (!Fill()) {
        r.status = 0;
        return r;
      }
    }
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return r;
  }

  // Whether the server closed the connection (EOF or reset) before the deadline.
  bool Closed() {
    while (Fill()) {
    }
    return last_read_ == 0 || (last_read_ < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
  }

 private:
  bool Fill() {
    char chunk[4096];
    last_read_ = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (last_read_ <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(last_read_));
    return true;
  }

  int fd_ = -1;
  std::string buffer_;
  ssize_t last_read_ = 0;
};

std::string Get(const std::string& target, const std::string& extra = "") {
  return absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: localhost\r\n", extra, "\r\n");
}

struct Running {
  std::atomic<int> renders{0};
  std::unique_ptr<MetricsHttpServer> server;

  explicit Running(MetricsHttpOptions options = {}) {
    if (options.listen.empty()) options.listen = "127.0.0.1:0";
    auto s = MetricsHttpServer::Start(options, [this] {
      int n = ++renders;
      return absl::StrCat("# TYPE test_scrapes_total counter\ntest_scrapes_total ", n, "\n");
    });
    REQUIRE(s.ok());
    server = std::move(*s);
    REQUIRE(server->Port() > 0);
  }
};

TEST_CASE("metrics http: port 0 is bound and reported", "[metrics_http]") {
  Running r;
  CHECK(r.server->Address() == absl::StrCat("127.0.0.1:", r.server->Port()));
}

TEST_CASE("metrics http: GET /metrics renders the text format", "[metrics_http]") {
  Running r;
  Client c(r.server->Port());
  REQUIRE(c.Send(Get("/metrics")));
  auto res = c.Read();
  CHECK(res.status == 200);
  CHECK(res.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8");
  CHECK(res.body == "# TYPE test_scrapes_total counter\ntest_scrapes_total 1\n");
  CHECK(r.renders == 1);
}

TEST_CASE("metrics http: keep-alive serves several requests on one connection", "[metrics_http]") {
  Running r;
  Client c(r.server->Port());
  REQUIRE(c.Send(Get("/metrics")));
  auto first = c.Read();
  REQUIRE(c.Send(Get("/metrics?name[]=x")));
  auto second = c.Read();
  CHECK(first.status == 200);
  CHECK(second.status == 200);
  CHECK(second.body.find("test_scrapes_total 2\n") != std::string::npos);
  // Pipelined: both answered, in order.
  REQUIRE(c.Send(Get("/metrics") + Get("/nope")));
  CHECK(c.Read().status == 200);
  CHECK(c.Read().status == 404);
  CHECK(r.renders == 3);
  // "Connection: close" is honoured.
  REQUIRE(c.Send(Get("/metrics", "Connection: close\r\n")));
  CHECK(c.Read().status == 200);
  CHECK(c.Closed());
}

TEST_CASE("metrics http: other paths 404, other methods 405", "[metrics_http]") {
  Running r;
  Client c(r.server->Port());
  REQUIRE(c.Send(Get("/")));
  CHECK(c.Read().status == 404);
  REQUIRE(c.Send(Get("/metricsx")));
  CHECK(c.Read().status == 404);
  REQUIRE(c.Send("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"));
  auto post = c.Read();
  CHECK(post.status == 405);
  CHECK(post.headers["allow"] == "GET");
  REQUIRE(c.Send("DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
  CHECK(c.Read().status == 405);
  // The connection survived every error answer.
  REQUIRE(c.Send(Get("/metrics")));
  CHECK(c.Read().status == 200);
  CHECK(r.renders == 1);
}

TEST_CASE("metrics http: an oversized header gets 431 and the connection closes",
          "[metrics_http]") {
  MetricsHttpOptions options;
  options.max_header_bytes = 1024;
  Running r(options);
  Client c(r.server->Port());
  REQUIRE(c.Send(Get("/metrics", absl::StrCat("X-Big: ", std::string(4096, 'a'), "\r\n"))));
  CHECK(c.Read().status == 431);
  CHECK(c.Closed());
  CHECK(r.renders == 0);
  // A header within the limit still works on a new connection.
  Client ok(r.server->Port());
  REQUIRE(ok.Send(Get("/metrics", absl::StrCat("X-Small: ", std::string(100, 'a'), "\r\n"))));
  CHECK(ok.Read().status == 200);
}

TEST_CASE("metrics http: an oversized body gets 413", "[metrics_http]") {
  MetricsHttpOptions options;
  options.max_body_bytes = 16;
  Running r(options);
  Client c(r.server->Port());
  REQUIRE(c.Send(absl::StrCat("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
                              std::string(1000, 'b'))));
  CHECK(c.Read().status == 413);
  CHECK(c.Closed());
}

TEST_CASE("metrics http: garbage gets 400 and a close", "[metrics_http]") {
  Running r;
  Client c(r.server->Port());
  REQUIRE(c.Send("\x01\x02 nonsense\r\n\r\n"));
  CHECK(c.Read().status == 400);
  CHECK(c.Closed());
}

TEST_CASE("metrics http: a silent client is dropped at the read deadline", "[metrics_http]") {
  MetricsHttpOptions options;
  options.read_timeout = absl::Milliseconds(200);
  Running r(options);
  Client c(r.server->Port());
  REQUIRE(c.Send("GET /metrics HTTP/1.1\r\n"));  // and never the rest
  // The client's own deadline is 10 s; the server must close well before.
  auto start = std::chrono::steady_clock::now();
  CHECK(c.Closed());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("metrics http: a full listener closes the connection that waited longest",
          "[metrics_http]") {
  MetricsHttpOptions options;
  options.max_connections = 2;
  Running r(options);
  Client oldest(r.server->Port());
  REQUIRE(oldest.Send(Get("/metrics")));
  REQUIRE(oldest.Read().status == 200);  // registered, and waiting for its next request now
  Client newer(r.server->Port());
  REQUIRE(newer.Send(Get("/metrics")));
  REQUIRE(newer.Read().status == 200);
  Client third(r.server->Port());
  REQUIRE(third.Send(Get("/metrics")));
  CHECK(third.Read().status == 200);
  CHECK(oldest.Closed());  // its wait began first
  REQUIRE(newer.Send(Get("/metrics")));
  CHECK(newer.Read().status == 200);
}

TEST_CASE("metrics http: hundreds of half-sent requests can't keep a scrape out",
          "[metrics_http]") {
  Running r;  // the default limit of connections
  std::vector<std::unique_ptr<Client>> attackers;
  for (int i = 0; i < 300; ++i) {
    attackers.push_back(std::make_unique<Client>(r.server->Port()));
    REQUIRE(attackers.back()->Send("GET /metrics HTTP/1.1\r\nHost: a\r\n"));  // never ends
  }
  for (int scrape = 0; scrape < 3; ++scrape) {
    INFO("scrape " << scrape);
    Client scraper(r.server->Port());
    REQUIRE(scraper.Send(Get("/metrics")));
    Client::Response res = scraper.Read();
    CHECK(res.status == 200);
    CHECK(res.body.find("test_scrapes_total") != std::string::npos);
    // The attacker renews: a new half-sent request after every scrape.
    attackers.push_back(std::make_unique<Client>(r.server->Port()));
    REQUIRE(attackers.back()->Send("GET /metrics HTTP/1.1\r\n"));
  }
  CHECK(r.renders.load() == 3);
}

TEST_CASE("metrics http: Stop closes idle connections and refuses new ones", "[metrics_http]") {
  Running r;
  Client idle(r.server->Port());
  REQUIRE(idle.Send(Get("/metrics")));
  REQUIRE(idle.Read().status == 200);
  int port = r.server->Port();
  r.server->Stop();  // returns only when every connection has ended
  CHECK(idle.Closed());
  r.server->Stop();  // idempotent

  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0);
  ::close(fd);
}

TEST_CASE("metrics http: bad addresses and ports in use fail Start", "[metrics_http]") {
  auto render = [] { return std::string(); };
  MetricsHttpOptions bad;
  bad.listen = "127.0.0.1";
  CHECK(MetricsHttpServer::Start(bad, render).status().code() ==
        absl::StatusCode::kInvalidArgument);
  Running r;
  MetricsHttpOptions taken;
  taken.listen = absl::StrCat("127.0.0.1:", r.server->Port());
  CHECK(MetricsHttpServer::Start(taken, render).status().code() == absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace kje::server
