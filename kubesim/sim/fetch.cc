#include "kubesim/sim/fetch.h"

#include "kubesim/sim/log_writer.h"
#include "kubesim/sim/spark_pod_conf.h"

namespace kubesim::sim {
namespace {

constexpr std::string_view kImageRoot = "/opt/spark/";

// The frames under each exception: where spark-submit fetches its dependencies.
void SubmitFrames(LogWriter& w) {
  w.Raw("\tat org.apache.spark.util.DependencyUtils$.downloadFile(DependencyUtils.scala:137)");
  w.Raw("\tat org.apache.spark.deploy.SparkSubmit.prepareSubmitEnvironment(SparkSubmit.scala:402)");
  w.Raw("\tat org.apache.spark.deploy.SparkSubmit.doRunMain$1(SparkSubmit.scala:1034)");
  w.Raw("\tat org.apache.spark.deploy.SparkSubmit.main(SparkSubmit.scala)");
}

std::string ConfString(const boost::json::object& conf, const char* key) {
  const boost::json::value* v = conf.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
}

}  // namespace

std::vector<std::string> SparkConfUris(const boost::json::object& conf) {
  std::vector<std::string> out;
  for (const char* key : {"spark.jars", "spark.files", "spark.submit.pyFiles", "spark.archives"}) {
    for (std::string& uri : SplitUris(ConfString(conf, key))) out.push_back(std::move(uri));
  }
  return out;
}

std::string S3aEndpoint(const boost::json::object& conf) {
  return ConfString(conf, "spark.hadoop.fs.s3a.endpoint");
}

S3aAccess S3aAccessOf(const boost::json::object& conf) {
  S3aAccess access;
  access.endpoint = S3aEndpoint(conf);
  std::string region(TrimConfValue(ConfString(conf, "spark.hadoop.fs.s3a.endpoint.region")));
  if (!region.empty()) access.region = std::move(region);
  return access;
}

std::vector<std::string> SplitUris(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = TrimConfValue(list.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

std::string RedactUri(std::string_view uri) {
  std::string out(uri);
  if (size_t q = out.find('?'); q != std::string::npos) out = out.substr(0, q) + "?<redacted>";
  const size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const size_t host = scheme + 3;
    const size_t end = out.find_first_of("/?", host);
    const size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
    if (at != std::string::npos && at >= host)
      out = out.substr(0, host) + "<redacted>" + out.substr(at);
  }
  return out;
}

FetchStep PlanFetch(std::string_view uri, std::string_view s3a_endpoint) {
  S3aAccess access;
  access.endpoint = std::string(s3a_endpoint);
  return PlanFetch(uri, access);
}

FetchStep PlanFetch(std::string_view uri, const S3aAccess& s3a) {
  FetchStep step;
  std::string_view u = TrimConfValue(uri);
  // An archive's "#alias" names the directory it unpacks to, not part of the location.
  if (size_t hash = u.find('#'); hash != std::string_view::npos) u = u.substr(0, hash);
  step.uri = std::string(u);
  std::string_view path;
  if (u.starts_with("local://")) {
    path = u.substr(8);
  } else if (u.starts_with("/")) {
    path = u;  // a bare path: spark-submit resolves it as a local file
  }
  if (!path.empty() || u == "local://") {
    step.target = std::string(path);
    step.kind = path.starts_with(kImageRoot) ? FetchKind::kInImage : FetchKind::kLocalFile;
    return step;
  }
  if (u.starts_with("http://") || u.starts_with("https://")) {
    step.kind = FetchKind::kHttpGet;
    step.target = step.uri;
    return step;
  }
  if (u.starts_with("s3a://")) {
    std::string endpoint(TrimConfValue(s3a.endpoint));
    if (!endpoint.starts_with("http://") && !endpoint.starts_with("https://")) {
      step.kind = FetchKind::kS3Skip;
      return step;
    }
    while (endpoint.ends_with('/')) endpoint.pop_back();
    step.kind = FetchKind::kS3Object;
    step.target = endpoint + "/" + std::string(u.substr(6));  // path-style: /bucket/key
    step.region = s3a.region;
    step.credentials = s3a.credentials;
    return step;
  }
  step.kind = FetchKind::kOther;
  return step;
}

std::string FetchLog(const FetchStep& step, const FetchAnswer& a, int64_t ms, bool* failed) {
  using R = FetchAnswer::Result;
  *failed = false;
  LogWriter w;
  const std::string uri = RedactUri(step.uri);
  if (a.result == R::kFetched) return "";
  if (a.result == R::kSkipped) {
    w.Line(ms, "WARN", "SparkSubmit",
           "kubesim: " + uri +
               " taken as fetched: without an http(s) fs.s3a.endpoint and credentials in the "
               "driver's environment kubesim can't read it");
    return w.Take();
  }
  *failed = true;
  std::string exception;
  switch (a.result) {
    case R::kMissing:
      exception =
          step.kind == FetchKind::kS3Object
              ? "java.io.FileNotFoundException: No such file or directory: " + uri
              : "java.io.FileNotFoundException: " + step.target + " (No such file or directory)";
      break;
    case R::kHttpStatus:
      if (step.kind == FetchKind::kS3Object) {
        // What S3AFileSystem's getFileStatus translates the store's refusal into.
        exception = (a.http_status == 403 ? "java.nio.file.AccessDeniedException: "
                                          : "org.apache.hadoop.fs.s3a.AWSS3IOException: ") +
                    uri + ": getFileStatus on " + uri + ": " +
                    "com.amazonaws.services.s3.model.AmazonS3Exception: Status Code: " +
                    std::to_string(a.http_status);
        break;
      }
      exception = "java.io.IOException: Server returned HTTP response code: " +
                  std::to_string(a.http_status) + " for URL: " + uri;
      break;
    case R::kUnreachable:
      exception = "java.net.ConnectException: " + a.detail + " (fetching " + uri + ")";
      break;
    case R::kTooLarge:
      exception = "java.io.IOException: kubesim: " + uri +
                  " is larger than the simulated fetch bound (" + a.detail + " bytes)";
      break;
    default:
      break;
  }
  w.Raw("Exception in thread \"main\" " + exception);
  SubmitFrames(w);
  w.Line(ms, "INFO", "ShutdownHookManager", "Shutdown hook called");
  return w.Take();
}

FetchOutcome FetchAll(const std::vector<std::string>& uris, std::string_view s3a_endpoint,
                      const DependencyFetch& fetch, int64_t ms) {
  S3aAccess access;
  access.endpoint = std::string(s3a_endpoint);
  return FetchAll(uris, access, fetch, ms);
}

FetchOutcome FetchAll(const std::vector<std::string>& uris, const S3aAccess& s3a,
                      const DependencyFetch& fetch, int64_t ms) {
  FetchOutcome out;
  for (const std::string& uri : uris) {
    const FetchStep step = PlanFetch(uri, s3a);
    FetchAnswer answer;
    switch (step.kind) {
      case FetchKind::kInImage:
      case FetchKind::kOther:
        continue;
      case FetchKind::kS3Skip:
        answer.result = FetchAnswer::Result::kSkipped;
        break;
      default:
        if (!fetch) continue;
        answer = fetch(step);
    }
    bool failed = false;
    out.log += FetchLog(step, answer, ms, &failed);
    if (failed) {
      out.failed = true;
      return out;
    }
  }
  return out;
}

}  // namespace kubesim::sim
