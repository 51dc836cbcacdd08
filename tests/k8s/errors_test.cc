#include "k8s/errors.h"

#include <catch2/catch.hpp>

namespace kje::k8s {
namespace {

TEST_CASE("A Kubernetes Status body keeps its code, reason and message") {
  absl::Status s = StatusFromResponse(
      404,
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"x\" not found","reason":"NotFound","code":404})");
  // What a 404 means is the executor's to say (executor/error_table.h), not this layer's.
  CHECK(s.code() == absl::StatusCode::kUnknown);
  CHECK(IsK8sNotFound(s));
  CHECK_FALSE(IsK8sConflict(s));
  auto error = GetApiError(s);
  REQUIRE(error.has_value());
  CHECK(error->http_code == 404);
  CHECK(error->reason == "NotFound");
  CHECK(error->message == "pods \"x\" not found");
  CHECK(std::string(s.message()).find("pods \"x\" not found") != std::string::npos);
}

TEST_CASE("409 AlreadyExists and 409 Conflict keep their reasons apart") {
  absl::Status exists = StatusFromResponse(
      409, R"({"kind":"Status","reason":"AlreadyExists","message":"a","code":409})");
  absl::Status conflict =
      StatusFromResponse(409, R"({"kind":"Status","reason":"Conflict","message":"b","code":409})");
  CHECK(GetApiError(exists)->reason == "AlreadyExists");
  CHECK(GetApiError(conflict)->reason == "Conflict");
  CHECK(IsK8sConflict(exists));
  CHECK(IsK8sConflict(conflict));
}

TEST_CASE("Every API error has code UNKNOWN and keeps its HTTP code") {
  for (int code : {400, 401, 403, 404, 409, 410, 422, 429, 500, 501, 503, 504, 418}) {
    CAPTURE(code);
    absl::Status s = MakeApiStatus({code, "Reason", "m"});
    CHECK(s.code() == absl::StatusCode::kUnknown);
    CHECK(HttpCode(s) == code);
  }
  CHECK(HttpCode(absl::UnavailableError("connection lost")) == 0);
}

TEST_CASE("A body that is not a Status becomes a bounded message") {
  std::string html = "<html>" + std::string(10000, 'x') + "</html>";
  absl::Status s = StatusFromResponse(502, html);
  CHECK(HttpCode(s) == 502);
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
  CHECK(IsK8sInvalid(s));
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
