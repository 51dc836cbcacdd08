#pragma once

// Runs the simulated Kubeflow operator on the control loop (kubesim/controller/loop.h): watches
// sparkoperator.k8s.io/v1beta2 SparkApplications and pods of its namespaces and drives
// kubeflow::Reconcile. A pod belongs to an application by its ownerReference, or, for executors
// owned by their driver alone, by the labels the operator puts on every pod of a run.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "kubesim/controller/loop.h"
#include "kubesim/kubeflow/kubeflow.h"
#include "kubesim/store/store.h"

namespace kubesim::kubeflow {

// `app_type` is the registered sparkoperator.k8s.io/v1beta2 sparkapplications type. An empty
// `namespaces` means every namespace.
std::unique_ptr<Controller> NewController(Store& store, ResourceType app_type,
                                          std::set<std::string> namespaces, Options options,
                                          std::function<int64_t()> now_ms);

}  // namespace kubesim::kubeflow
