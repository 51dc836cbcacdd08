#include "k8s/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "k8s/errors.h"
#include "tests/k8s/async_test_util.h"
#include "tests/k8s/subprocess.h"
#include "tests/k8s/test_util.h"

// Transport tests against a scripted HTTPS server (tests/k8s/fake_apiserver.py): TLS, tokens,
// client certificates, retries, deadlines, cancellation, keep-alive, streaming.

namespace kje::k8s {
namespace {

using testing::Await;
using testing::In;
using testing::IoThread;
using testing::Start;
using testing::Started;
using testing::Subprocess;
using testing::TempDir;

struct Recorded {
  std::string method, path, query, auth, body, content_type, host;
  int conn = 0;
};

class FakeApiServer {
 public:
  explicit FakeApiServer(std::vector<std::string> flags = {}) {
    dir_.Write("token", "tok-1");
    std::vector<std::string> argv = {"/usr/bin/python3", KJE_FAKE_APISERVER, "--dir", dir_.path()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    plain_ = std::find(flags.begin(), flags.end(), "--plain") != flags.end();
    REQUIRE(proc_.Start(argv).ok());
    absl::StatusOr<std::string> line = proc_.ReadLine(In(absl::Seconds(60)));
    REQUIRE(line.ok());
    REQUIRE(line->rfind("READY ", 0) == 0);
    REQUIRE(absl::SimpleAtoi(line->substr(6), &port_));
    ConnectionConfig control = Config();
    control_ = *NewClient(control_io_.io(), std::move(control));
  }

  const TempDir& dir() const { return dir_; }
  std::string Url(const std::string& host = "127.0.0.1") const {
    return absl::StrCat(plain_ ? "http" : "https", "://", host, ":", port_);
  }

  // masterUrl + caCertFile + tokenFile.
  ConnectionConfig Config(const std::string& host = "127.0.0.1") const {
    auto config = ResolveConnection(
        {"", "", Url(host), plain_ ? "" : dir_.File("ca.crt"), dir_.File("token")},
        Environment::Process());
    REQUIRE(config.ok());
    return *config;
  }

  void Script(const std::string& path, const std::string& responses_json) {
    auto r = Await(
        control_io_.io(),
        control_->Raw("POST", "/_ctl/script",
                      absl::StrCat(R"({"path":")", path, R"(","responses":)", responses_json, "}"),
                      "application/json", Idempotency::kUnsafe, In(absl::Seconds(30))));
    REQUIRE(r.ok());
    REQUIRE(r->http_code == 200);
  }

  // Every request recorded; with `at_least`, once that many are (the server waits up to 20 s).
  std::vector<Recorded> Requests(size_t at_least = 0) {
    auto r = Await(control_io_.io(),
                   control_->Raw("GET", absl::StrCat("/_ctl/requests?atLeast=", at_least), "", "",
                                 Idempotency::kIdempotent, In(absl::Seconds(30))));
    REQUIRE(r.ok());
    rapidjson::Document doc;
    doc.Parse(r->body.c_str());
    REQUIRE(doc.IsArray());
    std::vector<Recorded> out;
    for (const auto& v : doc.GetArray()) {
      out.push_back({v["method"].GetString(), v["path"].GetString(), v["query"].GetString(),
                     v["auth"].GetString(), v["body"].GetString(), v["contentType"].GetString(),
                     v["host"].GetString(), v["conn"].GetInt()});
    }
    return out;
  }

  // Replaces the accepted token atomically, as kubelet rotates projected tokens.
  void RotateToken(const std::string& token) const {
    dir_.Write("token.next", token);
    std::filesystem::rename(dir_.File("token.next"), dir_.File("token"));
  }

 private:
  TempDir dir_;
  Subprocess proc_;
  int port_ = 0;
  bool plain_ = false;
  IoThread control_io_;
  std::shared_ptr<Client> control_;
};

ClientOptions FastRetries(RequestMetrics* metrics = nullptr) {
  ClientOptions options;
  options.retry.initial_backoff = absl::Milliseconds(10);
  options.retry.max_backoff = absl::Milliseconds(50);
  options.metrics = metrics;
  options.random01 = [] { return 0.5; };
  return options;
}

const ResourceRef kPod{"", "v1", "pods", "ns", "p1", ""};
const ResourceRef kPods{"", "v1", "pods", "ns", "", ""};
const ResourceRef kApps{"spark.apache.org", "v1", "sparkapplications", "jobs", "", ""};
const char kPodPath[] = "/api/v1/namespaces/ns/pods/p1";
const char kPodJson[] = R"({"kind":"Pod","metadata":{"name":"p1","resourceVersion":"3"}})";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A scripted 200 answer with `body`.
std::string Ok(const std::string& body) {
  std::string escaped;
  for (char c : body) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    escaped.push_back(c);
  }
  return absl::StrCat(R"({"status":200,"body":")", escaped, R"("})");
}

TEST_CASE("GET over TLS with the configured CA, host name check and bearer token") {
  FakeApiServer server;
  IoThread io;
  RequestMetrics metrics;
  server.Script(kPodPath, absl::StrCat("[", Ok(kPodJson), "]"));
  auto client = NewClient(io.io(), server.Config(), FastRetries(&metrics));
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(20))));
  REQUIRE(r.ok());
  CHECK(*r == kPodJson);
  auto requests = server.Requests();
  REQUIRE(requests.size() >= 1);
  CHECK(requests.back().method == "GET");
  CHECK(requests.back().auth == "Bearer tok-1");
  CHECK(requests.back().host.find("127.0.0.1:") == 0);
  CHECK(metrics.Count("get", "pods", "200") == 1);
}

