#include "kubesim/kubeflow/controller.h"

#include <utility>

#include "kubesim/kubeflow/app.h"
#include "kubesim/kubeflow/kueue.h"

namespace kubesim::kubeflow {
namespace {

namespace json = boost::json;
using internal::ObjectAt;
using internal::StringAt;

std::optional<PodOwner> OwnerOf(const json::object& pod) {
  const json::object* meta = ObjectAt(&pod, "metadata");
  if (meta == nullptr) return std::nullopt;
  const std::string ns = StringAt(*meta, "namespace");
  if (const json::value* refs = meta->if_contains("ownerReferences"); refs && refs->is_array()) {
    for (const json::value& r : refs->get_array()) {
      if (!r.is_object()) continue;
      const json::object& ref = r.get_object();
      if (StringAt(ref, "kind") != "SparkApplication" ||
          !StringAt(ref, "apiVersion").starts_with("sparkoperator.k8s.io/")) {
        continue;
      }
      return PodOwner{ns + "/" + StringAt(ref, "name"), StringAt(ref, "uid")};
    }
  }
  const json::object* labels = ObjectAt(meta, "labels");
  if (labels == nullptr || StringAt(*labels, internal::kLabelLaunchedBy) != "true") {
    return std::nullopt;
  }
  std::string app = StringAt(*labels, internal::kLabelAppName);
  if (app.empty()) return std::nullopt;
  return PodOwner{ns + "/" + app, ""};
}

}  // namespace

std::unique_ptr<Controller> NewController(Store& store, ResourceType app_type,
                                          std::set<std::string> namespaces, Options options,
                                          std::function<int64_t()> now_ms) {
  LoopConfig config;
  config.app_type = std::move(app_type);
  config.namespaces = std::move(namespaces);
  config.now_ms = std::move(now_ms);
  config.reconcile = [options](const sim::AppView& view) {
    // Kueue's job controller and the operator watch the same apps; Kueue's spec writes go first.
    sim::Actions kueue;
    if (KueuePass(view, &kueue)) return kueue;
    sim::Actions actions = Reconcile(view, options);
    for (json::object& e : kueue.events) actions.events.push_back(std::move(e));
    for (sim::ObjectWrite& w : kueue.write_objects) actions.write_objects.push_back(std::move(w));
    return actions;
  };
  config.pod_owner = &OwnerOf;
  return NewControlLoop(store, std::move(config));
}

}  // namespace kubesim::kubeflow
