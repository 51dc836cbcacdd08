#pragma once

// What Spark's own confs put into a driver's or an executor's pod, whichever operator runs
// spark-submit or builds the pod: the node selector, env from Secrets, and Secret volumes.
//
//   spark.kubernetes.node.selector.<k>=<v>            both roles' nodeSelector
//   spark.kubernetes.<role>.node.selector.<k>=<v>     the role's (wins over the above)
//   spark.kubernetes.<role>.secretKeyRef.<ENV>=<secret>:<key>   env ENV from the Secret's key
//   spark.kubernetes.<role>.secrets.<secret>=<path>   the Secret mounted at path, volume
//                                                     <secret>-volume

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim::sim {

struct SparkPodConf {
  boost::json::object node_selector;
  struct SecretEnv {
    std::string env;
    std::string secret;
    std::string key;
  };
  std::vector<SecretEnv> secret_env;
  struct SecretVolume {
    std::string secret;
    std::string path;
  };
  std::vector<SecretVolume> secret_volumes;
};

// A conf value without the blanks (spaces, tabs, newlines) around it, as Spark reads values.
std::string_view TrimConfValue(std::string_view s);

// A boolean conf as the driver reads it: trimmed, "false" in any case is false, any other value
// true; nullopt when the conf doesn't set it (blank or absent).
std::optional<bool> SparkConfBool(const boost::json::object& spark_conf, std::string_view key);

// `role` is "driver" or "executor". Entries that aren't strings, or a secretKeyRef without
// "<secret>:<key>", are left out, as Spark's parsing would reject or ignore them.
SparkPodConf ReadSparkPodConf(const boost::json::object& spark_conf, std::string_view role);

// Adds the conf to a pod spec and its Spark container: nodeSelector entries, env entries, and
// the volumes with their mounts.
void ApplySparkPodConf(const SparkPodConf& conf, boost::json::object* pod_spec,
                       boost::json::object* container);

}  // namespace kubesim::sim
