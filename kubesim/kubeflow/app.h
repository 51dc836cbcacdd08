#pragma once

// Reading a v1beta2 SparkApplication as the simulated Kubeflow operator does: what the job asks
// for (spec and sparkConf), its status as a struct and back, ids derived from it. Internal to
// kubesim/kubeflow.

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kubesim/sim/fetch.h"
#include "kubesim/sim/ids.h"
#include "kubesim/sim/json_access.h"
#include "kubesim/sim/spark_pod_conf.h"

namespace kubesim::kubeflow::internal {

inline constexpr const char* kDriverContainer = "spark-kubernetes-driver";
inline constexpr const char* kExecutorContainer = "spark-kubernetes-executor";
inline constexpr const char* kComponent = "spark-operator";
inline constexpr const char* kApiVersion = "sparkoperator.k8s.io/v1beta2";

inline constexpr const char* kLabelAppName = "sparkoperator.k8s.io/app-name";
inline constexpr const char* kLabelLaunchedBy = "sparkoperator.k8s.io/launched-by-spark-operator";
inline constexpr const char* kLabelSubmissionId = "sparkoperator.k8s.io/submission-id";
inline constexpr const char* kLabelMutatedBy = "sparkoperator.k8s.io/mutated-by-spark-operator";
inline constexpr const char* kLabelRole = "spark-role";
inline constexpr const char* kLabelAppSelector = "spark-app-selector";
inline constexpr const char* kLabelExecId = "spark-exec-id";
// When the simulated kubelet saw the pod created, in wall-clock ms: metadata.creationTimestamp
// has whole seconds only, too coarse under --time-scale.
inline constexpr const char* kCreatedMsAnnotation = "kubesim.dev/created-ms";

// The 14 ApplicationStateType values.
inline constexpr const char* kNew = "";
inline constexpr const char* kSubmitted = "SUBMITTED";
inline constexpr const char* kRunning = "RUNNING";
inline constexpr const char* kSucceeding = "SUCCEEDING";
inline constexpr const char* kCompleted = "COMPLETED";
inline constexpr const char* kFailing = "FAILING";
inline constexpr const char* kFailed = "FAILED";
inline constexpr const char* kSubmissionFailed = "SUBMISSION_FAILED";
inline constexpr const char* kPendingRerun = "PENDING_RERUN";
inline constexpr const char* kInvalidating = "INVALIDATING";
inline constexpr const char* kUnknown = "UNKNOWN";
inline constexpr const char* kSuspending = "SUSPENDING";
inline constexpr const char* kSuspended = "SUSPENDED";
inline constexpr const char* kResuming = "RESUMING";

enum class Outcome { kSucceed, kFail, kSubmissionFail, kUnschedulable, kHang, kDriverDeleted };

struct RestartPolicy {
  std::string type = "Never";  // Never | OnFailure | Always
  std::optional<int64_t> on_failure_retries;
  std::optional<int64_t> on_submission_failure_retries;
  int64_t on_failure_interval_ms = 5000;  // operator time
  int64_t on_submission_failure_interval_ms = 5000;
};

// What a job asks for, read from its metadata, spec and sparkConf.
struct Job {
  std::string ns;
  std::string name;
  std::string uid;
  uint64_t seed = 0;  // from the uid: varies per app, stable per app
  Outcome outcome = Outcome::kSucceed;
  int64_t duration_ms = 3000;  // operator time
  std::string driver_pod_name;
  std::string type;  // Scala | Java | Python | R
  std::string spark_version;
  std::string image;
  std::string driver_image;
  std::string executor_image;
  std::string main_class;
  std::string main_file;
  // Everything spark-submit fetches as the driver starts (mainApplicationFile, deps.jars,
  // deps.files, deps.pyFiles, deps.archives, then sparkConf's lists), and
  // spark.hadoop.fs.s3a.endpoint (sim/fetch.h).
  std::vector<std::string> dependencies;
  sim::S3aAccess s3a;  // the conf's endpoint and region; credentials are the pod's
  std::vector<std::string> arguments;
  // kubesim.logArgs=true: the application logs its arguments (as many jobs do).
  bool log_args = false;
  std::string driver_service_account;
  std::string executor_service_account;
  int64_t executor_instances = 1;
  bool delete_executors_on_termination = true;
  bool has_driver_template = false;
  RestartPolicy restart;
  bool suspend = false;
  std::optional<int64_t> ttl_seconds;
  boost::json::object app_labels;  // metadata.labels without kueue.x-k8s.io/*
  boost::json::object driver_labels;
  boost::json::object driver_annotations;
  boost::json::object executor_labels;
  boost::json::object executor_annotations;
  std::string driver_memory = "1g";
  std::string executor_memory = "1g";
  int64_t driver_cores = 1;
  int64_t executor_cores = 1;
  // Node selectors, Secret env and Secret volumes, from sparkConf and the spec fields the
  // operator turns into the same spark-submit confs.
  sim::SparkPodConf driver_pod;
  sim::SparkPodConf executor_pod;
  // driver.template / executor.template, which spark-submit applies to the pods (null: none),
  // and spark.kubernetes.driver.podTemplateContainerName.
  boost::json::value driver_template;
  boost::json::value executor_template;
  std::string driver_template_container;
  bool deleting = false;           // metadata.deletionTimestamp is set
  std::string spec_hash;           // of the spec without suspend and timeToLiveSeconds
  std::string recorded_spec_hash;  // kSpecHashAnnotation
};

Job ReadJob(const boost::json::object& app);

// The status fields the operator writes (SparkApplicationStatus). Unset times are written as
// null, zero counters and empty strings are left out, as Go's encoding of the type does.
struct Status {
  bool present = false;  // the app had a .status
  std::string state;
  std::string error_message;
  std::string pod_name;
  std::string ui_service_name;
  int64_t ui_port = 0;
  std::string ui_address;  // webUIAddress: the UI service's cluster IP and port
  std::string submission_id;
  std::string app_id;  // sparkApplicationId
  std::optional<int64_t> last_submission_ms;
  std::optional<int64_t> termination_ms;
  int64_t execution_attempts = 0;
  int64_t submission_attempts = 0;
  std::map<std::string, std::string> executor_state;
};

Status ReadStatus(const boost::json::object& app);
boost::json::object StatusJson(const Status& status);

// A submission attempt's id: a version-4-shaped UUID derived from the app and the previous
// attempt, so a pass retried after a write conflict submits the same attempt again.
std::string SubmissionId(const Job& job, const Status& status);
// spark.app.id as Spark makes it: "spark-" and 32 hex digits.
std::string SparkAppId(std::string_view submission_id);
// Spark's executor pod name prefix: the app name and 16 hex digits, or "spark-<hex>" when the
// executor names would be too long.
std::string ExecutorName(const Job& job, std::string_view submission_id, int64_t n);

uint64_t Fnv1a(std::string_view s);
using sim::Hex;
using sim::ObjectAt;
using sim::StringAt;

}  // namespace kubesim::kubeflow::internal
