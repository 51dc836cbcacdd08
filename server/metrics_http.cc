// Every Beast and Asio include of the metrics endpoint lives in this file (a Beast TU costs ~25 s
// and 1.2 GB to compile; the header stays plain).
#include "server/metrics_http.h"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <exception>
#include <map>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/quote.h"

namespace kje::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;

constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";
// After an error answer sent before the whole request was read, what the client still sends is
// read and dropped for up to this long and this many bytes, so that closing doesn't reset the
// connection (and destroy the answer) while the client is still writing.
constexpr auto kLingerTime = std::chrono::seconds(1);
constexpr size_t kLingerBytes = size_t{256} * 1024;

std::chrono::steady_clock::duration ToChrono(absl::Duration d) {
  return absl::ToChronoNanoseconds(d);
}

http::response<http::string_body> TextResponse(http::status status, unsigned version,
                                               std::string body) {
  http::response<http::string_body> res{status, version};
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  res.body() = std::move(body);
  return res;
}

auto LogFailure(const char* what) {
  return [what](const std::exception_ptr& e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      log::Error("metrics endpoint failed").Kv("where", what).Kv("error", x.what());
    }
  };
}

}  // namespace

class MetricsHttpServer::Impl {
 public:
  Impl(MetricsHttpOptions options, std::function<std::string()> render)
      : options_(std::move(options)), render_(std::move(render)), acceptor_(ioc_) {}

  // Stop() throws only if joining the thread fails, which a destructor can do nothing about.
  ~Impl() {
    try {
      Stop();
    } catch (const std::exception& e) {
      log::Error("metrics endpoint: stop failed").Kv("error", e.what());
    }
  }

