#include "kubesim/sim/pod_template.h"

#include <string>
#include <utility>

#include "kubesim/sim/json_access.h"

namespace kubesim::sim {

namespace json = boost::json;

namespace {

std::string NameOf(const json::value& v) {
  return v.is_object() ? StringAt(v.as_object(), "name") : "";
}

json::array ArrayAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_array() ? v->as_array() : json::array();
}

// The template's named entries, then Spark's, a name Spark uses replacing the template's.
json::array MergeNamed(json::array from_template, const json::array& from_spark) {
  for (const json::value& s : from_spark) {
    const std::string name = NameOf(s);
    bool replaced = false;
    for (json::value& t : from_template) {
      if (!name.empty() && NameOf(t) == name) {
        t = s;
        replaced = true;
      }
    }
    if (!replaced) from_template.push_back(s);
  }
  return from_template;
}

// The template's entries where `into` has none.
void AddMissing(const json::object* from, json::object* into) {
  if (from == nullptr) return;
  for (const auto& kv : *from) {
    if (!into->contains(kv.key())) (*into)[kv.key()] = kv.value();
  }
}

json::object MergeContainer(const json::object& tmpl, json::object spark) {
  json::object out = tmpl;
  for (const auto& kv : spark) {
    const std::string_view key = kv.key();
    if (key == "env" || key == "volumeMounts") {
      out[key] = MergeNamed(ArrayAt(tmpl, key),
                            kv.value().is_array() ? kv.value().as_array() : json::array());
    } else if (key == "envFrom") {
      json::array all = ArrayAt(tmpl, key);
      for (const json::value& e : kv.value().as_array()) all.push_back(e);
      out[key] = std::move(all);
    } else if (key == "resources" && kv.value().is_object()) {
      json::object resources =
          ObjectAt(tmpl, "resources") ? *ObjectAt(tmpl, "resources") : json::object();
      for (const auto& part : kv.value().as_object()) {
        json::object merged =
            ObjectAt(resources, part.key()) ? *ObjectAt(resources, part.key()) : json::object();
        if (part.value().is_object()) {
          for (const auto& r : part.value().as_object()) merged[r.key()] = r.value();
        }
        resources[part.key()] = std::move(merged);
      }
      out[key] = std::move(resources);
    } else if (key == "name" && tmpl.contains("name")) {
      // Spark keeps the template's name for its container.
    } else {
      out[key] = kv.value();
    }
  }
  return out;
}

}  // namespace

void ApplyPodTemplate(const json::object* tmpl, std::string_view container_name,
                      json::object* pod) {
  if (tmpl == nullptr) return;
  json::object& meta = (*pod)["metadata"].as_object();
  if (const json::object* tmeta = ObjectAt(*tmpl, "metadata")) {
    for (std::string_view key : {"labels", "annotations"}) {
      const json::object* from = ObjectAt(*tmeta, key);
      if (from == nullptr || from->empty()) continue;
      json::value& into = meta[key];
      if (!into.is_object()) into = json::object();
      AddMissing(from, &into.as_object());
    }
  }
  const json::object* tspec = ObjectAt(*tmpl, "spec");
  if (tspec == nullptr) return;
  json::object& spec = (*pod)["spec"].as_object();
  json::array spark_containers = ArrayAt(spec, "containers");
  for (const auto& kv : *tspec) {
    const std::string_view key = kv.key();
    if (key == "containers") continue;
    if (key == "volumes") {
      json::array all = kv.value().is_array() ? kv.value().as_array() : json::array();
      for (const json::value& v : ArrayAt(spec, "volumes")) all.push_back(v);
      spec["volumes"] = std::move(all);
    } else if (key == "nodeSelector" && kv.value().is_object()) {
      json::value& into = spec["nodeSelector"];
      if (!into.is_object()) into = json::object();
      AddMissing(&kv.value().as_object(), &into.as_object());
    } else if (!spec.contains(key)) {
      spec[key] = kv.value();
    }
  }
  // The template's Spark container and its other ones.
  json::array containers;
  json::array sidecars;
  bool taken = false;
  for (const json::value& c : ArrayAt(*tspec, "containers")) {
    if (!c.is_object()) continue;
    const bool match = container_name.empty() ? !taken : NameOf(c) == container_name;
    if (match && !taken) {
      taken = true;
      json::object spark = spark_containers.empty() || !spark_containers[0].is_object()
                               ? json::object()
                               : spark_containers[0].as_object();
      containers.push_back(MergeContainer(c.as_object(), std::move(spark)));
    } else {
      sidecars.push_back(c);
    }
  }
  if (!taken) {
    if (spark_containers.empty()) return;
    containers.push_back(spark_containers[0]);
  }
  for (size_t i = 1; i < spark_containers.size(); ++i) containers.push_back(spark_containers[i]);
  for (json::value& c : sidecars) containers.push_back(std::move(c));
  spec["containers"] = std::move(containers);
}

void AddTemplateNodeSelector(const json::object* tmpl, SparkPodConf* conf) {
  const json::object* selector = ObjectAt(ObjectAt(tmpl, "spec"), "nodeSelector");
  if (selector == nullptr) return;
  for (const auto& kv : *selector) {
    if (kv.value().is_string() && !conf->node_selector.contains(kv.key())) {
      conf->node_selector[kv.key()] = kv.value();
    }
  }
}

}  // namespace kubesim::sim
