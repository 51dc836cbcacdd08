#include "cli/forward.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"

namespace kje::cli {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace pb = jobexecutor::v1;
using tcp = asio::ip::tcp;

constexpr int kDefaultPort = 4040;
constexpr char kDefaultAddress[] = "127.0.0.1";
// A browser that opens a connection and sends nothing holds up the one request served at a
// time for no longer than this.
constexpr int kReadTimeoutSeconds = 10;
constexpr size_t kMaxTarget = 8192;
constexpr uint32_t kMaxRequestHeader = 16 * 1024;
// How often the job is checked while no request comes, so that forward ends with the job.
constexpr std::chrono::seconds kJobCheckInterval{2};

constexpr char kHistoryNote[] =
    "its Spark UI went with its driver (a finished job's UI is the Spark history server's)";

struct Forwarder {
  Forwarder(Context& context, std::string execution_id) : c(context), id(std::move(execution_id)) {}

  Context& c;
  std::string id;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::signal_set signals{io, SIGINT, SIGTERM};
  asio::steady_timer check{io};
  std::optional<int> exit_code;

  void Finish(int code) {
    if (exit_code) return;
    exit_code = code;
    io.stop();
  }

  // The job stopped while forwarded: the forward has done what it could.
  void Stopped(const std::string& how) {
    c.io.err << kProgram << ": forward: job " << id << " " << how << "; " << kHistoryNote << "\n";
    Finish(kExitOk);
  }

  grpc::Status Proxy(const std::string& path, pb::ProxyUiResponse* response) {
    pb::ProxyUiRequest request;
    request.set_execution_id(id);
    request.set_path(path);
    auto ctx = c.conn.NewContext(false);
    return c.conn.stub().ProxyUi(ctx.get(), request, response);
  }

  void CheckJob() {
    pb::StatusRequest request;
    request.set_execution_id(id);
    pb::JobInfo info;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().Status(ctx.get(), request, &info);
    if (status.error_code() == grpc::StatusCode::NOT_FOUND) return Stopped("is gone");
    if (status.ok() && IsTerminal(info.status())) {
      return Stopped(absl::StrCat("has stopped (", pb::JobInfo::Status_Name(info.status()), ")"));
    }
    // Anything else (the server briefly away) is the next request's to report.
    check.expires_after(kJobCheckInterval);
    check.async_wait([this](boost::system::error_code ec) {
      if (!ec) CheckJob();
    });
  }

  static void Answer(tcp::socket& socket, http::status code, std::string content_type,
                     std::string body, const std::string& location = "") {
    http::response<http::string_body> response{code, 11};
    response.set(http::field::server, kProgram);
    if (!content_type.empty()) response.set(http::field::content_type, content_type);
    if (!location.empty()) response.set(http::field::location, location);
    response.set(http::field::cache_control, "no-store");
    response.keep_alive(false);
    response.body() = std::move(body);
    response.prepare_payload();
    boost::system::error_code ec;
    http::write(socket, response, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  // One request of one connection, then the connection closes: a browser's idle keep-alive
  // connection never holds up the next one.
  void Serve(tcp::socket socket) {
    const timeval timeout{kReadTimeoutSeconds, 0};
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    boost::beast::flat_buffer buffer;
    http::request_parser<http::empty_body> parser;
    parser.header_limit(kMaxRequestHeader);
    parser.body_limit(0);
    boost::system::error_code ec;
    http::read(socket, buffer, parser, ec);
    if (ec) return;  // gone, too slow, or not HTTP: nothing to answer
    const auto& request = parser.get();
    if (request.method() != http::verb::get && request.method() != http::verb::head) {
      return Answer(socket, http::status::method_not_allowed, "text/plain",
                    "the Spark UI is forwarded for GET only\n");
    }
    absl::StatusOr<std::string> path =
        UiPathOf(std::string_view(request.target().data(), request.target().size()));
    if (!path.ok()) {
      return Answer(socket, http::status::bad_request, "text/plain",
                    absl::StrCat(path.status().message(), "\n"));
    }
    pb::ProxyUiResponse response;
    grpc::Status status = Proxy(*path, &response);
    if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      // The driver is gone: say so to the browser and to the user, and stop forwarding.
      Answer(socket, http::status::service_unavailable, "text/plain",
             absl::StrCat(status.error_message(), "\n"));
      c.io.err << kProgram << ": forward: " << status.error_message() << "\n";
      return Finish(kExitOk);
    }
    if (!status.ok()) {
      c.io.err << kProgram << ": forward: " << *path << ": " << GrpcCodeName(status.error_code())
               << ": " << status.error_message() << "\n";
      return Answer(
          socket, http::status::bad_gateway, "text/plain",
          absl::StrCat(GrpcCodeName(status.error_code()), ": ", status.error_message(), "\n"));
    }
    const int code = response.status_code() >= 100 && response.status_code() <= 599
                         ? response.status_code()
                         : 502;
    std::string body = request.method() == http::verb::head ? std::string() : response.body();
    Answer(socket, static_cast<http::status>(code), response.content_type(), std::move(body),
           response.location());
  }

  void Accept() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted) return;
        c.io.err << kProgram << ": forward: accept: " << ec.message() << "\n";
        return Finish(kExitError);
      }
      Serve(std::move(socket));
      if (!exit_code) Accept();
    });
  }
};

