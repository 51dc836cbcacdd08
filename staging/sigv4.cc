#include "staging/sigv4.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "base/strings.h"
#include "staging/sha256.h"

namespace kje::staging {
namespace {

constexpr char kAlgorithm[] = "AWS4-HMAC-SHA256";

std::string DateOf(absl::Time t) { return absl::FormatTime("%Y%m%d", t, absl::UTCTimeZone()); }

std::string Scope(absl::Time now, const SigningScope& scope) {
  return absl::StrCat(DateOf(now), "/", scope.region, "/", scope.service, "/aws4_request");
}

std::string CanonicalQuery(std::vector<std::pair<std::string, std::string>> query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (auto& [k, v] : query) encoded.emplace_back(UriEncode(k, false), UriEncode(v, false));
  std::sort(encoded.begin(), encoded.end());
  std::vector<std::string> parts;
  parts.reserve(encoded.size());
  for (auto& [k, v] : encoded) parts.push_back(absl::StrCat(k, "=", v));
  return absl::StrJoin(parts, "&");
}

// The canonical headers and the signed headers' list.
std::pair<std::string, std::string> CanonicalHeaders(
    const std::vector<std::pair<std::string, std::string>>& headers) {
  std::vector<std::pair<std::string, std::string>> lowered;
  for (const auto& [name, value] : headers) {
    lowered.emplace_back(absl::AsciiStrToLower(name),
                         std::string(absl::StripAsciiWhitespace(value)));
  }
  std::sort(lowered.begin(), lowered.end());
  std::string canonical;
  std::vector<std::string> names;
  for (const auto& [name, value] : lowered) {
    absl::StrAppend(&canonical, name, ":", value, "\n");
    names.push_back(name);
  }
  return {canonical, absl::StrJoin(names, ";")};
}

std::string Signature(std::string_view canonical_request, const AwsCredentials& credentials,
                      const SigningScope& scope, absl::Time now) {
  std::string to_sign = absl::StrCat(kAlgorithm, "\n", AmzDate(now), "\n", Scope(now, scope), "\n",
                                     Sha256Hex(canonical_request));
  std::string key = HmacSha256(absl::StrCat("AWS4", credentials.secret_access_key), DateOf(now));
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  return HexOf(HmacSha256(key, to_sign));
}

}  // namespace

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

std::string AmzDate(absl::Time t) {
  return absl::FormatTime("%Y%m%dT%H%M%SZ", t, absl::UTCTimeZone());
}

std::string AuthorizationHeader(const SignedRequest& request, const AwsCredentials& credentials,
                                const SigningScope& scope, absl::Time now) {
  auto [canonical_headers, signed_headers] = CanonicalHeaders(request.headers);
  std::string canonical =
      absl::StrCat(request.method, "\n", request.path, "\n", CanonicalQuery(request.query), "\n",
                   canonical_headers, "\n", signed_headers, "\n", request.payload_sha256);
  return absl::StrCat(kAlgorithm, " Credential=", credentials.access_key_id, "/", Scope(now, scope),
                      ",SignedHeaders=", signed_headers,
                      ",Signature=", Signature(canonical, credentials, scope, now));
}

std::string PresignedQuery(std::string_view host, std::string_view path,
                           const AwsCredentials& credentials, const SigningScope& scope,
                           absl::Time now, int64_t expires_seconds) {
  std::vector<std::pair<std::string, std::string>> query = {
      {"X-Amz-Algorithm", kAlgorithm},
      {"X-Amz-Credential", absl::StrCat(credentials.access_key_id, "/", Scope(now, scope))},
      {"X-Amz-Date", AmzDate(now)},
      {"X-Amz-Expires", absl::StrCat(expires_seconds)},
      {"X-Amz-SignedHeaders", "host"},
  };
  std::string canonical_query = CanonicalQuery(query);
  std::string canonical = absl::StrCat("GET\n", ToAbsl(path), "\n", canonical_query,
                                       "\nhost:", ToAbsl(host), "\n\nhost\nUNSIGNED-PAYLOAD");
  return absl::StrCat(canonical_query,
                      "&X-Amz-Signature=", Signature(canonical, credentials, scope, now));
}

}  // namespace kje::staging
