#pragma once

// What a simulated operator's reconciler sees and returns, neutral between the operators: the
// controller loop (kubesim/controller/loop.h) reads the view from the store and applies the
// actions through it, whichever reconciler it drives.

#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kubesim/sim/fetch.h"

namespace kubesim::sim {

// An object the kubelet reads through the API in the application's namespace: `resource` is
// "secrets" or "configmaps". Returns the object, or nullopt when it doesn't exist.
using ObjectLookup = std::function<std::optional<boost::json::object>(std::string_view resource,
                                                                      std::string_view name)>;

struct AppView {
  const boost::json::object* app = nullptr;      // the application
  std::vector<const boost::json::object*> pods;  // pods the controller attributes to it
  int64_t now_ms = 0;                            // wall clock, ms since the epoch
  ObjectLookup lookup;                           // unset: every object the pods refer to exists
  DependencyFetch fetch;                         // unset: every dependency is fetched (fetch.h)
};

struct PodStatusUpdate {
  std::string name;
  boost::json::object status;  // the pod's new .status, whole
};

struct LogAppend {
  std::string pod;
  std::string container;
  std::string text;
};

// An object of another type to create, or whose .status to bring up to date (e.g. Kueue's
// Workload). Skipped when its type isn't served (its CRD not loaded).
struct ObjectWrite {
  std::string group;
  std::string version;
  std::string plural;
  boost::json::object object;  // complete: metadata (name, namespace), spec, status
};

struct Actions {
  bool add_finalizer = false;                    // the loop's finalizer (LoopConfig::finalizer)
  bool remove_finalizer = false;                 // cleanup done after a deletion
  std::optional<boost::json::object> status;     // the app's new .status, whole
  std::vector<boost::json::object> create_pods;  // complete Pod objects (metadata incl.
                                                 // ownerReferences, spec, status)
  std::vector<PodStatusUpdate> pod_status;
  std::vector<std::string> delete_pods;
  std::vector<LogAppend> logs;
  // core/v1 Events to create (complete objects). A name already taken means the event was
  // published already: the controller ignores that 409.
  std::vector<boost::json::object> events;
  // Created when missing, else their .status written when it changed; a condition whose status
  // didn't change keeps its lastTransitionTime, as Kubernetes controllers set conditions.
  std::vector<ObjectWrite> write_objects;
  // Members to set in the app's .spec (another controller's write, e.g. Kueue's spec.suspend),
  // written before anything else; the write wakes the reconciler again.
  boost::json::object set_spec;
  // Annotations to set on the app's metadata, written after the status.
  std::map<std::string, std::string> set_annotations;
  bool delete_app = false;               // e.g. a time-to-live expired
  std::optional<int64_t> requeue_at_ms;  // reconcile again at this wall-clock time
};

}  // namespace kubesim::sim
