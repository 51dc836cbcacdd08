#include "kubesim/operator/driver_log.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kubesim/sim/log_writer.h"
#include "kubesim/sim/pi.h"

namespace kubesim::op::internal {
namespace {

using sim::LogWriter;

std::string Script(const JobConf& conf) {
  if (conf.python) return "pi.py";
  return "SparkPi.scala";
}

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

double EstimatePi(uint64_t seed, int64_t samples) { return sim::EstimatePi(seed, samples); }

std::string DriverLogStart(const JobConf& conf, int64_t attempt, const Timeline& t) {
  const int64_t s = t.started_ms.value_or(t.created_ms);
  const std::string app_id = AppId(conf.ns, conf.name, attempt);
  const std::string app_name = conf.app_name_label == "spark"
                                   ? (conf.python ? "PythonPi" : "Spark Pi")
                                   : conf.app_name_label;
  const int64_t slices = sim::PiSlices(conf.driver_args);
  LogWriter w;
  if (!conf.primary_resource.empty()) {
    std::string file = conf.primary_resource.substr(conf.primary_resource.rfind('/') + 1);
    std::string local = conf.primary_resource;
    if (local.starts_with("local://")) local = local.substr(8);
    w.Raw("Files " + conf.primary_resource + " from " + local + " to /opt/spark/work-dir/./" +
          file);
  }
  w.Line(s, "INFO", "SparkContext", "Running Spark version " + conf.spark_version);
  w.Line(s, "INFO", "SparkContext", "OS info Linux, 6.8.0-1021-aws, amd64");
  w.Line(s, "INFO", "SparkContext", "Java version 21.0.7");
  w.Line(s, "INFO", "ResourceUtils",
         "==============================================================");
  w.Line(s, "INFO", "ResourceUtils", "No custom resources configured for spark.driver.");
  w.Line(s, "INFO", "ResourceUtils",
         "==============================================================");
  w.Line(s, "INFO", "SparkContext", "Submitted application: " + app_name);
  if (conf.log_args)
    w.Line(s, "INFO", "Main", "Application arguments: " + Joined(conf.driver_args));
  w.Line(s, "INFO", "SecurityManager", "Changing view acls to: spark");
  w.Line(s, "INFO", "SecurityManager", "Changing modify acls to: spark");
  w.Line(s + 400, "INFO", "Utils", "Successfully started service 'sparkDriver' on port 7078.");
  w.Line(s + 400, "INFO", "SparkEnv", "Registering MapOutputTracker");
  w.Line(s + 400, "INFO", "SparkEnv", "Registering BlockManagerMaster");
  w.Line(s + 500, "INFO", "MemoryStore", "MemoryStore started with capacity 413.9 MiB");
  w.Line(s + 600, "INFO", "Utils", "Successfully started service 'SparkUI' on port 4040.");
  w.Line(s + 700, "INFO", "SparkKubernetesClientFactory",
         "Auto-configuring K8S client using current context from users K8S config file");
  w.Line(s + 900, "INFO", "ExecutorPodsAllocator",
         "Going to request 1 executors from Kubernetes for ResourceProfile Id: 0, target: 1, "
         "known: 0, sharedSlotFromPendingPods: 2147483647.");
  w.Line(s + 900, "INFO", "KubernetesClientUtils",
         "Spark configuration files loaded from Some(/opt/spark/conf) : spark.properties");
  w.Line(s + 1000, "INFO", "Utils",
         "Successfully started service "
         "'org.apache.spark.network.netty.NettyBlockTransferService' on port 7079.");
  w.Line(s + 1000, "INFO", "BlockManagerMasterEndpoint",
         "Registering block manager " + app_id + "-driver-svc." + conf.ns +
             ".svc:7079 with 413.9 MiB RAM, BlockManagerId(driver, " + app_id + "-driver-svc." +
             conf.ns + ".svc, 7079, None)");
  w.Line(s + 1200, "INFO", "KubernetesClusterSchedulerBackend",
         "SchedulerBackend is ready for scheduling beginning after reached "
         "minRegisteredResourcesRatio: 0.8");
  const std::string job =
      conf.python ? "reduce at " + Script(conf) + ":42" : "reduce at " + Script(conf) + ":38";
  w.Line(s + 1300, "INFO", "SparkContext", "Starting job: " + job);
  w.Line(s + 1300, "INFO", "DAGScheduler",
         "Got job 0 (" + job + ") with " + std::to_string(slices) + " output partitions");
  return w.Take();
}

std::string DriverLogEnd(const JobConf& conf, int64_t attempt, const Timeline& t) {
  const int64_t s = t.started_ms.value_or(t.created_ms);
  const int64_t e = std::max(t.ended_ms.value_or(s), s);
  const std::string app_id = AppId(conf.ns, conf.name, attempt);
  const std::string job =
      conf.python ? "reduce at " + Script(conf) + ":42" : "reduce at " + Script(conf) + ":38";
  LogWriter w;
  switch (conf.outcome) {
    case Outcome::kSucceed: {
      const double pi = EstimatePi(conf.seed, sim::kPiSamples);
      w.Line(e, "INFO", "DAGScheduler",
             "Job 0 finished: " + job + ", took " +
                 std::to_string(std::max<int64_t>(e - s - 1300, 1)) + " ms");
      if (conf.python) {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "Pi is roughly %f", pi);
        w.Raw(buf);
      } else {
        w.Raw("Pi is roughly " + sim::ShortestDouble(pi));
      }
      w.Line(e, "INFO", "SparkContext", "SparkContext is stopping with exitCode 0.");
      w.Line(e, "INFO", "SparkUI",
             "Stopped Spark web UI at http://" + app_id + "-driver-svc." + conf.ns + ".svc:4040");
      w.Line(e, "INFO", "KubernetesClusterSchedulerBackend", "Shutting down all executors");
      w.Line(e, "INFO", "MemoryStore", "MemoryStore cleared");
      w.Line(e, "INFO", "BlockManager", "BlockManager stopped");
      w.Line(e, "INFO", "SparkContext", "Successfully stopped SparkContext");
      w.Line(e, "INFO", "ShutdownHookManager", "Shutdown hook called");
      break;
    }
    case Outcome::kFail: {
      const std::string cause =
          "java.lang.RuntimeException: kubesim: the job failed as requested (kubesim.outcome=fail)";
      w.Line(e, "WARN", "TaskSetManager",
             "Lost task 0.0 in stage 0.0 (TID 0) (10.244.1.40 executor 1): " + cause);
      w.Line(e, "ERROR", "TaskSetManager", "Task 0 in stage 0.0 failed 4 times; aborting job");
      w.Line(e, "INFO", "DAGScheduler",
             "Job 0 failed: " + job + ", took " +
                 std::to_string(std::max<int64_t>(e - s - 1300, 1)) + " ms");
      w.Raw(
          "Exception in thread \"main\" org.apache.spark.SparkException: Job aborted due to "
          "stage failure: Task 0 in stage 0.0 failed 4 times, most recent failure: Lost task "
          "0.3 in stage 0.0 (TID 3) (10.244.1.40 executor 1): " +
          cause);
      w.Raw("\tat org.apache.spark.examples.SparkPi$.$anonfun$main$1(SparkPi.scala:34)");
      w.Raw("\tat org.apache.spark.scheduler.ResultTask.runTask(ResultTask.scala:93)");
      w.Raw("\tat org.apache.spark.executor.Executor$TaskRunner.run(Executor.scala:620)");
      w.Raw("\tat java.base/java.lang.Thread.run(Thread.java:1583)");
      w.Raw("");
      w.Raw("Driver stacktrace:");
      w.Raw(
          "\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages("
          "DAGScheduler.scala:2935)");
      w.Raw("\tat org.apache.spark.scheduler.DAGScheduler.abortStage(DAGScheduler.scala:2871)");
      w.Raw("\tat org.apache.spark.SparkContext.runJob(SparkContext.scala:2470)");
      w.Raw("\tat org.apache.spark.rdd.RDD.reduce(RDD.scala:1135)");
      w.Raw("\tat org.apache.spark.examples.SparkPi$.main(SparkPi.scala:38)");
      w.Raw("\tat org.apache.spark.examples.SparkPi.main(SparkPi.scala)");
      w.Raw(
          "\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke("
          "DirectMethodHandleAccessor.java:103)");
      w.Raw("\tat org.apache.spark.deploy.SparkSubmit.doRunMain$1(SparkSubmit.scala:1034)");
      w.Raw("\tat org.apache.spark.deploy.SparkSubmit.main(SparkSubmit.scala)");
      w.Raw("Caused by: " + cause);
      w.Raw("\tat org.apache.spark.examples.SparkPi$.$anonfun$main$1(SparkPi.scala:34)");
      w.Raw("\t... 3 more");
      w.Line(e, "INFO", "SparkContext", "SparkContext is stopping with exitCode 1.");
      w.Line(e, "INFO", "ShutdownHookManager", "Shutdown hook called");
      break;
    }
    case Outcome::kEvict:
      // The kubelet kills the container: the log simply stops mid-job.
      w.Line(e, "INFO", "TaskSetManager",
             "Finished task 0.0 in stage 0.0 (TID 0) in 412 ms on 10.244.1.40 (executor 1) "
             "(1/2)");
      break;
    case Outcome::kUnschedulable:
    case Outcome::kHang:
    case Outcome::kEvictBeforeStart:
      break;
  }
  return w.Take();
}

}  // namespace kubesim::op::internal
