#include "kubesim/sim/spark_pod_conf.h"

#include <cctype>

namespace kubesim::sim {

std::string_view TrimConfValue(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<bool> SparkConfBool(const boost::json::object& spark_conf, std::string_view key) {
  const boost::json::value* v = spark_conf.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  std::string text(TrimConfValue(v->get_string()));
  if (text.empty()) return std::nullopt;
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text != "false";
}

namespace json = boost::json;

SparkPodConf ReadSparkPodConf(const json::object& spark_conf, std::string_view role) {
  SparkPodConf out;
  const std::string all_selector = "spark.kubernetes.node.selector.";
  const std::string prefix = "spark.kubernetes." + std::string(role) + ".";
  const std::string selector = prefix + "node.selector.";
  const std::string key_ref = prefix + "secretKeyRef.";
  const std::string secrets = prefix + "secrets.";
  json::object role_selector;
  for (const auto& kv : spark_conf) {
    if (!kv.value().is_string()) continue;
    const std::string_view key = kv.key();
    const std::string value(kv.value().get_string());
    if (key.starts_with(all_selector) && key.size() > all_selector.size()) {
      out.node_selector[key.substr(all_selector.size())] = value;
    } else if (key.starts_with(selector) && key.size() > selector.size()) {
      role_selector[key.substr(selector.size())] = value;
    } else if (key.starts_with(key_ref) && key.size() > key_ref.size()) {
      const size_t colon = value.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == value.size()) continue;
      out.secret_env.push_back({std::string(key.substr(key_ref.size())), value.substr(0, colon),
                                value.substr(colon + 1)});
    } else if (key.starts_with(secrets) && key.size() > secrets.size() && !value.empty()) {
      out.secret_volumes.push_back({std::string(key.substr(secrets.size())), value});
    }
  }
  for (const auto& kv : role_selector) out.node_selector[kv.key()] = kv.value();
  return out;
}

namespace {

json::array& ArrayAt(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_array()) v = json::array();
  return v.as_array();
}

}  // namespace

void ApplySparkPodConf(const SparkPodConf& conf, json::object* pod_spec, json::object* container) {
  if (!conf.node_selector.empty()) {
    json::value& sel = (*pod_spec)["nodeSelector"];
    if (!sel.is_object()) sel = json::object();
    for (const auto& kv : conf.node_selector) sel.as_object()[kv.key()] = kv.value();
  }
  for (const SparkPodConf::SecretEnv& e : conf.secret_env) {
    ArrayAt(*container, "env")
        .push_back(json::object{
            {"name", e.env},
            {"valueFrom",
             json::object{{"secretKeyRef", json::object{{"name", e.secret}, {"key", e.key}}}}}});
  }
  for (const SparkPodConf::SecretVolume& s : conf.secret_volumes) {
    const std::string volume = s.secret + "-volume";
    ArrayAt(*pod_spec, "volumes")
        .push_back(
            json::object{{"name", volume},
                         {"secret", json::object{{"secretName", s.secret}, {"defaultMode", 420}}}});
    ArrayAt(*container, "volumeMounts")
        .push_back(json::object{{"name", volume}, {"mountPath", s.path}});
  }
}

}  // namespace kubesim::sim
