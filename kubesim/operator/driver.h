#pragma once

// The driver side of the simulated operator: resource names, what the job asks for (from its
// spec and sparkConf), the driver Pod the operator creates, and the simulated kubelet's view of
// that pod over time. Internal to kubesim/operator.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kubesim/sim/fetch.h"
#include "kubesim/sim/spark_pod_conf.h"

namespace kubesim::op::internal {

inline constexpr const char* kDriverContainer = "spark-kubernetes-driver";
inline constexpr const char* kOperatorName = "spark-kubernetes-operator";

// An operator-time delay in wall-clock ms: divided by the time scale, rounded up.
int64_t ScaledMs(int64_t ms, double time_scale);

// RFC 3339 UTC. Status times carry milliseconds as Java's Instant does (none when zero); pod
// times are whole seconds, as metav1.Time is.
std::string FormatStatusTime(int64_t ms);
std::string FormatPodTime(int64_t ms);
std::optional<int64_t> ParseTime(std::string_view text);

// `<name>-<attempt>`, or the documented hash-shortened id when that exceeds 46 characters.
std::string AppId(std::string_view ns, std::string_view name, int64_t attempt);

// kEvictBeforeStart: the pod fails (evicted) before any container starts: no container statuses.
enum class Outcome { kSucceed, kFail, kEvict, kUnschedulable, kHang, kEvictBeforeStart };

// What a job asks for, read from its spec and sparkConf.
struct JobConf {
  std::string ns;
  std::string name;
  std::string uid;
  Outcome outcome = Outcome::kSucceed;
  int64_t duration_ms = 3000;        // operator time
  std::optional<std::string> image;  // spark.kubernetes.container.image, {{SPARK_VERSION}} set
  std::string spark_version;
  std::string main_class;
  std::string primary_resource;
  // Everything spark-submit fetches as the driver starts (spec jars, pyFiles, files,
  // sparkRFiles, then sparkConf's lists), and spark.hadoop.fs.s3a.endpoint (sim/fetch.h).
  std::vector<std::string> dependencies;
  sim::S3aAccess s3a;  // the conf's endpoint and region; credentials are the pod's
  bool python = false;
  std::vector<std::string> driver_args;
  // kubesim.logArgs=true: the application logs its arguments (as many jobs do).
  bool log_args = false;
  std::string service_account = "default";
  std::string app_name_label = "spark";  // Spark's default app name unless spark.app.name is set
  bool client_mode = false;
  // The driver's container: the pod template's (spark.kubernetes.driver.podTemplateContainerName,
  // else its first container) keeps its name, else spark-kubernetes-driver.
  std::string driver_container = kDriverContainer;
  // The template's other containers (sidecars): they start with the driver and keep running, so
  // the pod stays Running after the driver ends.
  std::vector<std::string> sidecars;
  uint64_t seed = 0;  // from the uid: varies per app, stable per app
  // spark.kubernetes[.driver].node.selector.*, .driver.secretKeyRef.*, .driver.secrets.*
  sim::SparkPodConf driver_pod;
  // Executors, simulated when spark.executor.instances >= 1 without dynamic allocation.
  int64_t executor_instances = 0;
  std::string executor_image;  // spark.kubernetes.executor.container.image, else the driver's
  sim::SparkPodConf executor_pod;
  // executorSpec.podTemplateSpec: Spark applies it to each executor pod (null: none).
  boost::json::value executor_template;
  // spark.kubernetes.executor.deleteOnTermination, which the operator sets to false when the
  // restart policy is Never unless the app sets it.
  bool delete_executors_on_termination = false;
};

JobConf ReadJobConf(const boost::json::object& app);

// When the simulated kubelet moves the driver of one attempt, in wall-clock ms.
struct Timeline {
  int64_t created_ms = 0;
  std::optional<int64_t> started_ms;  // never, when unschedulable
  std::optional<int64_t> ended_ms;    // never, when unschedulable or hanging
};

// `delay_ms`: how long the kubelet was held (sim/kubelet.h) before it could start the driver.
Timeline DriverTimeline(const JobConf& conf, int64_t attempt, int64_t created_ms, double time_scale,
                        int64_t delay_ms = 0);

// The node the scheduler binds the driver to; nullopt when it can't be scheduled.
std::optional<std::string> DriverNode(const JobConf& conf);

enum class PodStage { kPending = 0, kRunning = 1, kTerminated = 2 };

PodStage StageAt(const Timeline& timeline, int64_t now_ms);
// The stage a pod's status shows: its phase, or kTerminated once the driver container has
// terminated while sidecars keep the pod Running.
PodStage StageOf(const boost::json::object& pod, std::string_view driver_container);

// The complete driver Pod of an attempt, as created (status Pending).
boost::json::object BuildDriverPod(const boost::json::object& app, const JobConf& conf,
                                   int64_t attempt, const Timeline& timeline);

// The driver pod's status at `stage`.
boost::json::object DriverPodStatus(const JobConf& conf, int64_t attempt, const Timeline& timeline,
                                    PodStage stage);

}  // namespace kubesim::op::internal
