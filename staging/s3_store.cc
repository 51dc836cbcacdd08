#include "staging/s3_store.h"

#include <curl/curl.h>

#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "base/strings.h"
#include "staging/sha256.h"

namespace kje::staging {
namespace {

size_t AppendBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

size_t ReadEtag(char* data, size_t size, size_t n, void* out) {
  std::string_view line(data, size * n);
  if (line.size() > 5 && absl::StartsWithIgnoreCase(ToAbsl(line), "etag:")) {
    std::string_view v = line.substr(5);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) {
      v.remove_suffix(1);
    }
    *static_cast<std::string*>(out) = std::string(v);
  }
  return size * n;
}

// The text of every <tag>…</tag> in `xml`, in order (S3's answers are flat enough for this).
std::vector<std::string> TagValues(std::string_view xml, std::string_view tag) {
  std::vector<std::string> out;
  const std::string open = absl::StrCat("<", ToAbsl(tag), ">");
  const std::string close = absl::StrCat("</", ToAbsl(tag), ">");
  size_t at = 0;
  while ((at = xml.find(open, at)) != std::string_view::npos) {
    size_t begin = at + open.size();
    size_t end = xml.find(close, begin);
    if (end == std::string_view::npos) break;
    out.emplace_back(xml.substr(begin, end - begin));
    at = end + close.size();
  }
  return out;
}

absl::Status StoreError(std::string_view what, const S3Store::Response& r) {
  // The store's own code says why (NoSuchBucket, AccessDenied, SignatureDoesNotMatch); the
  // request's signature and credentials are in no part of it.
  std::vector<std::string> code = TagValues(r.body, "Code");
  return absl::UnavailableError(absl::StrCat("staging store (s3): ", ToAbsl(what),
                                             " answered HTTP ", r.status, code.empty() ? "" : " ",
                                             code.empty() ? "" : code.front()));
}

// A write: buffered up to one part; one PUT when the file fits in it, else a multipart upload
// whose parts go as the buffer fills, completed at Commit and aborted when dropped uncommitted.
class S3Writer final : public ArtifactWriter {
 public:
  S3Writer(S3Store& store, std::string path, int64_t part_bytes, absl::Time deadline)
      : store_(store), path_(std::move(path)), part_bytes_(part_bytes), deadline_(deadline) {}
  ~S3Writer() override {
    if (!upload_id_.empty() && !committed_) {
      (void)store_.Send("DELETE", path_, {{"uploadId", upload_id_}}, "", deadline_);
    }
  }

