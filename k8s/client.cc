// The only translation unit of k8s/ that includes Asio and Beast.
#include "k8s/client.h"

#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/system/system_error.hpp>
#include <cerrno>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "async/one_shot.h"
#include "async/wakeup.h"
#include "base/log.h"
#include "base/strings.h"
#include "k8s/call_state.h"
#include "k8s/errors.h"
#include "k8s/watch_stream.h"

namespace kje::k8s {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using internal::CallState;
using internal::ScopedAbort;

constexpr size_t kReadChunk = 16 * 1024;
constexpr uint32_t kHeaderLimit = 64 * 1024;
constexpr int kMaxCredentialReloads = 3;

std::chrono::steady_clock::duration ToChrono(absl::Duration d) { return async::TimerDuration(d); }

// One connection to the API server. It serves one call at a time (the pool hands it over under
// its mutex), and that call's coroutine is the only one touching it: its operations complete on
// the call's executor, whatever executor an earlier call ran on.
struct Connection {
  Connection(net::io_context& io, std::shared_ptr<ssl::context> ctx) : ssl_ctx(std::move(ctx)) {
    if (ssl_ctx) {
      tls = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(io.get_executor(), *ssl_ctx);
    } else {
      plain = std::make_unique<beast::tcp_stream>(io.get_executor());
    }
  }
  beast::tcp_stream& Lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }

  // True when the idle connection still looks usable: nothing to read and not closed by the
  // server. An idle HTTP/1.1 connection never has data pending, so anything readable means EOF,
  // a TLS close_notify or garbage.
  bool LooksAlive() {
    if (!Lowest().socket().is_open() || buffer.size() != 0) return false;
    char c;
    ssize_t n = ::recv(Lowest().socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }

  std::shared_ptr<ssl::context> ssl_ctx;
  std::unique_ptr<beast::tcp_stream> plain;
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;
  std::chrono::steady_clock::time_point idle_since;
};

// How far an attempt got: where it failed, or kDone when it read the whole response of a
// connection the server keeps open (the one case it may go back to the pool).
enum class Phase {
  kNone,
  kResolve,
  kConnect,
  kTlsHandshake,
  kWrite,
  kReadHeader,
  kReadBody,
  kDone
};

// The phase as errors name it.
std::string_view PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kNone:
      return "";
    case Phase::kResolve:
      return "resolve";
    case Phase::kConnect:
      return "connect";
    case Phase::kTlsHandshake:
      return "TLS handshake";
    case Phase::kWrite:
      return "write";
    case Phase::kReadHeader:
      return "read header";
    case Phase::kReadBody:
      return "read body";
    case Phase::kDone:
      return "done";
  }
  return "";
}

struct Request {
  http::verb method = http::verb::get;
  std::string verb_label;      // for metrics: get, list, watch, create, ...
  std::string resource_label;  // for metrics: plural[/subresource]
  std::string target;          // path and query, without the base path
  std::string body;
  std::string content_type;
  Idempotency idempotency = Idempotency::kIdempotent;
  bool raw = false;           // non-2xx answers are results, not errors
  size_t max_body_bytes = 0;  // 0: ClientOptions::max_body_bytes
  // A watch or a followed log: it draws a token but holds no in-flight slot (it lasts as long
  // as the caller wants).
  bool long_running = false;
};

// A POST of a new object.
Request CreateRequest(std::string json, Idempotency idempotency) {
  Request req;
  req.method = http::verb::post;
  req.verb_label = "create";
  req.body = std::move(json);
  req.content_type = "application/json";
  req.idempotency = idempotency;
  return req;
}

struct Response {
  int http_code = 0;
  std::string body;
  std::string content_type;
  std::string location;
};

// Receives the body of a successful streaming response, chunk by chunk. A non-OK status ends
// the call with that status.
using BodySink = std::function<absl::Status(std::string_view)>;

struct AttemptResult {
  beast::error_code ec;        // transport failure
  Phase phase = Phase::kNone;  // where it failed
  bool not_sent = false;       // failed before the request could reach the server
  int http_code = 0;           // 0 without a response
  std::string body;            // non-streamed body
  std::string content_type;    // of a non-streamed body
  std::string location;        // a redirect's target
  std::optional<absl::Duration> retry_after;
  absl::Status sink_status;  // a sink or body-limit failure (never retried)
  bool streamed = false;     // the body went to the sink
};

