#include "k8s/errors.h"

#include <catch2/catch.hpp>

namespace kje::k8s {
namespace {

TEST_CASE("A Kubernetes Status body keeps its code, reason and message") {
  absl::Status s = StatusFromResponse(
      404,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"x\" not found","reason":"NotFound","code":404})");
  CHECK(s.code() == absl::StatusCode::kNotFound);
  CHECK(IsK8sNotFound(s));
  CHECK_FALSE(IsK8sConflict(s));
  auto error = GetApiError(s);
  REQUIRE(error.has_value());
  CHECK(error->http_code == 404);
  CHECK(error->reason == "NotFound");
  CHECK(error->message == "pods \"x\" not found");
  CHECK(std::string(s.message()).find("pods \"x\" not found") != std::string::npos);
}

TEST_CASE("409 AlreadyExists and 409 Conflict map to different codes") {
  absl::Status exists = StatusFromResponse(
      409, R"({"kind":"Status","reason":"AlreadyExists","message":"a","code":409})");
  absl::Status conflict =
      StatusFromResponse(409, R"({"kind":"Status","reason":"Conflict","message":"b","code":409})");
  CHECK(exists.code() == absl::StatusCode::kAlreadyExists);
  CHECK(conflict.code() == absl::StatusCode::kAborted);
  CHECK(IsK8sConflict(exists));
  CHECK(IsK8sConflict(conflict));
}

TEST_CASE("HTTP codes map to canonical codes") {
  CHECK(CodeForHttp(400, "BadRequest") == absl::StatusCode::kInvalidArgument);
  CHECK(CodeForHttp(401, "") == absl::StatusCode::kUnauthenticated);
  CHECK(CodeForHttp(403, "") == absl::StatusCode::kPermissionDenied);
  CHECK(CodeForHttp(410, "Expired") == absl::StatusCode::kOutOfRange);
  CHECK(CodeForHttp(422, "Invalid") == absl::StatusCode::kInvalidArgument);
  CHECK(CodeForHttp(429, "TooManyRequests") == absl::StatusCode::kUnavailable);
  CHECK(CodeForHttp(500, "") == absl::StatusCode::kInternal);
  CHECK(CodeForHttp(503, "") == absl::StatusCode::kUnavailable);
  CHECK(CodeForHttp(504, "") == absl::StatusCode::kDeadlineExceeded);
  CHECK(CodeForHttp(418, "") == absl::StatusCode::kUnknown);
}

TEST_CASE("A body that is not a Status becomes a bounded message") {
  std::string html = "<html>" + std::string(10000, 'x') + "</html>";
  absl::Status s = StatusFromResponse(502, html);
  CHECK(s.code() == absl::StatusCode::kUnavailable);
  auto error = GetApiError(s);
  REQUIRE(error.has_value());
  CHECK(error->http_code == 502);
  CHECK(error->reason.empty());
  CHECK(error->message.size() <= 512);
  CHECK(error->message.rfind("<html>", 0) == 0);
}

TEST_CASE("A Status's own message is bounded, and a reason that is no word is dropped") {
  std::string body =
      R"({"kind":"Status","reason":"Invalid\nX","message":")" + std::string(10000, 'f') + R"("})";
  absl::Status s = StatusFromResponse(422, body);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().size() < 600);
  auto error = GetApiError(s);
  REQUIRE(error.has_value());
  CHECK(error->reason.empty());
  CHECK(error->message.size() <= 512);
  CHECK(error->message.find("(10000 bytes)") != std::string::npos);
}

TEST_CASE("A message with newlines survives the payload round trip") {
  absl::Status s = MakeApiStatus(ApiError{422, "Invalid", "line one\nline two"});
  auto error = GetApiError(s);
  REQUIRE(error.has_value());
  CHECK(error->message == "line one\nline two");
  CHECK(IsK8sInvalid(s));
}

TEST_CASE("Statuses that did not come from the API server carry no API error") {
  CHECK_FALSE(GetApiError(absl::UnavailableError("connection refused")).has_value());
  CHECK(HttpCode(absl::UnavailableError("connection refused")) == 0);
  CHECK(HttpCode(absl::OkStatus()) == 0);
}

}  // namespace
}  // namespace kje::k8s
