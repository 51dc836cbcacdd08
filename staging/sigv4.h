#pragma once

// AWS Signature Version 4 for S3-compatible stores: the Authorization header of a request the
// service sends, and the query of a presigned URL a driver fetches. Pure; tested against AWS's
// published examples. The secret key goes into the HMAC chain and nowhere else.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace kje::staging {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
};

struct SigningScope {
  std::string region = "us-east-1";
  std::string service = "s3";
};

// RFC 3986 percent-encoding as SigV4 wants it: unreserved bytes kept, every other byte %XX in
// upper case; '/' kept when `keep_slash` (a path).
std::string UriEncode(std::string_view text, bool keep_slash);

struct SignedRequest {
  std::string method;  // "GET", "PUT", ...
  std::string path;    // the path as sent, already encoded ("/bucket/key")
  // The query's parameters, not encoded (the signer encodes and sorts them).
  std::vector<std::pair<std::string, std::string>> query;
  // Every header to sign, host included (names in any case).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_sha256;  // hex, or "UNSIGNED-PAYLOAD"
};

// The Authorization header's value for `request` at `now`.
std::string AuthorizationHeader(const SignedRequest& request, const AwsCredentials& credentials,
                                const SigningScope& scope, absl::Time now);

// The query string (without '?') that presigns a GET of `path` on `host` at `now` for `expires`
// seconds: X-Amz-Algorithm … X-Amz-Signature.
std::string PresignedQuery(std::string_view host, std::string_view path,
                           const AwsCredentials& credentials, const SigningScope& scope,
                           absl::Time now, int64_t expires_seconds);

// "20130524T000000Z".
std::string AmzDate(absl::Time t);

}  // namespace kje::staging
