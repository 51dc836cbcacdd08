// The S3 store against a scripted S3 endpoint on loopback: which answers it sends again (S3's
// 500 InternalError and 503 SlowDown), how often, and what it makes of the last one.

#include "staging/s3_store.h"

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kje::staging {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;

struct Scripted {
  int status;
  std::string code;  // S3's error code, or "" for an empty body
};

// Answers each request with the next scripted answer, one connection at a time, and records
// each request's method and whether it was a copy.
class ScriptedS3 {
 public:
  explicit ScriptedS3(std::deque<Scripted> script)
      : script_(std::move(script)), acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedS3() {
    // A blocked accept() doesn't return when its socket is closed: a last connection wakes it.
    stopping_ = true;
    asio::io_context io;
    asio::ip::tcp::socket wake(io);
    boost::system::error_code ignored;
    wake.connect(acceptor_.local_endpoint(), ignored);
    thread_.join();
  }
  std::string Endpoint() const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }
  std::vector<std::string> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  void Serve() {
    for (;;) {
      asio::ip::tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) return;
      boost::beast::flat_buffer buffer;
      for (;;) {
        http::request<http::string_body> request;
        http::read(socket, buffer, request, ec);
        if (ec) break;
        Scripted answer{404, "NoSuchKey"};
        {
          std::lock_guard<std::mutex> lock(mu_);
          const bool copy = request.find("x-amz-copy-source") != request.end();
          requests_.push_back(std::string(request.method_string()) + (copy ? " copy" : ""));
          if (!script_.empty()) {
            answer = script_.front();
            script_.pop_front();
          }
        }
        http::response<http::string_body> response{static_cast<http::status>(answer.status),
                                                   request.version()};
        if (!answer.code.empty()) {
          response.body() = "<?xml version=\"1.0\"?><Error><Code>" + answer.code +
                            "</Code><Message>scripted</Message></Error>";
        }
        response.keep_alive(request.keep_alive());
        response.prepare_payload();
        http::write(socket, response, ec);
        if (ec || !request.keep_alive()) break;
      }
    }
  }

  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::deque<Scripted> script_;
  std::vector<std::string> requests_;
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
};

S3Store Store(const ScriptedS3& s3, absl::Duration retry_delay = absl::Milliseconds(1)) {
  S3StoreOptions o;
  o.endpoint = s3.Endpoint();
  o.bucket = "staging";
  o.credentials = {"AKIDEXAMPLE", "not-a-secret"};
  o.retry_delay = retry_delay;
  return S3Store(std::move(o));
}

const spark::StagedKey kKey{std::string(64, 'a'), "main.py"};

absl::Time Later() { return absl::Now() + absl::Seconds(30); }

TEST_CASE("s3 store: a copy S3 couldn't finish is sent again, and its source gone means absent",
          "[staging]") {
  // What a sweep deleting the object during the copy looks like on a store without atomic copies.
  ScriptedS3 s3({{500, "InternalError"}, {404, "NoSuchKey"}});
  S3Store store = Store(s3);
  absl::StatusOr<bool> refreshed = store.Refresh(kKey, Later());
  REQUIRE(refreshed.ok());
  CHECK_FALSE(*refreshed);
  CHECK(s3.Requests() == std::vector<std::string>{"PUT copy", "PUT copy"});
}

TEST_CASE("s3 store: SlowDown is sent again up to max_attempts, then named", "[staging]") {
  ScriptedS3 s3({{503, "SlowDown"}, {503, "SlowDown"}, {503, "SlowDown"}, {200, ""}});
  S3Store store = Store(s3);
  absl::StatusOr<bool> exists = store.Exists(kKey, Later());
  REQUIRE_FALSE(exists.ok());
  CHECK(exists.status().code() == absl::StatusCode::kUnavailable);
  CHECK(exists.status().message() == "staging store (s3): HEAD answered HTTP 503");
  CHECK(s3.Requests().size() == 3);
}

TEST_CASE("s3 store: a refusal is not sent again", "[staging]") {
  ScriptedS3 s3({{403, "AccessDenied"}, {200, ""}});
  S3Store store = Store(s3);
  absl::StatusOr<bool> refreshed = store.Refresh(kKey, Later());
  REQUIRE_FALSE(refreshed.ok());
  CHECK(refreshed.status().message() ==
        "staging store (s3): PUT (copy) answered HTTP 403 AccessDenied");
  CHECK(s3.Requests().size() == 1);
}

TEST_CASE("s3 store: no second try that would end past the deadline", "[staging]") {
  ScriptedS3 s3({{503, "SlowDown"}, {200, ""}});
  S3Store store = Store(s3, absl::Hours(1));
  absl::StatusOr<bool> exists = store.Exists(kKey, Later());
  REQUIRE_FALSE(exists.ok());
  CHECK(s3.Requests().size() == 1);
}

TEST_CASE("s3 store: an answer after a retry is taken as it is", "[staging]") {
  ScriptedS3 s3({{503, "SlowDown"}, {200, ""}});
  S3Store store = Store(s3);
  absl::StatusOr<bool> exists = store.Exists(kKey, Later());
  REQUIRE(exists.ok());
  CHECK(*exists);
  CHECK(s3.Requests() == std::vector<std::string>{"HEAD", "HEAD"});
}

}  // namespace
}  // namespace kje::staging
