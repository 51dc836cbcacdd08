#include "kubesim/sim/spark_ui.h"

#include "kubesim/sim/json_access.h"

namespace kubesim::sim {
namespace json = boost::json;
namespace {

// What Spark's UI knows of its application, read from the driver pod Spark made.
struct AppFacts {
  std::string id;    // spark.app.id: the pod's spark-app-selector label
  std::string name;  // spark.app.name: the owning SparkApplication's name
  std::string start_time;
};

AppFacts FactsOf(const json::object& pod) {
  AppFacts facts;
  const json::object* meta = ObjectAt(pod, "metadata");
  if (const json::object* labels = ObjectAt(meta, "labels")) {
    facts.id = StringAt(*labels, "spark-app-selector");
    facts.name = StringAt(*labels, "spark-app-name");
  }
  if (const json::value* owners = meta ? meta->if_contains("ownerReferences") : nullptr;
      owners != nullptr && owners->is_array()) {
    for (const json::value& owner : owners->get_array()) {
      if (owner.is_object() && StringAt(owner.get_object(), "kind") == "SparkApplication") {
        facts.name = StringAt(owner.get_object(), "name");
        break;
      }
    }
  }
  if (facts.name.empty() && meta != nullptr) facts.name = StringAt(*meta, "name");
  // Spark's REST API writes times as 2026-12-06T10:00:00.000GMT.
  std::string started;
  if (const json::object* status = ObjectAt(pod, "status"))
    started = StringAt(*status, "startTime");
  if (started.size() == 20 && started.back() == 'Z') {
    facts.start_time = started.substr(0, 19) + ".000GMT";
  }
  return facts;
}

std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

json::object Application(const AppFacts& facts) {
  json::object attempt{{"startTime", facts.start_time},
                       {"endTime", "1969-12-31T23:59:59.999GMT"},
                       {"lastUpdated", facts.start_time},
                       {"duration", 0},
                       {"sparkUser", "spark"},
                       {"completed", false},
                       {"appSparkVersion", "3.5.3"}};
  return json::object{
      {"id", facts.id}, {"name", facts.name}, {"attempts", json::array{std::move(attempt)}}};
}

UiAnswer Json(const json::value& value) {
  return UiAnswer{200, "application/json", "", json::serialize(value)};
}

UiAnswer NotFound(std::string_view what) {
  // Spark's Jetty answers an unknown page with a plain 404; its REST API says what is missing.
  return UiAnswer{404, "text/plain;charset=utf-8", "", std::string(what)};
}

}  // namespace

std::optional<int> RunningUiPort(const json::object& pod) {
  const json::object* spec = ObjectAt(pod, "spec");
  const json::object* status = ObjectAt(pod, "status");
  if (spec == nullptr || status == nullptr || StringAt(*status, "podIP").empty()) {
    return std::nullopt;
  }
  const json::value* containers = spec->if_contains("containers");
  const json::value* statuses = status->if_contains("containerStatuses");
  if (containers == nullptr || !containers->is_array() || statuses == nullptr ||
      !statuses->is_array()) {
    return std::nullopt;
  }
  for (const json::value& c : containers->get_array()) {
    if (!c.is_object()) continue;
    const json::value* ports = c.get_object().if_contains("ports");
    if (ports == nullptr || !ports->is_array()) continue;
    for (const json::value& p : ports->get_array()) {
      if (!p.is_object() || StringAt(p.get_object(), "name") != "spark-ui") continue;
      const json::value* number = p.get_object().if_contains("containerPort");
      if (number == nullptr || !number->is_int64()) continue;
      const std::string name = StringAt(c.get_object(), "name");
      for (const json::value& s : statuses->get_array()) {
        if (s.is_object() && StringAt(s.get_object(), "name") == name &&
            ObjectAt(ObjectAt(s.get_object(), "state"), "running") != nullptr) {
          return static_cast<int>(number->get_int64());
        }
      }
    }
  }
  return std::nullopt;
}

UiAnswer SparkUiGet(const json::object& pod, std::string_view path) {
  const AppFacts facts = FactsOf(pod);
  if (path.empty() || path == "/") return UiAnswer{302, "text/html;charset=utf-8", "/jobs/", ""};
  if (path == "/jobs") return UiAnswer{302, "text/html;charset=utf-8", "/jobs/", ""};
  if (path == "/jobs/") {
    const std::string name = Escape(facts.name);
    const std::string id = Escape(facts.id);
    return UiAnswer{
        200, "text/html;charset=utf-8", "",
        "<!DOCTYPE html><html><head><title>" + name + " - Spark Jobs</title></head><body>" +
            "<h3>Spark Jobs</h3><ul><li><strong>Application:</strong> " + name +
            "</li><li><strong>Application ID:</strong> " + id +
            "</li><li><strong>User:</strong> spark</li></ul>" +
            "<a href=\"/jobs/\">Jobs</a> <a href=\"/api/v1/applications\">REST API</a>" +
            "</body></html>"};
  }
  constexpr std::string_view kApps = "/api/v1/applications";
  if (path == kApps || path == "/api/v1/applications/") {
    return Json(json::array{Application(facts)});
  }
  if (path.starts_with(kApps) && path[kApps.size()] == '/') {
    std::string_view rest = path.substr(kApps.size() + 1);
    if (rest.ends_with('/')) rest.remove_suffix(1);
    if (rest == facts.id) return Json(Application(facts));
    return NotFound("unknown app: " + std::string(rest));
  }
  return NotFound("Not Found");
}

}  // namespace kubesim::sim