  absl::Status Append(std::string_view bytes) override {
    while (!bytes.empty()) {
      size_t room = static_cast<size_t>(part_bytes_) - buffer_.size();
      size_t take = std::min(room, bytes.size());
      buffer_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      if (buffer_.size() == static_cast<size_t>(part_bytes_) && !bytes.empty()) {
        if (absl::Status s = SendPart(); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

  absl::Status Commit() override {
    if (upload_id_.empty()) {
      auto r = store_.Send("PUT", path_, {}, buffer_, deadline_);
      if (!r.ok()) return r.status();
      if (r->status != 200) return StoreError("PUT", *r);
      committed_ = true;
      return absl::OkStatus();
    }
    if (!buffer_.empty()) {
      if (absl::Status s = SendPart(); !s.ok()) return s;
    }
    std::string xml = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < etags_.size(); ++i) {
      absl::StrAppend(&xml, "<Part><PartNumber>", i + 1, "</PartNumber><ETag>", etags_[i],
                      "</ETag></Part>");
    }
    absl::StrAppend(&xml, "</CompleteMultipartUpload>");
    auto r = store_.Send("POST", path_, {{"uploadId", upload_id_}}, xml, deadline_);
    if (!r.ok()) return r.status();
    // S3 may answer 200 with an error in the body of a completion.
    if (r->status != 200 || absl::StrContains(r->body, "<Error>")) {
      return StoreError("CompleteMultipartUpload", *r);
    }
    committed_ = true;
    return absl::OkStatus();
  }

 private:
  absl::Status SendPart() {
    if (upload_id_.empty()) {
      auto r = store_.Send("POST", path_, {{"uploads", ""}}, "", deadline_);
      if (!r.ok()) return r.status();
      std::vector<std::string> id = TagValues(r->body, "UploadId");
      if (r->status != 200 || id.empty()) return StoreError("CreateMultipartUpload", *r);
      upload_id_ = id.front();
    }
    auto r = store_.Send(
        "PUT", path_, {{"partNumber", absl::StrCat(etags_.size() + 1)}, {"uploadId", upload_id_}},
        buffer_, deadline_);
    if (!r.ok()) return r.status();
    if (r->status != 200 || r->etag.empty()) return StoreError("UploadPart", *r);
    etags_.push_back(r->etag);
    buffer_.clear();
    return absl::OkStatus();
  }

  S3Store& store_;
  const std::string path_;
  const int64_t part_bytes_;
  const absl::Time deadline_;
  std::string buffer_;
  std::string upload_id_;
  std::vector<std::string> etags_;
  bool committed_ = false;
};

}  // namespace

S3Store::S3Store(S3StoreOptions options) : options_(std::move(options)) {
  std::string_view e = options_.endpoint;
  if (absl::StartsWith(ToAbsl(e), "https://")) {
    e.remove_prefix(8);
  } else if (absl::StartsWith(ToAbsl(e), "http://")) {
    e.remove_prefix(7);
  }
  host_ = std::string(e.substr(0, e.find('/')));
}

std::string S3Store::KeyOf(std::string_view object_path) const {
  return absl::StrCat(options_.prefix, ToAbsl(object_path));
}

absl::StatusOr<S3Store::Response> S3Store::Send(
    std::string_view method, std::string_view object_path,
    const std::vector<std::pair<std::string, std::string>>& query, std::string_view body,
    absl::Time deadline, const std::vector<std::pair<std::string, std::string>>& extra_headers) {
  absl::Duration delay = options_.retry_delay;
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<Response> r =
        SendOnce(method, object_path, query, body, deadline, extra_headers);
    // Only the store's own request to try again; every other answer is the caller's to judge.
    if (!r.ok() || (r->status != 500 && r->status != 503)) return r;
    if (attempt >= options_.max_attempts || absl::Now() + delay >= deadline) return r;
    absl::SleepFor(delay);
    delay *= 2;
  }
}

absl::StatusOr<S3Store::Response> S3Store::SendOnce(
    std::string_view method, std::string_view object_path,
    const std::vector<std::pair<std::string, std::string>>& query, std::string_view body,
    absl::Time deadline, const std::vector<std::pair<std::string, std::string>>& extra_headers) {
  const absl::Time now = absl::Now();
  if (now >= deadline) return absl::DeadlineExceededError("staging store (s3): deadline passed");
  std::string path = absl::StrCat("/", options_.bucket);
  if (!object_path.empty()) absl::StrAppend(&path, "/", UriEncode(KeyOf(object_path), true));
  std::vector<std::string> query_parts;
  query_parts.reserve(query.size());
  for (const auto& [k, v] : query) {
    query_parts.push_back(v.empty() && k == "uploads"
                              ? UriEncode(k, false)
                              : absl::StrCat(UriEncode(k, false), "=", UriEncode(v, false)));
  }
  std::string url = absl::StrCat(options_.endpoint, path);
  if (!query_parts.empty()) absl::StrAppend(&url, "?", absl::StrJoin(query_parts, "&"));

  SignedRequest signed_request;
  signed_request.method = std::string(method);
  signed_request.path = path;
  signed_request.query = query;
  signed_request.payload_sha256 = Sha256Hex(body);
  const std::string amz_date = AmzDate(now);
  signed_request.headers = {{"host", host_},
                            {"x-amz-content-sha256", signed_request.payload_sha256},
                            {"x-amz-date", amz_date}};
  for (const auto& h : extra_headers) signed_request.headers.push_back(h);
  const std::string authorization =
      AuthorizationHeader(signed_request, options_.credentials, options_.scope, now);

  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return absl::InternalError("staging store (s3): curl_easy_init failed");
  curl_slist* headers = nullptr;
  for (const std::string& h :
       {absl::StrCat("Authorization: ", authorization),
        absl::StrCat("x-amz-content-sha256: ", signed_request.payload_sha256),
        absl::StrCat("x-amz-date: ", amz_date), std::string("Expect:")}) {
    headers = curl_slist_append(headers, h.c_str());
  }
  for (const auto& [name, value] : extra_headers) {
    headers = curl_slist_append(headers, absl::StrCat(name, ": ", value).c_str());
  }
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(headers, curl_slist_free_all);
  Response response;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, ReadEtag);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response.etag);
  curl_easy_setopt(
      c, CURLOPT_TIMEOUT_MS,
      static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(deadline - now))));
  if (method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
  }
  if (method == "PUT" || method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat("staging store (s3): ", ToAbsl(method), " to ",
                                               options_.endpoint,
                                               " failed: ", curl_easy_strerror(rc)));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

absl::StatusOr<bool> S3Store::Exists(const spark::StagedKey& key, absl::Time deadline) {
  auto r = Send("HEAD", key.ObjectPath(), {}, "", deadline);
  if (!r.ok()) return r.status();
  if (r->status == 200) return true;
  if (r->status == 404) return false;
  return StoreError("HEAD", *r);
}

