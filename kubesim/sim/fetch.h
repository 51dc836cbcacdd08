#pragma once

// The simulated spark-submit's fetch of an application's dependencies, as the driver does it when
// its container starts: each `local://`, `http(s)://` and `s3a://` URI it names must be reachable,
// or the driver fails with the exception Spark prints. The decision (what to check for a URI, the
// log a failure prints) is pure; the I/O (a file check, an HTTP GET or HEAD) is a DependencyFetch
// the controller injects, so reconcilers stay pure and their tests choose the answers.
//
// kubesim models a volume shared with the drivers (a ReadWriteMany PVC) as the host path itself:
// `local:///data/x.jar` is present when /data/x.jar is a file on kubesim's host. Paths under
// /opt/spark/ are the Spark image's own (its examples jar, pi.py) and are always present.
//
// `s3a://` is read as hadoop-aws reads it: path-style at spark.hadoop.fs.s3a.endpoint, signed
// (SigV4) with the credentials the driver's environment holds (AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, usually from a Secret the pod references: s3_credentials.h).

#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim::sim {

enum class FetchKind {
  kInImage,    // local:///opt/spark/...: shipped in the Spark image
  kLocalFile,  // local:// or a bare path: a file on the (shared) host path
  kHttpGet,    // http:// or https://: downloaded by the driver
  kS3Object,   // s3a:// with an http(s) fs.s3a.endpoint: a signed GET, or without credentials
               // an unsigned HEAD
  kS3Skip,     // s3a:// without one: kubesim can't authenticate, taken as fetched
  kOther,      // a scheme kubesim doesn't model (hdfs://, file://, ...): taken as fetched
};

// The keys hadoop-aws's environment-variable provider reads. Never printed.
struct S3Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // "" when the environment has none
};

// How a driver reaches s3a://: the application's conf, and the credentials its pod holds.
struct S3aAccess {
  std::string endpoint;              // spark.hadoop.fs.s3a.endpoint, "" when unset
  std::string region = "us-east-1";  // spark.hadoop.fs.s3a.endpoint.region
  std::optional<S3Credentials> credentials;
};

struct FetchStep {
  FetchKind kind = FetchKind::kOther;
  std::string uri;     // as the application names it (without an archive's #alias)
  std::string target;  // kLocalFile: the path; kHttpGet, kS3Object: the URL to ask
  // kS3Object: the signing region and the credentials, when the driver has any.
  std::string region;
  std::optional<S3Credentials> credentials;
};

// What to do for one dependency.
FetchStep PlanFetch(std::string_view uri, const S3aAccess& s3a);
// The same without credentials; `s3a_endpoint` is spark.hadoop.fs.s3a.endpoint ("" when unset).
FetchStep PlanFetch(std::string_view uri, std::string_view s3a_endpoint);

// A comma-separated list as Spark reads spark.jars and its kin: trimmed, empty items dropped.
std::vector<std::string> SplitUris(std::string_view list);

// The dependencies every Spark application may name in its sparkConf, whichever operator runs
// it: spark.jars, spark.files, spark.submit.pyFiles, spark.archives; and the conf's
// spark.hadoop.fs.s3a.endpoint.
std::vector<std::string> SparkConfUris(const boost::json::object& spark_conf);
std::string S3aEndpoint(const boost::json::object& spark_conf);
// The endpoint and region of the conf; no credentials (they are the pod's).
S3aAccess S3aAccessOf(const boost::json::object& spark_conf);

// A URI as kubesim prints it: the query (a presigned URL's signature) and any user info are
// replaced, so no credential reaches a log.
std::string RedactUri(std::string_view uri);

// The answer of the I/O for one step.
struct FetchAnswer {
  enum class Result { kFetched, kMissing, kHttpStatus, kUnreachable, kTooLarge, kSkipped };
  Result result = Result::kFetched;
  int64_t http_status = 0;  // kHttpStatus: the non-2xx code
  std::string detail;       // kUnreachable: what failed (e.g. "Connection refused")
};

// The driver's lines for `step` given `answer`: empty when fetched; an INFO line when skipped;
// else the exception spark-submit dies with. `failed` tells which.
std::string FetchLog(const FetchStep& step, const FetchAnswer& answer, int64_t ms, bool* failed);

// The I/O: one answer per step. Unset in a view: everything is fetched.
using DependencyFetch = std::function<FetchAnswer(const FetchStep& step)>;

// The outcome of fetching all of an application's dependencies, in order, stopping at the first
// failure as spark-submit does.
struct FetchOutcome {
  bool failed = false;
  std::string log;  // the lines the driver printed while fetching
};

FetchOutcome FetchAll(const std::vector<std::string>& uris, const S3aAccess& s3a,
                      const DependencyFetch& fetch, int64_t ms);
FetchOutcome FetchAll(const std::vector<std::string>& uris, std::string_view s3a_endpoint,
                      const DependencyFetch& fetch, int64_t ms);

// The real I/O, for the controllers: a file check; an HTTP GET (s3a: signed, or an unsigned HEAD
// without credentials) with
// `timeout_ms` and a body bound of `max_bytes`. It blocks its caller up to the timeout: the
// controllers call it on their own thread, never on the API server's.
struct FetchLimits {
  int64_t timeout_ms = 5000;
  int64_t max_bytes = int64_t{256} << 20;
};
FetchAnswer FetchForReal(const FetchStep& step, const FetchLimits& limits);

}  // namespace kubesim::sim
