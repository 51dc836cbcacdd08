// The SigV4 signer against AWS's published S3 examples (the header-signed GET with a Range, and
// the presigned GET of the query-string authentication page), and the encoding it relies on.

#include "staging/sigv4.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/time/civil_time.h"

namespace kje::staging {
namespace {

const AwsCredentials kExample{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"};

absl::Time May24() {
  return absl::FromCivil(absl::CivilSecond(2013, 5, 24, 0, 0, 0), absl::UTCTimeZone());
}

TEST_CASE("sigv4: the GET-object example's Authorization header", "[sigv4]") {
  SignedRequest r;
  r.method = "GET";
  r.path = "/test.txt";
  r.headers = {
      {"Host", "examplebucket.s3.amazonaws.com"},
      {"Range", "bytes=0-9"},
      {"x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"x-amz-date", "20130524T000000Z"}};
  r.payload_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  CHECK(AuthorizationHeader(r, kExample, SigningScope{}, May24()) ==
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST_CASE("sigv4: the presigned-URL example's query", "[sigv4]") {
  std::string q = PresignedQuery("examplebucket.s3.amazonaws.com", "/test.txt", kExample,
                                 SigningScope{}, May24(), 86400);
  CHECK(q ==
        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-"
        "east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-"
        "SignedHeaders=host&X-Amz-Signature="
        "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  // The secret is in no part of what the URL carries.
  CHECK(q.find(kExample.secret_access_key) == std::string::npos);
}

TEST_CASE("sigv4: encoding keeps unreserved bytes only (and '/' in paths)", "[sigv4]") {
  CHECK(UriEncode("a-b_c.d~e", false) == "a-b_c.d~e");
  CHECK(UriEncode("a b/c+d=", false) == "a%20b%2Fc%2Bd%3D");
  CHECK(UriEncode("/bucket/sha256/x.jar", true) == "/bucket/sha256/x.jar");
  CHECK(AmzDate(May24()) == "20130524T000000Z");
}

}  // namespace
}  // namespace kje::staging