TEST_CASE("TLS is verified: a wrong CA or a wrong server name fails") {
  FakeApiServer server;
  IoThread io;
  SECTION("wrong CA") {
    ConnectionConfig config = server.Config();
    FakeApiServer another;  // its CA did not sign the first server's certificate
    config.ca_pem = ReadAll(another.dir().File("ca.crt"));
    auto client = NewClient(io.io(), config, FastRetries());
    REQUIRE(client.ok());
    auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
    REQUIRE(absl::IsUnavailable(r.status()));
    CHECK(std::string(r.status().message()).find("TLS handshake") != std::string::npos);
  }
  SECTION("name not in the certificate") {
    ConnectionConfig config = server.Config();
    config.tls_server_name = "wrong.example";
    auto client = NewClient(io.io(), config, FastRetries());
    REQUIRE(client.ok());
    auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
    REQUIRE(absl::IsUnavailable(r.status()));
  }
  SECTION("a DNS name in the certificate, with SNI") {
    server.Script(kPodPath, absl::StrCat("[", Ok(kPodJson), "]"));
    auto client = NewClient(io.io(), server.Config("localhost"), FastRetries());
    REQUIRE(client.ok());
    auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
    CHECK(r.ok());
  }
}

TEST_CASE("Kubernetes errors keep code, reason and message") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  REQUIRE(IsK8sNotFound(r.status()));
  CHECK(GetApiError(r.status())->reason == "NotFound");
}

TEST_CASE("503 is retried for reads, every attempt is counted") {
  FakeApiServer server;
  IoThread io;
  RequestMetrics metrics;
  server.Script(kPodPath, absl::StrCat(R"([{"status":503,"body":"{}"},{"status":503,"body":"{}"},)",
                                       Ok(kPodJson), "]"));
  auto client = NewClient(io.io(), server.Config(), FastRetries(&metrics));
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  REQUIRE(r.ok());
  CHECK(metrics.Count("get", "pods", "503") == 2);
  CHECK(metrics.Count("get", "pods", "200") == 1);
  CHECK(server.Requests().size() == 3);
}

TEST_CASE("Retries stop at max_attempts with the last error") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath, R"([{"status":500},{"status":500},{"status":500},{"status":500}])");
  ClientOptions options = FastRetries();
  options.retry.max_attempts = 3;
  auto client = NewClient(io.io(), server.Config(), options);
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  CHECK(HttpCode(r.status()) == 500);
  CHECK(server.Requests().size() == 3);
}

TEST_CASE("429 honours Retry-After, for creates too") {
  FakeApiServer server;
  IoThread io;
  server.Script("/apis/spark.apache.org/v1/namespaces/jobs/sparkapplications",
                absl::StrCat(R"([{"status":429,"headers":{"Retry-After":"1"},"body":"{}"},)",
                             R"({"status":201,"body":"{\"created\":true}"}])"));
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  REQUIRE(client.ok());
  absl::Time start = absl::Now();
  auto r = Await(io.io(), (*client)->Create(kApps, R"({"a":1})", In(absl::Seconds(10))));
  REQUIRE(r.ok());
  CHECK(*r == R"({"created":true})");
  CHECK(absl::Now() - start >= absl::Seconds(1));
  auto requests = server.Requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].content_type == "application/json");
  CHECK(requests[1].body == R"({"a":1})");
}

TEST_CASE("A Retry-After beyond the deadline fails at once instead of waiting") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath, R"([{"status":429,"headers":{"Retry-After":"30"},"body":"{}"}])");
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  REQUIRE(client.ok());
  absl::Time start = absl::Now();
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(5))));
  CHECK(HttpCode(r.status()) == 429);
  CHECK(absl::Now() - start < absl::Seconds(4));
}

