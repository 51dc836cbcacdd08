#pragma once

// Runs the simulated Apache Spark operator on the control loop (loop.h): watches
// SparkApplications (spark.apache.org/v1) and pods of the operator's namespaces and drives
// op::Reconcile, with its finalizer. Applications in other namespaces never get a status.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "kubesim/controller/loop.h"
#include "kubesim/operator/operator.h"
#include "kubesim/store/store.h"

namespace kubesim {

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
