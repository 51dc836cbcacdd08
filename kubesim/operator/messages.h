#pragma once

// The simulated operator's constants: its finalizer, the delays between its passes, and the
// messages it writes on each state (Constants.java, 0.9.0; 1.1.0's suspend messages).
// Internal to kubesim/operator.

#include <cstdint>

namespace kubesim::op::internal {

constexpr const char* kFinalizer = "sparkapplications.spark.apache.org/finalizer";

// Operator-time delays between passes, close to what the real operator shows.
constexpr int64_t kStepMs = 500;          // e.g. Submitted → DriverRequested, stop → cleanup
constexpr int64_t kRunningMs = 400;       // DriverReady → RunningHealthy
constexpr int64_t kDriverGraceMs = 1000;  // a just-requested driver may not be visible yet
// 1.0 (SPARK-57868): a driver missing from a started or running attempt is confirmed only once
// this long has passed since the current state began
// (spark.kubernetes.operator.reconciler.missingDriverGracePeriodSeconds), looked at again every
// kMissingDriverRequeueMs until then (…missingDriverRequeueIntervalSeconds).
constexpr int64_t kMissingDriverGraceMs = 60000;
constexpr int64_t kMissingDriverRequeueMs = 15000;

// The operator's messages (Constants.java, 0.9.0).
constexpr const char* kSubmittedMsg = "Spark application has been created on Kubernetes Cluster.";
constexpr const char* kDriverRequestedMsg = "Requested driver from resource scheduler.";
constexpr const char* kDriverStartedMsg = "Driver has started running.";
constexpr const char* kDriverReadyMsg = "Driver has reached ready state.";
constexpr const char* kRunningHealthyMsg = "Application is running healthy.";
constexpr const char* kBelowThresholdMsg =
    "The application is running with less than minimal number of requested initial executors.";
constexpr const char* kExecutorsStartTimedOutMsg =
    "The Spark application failed to get enough executors in the given time threshold.";
constexpr const char* kSucceededMsg = "Spark application completed successfully.";
constexpr const char* kCriticalExitedZeroMsg = "Driver has critical container(s) exited with 0.";
constexpr const char* kFailedContainerMsg =
    "Driver has one or more failed critical container(s), refer last observed status for "
    "details.";
constexpr const char* kDriverRemovedMsg =
    "Driver removed. This could caused by 'exit' called in driver process with non-zero code, "
    "involuntary disruptions or unintentional destroy behavior, check Kubernetes events for more "
    "details.";
constexpr const char* kClientModeMsg = "Client mode is not supported yet.";
constexpr const char* kUnknownStateMsg = "Cannot process application status.";
constexpr const char* kStartTimedOutMsg =
    "The driver has not responded to the initial health check request within the allotted "
    "start-up time. This can be configured by setting "
    ".spec.applicationTolerations.applicationTimeoutConfig.";
constexpr const char* kRestartRetainMsg =
    "Application is configured to restart, resources created in current attempt would be force "
    "released.";
constexpr const char* kShutdownMsg = "Spark application has been shutdown as requested.";
constexpr const char* kRetainExpiredMsg =
    "Spark application resources released after exceeding the configured retain duration.";
constexpr const char* kTerminatedWithoutReleaseMsg =
    "Application is terminated without releasing resources as configured.";
constexpr const char* kNoImageStack =
    "Failed to request driver from scheduler backend. StackTrace: "
    "org.apache.spark.SparkException: Must specify the driver container image\n"
    "\tat org.apache.spark.deploy.k8s.features.BasicDriverFeatureStep."
    "$anonfun$driverContainerImage$1(BasicDriverFeatureStep.scala:46)\n"
    "\tat scala.Option.getOrElse(Option.scala:201)\n"
    "\tat org.apache.spark.deploy.k8s.features.BasicDriverFeatureStep.<init>"
    "(BasicDriverFeatureStep.scala:46)\n"
    "\tat org.apache.spark.deploy.k8s.submit.KubernetesDriverBuilder.$anonfun$buildFromFeatures"
    "$1(KubernetesDriverBuilder.scala:56)\n"
    "\tat org.apache.spark.deploy.k8s.submit.KubernetesDriverBuilder.buildFromFeatures"
    "(KubernetesDriverBuilder.scala:98)\n"
    "\tat org.apache.spark.k8s.operator.SparkAppSubmissionWorker.getResourceSpec"
    "(SparkAppSubmissionWorker.java:171)\n"
    "\tat org.apache.spark.k8s.operator.reconciler.reconcilesteps.AppInitStep.reconcile"
    "(AppInitStep.java:73)\n"
    "\tat org.apache.spark.k8s.operator.reconciler.SparkAppReconciler.reconcile"
    "(SparkAppReconciler.java:128)\n";

}  // namespace kubesim::op::internal