TEST_CASE("A create whose outcome is unknown is not repeated") {
  FakeApiServer server;
  IoThread io;
  const std::string path = "/apis/spark.apache.org/v1/namespaces/jobs/sparkapplications";
  SECTION("503") {
    server.Script(path, R"([{"status":503},{"status":201}])");
    auto client = NewClient(io.io(), server.Config(), FastRetries());
    auto r = Await(io.io(), (*client)->Create(kApps, "{}", In(absl::Seconds(10))));
    CHECK(HttpCode(r.status()) == 503);
    CHECK(server.Requests().size() == 1);
  }
  SECTION("connection reset mid-body") {
    server.Script(path,
                  R"([{"status":201,"body":"{\"metadata\":{}}","reset":true},{"status":201}])");
    auto client = NewClient(io.io(), server.Config(), FastRetries());
    auto r = Await(io.io(), (*client)->Create(kApps, "{}", In(absl::Seconds(10))));
    CHECK(absl::IsUnavailable(r.status()));
    CHECK(server.Requests().size() == 1);
  }
}

TEST_CASE("A dry-run create asks for dryRun=All and is retried like a read") {
  FakeApiServer server;
  IoThread io;
  const std::string path = "/apis/spark.apache.org/v1/namespaces/jobs/sparkapplications";
  // Retrying is safe: a dry run stores nothing whether or not the first attempt arrived.
  server.Script(path, R"([{"status":503},{"status":201,"body":"{\"dry\":true}"}])");
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->CreateDryRun(kApps, R"({"a":1})", In(absl::Seconds(10))));
  REQUIRE(r.ok());
  CHECK(*r == R"({"dry":true})");
  auto requests = server.Requests();
  REQUIRE(requests.size() == 2);
  for (const Recorded& request : requests) {
    CHECK(request.method == "POST");
    CHECK(request.path == path);
    CHECK(request.query == "dryRun=All");
    CHECK(request.body == R"({"a":1})");
    CHECK(request.content_type == "application/json");
  }
}

TEST_CASE("A read reset mid-body is retried on a new connection") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath,
                absl::StrCat(R"([{"status":200,"body":"{\"kind\":\"Pod\",\"x\":1}","reset":true},)",
                             Ok(kPodJson), "]"));
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  REQUIRE(r.ok());
  CHECK(*r == kPodJson);
  auto requests = server.Requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].conn != requests[1].conn);
}

TEST_CASE("A response slower than the deadline ends with DeadlineExceeded at the deadline") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath, R"([{"status":200,"body":"{}","delayMs":5000}])");
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  absl::Time start = absl::Now();
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Milliseconds(500))));
  CHECK(absl::IsDeadlineExceeded(r.status()));
  absl::Duration took = absl::Now() - start;
  CHECK(took >= absl::Milliseconds(450));
  CHECK(took < absl::Seconds(3));
}

TEST_CASE("Cancel ends a call in flight with Cancelled") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath, R"([{"status":200,"body":"{}","delayMs":5000}])");
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  absl::Time start = absl::Now();
  auto handle = Start(io.io(), (*client)->Get(kPod, In(absl::Seconds(30))));
  auto& future = handle->result();
  // Cancel once the request is on the wire: the fake server has recorded it.
  REQUIRE(server.Requests(1).size() == 1);
  handle->Cancel();
  handle->Cancel();  // idempotent
  REQUIRE(future.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(absl::IsCancelled(future.get().status()));
  CHECK(absl::Now() - start < absl::Seconds(4));
}

TEST_CASE("Past kubernetes.maxInFlight a request waits for a place, past its queue it is refused") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath, R"([{"status":200,"body":"{}","delayMs":1500}])");
  ClientOptions options = FastRetries();
  options.limiter = std::make_shared<RequestLimiter>(LimiterOptions{0, 0, /*max_in_flight=*/1});
  auto client = NewClient(io.io(), server.Config(), options);
  REQUIRE(client.ok());
  auto slow = Start(io.io(), (*client)->Get(kPod, In(absl::Seconds(30))));
  auto& slow_done = slow->result();
  // The slow GET holds the only place once it is on the wire.
  REQUIRE(server.Requests(1).size() == 1);
  REQUIRE(options.limiter->Stats().in_flight == 1);
  const ResourceRef other{"", "v1", "pods", "ns", "p2", ""};
  auto waiting = Start(io.io(), (*client)->Get(other, In(absl::Seconds(30))));
  auto& waiting_done = waiting->result();
  REQUIRE(options.limiter->AwaitStats([](const LimiterStats& s) { return s.waiting_slot == 1; },
                                      absl::Seconds(20)));
  // The queue is full: a third request is refused at once, and nothing was sent for it.
  auto refused = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(30))));
  CHECK(absl::IsResourceExhausted(refused.status()));
  CHECK(refused.status().message().find("kubernetes.maxInFlight") != std::string::npos);
  REQUIRE(waiting_done.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  REQUIRE(slow_done.wait_for(std::chrono::seconds(1)) == std::future_status::ready);
  CHECK(slow_done.get().ok());
  CHECK_FALSE(absl::IsResourceExhausted(waiting_done.get().status()));  // it went (404 or 200)
  std::vector<Recorded> seen = server.Requests();
  size_t for_pods = std::count_if(seen.begin(), seen.end(), [](const Recorded& r) {
    return r.path.rfind("/api/v1/namespaces/ns/pods/", 0) == 0;
  });
  CHECK(for_pods == 2);
  LimiterStats stats = options.limiter->Stats();
  CHECK(stats.in_flight == 0);
  CHECK(stats.waited_slot == 1);
  CHECK(stats.refused == 1);
}

