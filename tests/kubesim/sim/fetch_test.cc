#include "kubesim/sim/fetch.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace kubesim::sim {
namespace {

using R = FetchAnswer::Result;

TEST_CASE("each scheme is planned as spark-submit fetches it") {
  auto [uri, endpoint, kind, target] =
      GENERATE(table<std::string, std::string, FetchKind, std::string>({
          {"local:///opt/spark/examples/jars/spark-examples.jar", "", FetchKind::kInImage,
           "/opt/spark/examples/jars/spark-examples.jar"},
          {"local:///data/stage/a.jar", "", FetchKind::kLocalFile, "/data/stage/a.jar"},
          {"/data/stage/a.py", "", FetchKind::kLocalFile, "/data/stage/a.py"},
          {"local:///opt/sparkling/a.jar", "", FetchKind::kLocalFile, "/opt/sparkling/a.jar"},
          {"local:///data/env.tgz#env", "", FetchKind::kLocalFile, "/data/env.tgz"},
          {"https://h:9/a.jar?X-Amz-Signature=s", "", FetchKind::kHttpGet,
           "https://h:9/a.jar?X-Amz-Signature=s"},
          {" http://h/a.py ", "", FetchKind::kHttpGet, "http://h/a.py"},
          {"s3a://bucket/dir/a.jar", "http://127.0.0.1:9000/", FetchKind::kS3Object,
           "http://127.0.0.1:9000/bucket/dir/a.jar"},
          {"s3a://bucket/a.jar", "", FetchKind::kS3Skip, ""},
          {"s3a://bucket/a.jar", "s3.amazonaws.com", FetchKind::kS3Skip, ""},
          {"hdfs://nn/a.jar", "", FetchKind::kOther, ""},
      }));
  CAPTURE(uri, endpoint);
  const FetchStep step = PlanFetch(uri, endpoint);
  CHECK(step.kind == kind);
  CHECK(step.target == target);
}

TEST_CASE("lists split as Spark splits spark.jars, and the conf's lists are read") {
  CHECK(SplitUris(" a.jar, ,b.jar,") == std::vector<std::string>{"a.jar", "b.jar"});
  CHECK(SplitUris("").empty());
  boost::json::object conf{{"spark.jars", "x.jar,y.jar"},
                           {"spark.archives", "e.tgz#e"},
                           {"spark.submit.pyFiles", "p.py"},
                           {"spark.hadoop.fs.s3a.endpoint", "http://s3"}};
  CHECK(SparkConfUris(conf) == std::vector<std::string>{"x.jar", "y.jar", "p.py", "e.tgz#e"});
  CHECK(S3aEndpoint(conf) == "http://s3");
}

TEST_CASE("a printed URI carries no query and no user info") {
  CHECK(RedactUri("https://h/a.jar?X-Amz-Signature=secret") == "https://h/a.jar?<redacted>");
  CHECK(RedactUri("https://user:pw@h/a.jar") == "https://<redacted>@h/a.jar");
  CHECK(RedactUri("local:///a@b.jar") == "local:///a@b.jar");
}

TEST_CASE("fetching stops at the first failure with the exception Spark prints") {
  std::vector<std::string> asked;
  DependencyFetch fetch = [&](const FetchStep& step) {
    asked.push_back(step.uri);
    FetchAnswer a;
    if (step.uri == "local:///gone/a.jar") a.result = R::kMissing;
    if (step.uri.starts_with("https://h/404")) {
      a.result = R::kHttpStatus;
      a.http_status = 404;
    }
    return a;
  };
  SECTION("a missing local file") {
    FetchOutcome out = FetchAll({"local:///opt/spark/x.jar", "s3a://b/k", "local:///here.jar",
                                 "local:///gone/a.jar", "local:///after.jar"},
                                "", fetch, 0);
    CHECK(out.failed);
    // The image's own file and the unauthenticated s3a object are never asked for.
    CHECK(asked == std::vector<std::string>{"local:///here.jar", "local:///gone/a.jar"});
    CHECK(out.log.find("taken as fetched") != std::string::npos);
    CHECK(out.log.find("Exception in thread \"main\" java.io.FileNotFoundException: "
                       "/gone/a.jar (No such file or directory)") != std::string::npos);
  }
  SECTION("an HTTP status, its presigned query not printed") {
    FetchOutcome out = FetchAll({"https://h/404.jar?X-Amz-Signature=secret"}, "", fetch, 0);
    CHECK(out.failed);
    CHECK(out.log.find("Server returned HTTP response code: 404 for URL: "
                       "https://h/404.jar?<redacted>") != std::string::npos);
    CHECK(out.log.find("secret") == std::string::npos);
  }
  SECTION("everything there") {
    FetchOutcome out = FetchAll({"local:///here.jar", "https://h/ok.jar"}, "", fetch, 0);
    CHECK_FALSE(out.failed);
    CHECK(out.log.empty());
  }
  SECTION("no I/O given: nothing fails") {
    CHECK_FALSE(FetchAll({"local:///gone/a.jar"}, "", DependencyFetch{}, 0).failed);
  }
}

TEST_CASE("the real fetch checks files on the host path") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kubesim-fetch-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.jar") << "jar";
  const FetchLimits limits;
  CHECK(FetchForReal(PlanFetch("local://" + (dir / "a.jar").string(), ""), limits).result ==
        R::kFetched);
  CHECK(FetchForReal(PlanFetch("local://" + (dir / "b.jar").string(), ""), limits).result ==
        R::kMissing);
  // A directory is not a file spark-submit can add.
  CHECK(FetchForReal(PlanFetch("local://" + dir.string(), ""), limits).result == R::kMissing);
  std::filesystem::remove_all(dir);
}