class ClientImpl final : public Client, public std::enable_shared_from_this<ClientImpl> {
 public:
  ClientImpl(net::io_context& io, ConnectionConfig config, ClientOptions options)
      : io_(io), config_(std::move(config)), options_(std::move(options)) {
    host_header_ = config_.host.find(':') != std::string::npos
                       ? absl::StrCat("[", config_.host, "]")
                       : config_.host;
    if (config_.port != (config_.tls ? "443" : "80"))
      absl::StrAppend(&host_header_, ":", config_.port);
    verify_name_ = config_.tls_server_name.empty() ? config_.host : config_.tls_server_name;
    beast::error_code ec;
    net::ip::make_address(verify_name_, ec);
    sni_ = ec ? verify_name_ : "";  // SNI carries host names only, never IP literals
  }

  absl::Status Init() {
    if (!config_.tls) return absl::OkStatus();
    absl::StatusOr<Credentials> creds = config_.credentials->Get();
    if (!creds.ok()) return creds.status();
    return SslContextFor(*creds).status();
  }

  const ConnectionConfig& config() const override { return config_; }

  Awaitable<std::string> Create(ResourceRef collection, std::string json,
                                absl::Time deadline) override {
    return Unary(collection, "", CreateRequest(std::move(json), Idempotency::kUnsafe), deadline);
  }

  // Nothing is stored by a dry run, so it is retried like a read.
  Awaitable<std::string> CreateDryRun(ResourceRef collection, std::string json,
                                      absl::Time deadline) override {
    return Unary(collection, "?dryRun=All",
                 CreateRequest(std::move(json), Idempotency::kIdempotent), deadline);
  }

  Awaitable<std::string> Get(ResourceRef ref, absl::Time deadline) override {
    Request req;
    req.verb_label = "get";
    return Unary(ref, "", std::move(req), deadline);
  }

  Awaitable<std::string> Replace(ResourceRef ref, std::string json, absl::Time deadline) override {
    Request req;
    req.method = http::verb::put;
    req.verb_label = "update";
    req.body = std::move(json);
    req.content_type = "application/json";
    req.idempotency = Idempotency::kUnsafe;
    return Unary(ref, "", std::move(req), deadline);
  }

  Awaitable<std::string> Patch(ResourceRef ref, PatchType type, std::string patch,
                               absl::Time deadline) override {
    Request req;
    req.method = http::verb::patch;
    req.verb_label = "patch";
    req.body = std::move(patch);
    req.content_type =
        type == PatchType::kMerge ? "application/merge-patch+json" : "application/json-patch+json";
    req.idempotency = type == PatchType::kMerge ? Idempotency::kIdempotent : Idempotency::kUnsafe;
    return Unary(ref, "", std::move(req), deadline);
  }

  Awaitable<std::string> Delete(ResourceRef ref, DeleteOptions options,
                                absl::Time deadline) override {
    Request req;
    req.method = http::verb::delete_;
    req.verb_label = "delete";
    req.body = DeleteBody(options);
    req.content_type = "application/json";
    return Unary(ref, "", std::move(req), deadline);
  }

  Awaitable<ListPage> List(ResourceRef collection, ListOptions options,
                           absl::Time deadline) override {
    Request req;
    req.verb_label = "list";
    if (absl::Status s = Target(collection, ListQuery(options), req); !s.ok()) {
      return Ready<ListPage>(s);
    }
    return Run<ListPage>(
        deadline,
        [self = shared_from_this(), req = std::move(req)](CallState& state) -> Awaitable<ListPage> {
          auto executed = self->Execute(req, state, nullptr);
          absl::StatusOr<Response> r = co_await std::move(executed);
          if (!r.ok()) co_return r.status();
          co_return ParseListPage(std::move(r->body));
        });
  }

  Awaitable<std::string> Log(ResourceRef pod, LogOptions options, absl::Time deadline) override {
    options.follow = false;
    Request req;
    req.verb_label = "get";
    return Unary(LogRef(pod), LogQuery(options), std::move(req), deadline);
  }