TEST_CASE("Past kubernetes.burst a request waits for its token until its deadline") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath, absl::StrCat("[", Ok(kPodJson), ",", Ok(kPodJson), "]"));
  ClientOptions options = FastRetries();
  // One token now, the next in 100 s: the second GET can't go within its deadline.
  options.limiter = std::make_shared<RequestLimiter>(LimiterOptions{0.01, 1, 0});
  auto client = NewClient(io.io(), server.Config(), options);
  REQUIRE(client.ok());
  auto first = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(30))));
  CHECK(first.ok());
  auto second = Await(io.io(), (*client)->Get(kPod, In(absl::Milliseconds(300))));
  CHECK(absl::IsDeadlineExceeded(second.status()));
  CHECK(second.status().message().find("waiting for admission") != std::string::npos);
  std::vector<Recorded> seen = server.Requests();
  CHECK(std::count_if(seen.begin(), seen.end(),
                      [](const Recorded& r) { return r.path == kPodPath; }) == 1);
  CHECK(options.limiter->Stats().waited_rate == 0);  // the waiter never went
}

TEST_CASE("An infinite deadline is rejected") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  auto r = Await(io.io(), (*client)->Get(kPod, absl::InfiniteFuture()));
  CHECK(absl::IsInvalidArgument(r.status()));
  CHECK(server.Requests().empty());
}

TEST_CASE("Sequential requests reuse one keep-alive connection") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath,
                absl::StrCat("[", Ok(kPodJson), ",", Ok(kPodJson), ",", Ok(kPodJson), "]"));
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  for (int i = 0; i < 3; ++i) {
    REQUIRE(Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10)))).ok());
  }
  auto requests = server.Requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].conn == requests[1].conn);
  CHECK(requests[1].conn == requests[2].conn);
}

// `n` GETs at once, each answered only once all `n` are in (so each is on a connection of its
// own); the connections' ids.
std::set<int> ConcurrentGets(FakeApiServer& server, IoThread& io, Client& client, size_t n,
                             size_t recorded_before) {
  std::vector<std::string> answers(
      n, absl::StrCat(R"({"status":200,"holdUntil":)", recorded_before + n, R"(,"body":"{}"})"));
  server.Script(kPodPath, absl::StrCat("[", absl::StrJoin(answers, ","), "]"));
  std::vector<std::shared_ptr<Started<absl::StatusOr<std::string>>>> calls;
  for (size_t i = 0; i < n; ++i)
    calls.push_back(Start(io.io(), client.Get(kPod, In(absl::Seconds(20)))));
  for (auto& call : calls) REQUIRE(call->result().get().ok());
  std::set<int> conns;
  auto requests = server.Requests(recorded_before + n);
  for (size_t i = recorded_before; i < requests.size(); ++i) conns.insert(requests[i].conn);
  return conns;
}

TEST_CASE("Connections of concurrent requests are kept for the next ones, up to the pool's size") {
  FakeApiServer server;
  IoThread io;
  for (size_t pool : {size_t{4}, size_t{2}}) {
    INFO("pool " << pool);
    ClientOptions options = FastRetries();
    options.max_idle_connections = pool;
    auto client = NewClient(io.io(), server.Config(), options);
    REQUIRE(client.ok());
    const size_t before = server.Requests().size();
    std::set<int> first = ConcurrentGets(server, io, **client, 4, before);
    REQUIRE(first.size() == 4);
    std::set<int> second = ConcurrentGets(server, io, **client, 4, before + 4);
    REQUIRE(second.size() == 4);
    std::vector<int> reused;
    std::set_intersection(first.begin(), first.end(), second.begin(), second.end(),
                          std::back_inserter(reused));
    // Each kept connection serves again; the others were closed, and are opened anew.
    CHECK(reused.size() == pool);
  }
}

