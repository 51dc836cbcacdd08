#pragma once

// Runs the simulated Spark operator: watches SparkApplications and pods of the operator's
// namespaces through the Store, calls op::Reconcile when an application or one of its pods
// changes or when a requeue time arrives, and applies the returned actions through the Store
// like any API client (status subresource, finalizers, pods, logs, deletion).
// Applications in other namespaces are never touched: they never get a status.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "kubesim/operator/operator.h"
#include "kubesim/store/store.h"

namespace kubesim {

class Controller {
 public:
  virtual ~Controller() = default;
  // Starts its own thread. Idempotent.
  virtual void Start() = 0;
  // Stops and joins the thread. Idempotent.
  virtual void Stop() = 0;
  // For tests: reconciles everything that is due now, synchronously, and returns the number of
  // applications reconciled.
  virtual int RunOnce() = 0;
};

// `spark_type` is the registered SparkApplication type (spark.apache.org/v1 sparkapplications).
// An empty `namespaces` means every namespace.
std::unique_ptr<Controller> NewController(Store& store, ResourceType spark_type,
                                          std::set<std::string> namespaces, op::Options options,
                                          std::function<int64_t()> now_ms);

// The same with another reconciler in place of op::Reconcile (for tests of the controller).
using ReconcileFn = std::function<op::Actions(const op::AppView&, const op::Options&)>;
std::unique_ptr<Controller> NewController(Store& store, ResourceType spark_type,
                                          std::set<std::string> namespaces, op::Options options,
                                          std::function<int64_t()> now_ms, ReconcileFn reconcile);

}  // namespace kubesim
