#include "k8s/errors.h"

#include <rapidjson/document.h>

#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::k8s {
namespace {

constexpr char kPayloadUrl[] = "type.kje.dev/k8s.ApiError";
// The most of an API server's own message (a Status's, or a plain body) an error carries: its
// 422s list every invalid field and can run to kilobytes, and a proxy may answer with a page.
constexpr size_t kMaxApiMessage = 512;

}  // namespace

constexpr char kThrottledUrl[] = "type.kje.dev/k8s.Throttled";

absl::Status MakeThrottledStatus(std::string_view message) {
  absl::Status status = absl::ResourceExhaustedError(ToAbsl(message));
  status.SetPayload(kThrottledUrl, absl::Cord());
  return status;
}

bool IsThrottled(const absl::Status& status) {
  return absl::IsResourceExhausted(status) && status.GetPayload(kThrottledUrl).has_value();
}

absl::Status MakeApiStatus(const ApiError& error) {
  std::string text = absl::StrCat("kubernetes: ", error.http_code, error.reason.empty() ? "" : " ",
                                  error.reason, error.message.empty() ? "" : ": ", error.message);
  absl::Status status(absl::StatusCode::kUnknown, text);
  status.SetPayload(kPayloadUrl, absl::Cord(absl::StrCat(error.http_code, "\n", error.reason, "\n",
                                                         error.message)));
  return status;
}

absl::Status StatusFromResponse(int http_code, std::string_view body) {
  ApiError error;
  error.http_code = http_code;
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (!doc.HasParseError() && doc.IsObject() && doc.HasMember("kind") && doc["kind"].IsString() &&
      std::string_view(doc["kind"].GetString()) == "Status") {
    if (doc.HasMember("reason") && doc["reason"].IsString()) {
      error.reason = doc["reason"].GetString();
    }
    if (doc.HasMember("message") && doc["message"].IsString()) {
      error.message = BoundMessage(doc["message"].GetString(), kMaxApiMessage);
    }
    // A reason is one CamelCase word (AlreadyExists); anything else is no reason we know, and
    // must not reach the payload, whose lines it would break.
    bool word = error.reason.size() <= 64;
    for (char c : error.reason) word = word && absl::ascii_isalnum(static_cast<unsigned char>(c));
    if (!word) error.reason.clear();
  } else {
    error.message = BoundMessage(body, kMaxApiMessage);
  }
  return MakeApiStatus(error);
}

std::optional<ApiError> GetApiError(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kPayloadUrl);
  if (!payload) return std::nullopt;
  std::string flat(*payload);
  size_t first = flat.find('\n');
  if (first == std::string::npos) return std::nullopt;
  size_t second = flat.find('\n', first + 1);
  if (second == std::string::npos) return std::nullopt;
  ApiError error;
  auto [ptr, ec] = std::from_chars(flat.data(), flat.data() + first, error.http_code);
  if (ec != std::errc() || ptr != flat.data() + first) return std::nullopt;
  error.reason = flat.substr(first + 1, second - first - 1);
  error.message = flat.substr(second + 1);
  return error;
}

int HttpCode(const absl::Status& status) {
  std::optional<ApiError> error = GetApiError(status);
  return error ? error->http_code : 0;
}

}  // namespace kje::k8s