TEST_CASE("A response body over the limit is an error, not a truncated success") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath,
                absl::StrCat(R"([{"status":200,"body":")", std::string(5000, 'x'), R"("}])"));
  ClientOptions options = FastRetries();
  options.max_body_bytes = 1000;
  auto client = NewClient(io.io(), server.Config(), options);
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  CHECK(absl::IsResourceExhausted(r.status()));
  CHECK_FALSE(IsThrottled(r.status()));  // no queue to wait out: the answer is too large
}

TEST_CASE("A 401 re-reads the token once and retries") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath, absl::StrCat("[", Ok(kPodJson), "]"));
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  // Same length and mtime: only the 401 can reveal the new token to the client.
  auto mtime = std::filesystem::last_write_time(server.dir().File("token"));
  server.dir().Write("token", "tok-2");
  std::filesystem::last_write_time(server.dir().File("token"), mtime);
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  REQUIRE(r.ok());
  auto requests = server.Requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].auth == "Bearer tok-1");
  CHECK(requests[1].auth == "Bearer tok-2");
}

TEST_CASE("A token that stays wrong is a 401 without a blind retry") {
  FakeApiServer server;
  IoThread io;
  ConnectionConfig config = server.Config();
  config.credentials = std::make_shared<StaticCredentialProvider>(Credentials{"nope", "", ""});
  auto client = NewClient(io.io(), config, FastRetries());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  CHECK(HttpCode(r.status()) == 401);
  CHECK(server.Requests().size() == 1);
}

TEST_CASE("Token rotation under steady load fails no request") {
  FakeApiServer server;
  IoThread io;
  constexpr int kRequests = 200;
  std::string responses = "[";
  for (int i = 0; i < kRequests; ++i) absl::StrAppend(&responses, i ? "," : "", Ok(kPodJson));
  server.Script(kPodPath, responses + "]");
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  // The token rotates every few requests, while the next one is under way, and never twice
  // within one request: a 401 re-reads the token once, as a rotation every hour needs. Paced by
  // the requests, not by the clock, so a slow machine (or ThreadSanitizer) changes nothing.
  absl::Mutex mu;
  int done = 0;  // guarded by mu
  std::thread rotator([&] {
    for (int round = 0;; ++round) {
      server.RotateToken(absl::StrCat("rotated-", round));
      absl::MutexLock lock(&mu);
      const int next = done + 5;
      auto progressed = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
        return done >= next || done >= kRequests;
      };
      if (!mu.AwaitWithTimeout(absl::Condition(&progressed), absl::Seconds(60))) return;
      if (done >= kRequests) return;
    }
  });
  int failures = 0;
  for (int i = 0; i < kRequests; ++i) {
    auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
    if (!r.ok()) {
      ++failures;
      UNSCOPED_INFO(r.status().ToString());
    }
    absl::MutexLock lock(&mu);
    ++done;
  }
  rotator.join();
  CHECK(failures == 0);
  std::set<std::string> tokens;
  for (const auto& req : server.Requests()) tokens.insert(req.auth);
  CHECK(tokens.size() > 2);  // the rotation really happened during the load
}

TEST_CASE("Client certificate authentication") {
  FakeApiServer server({"--client-ca"});
  IoThread io;
  server.Script(kPodPath, absl::StrCat("[", Ok(kPodJson), "]"));
  std::string kubeconfig = absl::StrCat(
      "kind: Config\ncurrent-context: c\nclusters:\n- name: s\n  cluster:\n    server: ",
      server.Url(), "\n    certificate-authority: ", server.dir().File("ca.crt"),
      "\ncontexts:\n- name: c\n  context: {cluster: s, user: u}\nusers:\n- name: u\n  user:\n"
      "    client-certificate: ",
      server.dir().File("client.crt"), "\n    client-key: ", server.dir().File("client.key"), "\n");
  std::string path = server.dir().Write("kubeconfig", kubeconfig);
  auto config = ResolveConnection({path, "", "", "", ""}, Environment::Process());
  REQUIRE(config.ok());
  CHECK(config->credentials->Get()->client_cert_pem == ReadAll(server.dir().File("client.crt")));
  auto client = NewClient(io.io(), *config, FastRetries());
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  REQUIRE(r.ok());
  CHECK(server.Requests().back().auth.empty());
}

