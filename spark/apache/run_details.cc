#include "spark/apache/run_details.h"

#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "spark/apache/app_projection.h"

namespace kje::spark::apache {
namespace {

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

// Writes ApacheSparkAppId into `out`, which has room for RunDetailsRef::kMaxComposedIdLength
// characters, and returns its length. The usual id, `<name>-<attempt>`, takes no allocation.
size_t ComposeApacheSparkAppId(std::string_view namespace_, std::string_view name, int64_t attempt,
                               char* out) {
  char digits[24];
  const size_t digit_count =
      static_cast<size_t>(std::to_chars(digits, digits + sizeof(digits), attempt).ptr - digits);
  if (name.size() + 1 + digit_count <= RunDetailsRef::kMaxComposedIdLength) {
    char* end = std::copy(name.begin(), name.end(), out);
    *end++ = '-';
    end = std::copy(digits, digits + digit_count, end);
    return static_cast<size_t>(end - out);
  }
  std::string id = absl::StrCat(ToAbsl(name), "-", attempt);
  std::string input = absl::StrCat(ToAbsl(namespace_), "/", ToAbsl(name), "/", attempt);
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest.data());
  std::string hashed = absl::StrCat(id.substr(0, kHashedPrefixLength), "-",
                                    Base36(digest.data(), digest.size()).substr(0, kHashDigits));
  return static_cast<size_t>(std::copy(hashed.begin(), hashed.end(), out) - out);
}

}  // namespace

std::string ApacheSparkAppId(std::string_view namespace_, std::string_view name, int64_t attempt) {
  std::array<char, RunDetailsRef::kMaxComposedIdLength> id;
  return std::string(id.data(), ComposeApacheSparkAppId(namespace_, name, attempt, id.data()));
}

RunDetailsRef RunDetailsOf(const AppProjection& app) {
  const StatusView view(app);
  const std::string_view queue = KueueQueueOf(app);
  // Until the operator's first reconcile there is no attempt, and so no id yet.
  if (!app.has_status()) {
    RunDetailsRef ref;
    ref.SetQueue(queue.empty() ? view.queue() : queue);
    return ref;
  }
  const int64_t attempt = view.attempt_id();
  RunDetailsRef ref(app.spark_app_id(), attempt + 1, "");
  ref.SetQueue(queue.empty() ? view.queue() : queue);
  if (app.spark_app_id().empty()) {
    std::array<char, RunDetailsRef::kMaxComposedIdLength> id;
    ref.HoldSparkAppId(std::string_view(
        id.data(), ComposeApacheSparkAppId(app.namespace_(), app.name(), attempt, id.data())));
  }
  return ref;
}

}  // namespace kje::spark::apache
