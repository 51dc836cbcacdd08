#include "kubesim/server/table.h"

#include <cstdio>
#include <ctime>

namespace kubesim {
namespace {

const boost::json::object* ObjectAt(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

std::string StringAt(const boost::json::object* o, std::string_view key) {
  if (o == nullptr) return "";
  const boost::json::value* v = o->if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

std::string AgeOf(const boost::json::object& obj, int64_t now_ms) {
  std::string ts = StringAt(ObjectAt(obj, "metadata"), "creationTimestamp");
  int64_t created = 0;
  if (ts.empty() || !ParseRfc3339(ts, &created)) return "<unknown>";
  return HumanDuration(now_ms - created);
}

// The pod's READY, STATUS and RESTARTS the way kubectl's pod printer derives them (simplified:
// no init containers, no readiness gates).
void PodCells(const boost::json::object& pod, boost::json::array* cells) {
  const boost::json::object* spec = ObjectAt(pod, "spec");
  const boost::json::object* status = ObjectAt(pod, "status");
  int64_t total = 0;
  if (spec != nullptr) {
    if (const auto* c = spec->if_contains("containers"); c != nullptr && c->is_array()) {
      total = static_cast<int64_t>(c->as_array().size());
    }
  }
  int64_t ready = 0;
  int64_t restarts = 0;
  std::string reason = StringAt(status, "phase");
  if (reason.empty()) reason = "Pending";
  if (std::string r = StringAt(status, "reason"); !r.empty()) reason = r;
  if (status != nullptr) {
    if (const auto* cs = status->if_contains("containerStatuses");
        cs != nullptr && cs->is_array()) {
      for (const auto& c : cs->as_array()) {
        if (!c.is_object()) continue;
        const auto& co = c.as_object();
        if (const auto* r = co.if_contains("ready"); r != nullptr && r->is_bool() && r->as_bool()) {
          ++ready;
        }
        if (const auto* rc = co.if_contains("restartCount"); rc != nullptr && rc->is_int64()) {
          restarts += rc->as_int64();
        }
        const boost::json::object* state = ObjectAt(co, "state");
        if (state == nullptr) continue;
        if (std::string w = StringAt(ObjectAt(*state, "waiting"), "reason"); !w.empty()) {
          reason = w;
        } else if (const auto* t = ObjectAt(*state, "terminated"); t != nullptr) {
          std::string tr = StringAt(t, "reason");
          reason = tr.empty() ? "Error" : tr;
        }
      }
    }
  }
  const boost::json::object* meta = ObjectAt(pod, "metadata");
  if (meta != nullptr && meta->contains("deletionTimestamp")) reason = "Terminating";
  cells->push_back(boost::json::value(std::to_string(ready) + "/" + std::to_string(total)));
  cells->push_back(boost::json::value(reason));
  cells->push_back(restarts);
}

}  // namespace

std::vector<PrinterColumn> TableColumns(std::string_view group, std::string_view plural,
                                        const boost::json::array* crd_columns) {
  std::vector<PrinterColumn> cols;
  cols.push_back({"Name", "string", "name",
                  "Name must be unique within a namespace. More info: "
                  "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
                  "", 0});
  if (crd_columns != nullptr && !crd_columns->empty()) {
    for (const auto& c : *crd_columns) {
      if (!c.is_object()) continue;
      const auto& o = c.as_object();
      PrinterColumn col;
      col.name = StringAt(&o, "name");
      col.type = StringAt(&o, "type");
      col.format = StringAt(&o, "format");
      col.description = StringAt(&o, "description");
      col.json_path = StringAt(&o, "jsonPath");
      if (const auto* p = o.if_contains("priority"); p != nullptr && p->is_int64()) {
        col.priority = static_cast<int>(p->as_int64());
      }
      cols.push_back(std::move(col));
    }
    return cols;
  }
  if (group.empty() && plural == "pods") {
    cols.push_back({"Ready", "string", "", "The aggregate readiness state of this pod", "", 0});
    cols.push_back({"Status", "string", "", "The aggregate status of the containers", "", 0});
    cols.push_back(
        {"Restarts", "string", "", "The number of times the containers restarted", "", 0});
  } else if (group.empty() && plural == "namespaces") {
    cols.push_back({"Status", "string", "", "The status of the namespace", ".status.phase", 0});
  }
  cols.push_back({"Age", "date", "", "CreationTimestamp", ".metadata.creationTimestamp", 0});
  return cols;
}

boost::json::object RenderTable(std::string_view group, std::string_view plural,
                                const std::vector<PrinterColumn>& columns,
                                const std::vector<const boost::json::object*>& items,
                                std::string_view include_object,
                                const boost::json::object& list_metadata, int64_t now_ms) {
  boost::json::array defs;
  for (const auto& c : columns) {
    defs.push_back(boost::json::object{{"name", c.name},
                                       {"type", c.type == "date" ? "string" : c.type},
                                       {"format", c.format},
                                       {"description", c.description},
                                       {"priority", c.priority}});
  }
  bool pod = group.empty() && plural == "pods";
  boost::json::array rows;
  for (const boost::json::object* item : items) {
    boost::json::array cells;
    const boost::json::object* meta = ObjectAt(*item, "metadata");
    cells.push_back(boost::json::value(StringAt(meta, "name")));
    if (pod) PodCells(*item, &cells);
    for (size_t i = pod ? 4 : 1; i < columns.size(); ++i) {
      const PrinterColumn& c = columns[i];
      if (c.json_path.empty()) {
        cells.push_back(nullptr);
        continue;
      }
      boost::json::value v = EvalJsonPath(boost::json::value(*item), c.json_path);
      if (c.type == "date") {
        int64_t t = 0;
        if (v.is_string() && ParseRfc3339(v.as_string(), &t)) {
          cells.push_back(boost::json::value(HumanDuration(now_ms - t)));
        } else if (c.json_path == ".metadata.creationTimestamp") {
          cells.push_back(boost::json::value(AgeOf(*item, now_ms)));
        } else {
          cells.push_back(nullptr);
        }
      } else {
        cells.push_back(std::move(v));
      }
    }
    boost::json::object row{{"cells", std::move(cells)}};
    if (include_object == "Object") {
      row["object"] = *item;
    } else if (include_object != "None") {
      boost::json::object partial{{"kind", "PartialObjectMetadata"},
                                  {"apiVersion", "meta.k8s.io/v1"}};
      if (meta != nullptr) partial["metadata"] = *meta;
      row["object"] = std::move(partial);
    }
    rows.push_back(std::move(row));
  }
  return boost::json::object{{"kind", "Table"},
                             {"apiVersion", "meta.k8s.io/v1"},
                             {"metadata", list_metadata},
                             {"columnDefinitions", std::move(defs)},
                             {"rows", std::move(rows)}};
}

std::string HumanDuration(int64_t ms) {
  int64_t s = ms / 1000;
  if (ms < -1000) return "<invalid>";
  if (s < 0) return "0s";
  auto str = [](int64_t n, const char* unit) { return std::to_string(n) + unit; };
  if (s < 120) return str(s, "s");
  int64_t m = s / 60;
  if (m < 10) return s % 60 == 0 ? str(m, "m") : str(m, "m") + str(s % 60, "s");
  if (m < 180) return str(m, "m");
  int64_t h = s / 3600;
  if (h < 8) return m % 60 == 0 ? str(h, "h") : str(h, "h") + str(m % 60, "m");
  if (h < 48) return str(h, "h");
  int64_t d = h / 24;
  if (h < 192) return h % 24 == 0 ? str(d, "d") : str(d, "d") + str(h % 24, "h");
  if (d < 365 * 2) return str(d, "d");
  int64_t y = d / 365;
  if (y < 8) return d % 365 == 0 ? str(y, "y") : str(y, "y") + str(d % 365, "d");
  return str(y, "y");
}

boost::json::value EvalJsonPath(const boost::json::value& root, std::string_view path) {
  if (path.size() >= 2 && path.front() == '{' && path.back() == '}') {
    path = path.substr(1, path.size() - 2);
  }
  const boost::json::value* cur = &root;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t j = i + 1;
      while (j < path.size() && path[j] != '.' && path[j] != '[') ++j;
      std::string_view key = path.substr(i + 1, j - i - 1);
      if (key.empty()) {
        i = j;
        continue;
      }
      if (!cur->is_object()) return nullptr;
      cur = cur->as_object().if_contains(key);
      if (cur == nullptr) return nullptr;
      i = j;
    } else if (path[i] == '[') {
      size_t j = path.find(']', i);
      if (j == std::string_view::npos) return nullptr;
      std::string_view inner = path.substr(i + 1, j - i - 1);
      if (inner.size() >= 2 && (inner.front() == '\'' || inner.front() == '"')) {
        if (!cur->is_object()) return nullptr;
        cur = cur->as_object().if_contains(inner.substr(1, inner.size() - 2));
      } else {
        if (!cur->is_array() || inner.empty()) return nullptr;
        int64_t idx = 0;
        for (char c : inner) {
          if (c < '0' || c > '9') return nullptr;
          idx = idx * 10 + (c - '0');
        }
        const auto& arr = cur->as_array();
        cur = idx < static_cast<int64_t>(arr.size()) ? &arr[static_cast<size_t>(idx)] : nullptr;
      }
      if (cur == nullptr) return nullptr;
      i = j + 1;
    } else {
      return nullptr;
    }
  }
  return *cur;
}

bool ParseRfc3339(std::string_view text, int64_t* ms) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  std::string t(text);
  if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6) {
    return false;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  int64_t frac_ms = 0;
  size_t dot = t.find('.', 19);
  if (dot == 19) {
    int64_t scale = 100;
    for (size_t i = 20; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      frac_ms += (t[i] - '0') * scale;
      scale /= 10;
    }
  }
  *ms = static_cast<int64_t>(timegm(&tm)) * 1000 + frac_ms;
  return true;
}

bool AcceptsTable(std::string_view accept) {
  return accept.find("as=Table") != std::string_view::npos;
}

}  // namespace kubesim