TEST_CASE("An exec plugin's token authenticates the requests") {
  FakeApiServer server;
  IoThread io;
  server.Script(kPodPath, absl::StrCat("[", Ok(kPodJson), "]"));
  std::string plugin = server.dir().Write(
      "plugin.sh",
      "#!/bin/sh\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
      "\"ExecCredential\",\"status\":{\"token\":\"%s\"}}' \"$(cat \"$TOKEN_PATH\")\"\n",
      0755);
  std::string kubeconfig = absl::StrCat(
      "kind: Config\ncurrent-context: c\nclusters:\n- name: s\n  cluster:\n    server: ",
      server.Url(), "\n    certificate-authority: ", server.dir().File("ca.crt"),
      "\ncontexts:\n- name: c\n  context: {cluster: s, user: u}\nusers:\n- name: u\n  user:\n"
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ",
      plugin, "\n      env:\n      - {name: TOKEN_PATH, value: ", server.dir().File("token"),
      "}\n");
  auto config = ResolveConnection({server.dir().Write("kubeconfig", kubeconfig), "", "", "", ""},
                                  Environment::Process());
  REQUIRE(config.ok());
  auto client = NewClient(io.io(), *config, FastRetries());
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  REQUIRE(r.ok());
  CHECK(server.Requests().back().auth == "Bearer tok-1");
}

TEST_CASE("Plain HTTP works when configured") {
  FakeApiServer server({"--plain"});
  IoThread io;
  server.Script(kPodPath, absl::StrCat("[", Ok(kPodJson), "]"));
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->Get(kPod, In(absl::Seconds(10))));
  CHECK(r.ok());
}

TEST_CASE("Verbs send the right method, query, content type and body") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  server.Script(
      "/api/v1/namespaces/ns/pods",
      R"([{"status":200,"body":"{\"metadata\":{\"continue\":\"c2\",\"resourceVersion\":\"8\"},\"items\":[{\"a\":1},{\"b\":2}]}"}])");
  server.Script(
      kPodPath,
      R"([{"status":200,"body":"{}"},{"status":200,"body":"{}"},{"status":200,"body":"{}"}])");
  server.Script("/api/v1/namespaces/ns/pods/p1/log",
                R"([{"status":200,"body":"l1\nl2\n","headers":{"Content-Type":"text/plain"}}])");
  ListOptions list;
  list.label_selector = "spark-role=driver";
  list.limit = 2;
  auto page = Await(io.io(), (*client)->List(kPods, list, In(absl::Seconds(10))));
  REQUIRE(page.ok());
  CHECK(page->continue_token == "c2");
  CHECK(page->items.size() == 2);
  DeleteOptions del;
  del.propagation_policy = "Foreground";
  del.precondition_uid = "u1";
  REQUIRE(Await(io.io(), (*client)->Delete(kPod, del, In(absl::Seconds(10)))).ok());
  REQUIRE(Await(io.io(), (*client)->Patch(kPod, PatchType::kMerge,
                                          R"({"metadata":{"annotations":{"a":"b"}}})",
                                          In(absl::Seconds(10))))
              .ok());
  REQUIRE(
      Await(io.io(), (*client)->Patch(kPod, PatchType::kJson, R"([{"op":"remove","path":"/x"}])",
                                      In(absl::Seconds(10))))
          .ok());
  LogOptions log;
  log.tail_lines = 10;
  log.container = "spark-kubernetes-driver";
  auto text = Await(io.io(), (*client)->Log(kPod, log, In(absl::Seconds(10))));
  REQUIRE(text.ok());
  CHECK(*text == "l1\nl2\n");

  auto requests = server.Requests();
  REQUIRE(requests.size() == 5);
  CHECK(requests[0].query == "labelSelector=spark-role%3Ddriver&limit=2");
  CHECK(requests[1].method == "DELETE");
  CHECK(requests[1].body.find(R"("propagationPolicy":"Foreground")") != std::string::npos);
  CHECK(requests[1].body.find(R"("preconditions":{"uid":"u1"})") != std::string::npos);
  CHECK(requests[2].method == "PATCH");
  CHECK(requests[2].content_type == "application/merge-patch+json");
  CHECK(requests[3].content_type == "application/json-patch+json");
  CHECK(requests[4].path == "/api/v1/namespaces/ns/pods/p1/log");
  CHECK(requests[4].query == "container=spark-kubernetes-driver&tailLines=10");
}

TEST_CASE("A JSON patch is not repeated after a 503, a merge patch is") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  server.Script(kPodPath, R"([{"status":503},{"status":200,"body":"{}"},{"status":503}])");
  CHECK(
      Await(io.io(), (*client)->Patch(kPod, PatchType::kMerge, "{}", In(absl::Seconds(10)))).ok());
  CHECK(
      HttpCode(Await(io.io(), (*client)->Patch(kPod, PatchType::kJson, "[]", In(absl::Seconds(10))))
                   .status()) == 503);
  CHECK(server.Requests().size() == 3);
}

