#include "kubesim/controller/controller.h"

#include <utility>

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
  return NewControlLoop(store, std::move(config));
}

std::unique_ptr<Controller> NewController(Store& store, ResourceType spark_type,
                                          std::set<std::string> namespaces, op::Options options,
                                          std::function<int64_t()> now_ms) {
  return NewController(store, std::move(spark_type), std::move(namespaces), options,
                       std::move(now_ms), &op::Reconcile);
}

}  // namespace kubesim