  absl::Status Bind() {
    size_t colon = options_.listen.rfind(':');
    int port = -1;
    if (colon == std::string::npos || !absl::SimpleAtoi(options_.listen.substr(colon + 1), &port) ||
        port < 0 || port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("server.metricsListen must be HOST:PORT, got ",
                                                     QuoteBounded(options_.listen)));
    }
    std::string host = options_.listen.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    error_code ec;
    tcp::resolver resolver(ioc_);
    auto results = resolver.resolve(host, std::to_string(port),
                                    tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec || results.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("server.metricsListen: can't resolve ",
                                                     QuoteBounded(host), ": ", ec.message()));
    }
    tcp::endpoint endpoint = results.begin()->endpoint();
    auto fail = [&] {
      return absl::UnavailableError(absl::StrCat("server.metricsListen: can't listen on ",
                                                 options_.listen, ": ", ec.message()));
    };
    acceptor_.open(endpoint.protocol(), ec);
    if (ec) return fail();
    acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (ec) return fail();
    acceptor_.bind(endpoint, ec);
    if (ec) return fail();
    acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) return fail();
    tcp::endpoint bound = acceptor_.local_endpoint(ec);
    port_ = bound.port();
    std::string address = bound.address().to_string();
    address_ = bound.address().is_v6() ? absl::StrCat("[", address, "]:", port_)
                                       : absl::StrCat(address, ":", port_);
    return absl::OkStatus();
  }

  void Run() {
    net::co_spawn(ioc_, Accept(), LogFailure("metrics listener"));
    thread_ = std::thread([this] { ioc_.run(); });
  }

  void Stop() {
    if (!thread_.joinable()) return;
    net::post(ioc_, [this] {
      stopping_ = true;
      error_code ec;
      acceptor_.close(ec);
      for (auto& [id, conn] : conns_) {
        if (conn.idle) conn.stream->cancel();
      }
    });
    // run() returns once the accept loop and every connection have ended.
    thread_.join();
  }

  int Port() const { return port_; }
  const std::string& Address() const { return address_; }

 private:
  struct Conn {
    beast::tcp_stream* stream;
    bool idle;  // waiting for a request: closed at once by Stop()
    // When its current wait for a request began, in accept order (smaller waited longer).
    uint64_t waiting_since = 0;
    bool evicted = false;  // closed to make room, ending on its own
  };

  // Closes the connection that has waited longest for a request, so that a full listener still
  // answers a new scraper: a slow or half-sent client costs its own connection, never the next
  // scrape. False when every connection is busy answering (then the new one is refused).
  bool EvictLongestWaiting() {
    Conn* oldest = nullptr;
    for (auto& [id, conn] : conns_) {
      if (!conn.idle || conn.evicted) continue;
      if (oldest == nullptr || conn.waiting_since < oldest->waiting_since) oldest = &conn;
    }
    if (oldest == nullptr) return false;
    oldest->evicted = true;
    oldest->stream->cancel();
    ++evicted_;
    return true;
  }

  size_t LiveConnections() const { return conns_.size() - evicted_; }

  net::awaitable<void> Accept() {
    net::steady_timer backoff(ioc_);
    for (;;) {
      error_code ec;
      tcp::socket socket =
          co_await acceptor_.async_accept(net::redirect_error(net::use_awaitable, ec));
      if (stopping_) co_return;
      if (ec) {
        if (ec == net::error::operation_aborted) co_return;
        // Out of descriptors and the like: don't spin.
        log::Warn("metrics endpoint: accept failed").Kv("error", ec.message());
        backoff.expires_after(std::chrono::milliseconds(100));
        co_await backoff.async_wait(net::redirect_error(net::use_awaitable, ec));
        continue;
      }
      if (LiveConnections() >= options_.max_connections && !EvictLongestWaiting()) {
        socket.close(ec);
        continue;
      }
      net::co_spawn(ioc_, Session(std::move(socket)), LogFailure("metrics connection"));
    }
  }

  http::response<http::string_body> Answer(const http::request<http::string_body>& req) {
    std::string_view target(req.target().data(), req.target().size());
    std::string_view path = target.substr(0, target.find('?'));
    if (path != "/metrics") {
      return TextResponse(http::status::not_found, req.version(), "not found; try /metrics\n");
    }
    if (req.method() != http::verb::get) {
      auto res =
          TextResponse(http::status::method_not_allowed, req.version(), "only GET is allowed\n");
      res.set(http::field::allow, "GET");
      return res;
    }
    http::response<http::string_body> res{http::status::ok, req.version()};
    res.set(http::field::content_type, kContentType);
    try {
      res.body() = render_();
    } catch (const std::exception& e) {
      log::Error("metrics rendering failed").Kv("error", e.what());
      return TextResponse(http::status::internal_server_error, req.version(), "rendering failed\n");
    }
    return res;
  }

  net::awaitable<void> Session(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    const uint64_t id = next_id_++;
    conns_[id] = Conn{&stream, true};
    beast::flat_buffer buffer;
    error_code ec;
    bool linger = false;
    while (!stopping_) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<uint32_t>(options_.max_header_bytes));
      parser.body_limit(options_.max_body_bytes);
      conns_[id].idle = true;
      conns_[id].waiting_since = next_wait_++;
      stream.expires_after(ToChrono(options_.read_timeout));
      co_await http::async_read(stream, buffer, parser,
                                net::redirect_error(net::use_awaitable, ec));
      conns_[id].idle = false;
      if (conns_[id].evicted) break;  // its place is taken, whatever arrived meanwhile
      http::response<http::string_body> res;
      bool close = false;
      if (ec == http::error::header_limit) {
        res = TextResponse(http::status::request_header_fields_too_large, 11,
                           "request header too large\n");
        close = linger = true;
      } else if (ec == http::error::body_limit) {
        res = TextResponse(http::status::payload_too_large, 11, "request body too large\n");
        close = linger = true;
      } else if (ec && ec != http::error::end_of_stream && ec != http::error::partial_message &&
                 ec.category() == http::make_error_code(http::error::bad_method).category()) {
        res = TextResponse(http::status::bad_request, 11, "malformed request\n");
        close = linger = true;
      } else if (ec) {
        break;  // the client closed, went silent past the deadline, or Stop() closed it
      } else {
        res = Answer(parser.get());
        close = !parser.get().keep_alive() || stopping_;
      }
      res.keep_alive(!close);
      res.prepare_payload();
      stream.expires_after(ToChrono(options_.write_timeout));
      co_await http::async_write(stream, res, net::redirect_error(net::use_awaitable, ec));
      if (ec || close) break;
    }
    if (conns_[id].evicted) --evicted_;
    conns_.erase(id);
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (linger && stream.socket().is_open()) {
      stream.expires_after(kLingerTime);
      std::array<char, 4096> sink;
      size_t drained = 0;
      while (drained < kLingerBytes) {
        size_t n = co_await stream.async_read_some(net::buffer(sink),
                                                   net::redirect_error(net::use_awaitable, ec));
        if (ec) break;
        drained += n;
      }
    }
    stream.socket().close(ec);
  }

  const MetricsHttpOptions options_;
  const std::function<std::string()> render_;
  net::io_context ioc_{1};
  tcp::acceptor acceptor_;
  std::thread thread_;
  int port_ = 0;
  std::string address_;

  // Touched on the io thread only.
  bool stopping_ = false;
  uint64_t next_id_ = 0;
  uint64_t next_wait_ = 0;
  size_t evicted_ = 0;  // in conns_, closed to make room, not yet ended
  std::map<uint64_t, Conn> conns_;
};

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    MetricsHttpOptions options, std::function<std::string()> render) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(render));
  if (absl::Status s = impl->Bind(); !s.ok()) return s;
  impl->Run();
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(std::move(impl)));
}

MetricsHttpServer::MetricsHttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetricsHttpServer::~MetricsHttpServer() = default;  // ~Impl stops

int MetricsHttpServer::Port() const { return impl_->Port(); }

std::string MetricsHttpServer::Address() const { return impl_->Address(); }

void MetricsHttpServer::Stop() { impl_->Stop(); }

}  // namespace kje::server