std::string WatchLine(const std::string& type, const std::string& rv) {
  return absl::StrCat(
      R"({\"type\":\")", type,
      R"(\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"resourceVersion\":\")", rv,
      R"(\"}}}\n)");
}

TEST_CASE("A dropped watch resumes from its last resourceVersion, 410 ends it as Gone") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  server.Script(
      "/api/v1/namespaces/ns/pods",
      absl::StrCat(
          R"([{"status":200,"stream":[")", WatchLine("ADDED", "5"), R"(",")",
          WatchLine("BOOKMARK", "7"), R"("],"streamEnd":"drop"},)", R"({"status":200,"stream":[")",
          WatchLine("MODIFIED", "9"),
          R"({\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old\"}}\n"]}])"));
  std::vector<std::pair<WatchEvent::Type, std::string>> events;
  WatchOptions options;
  options.resource_version = "4";
  absl::Status done = Await(
      io.io(), (*client)->Watch(kPods, options, In(absl::Seconds(20)), [&](const WatchEvent& e) {
        events.emplace_back(e.type, e.resource_version);
      }));
  INFO(done.ToString());
  CHECK(IsK8sGone(done));
  REQUIRE(events.size() == 3);
  CHECK(events[0] == std::pair{WatchEvent::Type::kAdded, std::string("5")});
  CHECK(events[1] == std::pair{WatchEvent::Type::kBookmark, std::string("7")});
  CHECK(events[2] == std::pair{WatchEvent::Type::kModified, std::string("9")});
  auto requests = server.Requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].query == "watch=true&resourceVersion=4&allowWatchBookmarks=true");
  CHECK(requests[1].query == "watch=true&resourceVersion=7&allowWatchBookmarks=true");
}

TEST_CASE("A watch ends at its deadline, an event split across chunks arrives whole") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  std::string line = WatchLine("ADDED", "11");
  server.Script("/api/v1/namespaces/ns/pods",
                absl::StrCat(R"([{"status":200,"stream":[")", line.substr(0, 20), R"(",")",
                             line.substr(20), R"("],"streamEnd":"hang"}])"));
  std::vector<std::string> versions;
  WatchOptions options;
  options.allow_bookmarks = false;
  absl::Time start = absl::Now();
  absl::Status done = Await(
      io.io(), (*client)->Watch(kPods, options, In(absl::Seconds(1)), [&](const WatchEvent& e) {
        versions.push_back(e.resource_version);
      }));
  CHECK(absl::IsDeadlineExceeded(done));
  CHECK(absl::Now() - start < absl::Seconds(5));
  CHECK(versions == std::vector<std::string>{"11"});
}

TEST_CASE("A 410 answer to the watch request itself is Gone") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  server.Script(
      "/api/v1/namespaces/ns/pods",
      R"([{"status":410,"body":"{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\"}"}])");
  absl::Status done = Await(io.io(), (*client)->Watch(kPods, WatchOptions{}, In(absl::Seconds(10)),
                                                      [](const WatchEvent&) {}));
  CHECK(IsK8sGone(done));
}

TEST_CASE("Following a log streams chunks until the server ends it") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  server.Script(
      "/api/v1/namespaces/ns/pods/p1/log",
      R"([{"status":200,"stream":["line 1\n","line 2\n","Pi is roughly 3.14\n"],"chunkDelayMs":50}])");
  std::string text;
  int chunks = 0;
  LogOptions log;
  log.follow = true;
  absl::Status done = Await(
      io.io(), (*client)->StreamLog(kPod, log, In(absl::Seconds(10)), [&](std::string_view chunk) {
        text.append(chunk);
        ++chunks;
      }));
  CHECK(done.ok());
  CHECK(text == "line 1\nline 2\nPi is roughly 3.14\n");
  CHECK(chunks >= 2);
  CHECK(server.Requests().back().query == "follow=true");
}

TEST_CASE("Streaming a log without follow reads it in chunks, past the body limit") {
  FakeApiServer server;
  IoThread io;
  ClientOptions options = FastRetries();
  options.max_body_bytes = 16;  // far below the log: only a stream can read it
  auto client = NewClient(io.io(), server.Config(), options);
  server.Script("/api/v1/namespaces/ns/pods/p1/log",
                R"([{"status":200,"stream":["line 1\n","line 2\n","Pi is roughly 3.14\n"]}])");
  std::string text;
  LogOptions log;
  log.tail_lines = 3;
  absl::Status done =
      Await(io.io(), (*client)->StreamLog(kPod, log, In(absl::Seconds(10)),
                                          [&](std::string_view chunk) { text.append(chunk); }));
  CHECK(done.ok());
  CHECK(text == "line 1\nline 2\nPi is roughly 3.14\n");
  CHECK(server.Requests().back().query == "tailLines=3");
}