  Awaitable<RawResponse> Raw(std::string method, std::string path_and_query, std::string body,
                             std::string content_type, Idempotency idempotency,
                             absl::Time deadline) override {
    Request req;
    req.method = http::string_to_verb(method);
    req.verb_label = absl::AsciiStrToLower(method);
    req.resource_label = "raw";
    req.target = std::move(path_and_query);
    req.body = std::move(body);
    req.content_type = std::move(content_type);
    req.idempotency = idempotency;
    req.raw = true;
    if (req.method == http::verb::unknown) {
      return Ready<RawResponse>(
          absl::InvalidArgumentError(absl::StrCat("unknown HTTP method ", method)));
    }
    return Run<RawResponse>(deadline,
                            [self = shared_from_this(),
                             req = std::move(req)](CallState& state) -> Awaitable<RawResponse> {
                              auto executed = self->Execute(req, state, nullptr);
                              absl::StatusOr<Response> r = co_await std::move(executed);
                              if (!r.ok()) co_return r.status();
                              co_return RawResponse{r->http_code, std::move(r->body)};
                            });
  }

  Awaitable<ProxyResponse> ProxyGet(ResourceRef pod, int port, std::string path_and_query,
                                    size_t max_body_bytes, absl::Time deadline) override {
    Request req;
    req.verb_label = "get";
    req.resource_label = "pods/proxy";
    req.raw = true;
    req.idempotency = Idempotency::kUnsafe;  // the service behind may count its GETs
    req.max_body_bytes = max_body_bytes;
    absl::StatusOr<std::string> prefix = PodProxyPrefix(pod.namespace_, pod.name, port);
    absl::StatusOr<std::string> target =
        PodProxyPath(pod.namespace_, pod.name, port, path_and_query);
    if (!target.ok()) return Ready<ProxyResponse>(target.status());
    req.target = *std::move(target);
    return Run<ProxyResponse>(
        deadline,
        [self = shared_from_this(), req = std::move(req),
         prefix = *std::move(prefix)](CallState& state) -> Awaitable<ProxyResponse> {
          auto executed = self->Execute(req, state, nullptr);
          absl::StatusOr<Response> r = co_await std::move(executed);
          if (!r.ok()) co_return r.status();
          if (IsApiServerAnswer(r->http_code, r->content_type, r->body)) {
            co_return StatusFromResponse(r->http_code, r->body);
          }
          std::string body = UnproxyLinks(std::move(r->body), r->content_type, prefix);
          co_return ProxyResponse{r->http_code, std::move(r->content_type),
                                  LocationInsideProxy(r->location, prefix), std::move(body)};
        });
  }

  net::awaitable<absl::Status> Watch(ResourceRef collection, WatchOptions options,
                                     absl::Time deadline, EventCallback on_event) override {
    Request req;
    req.verb_label = "watch";
    req.long_running = true;
    if (absl::Status s = Target(collection, "", req); !s.ok()) return ReadyStatus(s);
    return RunStatus(
        deadline,
        [self = shared_from_this(), req = std::move(req), options = std::move(options),
         on_event = std::move(on_event)](CallState& state) -> net::awaitable<absl::Status> {
          auto watching = self->WatchLoop(req, options, on_event, state);
          co_return co_await std::move(watching);
        });
  }

  net::awaitable<absl::Status> StreamLog(ResourceRef pod, LogOptions options, absl::Time deadline,
                                         ChunkCallback on_chunk) override {
    Request req;
    req.verb_label = "get";
    req.long_running = options.follow;
    if (absl::Status s = Target(LogRef(pod), LogQuery(options), req); !s.ok()) {
      return ReadyStatus(s);
    }
    return RunStatus(
        deadline,
        [self = shared_from_this(), req = std::move(req),
         on_chunk = std::move(on_chunk)](CallState& state) -> net::awaitable<absl::Status> {
          BodySink sink = [&on_chunk](std::string_view chunk) {
            on_chunk(chunk);
            return absl::OkStatus();
          };
          auto executed = self->Execute(req, state, &sink);
          absl::StatusOr<Response> r = co_await std::move(executed);
          co_return r.status();
        });
  }

 private:
  static ResourceRef LogRef(ResourceRef pod) {
    pod.subresource = "log";
    return pod;
  }

  // The request's path (and its metrics label) for `ref`, with `query` after it.
  static absl::Status Target(const ResourceRef& ref, std::string_view query, Request& req) {
    absl::StatusOr<std::string> path = ResourcePath(ref);
    if (!path.ok()) return path.status();
    req.resource_label = ResourceLabel(ref);
    req.target = absl::StrCat(*path, ToAbsl(query));
    return absl::OkStatus();
  }

  template <class T>
  static Awaitable<T> Ready(absl::StatusOr<T> result) {
    co_return result;
  }
  static Awaitable<std::string> Ready(absl::Status status) {
    return Ready<std::string>(std::move(status));
  }
  static net::awaitable<absl::Status> ReadyStatus(absl::Status status) { co_return status; }