// A loopback server answering each connection with `status` and a body of `body_bytes`.
class OneShotHttp {
 public:
  OneShotHttp(int status, size_t body_bytes) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this, status, body_bytes] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      std::string request;
      while (request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::read(c, buf, sizeof(buf));
        if (n <= 0) break;
        request.append(buf, static_cast<size_t>(n));
      }
      head_ = request.starts_with("HEAD ");
      {
        std::lock_guard<std::mutex> lock(mu_);
        request_ = request;
      }
      std::string reply =
          "HTTP/1.1 " + std::to_string(status) +
          " X\r\nConnection: close\r\nContent-Length: " + std::to_string(body_bytes) + "\r\n\r\n";
      if (!head_) reply += std::string(body_bytes, 'x');
      size_t off = 0;
      while (off < reply.size()) {
        const ssize_t n = ::send(c, reply.data() + off, reply.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
      ::close(c);
    });
  }
  ~OneShotHttp() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  bool head() const { return head_; }
  // The request's line and headers, once the server has read them.
  std::string request() {
    std::lock_guard<std::mutex> lock(mu_);
    return request_;
  }

 private:
  std::mutex mu_;
  std::string request_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> head_{false};
  std::thread thread_;
};

TEST_CASE("the real fetch GETs http(s) with a status, a deadline and a size bound") {
  FetchLimits limits;
  limits.timeout_ms = 5000;
  limits.max_bytes = 1000;
  SECTION("2xx: fetched") {
    OneShotHttp server(200, 10);
    CHECK(FetchForReal(PlanFetch(server.Url("/a.jar?sig=1"), ""), limits).result == R::kFetched);
  }
  SECTION("non-2xx: the status") {
    OneShotHttp server(404, 0);
    FetchAnswer a = FetchForReal(PlanFetch(server.Url("/a.jar"), ""), limits);
    CHECK(a.result == R::kHttpStatus);
    CHECK(a.http_status == 404);
  }
  SECTION("past the bound: refused") {
    OneShotHttp server(200, 5000);
    CHECK(FetchForReal(PlanFetch(server.Url("/a.jar"), ""), limits).result == R::kTooLarge);
  }
  SECTION("nobody listening: unreachable") {
    std::string url;
    {
      OneShotHttp server(200, 0);
      url = server.Url("/a.jar");
    }
    FetchAnswer a = FetchForReal(PlanFetch(url, ""), limits);
    CHECK(a.result == R::kUnreachable);
    CHECK_FALSE(a.detail.empty());
  }
}

TEST_CASE("s3a: a HEAD at the endpoint; only a 404 fails, no credentials to do better") {
  FetchLimits limits;
  SECTION("found") {
    OneShotHttp server(200, 3);
    CHECK(FetchForReal(PlanFetch("s3a://b/k.jar", server.Url("")), limits).result == R::kFetched);
    CHECK(server.head());
  }
  SECTION("missing") {
    OneShotHttp server(404, 0);
    CHECK(FetchForReal(PlanFetch("s3a://b/k.jar", server.Url("")), limits).result == R::kMissing);
  }
  SECTION("forbidden: skipped") {
    OneShotHttp server(403, 0);
    CHECK(FetchForReal(PlanFetch("s3a://b/k.jar", server.Url("")), limits).result == R::kSkipped);
  }
}

}  // namespace
}  // namespace kubesim::sim

namespace kubesim::sim {
namespace {

TEST_CASE("s3a with the driver's credentials: a SigV4-signed GET; every refusal fails") {
  FetchLimits limits;
  S3aAccess s3a;
  s3a.region = "eu-west-3";
  s3a.credentials = S3Credentials{"AKIDKUBESIM", "kubesim-secret-value", ""};
  SECTION("found: the request is signed for the key id, the region and s3; no secret on the wire") {
    OneShotHttp server(200, 3);
    s3a.endpoint = server.Url("");
    CHECK(FetchForReal(PlanFetch("s3a://b/dir/k.jar", s3a), limits).result == R::kFetched);
    const std::string request = server.request();
    CHECK(request.starts_with("GET /b/dir/k.jar HTTP/1.1\r\n"));
    CHECK(request.find("AWS4-HMAC-SHA256 Credential=AKIDKUBESIM/") != std::string::npos);
    CHECK(request.find("/eu-west-3/s3/aws4_request") != std::string::npos);
    CHECK(request.find("Signature=") != std::string::npos);
    CHECK(request.find("x-amz-content-sha256: ") != std::string::npos);
    CHECK(request.find("kubesim-secret-value") == std::string::npos);
  }
  SECTION("forbidden (the wrong key): the driver fails with hadoop-aws's AccessDeniedException") {
    OneShotHttp server(403, 0);
    s3a.endpoint = server.Url("");
    FetchOutcome out = FetchAll(
        {"s3a://b/k.jar"}, s3a, [&](const FetchStep& step) { return FetchForReal(step, limits); },
        0);
    CHECK(out.failed);
    CHECK(out.log.find("java.nio.file.AccessDeniedException: s3a://b/k.jar") != std::string::npos);
    CHECK(out.log.find("kubesim-secret-value") == std::string::npos);
  }
  SECTION("missing") {
    OneShotHttp server(404, 0);
    s3a.endpoint = server.Url("");
    CHECK(FetchForReal(PlanFetch("s3a://b/k.jar", s3a), limits).result == R::kMissing);
  }
  SECTION("the region defaults to us-east-1 and follows spark.hadoop.fs.s3a.endpoint.region") {
    CHECK(S3aAccessOf(boost::json::object{}).region == "us-east-1");
    CHECK(S3aAccessOf(boost::json::object{{"spark.hadoop.fs.s3a.endpoint.region", "ap-south-1"}})
              .region == "ap-south-1");
  }
}

}  // namespace
}  // namespace kubesim::sim