absl::StatusOr<int> PortFlag(const ParsedFlags& flags) {
  auto v = flags.Get("port");
  if (!v) return kDefaultPort;
  int port = 0;
  if (!absl::SimpleAtoi(*v, &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--port needs a number from 0 (any free port) to 65535, got ", QuoteBounded(*v)));
  }
  return port;
}

int Forward(Context& c) {
  absl::StatusOr<int> port = PortFlag(c.flags);
  if (!port.ok()) return UsageError(c.io, "forward", std::string(port.status().message()));
  const std::string address_text = c.flags.Get("address").value_or(kDefaultAddress);
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(address_text, ec);
  if (ec) {
    return UsageError(c.io, "forward",
                      absl::StrCat("--address needs an IP address such as 127.0.0.1, got ",
                                   QuoteBounded(address_text)));
  }
  Forwarder f{c, c.flags.positional()[0]};
  // The UI must be there before anything is promised: a job without a running driver (not yet,
  // or no more) is said at once, as the server words it.
  pb::ProxyUiResponse first;
  if (grpc::Status status = f.Proxy("/", &first); !status.ok()) {
    return RpcError(c.io, "forward", status);
  }
  const tcp::endpoint endpoint(address, static_cast<uint16_t>(*port));
  f.acceptor.open(endpoint.protocol(), ec);
  if (!ec) f.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) f.acceptor.bind(endpoint, ec);
  if (!ec) f.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    c.io.err << kProgram << ": forward: can't listen on " << address_text << ":" << *port << ": "
             << ec.message() << (*port != 0 ? " (--port 0 picks a free port)" : "") << "\n";
    return kExitError;
  }
  const tcp::endpoint bound = f.acceptor.local_endpoint(ec);
  const std::string host =
      address.is_v6() ? absl::StrCat("[", address.to_string(), "]") : address.to_string();
  c.io.out << "Forwarding from http://" << host << ":" << bound.port() << " -> " << f.id
           << " (Spark UI); Ctrl-C to stop" << std::endl;
  if (!address.is_loopback()) {
    c.io.err << kProgram << ": warning: the Spark UI is served on " << host
             << ", not only to this machine, and without authentication\n";
  }
  f.signals.async_wait([&f](boost::system::error_code error, int) {
    if (!error) f.Finish(kExitOk);
  });
  f.Accept();
  f.check.expires_after(kJobCheckInterval);
  f.check.async_wait([&f](boost::system::error_code error) {
    if (!error) f.CheckJob();
  });
  f.io.run();
  return f.exit_code.value_or(kExitOk);
}

}  // namespace

absl::StatusOr<std::string> UiPathOf(std::string_view target) {
  if (target.size() > kMaxTarget) {
    return absl::InvalidArgumentError(
        absl::StrCat("a request target of ", target.size(), " bytes; at most ", kMaxTarget));
  }
  if (target.empty() || target.front() != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("only paths of the Spark UI are forwarded, not ", QuoteBounded(target)));
  }
  for (char ch : target) {
    const auto u = static_cast<unsigned char>(ch);
    if (u <= 0x20 || u == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat("a request target with a space or control byte: ", QuoteBounded(target)));
    }
  }
  return std::string(target);
}

Command ForwardCommand() {
  return Command{
      "forward",
      "EXECUTION_ID [--port 4040] [--address 127.0.0.1] [flags]",
      "serve a running job's Spark UI on a local port",
      "The driver's Spark UI, tunnelled through the server (ProxyUi, which reaches it through\n"
      "the API server's pod proxy): no kubeconfig or route to the cluster needed. Prints\n"
      "`Forwarding from http://127.0.0.1:4040 -> ID (Spark UI)` and serves until Ctrl-C or\n"
      "until the job stops (its UI goes with its driver; then exit code 0, with a note on\n"
      "stderr). A job without a running driver is FAILED_PRECONDITION at once (exit code 1).\n"
      "One request at a time, each on its own connection; --port 0 picks a free port.\n",
      {
          {"port", 0, "N", false, "the local port (default 4040; 0: any free port)"},
          {"address", 0, "IP", false,
           "the local address to listen on (default 127.0.0.1: this machine only)"},
      },
      "EXECUTION_ID",
      1,
      1,
      Forward,
      {OutputFormat::kTable}};
}

}  // namespace kje::cli