  Awaitable<std::string> Unary(const ResourceRef& ref, std::string_view query, Request req,
                               absl::Time deadline) {
    if (absl::Status s = Target(ref, query, req); !s.ok()) return Ready(s);
    return Run<std::string>(deadline,
                            [self = shared_from_this(),
                             req = std::move(req)](CallState& state) -> Awaitable<std::string> {
                              auto executed = self->Execute(req, state, nullptr);
                              absl::StatusOr<Response> r = co_await std::move(executed);
                              if (!r.ok()) co_return r.status();
                              co_return std::move(r->body);
                            });
  }

  // Runs `body` (a coroutine lambda, kept alive in this frame while it runs) under the call's
  // state: on the awaiting coroutine's executor, with its cancellation and the deadline's
  // watchdog. Asio's throw after a cancellation becomes kCancelled here, once.
  template <class T, class Body>
  static Awaitable<T> Run(absl::Time deadline, Body body) {
    if (deadline == absl::InfiniteFuture()) {
      co_return absl::InvalidArgumentError("kubernetes: every call needs a finite deadline");
    }
    net::any_io_executor executor = co_await net::this_coro::executor;
    net::cancellation_state caller = co_await net::this_coro::cancellation_state;
    auto state = std::make_shared<CallState>(std::move(executor), caller, deadline);
    state->StartWatchdog();
    absl::StatusOr<T> result;
    try {
      auto running = body(*state);
      result = co_await std::move(running);
    } catch (const boost::system::system_error& error) {
      result = error.code() == net::error::operation_aborted
                   ? absl::CancelledError("kubernetes: the call was cancelled")
                   : absl::InternalError(absl::StrCat("kubernetes client: ", error.what()));
    }
    state->StopWatchdog();
    co_return result;
  }

  template <class Body>
  static net::awaitable<absl::Status> RunStatus(absl::Time deadline, Body body) {
    auto run = Run<bool>(deadline, [body = std::move(body)](CallState& state) -> Awaitable<bool> {
      auto running = body(state);
      absl::Status status = co_await std::move(running);
      if (!status.ok()) co_return status;
      co_return true;
    });
    absl::StatusOr<bool> ran = co_await std::move(run);
    co_return ran.status();
  }

