#include "kubesim/controller/controller.h"

#include <utility>

#include "kubesim/sim/json_access.h"

namespace kubesim {

std::unique_ptr<Controller> NewController(Store& store, ResourceType spark_type,
                                          std::set<std::string> namespaces, op::Options options,
                                          std::function<int64_t()> now_ms, ReconcileFn reconcile) {
  LoopConfig config;
  config.app_type = std::move(spark_type);
  config.namespaces = std::move(namespaces);
  config.now_ms = std::move(now_ms);
  config.reconcile = [reconcile = std::move(reconcile), options](const op::AppView& view) {
    return reconcile(view, options);
  };
  config.finalizer = "sparkapplications.spark.apache.org/finalizer";
  // The driver pod is the app's; its executors are the driver's (Spark), found by their labels.
  config.pod_owner = [](const boost::json::object& pod) -> std::optional<PodOwner> {
    const boost::json::object* meta = sim::ObjectAt(pod, "metadata");
    if (meta == nullptr) return std::nullopt;
    const std::string ns = sim::StringAt(*meta, "namespace");
    if (const boost::json::value* refs = meta->if_contains("ownerReferences");
        refs != nullptr && refs->is_array()) {
      for (const boost::json::value& r : refs->get_array()) {
        if (!r.is_object() || sim::StringAt(r.get_object(), "kind") != "SparkApplication" ||
            !sim::StringAt(r.get_object(), "apiVersion").starts_with("spark.apache.org/")) {
          continue;
        }
        return PodOwner{ns + "/" + sim::StringAt(r.get_object(), "name"),
                        sim::StringAt(r.get_object(), "uid")};
      }
    }
    const boost::json::object* labels = sim::ObjectAt(meta, "labels");
    if (labels == nullptr || sim::StringAt(*labels, "spark-role") != "executor" ||
        sim::StringAt(*labels, "spark.operator/name") != "spark-kubernetes-operator") {
      return std::nullopt;
    }
    const std::string app = sim::StringAt(*labels, "spark.operator/spark-app-name");
    if (app.empty()) return std::nullopt;
    return PodOwner{ns + "/" + app, ""};
  };
  return NewControlLoop(store, std::move(config));
}

std::unique_ptr<Controller> NewController(Store& store, ResourceType spark_type,
                                          std::set<std::string> namespaces, op::Options options,
                                          std::function<int64_t()> now_ms) {
  return NewController(store, std::move(spark_type), std::move(namespaces), options,
                       std::move(now_ms), &op::Reconcile);
}

}  // namespace kubesim
