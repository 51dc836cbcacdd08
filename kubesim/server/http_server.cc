#include "kubesim/server/http_server.h"

#include <array>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <thread>
#include <utility>  // before Asio: awaitable.hpp needs std::exchange
#include <vector>

namespace kubesim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using std::chrono::milliseconds;

int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One connection. Lives on its own strand; `notify` callbacks reach it through the strand.
struct Conn {
  Conn(tcp::socket socket, ssl::context& ctx)
      : stream(std::move(socket), ctx), wake(stream.get_executor()) {}
  ~Conn() {
    if (body_stream) body_stream->Stop();
  }
  beast::ssl_stream<beast::tcp_stream> stream;
  asio::steady_timer wake;
  bool pending = false;
  bool peer_gone = false;  // the client closed or reset a streaming connection
  std::shared_ptr<BodyStream> body_stream;
};

class Server : public HttpServer {
 public:
  Server(const HttpServerOptions& options, HttpHandler handler)
      : options_(options),
        handler_(std::move(handler)),
        ctx_(ssl::context::tls_server),
        ioc_(options.threads),
        acceptor_(asio::make_strand(ioc_)) {}

  ~Server() override { Stop(); }

  bool Init(std::string* error) {
    try {
      ctx_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
      ctx_.use_certificate_chain(asio::buffer(options_.cert_pem));
      ctx_.use_private_key(asio::buffer(options_.key_pem), ssl::context::pem);
      if (!options_.client_ca_pem.empty()) {
        ctx_.add_certificate_authority(asio::buffer(options_.client_ca_pem));
        // Request a certificate but don't require one: token clients connect without.
        ctx_.set_verify_mode(ssl::verify_peer);
      }
      tcp::endpoint ep(asio::ip::make_address(options_.host), options_.port);
      acceptor_.open(ep.protocol());
      acceptor_.set_option(asio::socket_base::reuse_address(true));
      acceptor_.bind(ep);
      acceptor_.listen(asio::socket_base::max_listen_connections);
      port_ = acceptor_.local_endpoint().port();
    } catch (const std::exception& e) {
      *error = std::string("cannot listen on ") + options_.host + ":" +
               std::to_string(options_.port) + ": " + e.what();
      return false;
    }
    asio::co_spawn(acceptor_.get_executor(), Accept(), asio::detached);
    int n = options_.threads > 0 ? options_.threads : 1;
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { ioc_.run(); });
    return true;
  }

  uint16_t port() const override { return port_; }

  void Stop() override {
    if (stopped_) return;
    stopped_ = true;
    ioc_.stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  asio::awaitable<void> Accept() {
    for (;;) {
      beast::error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(
          asio::make_strand(ioc_), asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        if (ec == asio::error::operation_aborted) co_return;
        continue;  // e.g. EMFILE: keep serving the connections we have
      }
      socket.set_option(tcp::no_delay(true), ec);
      auto conn = std::make_shared<Conn>(std::move(socket), ctx_);
      asio::co_spawn(conn->stream.get_executor(), Session(conn), asio::detached);
    }
  }

  static std::string StatusJson(int code, const char* reason, const std::string& message) {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
           "\"message\":\"" +
           message + "\",\"reason\":\"" + reason + "\",\"code\":" + std::to_string(code) + "}";
  }

  static asio::awaitable<void> WatchPeer(std::shared_ptr<Conn> c) {
    char buf[256];
    beast::error_code ec;
    while (!ec) {
      co_await c->stream.async_read_some(asio::buffer(buf),
                                         asio::redirect_error(asio::use_awaitable, ec));
    }
    c->peer_gone = true;
    c->wake.cancel();
  }

  asio::awaitable<void> Session(std::shared_ptr<Conn> c) {
    auto& tcp_layer = beast::get_lowest_layer(c->stream);
    beast::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    tcp_layer.expires_after(milliseconds(options_.handshake_timeout_ms));
    co_await c->stream.async_handshake(ssl::stream_base::server, token);
    if (ec) co_return;
    bool client_cert_verified = false;
    if (!options_.client_ca_pem.empty()) {
      SSL* ssl_handle = c->stream.native_handle();
      if (X509* peer = SSL_get1_peer_certificate(ssl_handle); peer != nullptr) {
        client_cert_verified = SSL_get_verify_result(ssl_handle) == X509_V_OK;
        X509_free(peer);
      }
    }
    beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(options_.max_body_bytes);
      parser.header_limit(64 * 1024);
      tcp_layer.expires_after(milliseconds(options_.idle_timeout_ms));
      co_await http::async_read(c->stream, buffer, parser, token);
      if (ec == http::error::body_limit) {
        http::response<http::string_body> res{http::status::payload_too_large, 11};
        res.set(http::field::content_type, "application/json");
        res.body() = StatusJson(
            413, "RequestEntityTooLarge",
            "Request entity too large: limit is " + std::to_string(options_.max_body_bytes));
        res.keep_alive(false);
        res.prepare_payload();
        tcp_layer.expires_after(milliseconds(options_.write_timeout_ms));
        co_await http::async_write(c->stream, res, token);
        // Lingering close, as HTTP servers do: the client is still sending the body it
        // announced, and closing now would reset the connection before it reads the 413. Read
        // and drop what it sends, bounded in bytes and time.
        tcp_layer.expires_after(milliseconds(2000));
        std::array<char, 16 * 1024> sink;
        for (size_t drained = 0; !ec && drained < (64u << 20);) {
          drained += co_await c->stream.async_read_some(asio::buffer(sink), token);
        }
        break;
      }
      if (ec) break;
      http::request<http::string_body>& req = parser.get();
      HttpRequest request;
      request.method = std::string(req.method_string());
      request.target = std::string(req.target());
      request.content_type = std::string(req[http::field::content_type]);
      request.accept = std::string(req[http::field::accept]);
      request.authorization = std::string(req[http::field::authorization]);
      request.client_cert_verified = client_cert_verified;
      request.body = std::move(req.body());
      bool keep_alive = req.keep_alive();
      unsigned version = req.version();

      std::weak_ptr<Conn> weak = c;
      auto executor = c->stream.get_executor();
      std::function<void()> notify = [weak, executor] {
        asio::post(executor, [weak] {
          if (auto conn = weak.lock()) {
            conn->pending = true;
            conn->wake.cancel();
          }
        });
      };
      HttpResponse resp = handler_(request, notify);
      if (resp.latency_ms > 0) {
        asio::steady_timer delay(executor, milliseconds(resp.latency_ms));
        co_await delay.async_wait(token);
      }

      if (!resp.stream) {
        http::response<http::string_body> res{static_cast<http::status>(resp.status), version};
        res.set(http::field::content_type, resp.content_type);
        for (const auto& [k, v] : resp.headers) res.set(k, v);
        res.keep_alive(keep_alive);
        res.body() = std::move(resp.body);
        res.prepare_payload();
        tcp_layer.expires_after(milliseconds(options_.write_timeout_ms));
        if (resp.reset_mid_body) {
          // The client sees a Content-Length it never gets: a connection reset mid-body.
          http::response_serializer<http::string_body> sr(res);
          co_await http::async_write_header(c->stream, sr, token);
          if (!ec) {
            co_await asio::async_write(
                c->stream, asio::buffer(res.body().data(), res.body().size() / 2), token);
          }
          tcp_layer.socket().set_option(asio::socket_base::linger(true, 0), ec);
          tcp_layer.close();
          co_return;
        }
        co_await http::async_write(c->stream, res, token);
        if (ec || !keep_alive) break;
        continue;
      }

      // A stream: chunked until the source ends, then the connection closes (a stream's end
      // is rare enough that reusing the connection is not worth a concurrent reader).
      c->body_stream = resp.stream;
      http::response<http::empty_body> res{static_cast<http::status>(resp.status), version};
      res.set(http::field::content_type, resp.content_type);
      for (const auto& [k, v] : resp.headers) res.set(k, v);
      res.chunked(true);
      res.keep_alive(false);
      http::response_serializer<http::empty_body> sr(res);
      tcp_layer.expires_after(milliseconds(options_.write_timeout_ms));
      co_await http::async_write_header(c->stream, sr, token);
      if (ec) break;
      // While streaming nothing is read, so a client that goes away would only be noticed at
      // the next write, which may be long in coming on a quiet watch: a reader on the same
      // strand watches for the end of the connection.
      asio::co_spawn(executor, WatchPeer(c), asio::detached);
      std::string data = std::move(resp.body);
      bool done = false;
      for (;;) {
        if (!data.empty()) {
          tcp_layer.expires_after(milliseconds(options_.write_timeout_ms));
          co_await asio::async_write(c->stream, http::make_chunk(asio::buffer(data)), token);
          if (ec) break;
        }
        if (done) break;
        if (!c->pending) {
          // Woken by notify (the timer is cancelled) or once a second for bookmarks and
          // the stream's deadline.
          tcp_layer.expires_never();
          c->wake.expires_after(milliseconds(1000));
          co_await c->wake.async_wait(token);
          ec = {};
        }
        c->pending = false;
        if (c->peer_gone) break;
        data = c->body_stream->Poll(NowMs(), &done);
      }
      c->body_stream->Stop();
      if (c->peer_gone) co_return;
      if (!ec) {
        tcp_layer.expires_after(milliseconds(options_.write_timeout_ms));
        co_await asio::async_write(c->stream, http::make_chunk_last(), token);
      }
      // The peer watcher still has a read pending, and a TLS shutdown would read beside it (two
      // reads on one TLS stream): it then never ended, and the connection stayed open in
      // CLOSE-WAIT after the client had gone. Closing ends that read, and with it the last
      // reference to the connection.
      tcp_layer.close();
      co_return;
    }
    tcp_layer.expires_after(milliseconds(2000));
    co_await c->stream.async_shutdown(token);
  }

  HttpServerOptions options_;
  HttpHandler handler_;
  // Before ioc_: connections still pending when the io_context is destroyed use the context.
  ssl::context ctx_;
  asio::io_context ioc_;
  tcp::acceptor acceptor_;
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<HttpServer> StartHttpServer(const HttpServerOptions& options, HttpHandler handler,
                                            std::string* error) {
  auto server = std::make_unique<Server>(options, std::move(handler));
  if (!server->Init(error)) return nullptr;
  return server;
}

}  // namespace kubesim
