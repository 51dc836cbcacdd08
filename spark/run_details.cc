#include "spark/run_details.h"

#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

constexpr size_t kMaxApacheAppIdLength = 46;
constexpr size_t kHashedPrefixLength = 9;
constexpr size_t kHashDigits = 36;

// The digest read as one unsigned big-endian number, in base 36 without leading zeros: long
// division of the byte string by 36, one digit per pass.
std::string Base36(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::vector<unsigned> number(bytes, bytes + size);
  std::string digits;
  while (std::any_of(number.begin(), number.end(), [](unsigned b) { return b != 0; })) {
    unsigned remainder = 0;
    for (unsigned& byte : number) {
      unsigned value = remainder * 256 + byte;
      byte = value / 36;
      remainder = value % 36;
    }
    digits.push_back(kDigits[remainder]);
  }
  if (digits.empty()) return std::string(1, '0');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace

std::string ApacheSparkAppId(std::string_view namespace_, std::string_view name, int64_t attempt) {
  std::string id = absl::StrCat(ToAbsl(name), "-", attempt);
  if (id.size() <= kMaxApacheAppIdLength) return id;
  std::string input = absl::StrCat(ToAbsl(namespace_), "/", ToAbsl(name), "/", attempt);
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest.data());
  return absl::StrCat(id.substr(0, kHashedPrefixLength), "-",
                      Base36(digest.data(), digest.size()).substr(0, kHashDigits));
}

RunDetails RunDetailsOf(const AppProjection& app) {
  RunDetails details;
  if (app.kind() == OperatorKind::kKubeflow) {
    details.spark_app_id = app.spark_app_id();
    details.attempts = app.kubeflow().execution_attempts;
    details.driver_ui_address = app.kubeflow().web_ui_address;
    return details;
  }
  // Until the operator's first reconcile there is no attempt, and so no id yet.
  if (!app.has_status()) return details;
  details.attempts = app.attempt_id() + 1;
  details.spark_app_id = app.spark_app_id().empty()
                             ? ApacheSparkAppId(app.namespace_(), app.name(), app.attempt_id())
                             : std::string(app.spark_app_id());
  return details;
}

}  // namespace kje::spark
