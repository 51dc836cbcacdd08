// The real I/O of the simulated spark-submit's fetch (fetch.h): a file check on the host path that
// stands for the shared volume, and HTTP through libcurl with a deadline and a body bound.

#include <curl/curl.h>
#include <sys/stat.h>

#include <mutex>

#include "kubesim/sim/fetch.h"

namespace kubesim::sim {
namespace {

struct Body {
  int64_t received = 0;
  int64_t max_bytes = 0;
  bool too_large = false;
};

size_t CountBody(char* /*data*/, size_t size, size_t n, void* user) {
  auto* body = static_cast<Body*>(user);
  body->received += static_cast<int64_t>(size * n);
  if (body->received > body->max_bytes) {
    body->too_large = true;
    return 0;  // aborts the transfer
  }
  return size * n;
}

// The empty body's SHA-256: what an S3 client sends as x-amz-content-sha256 with a GET.
constexpr const char* kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

FetchAnswer Http(const FetchStep& step, const FetchLimits& limits, bool head) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  FetchAnswer answer;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    answer.result = FetchAnswer::Result::kUnreachable;
    answer.detail = "kubesim: no HTTP client";
    return answer;
  }
  Body body{0, limits.max_bytes, false};
  curl_easy_setopt(curl, CURLOPT_URL, step.target.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(limits.timeout_ms));
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOBODY, head ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &CountBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  // s3a with the driver's credentials: a GET signed as an S3 client signs it (SigV4, by libcurl).
  curl_slist* headers = nullptr;
  std::string sigv4;
  if (step.kind == FetchKind::kS3Object && step.credentials) {
    const S3Credentials& c = *step.credentials;
    sigv4 = "aws:amz:" + step.region + ":s3";
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(curl, CURLOPT_USERNAME, c.access_key_id.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, c.secret_access_key.c_str());
    // A redirect elsewhere gets no credentials.
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    headers = curl_slist_append(
        headers, (std::string("x-amz-content-sha256: ") + kEmptyPayloadSha256).c_str());
    if (!c.session_token.empty()) {
      headers = curl_slist_append(headers, ("x-amz-security-token: " + c.session_token).c_str());
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  }
  const CURLcode rc = curl_easy_perform(curl);
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(curl);
  curl_slist_free_all(headers);
  if (body.too_large) {
    answer.result = FetchAnswer::Result::kTooLarge;
    answer.detail = std::to_string(limits.max_bytes);
  } else if (rc != CURLE_OK) {
    answer.result = FetchAnswer::Result::kUnreachable;
    // curl's message names no URL, so nothing of a presigned query reaches the log.
    answer.detail = curl_easy_strerror(rc);
  } else if (code < 200 || code > 299) {
    answer.result = FetchAnswer::Result::kHttpStatus;
    answer.http_status = code;
  }
  return answer;
}

}  // namespace

FetchAnswer FetchForReal(const FetchStep& step, const FetchLimits& limits) {
  FetchAnswer answer;
  switch (step.kind) {
    case FetchKind::kLocalFile: {
      struct stat st {};
      if (::stat(step.target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        answer.result = FetchAnswer::Result::kMissing;
      }
      return answer;
    }
    case FetchKind::kHttpGet:
      return Http(step, limits, false);
    case FetchKind::kS3Object: {
      // With the driver's credentials the driver reads the object as Spark does: any failure
      // (403 for the wrong key, 404, the endpoint down) fails it.
      if (step.credentials) {
        FetchAnswer got = Http(step, limits, false);
        if (got.result == FetchAnswer::Result::kHttpStatus && got.http_status == 404) {
          answer.result = FetchAnswer::Result::kMissing;
          return answer;
        }
        return got;
      }
      // Unsigned, so only a public object answers 2xx and only a missing one 404; anything else
      // (403 for want of credentials, an endpoint down) is taken as fetched, with a log line.
      FetchAnswer head = Http(step, limits, true);
      if (head.result == FetchAnswer::Result::kFetched) return head;
      if (head.result == FetchAnswer::Result::kHttpStatus && head.http_status == 404) {
        answer.result = FetchAnswer::Result::kMissing;
        return answer;
      }
      answer.result = FetchAnswer::Result::kSkipped;
      return answer;
    }
    default:
      return answer;
  }
}

}  // namespace kubesim::sim
