// What the simulated driver prints: the lines of a SparkPi run as spark-submit launched it in
// cluster mode, with a real estimate of Pi seeded from the application's uid (the same arithmetic
// as every simulated driver), and an exception stack when the job fails.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kubesim/kubeflow/pods.h"
#include "kubesim/sim/clock.h"
#include "kubesim/sim/log_writer.h"
#include "kubesim/sim/pi.h"

namespace kubesim::kubeflow::internal {
namespace {

using sim::LogWriter;

bool IsPython(const Job& job) { return job.type == "Python"; }

std::string JobSite(const Job& job) {
  return IsPython(job) ? "reduce at /opt/spark/examples/src/main/python/pi.py:42"
                       : "reduce at SparkPi.scala:38";
}

std::string Service(const Job& job) { return job.driver_pod_name + "-svc." + job.ns + ".svc"; }

// The arguments as a program prints its command line: space-separated.
std::string Joined(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& arg : args) {
    if (!out.empty()) out += ' ';
    out += arg;
  }
  return out;
}

}  // namespace

std::string DriverLogStart(const Job& job, const std::string& app_id, const Timeline& t) {
  const int64_t s = t.started_ms.value_or(t.created_ms);
  LogWriter w;
  w.Line(s, "INFO", "SparkContext", "Running Spark version " + job.spark_version);
  w.Line(s, "INFO", "SparkContext", "OS info Linux, 6.8.0-1021-aws, amd64");
  w.Line(s, "INFO", "SparkContext", "Java version 17.0.15");
  w.Line(s, "INFO", "SparkContext", "Submitted application: " + job.name);
  if (job.log_args) w.Line(s, "INFO", "Main", "Application arguments: " + Joined(job.arguments));
  w.Line(s, "INFO", "SecurityManager", "Changing view acls to: spark");
  w.Line(s + 400, "INFO", "Utils", "Successfully started service 'sparkDriver' on port 7078.");
  w.Line(s + 400, "INFO", "SparkEnv", "Registering MapOutputTracker");
  w.Line(s + 500, "INFO", "MemoryStore", "MemoryStore started with capacity 117.0 MiB");
  w.Line(s + 600, "INFO", "Utils", "Successfully started service 'SparkUI' on port 4040.");
  w.Line(s + 700, "INFO", "SparkKubernetesClientFactory",
         "Auto-configuring K8S client using current context from users K8S config file");
  w.Line(s + 900, "INFO", "ExecutorPodsAllocator",
         "Going to request " + std::to_string(job.executor_instances) +
             " executors from Kubernetes for ResourceProfile Id: 0, target: " +
             std::to_string(job.executor_instances) +
             ", known: 0, sharedSlotFromPendingPods: 2147483647.");
  w.Line(s + 1000, "INFO", "BlockManagerMasterEndpoint",
         "Registering block manager " + Service(job) +
             ":7079 with 117.0 MiB RAM, BlockManagerId(driver, " + Service(job) + ", 7079, None)");
  w.Line(s + 1100, "INFO", "KubernetesClusterSchedulerBackend",
         "SchedulerBackend is ready for scheduling beginning after reached "
         "minRegisteredResourcesRatio: 0.8");
  w.Line(s + 1200, "INFO", "SparkContext", "Starting job: " + JobSite(job));
  w.Line(s + 1200, "INFO", "DAGScheduler",
         "Got job 0 (" + JobSite(job) + ") with " + std::to_string(sim::PiSlices(job.arguments)) +
             " output partitions");
  w.Line(s + 1200, "INFO", "SparkContext", "Spark application id: " + app_id);
  return w.Take();
}

std::string DriverLogEnd(const Job& job, const std::string& /*app_id*/, const Timeline& t) {
  const int64_t s = t.started_ms.value_or(t.created_ms);
  const int64_t e = std::max(t.ended_ms.value_or(s), s);
  const std::string took = std::to_string(std::max<int64_t>(e - s - 1200, 1));
  LogWriter w;
  if (job.outcome == Outcome::kFail) {
    const std::string cause =
        "java.lang.RuntimeException: kubesim: the job failed as requested (kubesim.outcome=fail)";
    w.Line(e, "ERROR", "TaskSetManager", "Task 0 in stage 0.0 failed 4 times; aborting job");
    w.Line(e, "INFO", "DAGScheduler", "Job 0 failed: " + JobSite(job) + ", took " + took + " ms");
    w.Raw(
        "Exception in thread \"main\" org.apache.spark.SparkException: Job aborted due to stage "
        "failure: Task 0 in stage 0.0 failed 4 times, most recent failure: Lost task 0.3 in "
        "stage 0.0 (TID 3) (10.244.1.40 executor 1): " +
        cause);
    w.Raw("\tat org.apache.spark.scheduler.DAGScheduler.abortStage(DAGScheduler.scala:2871)");
    w.Raw("\tat org.apache.spark.SparkContext.runJob(SparkContext.scala:2470)");
    w.Raw("\tat org.apache.spark.examples.SparkPi$.main(SparkPi.scala:38)");
    w.Raw("\tat org.apache.spark.deploy.SparkSubmit.main(SparkSubmit.scala)");
    w.Raw("Caused by: " + cause);
    w.Line(e, "INFO", "SparkContext", "SparkContext is stopping with exitCode 1.");
    w.Line(e, "INFO", "ShutdownHookManager", "Shutdown hook called");
    return w.Take();
  }
  const double pi = sim::EstimatePi(job.seed, sim::kPiSamples);
  w.Line(e, "INFO", "DAGScheduler", "Job 0 finished: " + JobSite(job) + ", took " + took + " ms");
  if (IsPython(job)) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "Pi is roughly %f", pi);
    w.Raw(buf);
  } else {
    w.Raw("Pi is roughly " + sim::ShortestDouble(pi));
  }
  w.Line(e, "INFO", "SparkContext", "SparkContext is stopping with exitCode 0.");
  w.Line(e, "INFO", "SparkUI", "Stopped Spark web UI at http://" + Service(job) + ":4040");
  w.Line(e, "INFO", "KubernetesClusterSchedulerBackend", "Shutting down all executors");
  w.Line(e, "INFO", "SparkContext", "Successfully stopped SparkContext");
  w.Line(e, "INFO", "ShutdownHookManager", "Shutdown hook called");
  return w.Take();
}

}  // namespace kubesim::kubeflow::internal