  absl::StatusOr<std::shared_ptr<ssl::context>> SslContextFor(const Credentials& creds) {
    absl::MutexLock lock(&ssl_mu_);
    if (ssl_ctx_ && ssl_cert_ == creds.client_cert_pem && ssl_key_ == creds.client_key_pem) {
      return ssl_ctx_;
    }
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
    beast::error_code ec;
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                         ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1,
                     ec);
    if (config_.insecure_skip_tls_verify) {
      ctx->set_verify_mode(ssl::verify_none, ec);
    } else {
      ctx->set_verify_mode(ssl::verify_peer, ec);
      if (!config_.ca_pem.empty()) {
        ctx->add_certificate_authority(net::buffer(config_.ca_pem), ec);
        if (ec) {
          return absl::InvalidArgumentError(absl::StrCat(
              "the CA certificate of ", config_.server_url, " is unusable: ", ec.message()));
        }
      } else {
        ctx->set_default_verify_paths(ec);
      }
    }
    if (!creds.client_cert_pem.empty()) {
      ctx->use_certificate_chain(net::buffer(creds.client_cert_pem), ec);
      if (ec) {
        return absl::InvalidArgumentError(
            absl::StrCat("the client certificate is unusable: ", ec.message()));
      }
      ctx->use_private_key(net::buffer(creds.client_key_pem), ssl::context::pem, ec);
      if (ec) {
        return absl::InvalidArgumentError(
            absl::StrCat("the client key is unusable: ", ec.message()));
      }
    }
    ssl_ctx_ = std::move(ctx);
    ssl_cert_ = creds.client_cert_pem;
    ssl_key_ = creds.client_key_pem;
    return ssl_ctx_;
  }

  std::shared_ptr<Connection> TakeIdle(const std::shared_ptr<ssl::context>& ctx) {
    absl::MutexLock lock(&pool_mu_);
    auto now = std::chrono::steady_clock::now();
    while (!idle_.empty()) {
      std::shared_ptr<Connection> conn = std::move(idle_.back());
      idle_.pop_back();
      if (conn->ssl_ctx == ctx && now - conn->idle_since < ToChrono(options_.max_idle_time) &&
          conn->LooksAlive()) {
        return conn;
      }
    }
    return nullptr;
  }

  void PutIdle(std::shared_ptr<Connection> conn) {
    conn->idle_since = std::chrono::steady_clock::now();
    absl::MutexLock lock(&pool_mu_);
    if (idle_.size() < options_.max_idle_connections) idle_.push_back(std::move(conn));
  }

  double Random01() {
    if (options_.random01) return options_.random01();
    absl::MutexLock lock(&rng_mu_);
    return absl::Uniform(rng_, 0.0, 1.0);
  }

  // Opens a new connection: resolve, connect, TLS handshake. Failures here mean the request
  // never left.
  net::awaitable<std::shared_ptr<Connection>> Connect(std::shared_ptr<ssl::context> ctx,
                                                      CallState& state, AttemptResult& result) {
    auto conn = std::make_shared<Connection>(io_, ctx);
    tcp::resolver resolver(state.executor());
    tcp::resolver::results_type endpoints;
    {
      ScopedAbort cancel_on_abort(state, [&resolver] { resolver.cancel(); });
      result.phase = Phase::kResolve;
      endpoints = co_await resolver.async_resolve(
          config_.host, config_.port, net::redirect_error(net::use_awaitable, result.ec));
    }
    if (result.ec || state.interrupted()) co_return nullptr;
    ScopedAbort close_on_abort(state, [&conn = *conn] { conn.Lowest().close(); });
    result.phase = Phase::kConnect;
    co_await conn->Lowest().async_connect(endpoints,
                                          net::redirect_error(net::use_awaitable, result.ec));
    if (result.ec || state.interrupted()) co_return nullptr;
    beast::error_code ec;
    conn->Lowest().socket().set_option(tcp::no_delay(true), ec);
    if (conn->tls) {
      result.phase = Phase::kTlsHandshake;
      if (!sni_.empty() && !SSL_set_tlsext_host_name(conn->tls->native_handle(), sni_.c_str())) {
        result.ec =
            beast::error_code(static_cast<int>(::ERR_get_error()), net::error::get_ssl_category());
        co_return nullptr;
      }
      if (!config_.insecure_skip_tls_verify) {
        conn->tls->set_verify_callback(ssl::host_name_verification(verify_name_));
      }
      co_await conn->tls->async_handshake(ssl::stream_base::client,
                                          net::redirect_error(net::use_awaitable, result.ec));
      if (result.ec || state.interrupted()) co_return nullptr;
    }
    co_return conn;
  }

  template <class Stream>
  net::awaitable<void> Exchange(Stream& stream, Connection& conn, const Request& req,
                                const Credentials& creds, const BodySink* sink, CallState& state,
                                AttemptResult& result) {
    http::request<http::string_body> msg{req.method, config_.base_path + req.target, 11};
    msg.set(http::field::host, host_header_);
    msg.set(http::field::user_agent, options_.user_agent);
    msg.set(http::field::accept, "application/json, */*");
    if (!creds.bearer_token.empty()) {
      msg.set(http::field::authorization, "Bearer " + creds.bearer_token);
    }
    if (!req.content_type.empty()) msg.set(http::field::content_type, req.content_type);
    msg.keep_alive(true);
    msg.body() = req.body;
    msg.prepare_payload();

    result.phase = Phase::kWrite;
    co_await http::async_write(stream, msg, net::redirect_error(net::use_awaitable, result.ec));
    if (result.ec || state.interrupted()) co_return;

    http::response_parser<http::buffer_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(boost::none);  // enforced below, per kind of response
    result.phase = Phase::kReadHeader;
    co_await http::async_read_header(stream, conn.buffer, parser,
                                     net::redirect_error(net::use_awaitable, result.ec));
    if (result.ec || state.interrupted()) co_return;
    result.http_code = static_cast<int>(parser.get().result_int());
    if (auto it = parser.get().find(http::field::retry_after); it != parser.get().end()) {
      result.retry_after =
          ParseRetryAfter(ToStd(absl::string_view(it->value().data(), it->value().size())));
    }
    const auto header = [&](http::field field) {
      auto it = parser.get().find(field);
      return it == parser.get().end() ? std::string()
                                      : std::string(it->value().data(), it->value().size());
    };
    result.content_type = header(http::field::content_type);
    result.location = header(http::field::location);
    bool to_sink = sink != nullptr && result.http_code >= 200 && result.http_code < 300;
    result.streamed = to_sink;
    size_t limit = sink != nullptr      ? options_.max_error_body_bytes
                   : req.max_body_bytes ? req.max_body_bytes
                                        : options_.max_body_bytes;
    result.phase = Phase::kReadBody;
    if (!to_sink) {
      // A whole body in one composed read: Beast loops over the TLS records itself and sizes the
      // string from Content-Length, where a coroutine turn per record cost more than the parse
      // of a LIST page's objects.
      auto too_large = [&] {
        result.sink_status = absl::ResourceExhaustedError(
            absl::StrCat("kubernetes: the response to ", req.verb_label, " ", req.resource_label,
                         " is larger than ", limit, " bytes"));
      };
      // The limit is checked against Content-Length here (the header was parsed without one)
      // and, for a chunked body, by the parser as the chunks come.
      if (boost::optional<uint64_t> length = parser.content_length(); length && *length > limit) {
        too_large();
        co_return;
      }
      http::response_parser<http::string_body> whole(std::move(parser));
      whole.body_limit(limit);
      co_await http::async_read(stream, conn.buffer, whole,
                                net::redirect_error(net::use_awaitable, result.ec));
      if (state.interrupted()) co_return;
      if (result.ec == http::error::body_limit) {
        result.ec = {};
        too_large();
        co_return;
      }
      result.body = std::move(whole.get().body());
      if (result.ec) co_return;
      if (whole.keep_alive()) result.phase = Phase::kDone;
      co_return;
    }
    // Streamed to the sink (a log, a watch) as it comes, a chunk at a time.
    char chunk[kReadChunk];
    while (!parser.is_done()) {
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof chunk;
      co_await http::async_read_some(stream, conn.buffer, parser,
                                     net::redirect_error(net::use_awaitable, result.ec));
      if (result.ec == http::error::need_buffer) result.ec = {};
      if (state.interrupted()) co_return;
      size_t got = sizeof chunk - parser.get().body().size;
      if (got > 0) {
        result.sink_status = (*sink)(std::string_view(chunk, got));
        if (!result.sink_status.ok()) co_return;
      }
      if (result.ec) co_return;
    }
    if (parser.keep_alive()) result.phase = Phase::kDone;
  }

  // One attempt: a pooled or new connection, the request, the response.
  net::awaitable<AttemptResult> Attempt(const Request& req, const Credentials& creds,
                                        CallState& state, const BodySink* sink) {
    AttemptResult result;
    std::shared_ptr<ssl::context> ctx;
    if (config_.tls) {
      absl::StatusOr<std::shared_ptr<ssl::context>> c = SslContextFor(creds);
      if (!c.ok()) {
        result.sink_status = c.status();
        co_return result;
      }
      ctx = *c;
    }
    std::shared_ptr<Connection> conn = TakeIdle(ctx);
    if (!conn) {
      conn = co_await Connect(ctx, state, result);
      if (!conn) {
        result.not_sent = true;
        if (!result.ec) result.ec = net::error::operation_aborted;
        co_return result;
      }
    }
    {
      ScopedAbort close_on_abort(state, [&conn = *conn] { conn.Lowest().close(); });
      if (conn->tls) {
        co_await Exchange(*conn->tls, *conn, req, creds, sink, state, result);
      } else {
        co_await Exchange(*conn->plain, *conn, req, creds, sink, state, result);
      }
    }
    if (state.interrupted() && !result.ec) result.ec = net::error::operation_aborted;
    if (!result.ec && result.sink_status.ok() && result.phase == Phase::kDone) {
      PutIdle(std::move(conn));
    }
    co_return result;
  }

  void Record(const Request& req, const AttemptResult& r, absl::Duration latency) {
    if (options_.metrics == nullptr) return;
    options_.metrics->Record(req.verb_label, req.resource_label,
                             r.http_code > 0 ? absl::StrCat(r.http_code) : "error", latency);
  }

  absl::Status TransportStatus(const Request& req, const AttemptResult& r, CallState& state) {
    if (state.interrupted()) {
      return state.InterruptedStatus(absl::StrCat(req.verb_label, " ", req.resource_label));
    }
    return absl::UnavailableError(absl::StrCat("kubernetes: ", req.verb_label, " ",
                                               req.resource_label, ": ", ToAbsl(PhaseName(r.phase)),
                                               " ", config_.server_url, ": ", r.ec.message()));
  }

  // The credentials for the next attempt. An exec plugin run takes seconds: it happens on the
  // provider's own thread, and this coroutine waits for it within the deadline.
  net::awaitable<absl::StatusOr<Credentials>> CurrentCredentials(CallState& state) {
    auto answer = async::OneShot<absl::StatusOr<Credentials>>::New();
    config_.credentials->GetAsync(
        [answer](absl::StatusOr<Credentials> credentials) { answer->Set(std::move(credentials)); });
    absl::StatusOr<absl::StatusOr<Credentials>> got = co_await answer->Wait(state.deadline());
    // Without the answer the wait ended on the call's cancellation or its deadline.
    if (!got.ok()) co_return state.InterruptedStatus("reading the credentials");
    co_return *std::move(got);
  }

  // Waits until the limiter lets the attempt go, within the call's deadline. `ticket` is set when
  // the attempt holds a place the caller must release once it is over.
  net::awaitable<absl::Status> Admit(const Request& req, CallState& state,
                                     std::shared_ptr<RequestLimiter::Ticket>& ticket) {
    if (options_.limiter == nullptr) co_return absl::OkStatus();
    std::shared_ptr<async::Wakeup> wakeup = async::Wakeup::New();
    ticket = std::make_shared<RequestLimiter::Ticket>(wakeup->Waker());
    for (;;) {
      absl::StatusOr<RequestLimiter::Decision> decision =
          options_.limiter->Ask(ticket, req.long_running);
      if (!decision.ok()) {
        ticket = nullptr;
        co_return decision.status();
      }
      if (decision->go) co_return absl::OkStatus();
      if (!state.interrupted()) {
        auto waiting = wakeup->Wait(std::min(decision->retry_at, state.deadline()));
        co_await std::move(waiting);
      }
      if (state.interrupted()) {
        options_.limiter->Release(ticket);
        ticket = nullptr;
        co_return state.InterruptedStatus(
            absl::StrCat(req.verb_label, " ", req.resource_label, " (waiting for admission)"));
      }
    }
  }

  // The request with retries. With a sink, a 2xx body is streamed to it and the call ends with
  // the stream (streams are never retried once they started).
  net::awaitable<absl::StatusOr<Response>> Execute(const Request& req, CallState& state,
                                                   const BodySink* sink) {
    int reloads = 0;
    absl::Status last;
    for (int attempt = 1;; ++attempt) {
      if (state.interrupted()) {
        co_return state.InterruptedStatus(absl::StrCat(req.verb_label, " ", req.resource_label));
      }
      absl::StatusOr<Credentials> creds = co_await CurrentCredentials(state);
      if (!creds.ok()) co_return creds.status();
      std::shared_ptr<RequestLimiter::Ticket> ticket;
      if (absl::Status admitted = co_await Admit(req, state, ticket); !admitted.ok()) {
        co_return admitted;
      }
      absl::Time start = absl::Now();
      AttemptResult r = co_await Attempt(req, *creds, state, sink);
      if (ticket != nullptr) options_.limiter->Release(ticket);
      Record(req, r, absl::Now() - start);
      if (!r.sink_status.ok()) co_return r.sink_status;
      if (r.http_code == 0 || r.ec) {
        if (r.streamed && !r.ec) co_return Response{r.http_code, "", "", ""};
        last = TransportStatus(req, r, state);
        if (state.interrupted() || r.streamed) co_return last;
      } else if (r.http_code == 401 && reloads < kMaxCredentialReloads) {
        // The credentials may have rotated under us: reload them, and try again only if that
        // gave different ones (a token rotating faster than a request is a retry, a token that
        // is just wrong is not).
        ++reloads;
        config_.credentials->Invalidate();
        absl::StatusOr<Credentials> fresh = co_await CurrentCredentials(state);
        if (!fresh.ok()) co_return fresh.status();
        if (fresh->bearer_token == creds->bearer_token &&
            fresh->client_cert_pem == creds->client_cert_pem) {
          co_return StatusFromResponse(r.http_code, r.body);
        }
        log::Info("kubernetes: 401, retrying with reloaded credentials")
            .Kv("server", config_.server_url);
        --attempt;
        continue;
      } else if ((r.http_code >= 200 && r.http_code < 300) || req.raw) {
        co_return Response{r.http_code, std::move(r.body), std::move(r.content_type),
                           std::move(r.location)};
      } else {
        last = StatusFromResponse(r.http_code, r.body);
      }
      AttemptOutcome outcome{r.ec ? 0 : r.http_code, r.not_sent};
      if (!IsRetryable(outcome, req.idempotency) || attempt >= options_.retry.max_attempts) {
        co_return last;
      }
      absl::Duration delay = BackoffDelay(options_.retry, attempt, Random01(),
                                          r.http_code == 429 ? r.retry_after : std::nullopt);
      if (absl::Now() + delay >= state.deadline()) co_return last;
      log::Debug("kubernetes: retrying")
          .Kv("verb", req.verb_label)
          .Kv("resource", req.resource_label)
          .Kv("attempt", attempt)
          .Kv("delay_ms", absl::ToInt64Milliseconds(delay))
          .Kv("error", std::string(last.message()));
      net::steady_timer timer(state.executor());
      timer.expires_after(ToChrono(delay));
      ScopedAbort cancel_on_abort(state, [&timer] { timer.cancel(); });
      beast::error_code ec;
      co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
    }
  }

  net::awaitable<absl::Status> WatchLoop(Request req, WatchOptions options,
                                         const EventCallback& on_event, CallState& state) {
    std::string resource_version = options.resource_version;
    std::string base_target = req.target;
    WatchStreamDecoder decoder(req.resource_label, options_.max_watch_event_bytes);
    int quiet_ends = 0;
    for (;;) {
      req.target = base_target + WatchQuery(options, resource_version);
      decoder.Reset();
      bool got_event = false;
      auto deliver = [&](const WatchEvent& event) {
        if (!event.resource_version.empty()) resource_version = event.resource_version;
        got_event = true;
        on_event(event);
      };
      BodySink sink = [&](std::string_view chunk) { return decoder.Feed(chunk, deliver); };
      absl::StatusOr<Response> r = co_await Execute(req, state, &sink);
      if (state.interrupted()) {
        co_return state.InterruptedStatus(absl::StrCat("watch ", req.resource_label));
      }
      bool dropped = !r.ok() && absl::IsUnavailable(r.status()) && HttpCode(r.status()) == 0;
      if (!r.ok() && !dropped) co_return r.status();
      if (!options.resume) co_return r.status();
      // Resume from the last version seen. A stream that keeps ending without a single event
      // backs off, so a server that closes every watch at once is not hammered.
      quiet_ends = got_event ? 0 : quiet_ends + 1;
      log::Debug("kubernetes: watch resumed")
          .Kv("resource", req.resource_label)
          .Kv("resource_version", resource_version)
          .Kv("dropped", dropped);
      if (quiet_ends > 0) {
        absl::Duration delay = BackoffDelay(options_.retry, quiet_ends, Random01());
        if (absl::Now() + delay >= state.deadline()) {
          co_return state.InterruptedStatus(absl::StrCat("watch ", req.resource_label));
        }
        net::steady_timer timer(state.executor());
        timer.expires_after(ToChrono(delay));
        ScopedAbort cancel_on_abort(state, [&timer] { timer.cancel(); });
        beast::error_code ec;
        co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
      }
    }
  }

  net::io_context& io_;
  const ConnectionConfig config_;
  const ClientOptions options_;
  std::string host_header_;
  std::string verify_name_;
  std::string sni_;

  absl::Mutex ssl_mu_;
  std::shared_ptr<ssl::context> ssl_ctx_ ABSL_GUARDED_BY(ssl_mu_);
  std::string ssl_cert_ ABSL_GUARDED_BY(ssl_mu_);
  std::string ssl_key_ ABSL_GUARDED_BY(ssl_mu_);

  absl::Mutex pool_mu_;
  std::vector<std::shared_ptr<Connection>> idle_ ABSL_GUARDED_BY(pool_mu_);

  absl::Mutex rng_mu_;
  absl::BitGen rng_ ABSL_GUARDED_BY(rng_mu_);
};

}  // namespace

absl::StatusOr<std::shared_ptr<Client>> NewClient(boost::asio::io_context& io,
                                                  ConnectionConfig config, ClientOptions options) {
  if (!config.credentials) {
    config.credentials = std::make_shared<StaticCredentialProvider>(Credentials{});
  }
  auto client = std::make_shared<ClientImpl>(io, std::move(config), std::move(options));
  if (absl::Status s = client->Init(); !s.ok()) return s;
  return client;
}

}  // namespace kje::k8s