absl::StatusOr<bool> S3Store::Refresh(const spark::StagedKey& key, absl::Time deadline) {
  // A copy onto itself is how S3 sets an object's LastModified; it is refused unless it changes
  // something, hence REPLACE (of metadata the service never sets). Server-side: no bytes move.
  const std::string source =
      absl::StrCat("/", options_.bucket, "/", UriEncode(KeyOf(key.ObjectPath()), true));
  auto r = Send("PUT", key.ObjectPath(), {}, "", deadline,
                {{"x-amz-copy-source", source}, {"x-amz-metadata-directive", "REPLACE"}});
  if (!r.ok()) return r.status();
  if (r->status == 404) return false;
  // A copy can fail after its 200 was sent: the error is then the body.
  if (r->status == 200 && r->body.find("<Error>") == std::string::npos) return true;
  return StoreError("PUT (copy)", *r);
}

absl::StatusOr<std::unique_ptr<ArtifactWriter>> S3Store::StartWrite(const spark::StagedKey& key,
                                                                    int64_t, absl::Time deadline) {
  return std::make_unique<S3Writer>(*this, key.ObjectPath(), options_.part_bytes, deadline);
}

absl::StatusOr<std::string> S3Store::ClusterUri(const spark::StagedKey& key, absl::Time now) {
  if (!options_.presigned) {
    return absl::StrCat("s3a://", options_.bucket, "/", KeyOf(key.ObjectPath()));
  }
  std::string path =
      absl::StrCat("/", options_.bucket, "/", UriEncode(KeyOf(key.ObjectPath()), true));
  return absl::StrCat(options_.endpoint, path, "?",
                      PresignedQuery(host_, path, options_.credentials, options_.scope, now,
                                     options_.presign_expiry_seconds));
}

std::vector<std::pair<std::string, std::string>> S3Store::JobConf() const {
  if (options_.presigned) return {};
  std::vector<std::pair<std::string, std::string>> conf = {
      {"spark.hadoop.fs.s3a.endpoint", options_.endpoint},
      {"spark.hadoop.fs.s3a.path.style.access", "true"},
      {"spark.hadoop.fs.s3a.endpoint.region", options_.scope.region},
  };
  for (const char* role : {"driver", "executor"}) {
    for (const char* env : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}) {
      conf.emplace_back(absl::StrCat("spark.kubernetes.", role, ".secretKeyRef.", env),
                        absl::StrCat(options_.credentials_secret, ":", env));
    }
  }
  return conf;
}

absl::StatusOr<std::vector<StoredObject>> S3Store::List(absl::Time deadline) {
  std::vector<StoredObject> out;
  std::string token;
  const std::string prefix = KeyOf("sha256/");
  do {
    std::vector<std::pair<std::string, std::string>> query = {{"list-type", "2"},
                                                              {"prefix", prefix}};
    if (!token.empty()) query.emplace_back("continuation-token", token);
    auto r = Send("GET", "", query, "", deadline);
    if (!r.ok()) return r.status();
    if (r->status != 200) return StoreError("ListObjectsV2", *r);
    std::vector<std::string> keys = TagValues(r->body, "Key");
    std::vector<std::string> modified = TagValues(r->body, "LastModified");
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!absl::StartsWith(keys[i], prefix)) continue;
      StoredObject o;
      o.path = keys[i].substr(options_.prefix.size());
      std::string error;
      if (i >= modified.size() ||
          !absl::ParseTime("%Y-%m-%d%ET%H:%M:%E*SZ", modified[i], &o.modified, &error)) {
        o.modified = absl::InfiniteFuture();  // unknown age: never old enough to sweep
      }
      out.push_back(std::move(o));
    }
    std::vector<std::string> truncated = TagValues(r->body, "IsTruncated");
    std::vector<std::string> next = TagValues(r->body, "NextContinuationToken");
    token =
        (!truncated.empty() && truncated.front() == "true" && !next.empty()) ? next.front() : "";
  } while (!token.empty());
  return out;
}

absl::Status S3Store::Delete(std::string_view path, absl::Time deadline) {
  if (!absl::StartsWith(ToAbsl(path), "sha256/")) {
    return absl::InvalidArgumentError(absl::StrCat("not a staged object: ", ToAbsl(path)));
  }
  auto r = Send("DELETE", path, {}, "", deadline);
  if (!r.ok()) return r.status();
  if (r->status == 200 || r->status == 204 || r->status == 404) return absl::OkStatus();
  return StoreError("DELETE", *r);
}

}  // namespace kje::staging
