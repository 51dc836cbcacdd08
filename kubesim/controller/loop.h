#pragma once

// A simulated operator's control loop over the Store, whichever reconciler it drives: watches
// one application type and the pods of the given namespaces, calls the reconciler when an
// application or one of its pods changes or when a requeue time arrives, and applies the
// returned actions through the Store like any API client (status subresource, finalizers,
// annotations, pods, logs, events, deletion). Applications in other namespaces are never touched.

#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "kubesim/sim/actions.h"
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

// The application a pod belongs to. An empty uid accepts whichever application has that name
// (a pod found by its labels rather than an ownerReference).
struct PodOwner {
  std::string app_key;  // "ns/name"
  std::string uid;
};

struct LoopConfig {
  ResourceType app_type;
  std::set<std::string> namespaces;  // empty: every namespace
  std::function<int64_t()> now_ms;
  std::function<sim::Actions(const sim::AppView&)> reconcile;
  // What Actions::add_finalizer and remove_finalizer add and remove.
  std::string finalizer;
  // Which application a pod belongs to. Unset: the ownerReference whose kind and group are
  // app_type's.
  std::function<std::optional<PodOwner>(const boost::json::object& pod)> pod_owner;
};

std::unique_ptr<Controller> NewControlLoop(Store& store, LoopConfig config);

}  // namespace kubesim