TEST_CASE("Bad references fail without a request") {
  FakeApiServer server;
  IoThread io;
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  auto r = Await(io.io(),
                 (*client)->Get({"", "v1", "pods", "ns", "../secrets", ""}, In(absl::Seconds(10))));
  CHECK(absl::IsInvalidArgument(r.status()));
  CHECK(server.Requests().empty());
}

TEST_CASE("A refused connection is retried, then reported as Unavailable") {
  IoThread io;
  RequestMetrics metrics;
  ConnectionConfig config;
  // A port that was just free: bound, then closed, so nothing listens there.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  ::close(fd);
  REQUIRE(ParseServerUrl(absl::StrCat("http://127.0.0.1:", ntohs(addr.sin_port)), config).ok());
  config.credentials = std::make_shared<StaticCredentialProvider>(Credentials{});
  ClientOptions options = FastRetries(&metrics);
  options.retry.max_attempts = 3;
  auto client = NewClient(io.io(), config, options);
  REQUIRE(client.ok());
  auto r = Await(io.io(), (*client)->Create(kApps, "{}", In(absl::Seconds(10))));
  CHECK(absl::IsUnavailable(r.status()));
  INFO(r.status().ToString());
  CHECK(std::string(r.status().message()).find("connect") != std::string::npos);
  // Never sent, so even a create is retried.
  CHECK(metrics.Count("create", "sparkapplications", "error") == 3);
}

}  // namespace
}  // namespace kje::k8s

namespace kje::k8s {
namespace {

constexpr char kProxyPrefix[] = "/api/v1/namespaces/ns/pods/p1:4040/proxy";

TEST_CASE("ProxyGet: the UI's answers are results, the API server's refusals errors") {
  FakeApiServer server;
  IoThread io;
  const std::string jobs = absl::StrCat(kProxyPrefix, "/jobs/");
  server.Script(absl::StrCat(kProxyPrefix, "/"),
                absl::StrCat(R"([{"status":302,"body":"","headers":{"Location":")", jobs,
                             R"(","Content-Type":"text/html"}}])"));
  server.Script(jobs, absl::StrCat(R"([{"status":200,"headers":{"Content-Type":"text/html"},)",
                                   R"("body":"<a href=\")", jobs, R"(\">jobs</a>"},)",
                                   R"({"status":404,"headers":{"Content-Type":"text/plain"},)",
                                   R"("body":"Not Found"},)",
                                   R"({"status":503,"body":"{\"kind\":\"Status\",\"apiVersion\":)",
                                   R"(\"v1\",\"status\":\"Failure\",\"reason\":)",
                                   R"(\"ServiceUnavailable\",\"message\":\"no\",\"code\":503}"},)",
                                   R"({"status":200,"headers":{"Content-Type":"text/html"},)",
                                   R"("body":")", std::string(3000, 'x'), R"("}])"));
  auto client = NewClient(io.io(), server.Config(), FastRetries());
  auto get = [&](const std::string& path, size_t limit = 1000) {
    return Await(io.io(), (*client)->ProxyGet(kPod, 4040, path, limit, In(absl::Seconds(10))));
  };
  // A redirect is not followed; its Location is made relative to the UI's root.
  auto root = get("/");
  REQUIRE(root.ok());
  CHECK(root->http_code == 302);
  CHECK(root->location == "/jobs/");
  // A page's links come back as the UI wrote them.
  auto page = get("/jobs/");
  REQUIRE(page.ok());
  CHECK(page->http_code == 200);
  CHECK(page->content_type == "text/html");
  CHECK(page->body == R"(<a href="/jobs/">jobs</a>)");
  // The UI's own 404 is an answer.
  auto missing = get("/jobs/");
  REQUIRE(missing.ok());
  CHECK(missing->http_code == 404);
  CHECK(missing->body == "Not Found");
  // The API server's Status is an error, with its code, and never retried.
  auto refused = get("/jobs/");
  REQUIRE_FALSE(refused.ok());
  CHECK(HttpCode(refused.status()) == 503);
  // Over the call's own limit: an error, not a cut page.
  auto large = get("/jobs/");
  CHECK(absl::IsResourceExhausted(large.status()));
  auto requests = server.Requests();
  REQUIRE(requests.size() == 5);
  CHECK(requests[0].path == absl::StrCat(kProxyPrefix, "/"));
  // A bad path is refused before anything is sent.
  CHECK(absl::IsInvalidArgument(get("/../secrets").status()));
  CHECK(server.Requests().size() == 5);
}

}  // namespace
}  // namespace kje::k8s
