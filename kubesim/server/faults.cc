#include "kubesim/server/faults.h"

#include <set>

namespace kubesim {
namespace {

bool GetInt(const boost::json::object& spec, const char* key, int64_t* out, std::string* error) {
  const boost::json::value* v = spec.if_contains(key);
  if (v == nullptr || v->is_null()) return true;
  if (v->is_int64()) {
    *out = v->as_int64();
  } else if (v->is_uint64()) {
    *out = static_cast<int64_t>(v->as_uint64());
  } else {
    *error = std::string(key) + " must be an integer";
    return false;
  }
  if (*out < 0) {
    *error = std::string(key) + " must not be negative";
    return false;
  }
  return true;
}

bool GetBool(const boost::json::object& spec, const char* key, bool* out, std::string* error) {
  const boost::json::value* v = spec.if_contains(key);
  if (v == nullptr || v->is_null()) return true;
  if (!v->is_bool()) {
    *error = std::string(key) + " must be a boolean";
    return false;
  }
  *out = v->as_bool();
  return true;
}

bool GetString(const boost::json::object& spec, const char* key, std::string* out,
               std::string* error) {
  const boost::json::value* v = spec.if_contains(key);
  if (v == nullptr || v->is_null()) return true;
  if (!v->is_string()) {
    *error = std::string(key) + " must be a string";
    return false;
  }
  *out = std::string(v->as_string());
  return true;
}

}  // namespace

boost::json::object Fault::ToJson() const {
  boost::json::object o;
  o["id"] = id;
  o["verb"] = verb;
  o["resource"] = resource;
  if (!ns.empty()) o["namespace"] = ns;
  if (latency_ms > 0) o["latencyMs"] = latency_ms;
  if (status > 0) o["status"] = status;
  if (retry_after_seconds > 0) o["retryAfterSeconds"] = retry_after_seconds;
  if (reset_mid_body) o["resetMidBody"] = true;
  if (drop_watch_after_events > 0) o["dropWatchAfterEvents"] = drop_watch_after_events;
  if (force_gone) o["forceGone"] = true;
  if (revoke_token) o["revokeToken"] = true;
  o["count"] = count;
  o["applied"] = applied;
  return o;
}

bool FaultTable::Add(const boost::json::object& spec, Fault* added, std::string* error) {
  static const std::set<std::string> kKnown = {
      "verb",      "resource",          "namespace",    "latencyMs",
      "status",    "retryAfterSeconds", "resetMidBody", "dropWatchAfterEvents",
      "forceGone", "revokeToken",       "count"};
  for (const auto& kv : spec) {
    if (kKnown.count(std::string(kv.key())) == 0) {
      *error = "unknown field \"" + std::string(kv.key()) + "\"";
      return false;
    }
  }
  Fault f;
  int64_t status = 0;
  if (!GetString(spec, "verb", &f.verb, error) ||
      !GetString(spec, "resource", &f.resource, error) ||
      !GetString(spec, "namespace", &f.ns, error) ||
      !GetInt(spec, "latencyMs", &f.latency_ms, error) || !GetInt(spec, "status", &status, error) ||
      !GetInt(spec, "retryAfterSeconds", &f.retry_after_seconds, error) ||
      !GetBool(spec, "resetMidBody", &f.reset_mid_body, error) ||
      !GetInt(spec, "dropWatchAfterEvents", &f.drop_watch_after_events, error) ||
      !GetBool(spec, "forceGone", &f.force_gone, error) ||
      !GetBool(spec, "revokeToken", &f.revoke_token, error) ||
      !GetInt(spec, "count", &f.count, error)) {
    return false;
  }
  static const std::set<std::string> kVerbs = {"get",    "list",  "watch",  "create",
                                               "update", "patch", "delete", "deletecollection",
                                               "log",    "*"};
  if (kVerbs.count(f.verb) == 0) {
    *error = "verb must be one of get, list, watch, create, update, patch, delete, log, *";
    return false;
  }
  if (f.resource.empty()) f.resource = "*";
  if (status != 0 && status != 429 && status != 500 && status != 503) {
    *error = "status must be 429, 500 or 503";
    return false;
  }
  f.status = static_cast<int>(status);
  if (f.latency_ms == 0 && f.status == 0 && !f.reset_mid_body && f.drop_watch_after_events == 0 &&
      !f.force_gone && !f.revoke_token) {
    *error = "a fault needs at least one effect";
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  f.id = "f" + std::to_string(next_id_++);
  faults_.push_back(f);
  *added = f;
  return true;
}

std::optional<Fault> FaultTable::Match(const std::string& verb, const std::string& resource,
                                       const std::string& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    bool verb_ok =
        it->verb == "*" || it->verb == verb || (it->verb == "delete" && verb == "deletecollection");
    bool resource_ok = it->resource == "*" || it->resource == resource;
    bool ns_ok = it->ns.empty() || it->ns == ns;
    if (!verb_ok || !resource_ok || !ns_ok) continue;
    ++it->applied;
    Fault matched = *it;
    if (it->count > 0 && it->applied >= it->count) faults_.erase(it);
    return matched;
  }
  return std::nullopt;
}

boost::json::array FaultTable::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  boost::json::array out;
  for (const auto& f : faults_) out.push_back(f.ToJson());
  return out;
}

bool FaultTable::Remove(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (it->id == id) {
      faults_.erase(it);
      return true;
    }
  }
  return false;
}

void FaultTable::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.clear();
}

void Stats::Record(const std::string& verb, const std::string& resource, int code) {
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_[{verb, resource, code}];
}

void Stats::RecordForbidden(const std::string& user, const std::string& verb,
                            const std::string& api_group, const std::string& resource) {
  std::lock_guard<std::mutex> lock(mu_);
  ++forbidden_[{user, verb, api_group, resource}];
}

boost::json::object Stats::ToJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  boost::json::object by_verb;
  boost::json::object by_resource;
  boost::json::object by_code;
  boost::json::array requests;
  int64_t total = 0;
  auto add = [](boost::json::object& o, const std::string& key, int64_t n) {
    auto it = o.find(key);
    if (it == o.end()) {
      o[key] = n;
    } else {
      it->value() = it->value().as_int64() + n;
    }
  };
  for (const auto& [key, n] : counts_) {
    const auto& [verb, resource, code] = key;
    total += n;
    add(by_verb, verb, n);
    add(by_resource, resource, n);
    add(by_code, std::to_string(code), n);
    requests.push_back(
        boost::json::object{{"verb", verb}, {"resource", resource}, {"code", code}, {"count", n}});
  }
  boost::json::array forbidden;
  for (const auto& [key, n] : forbidden_) {
    const auto& [user, verb, api_group, resource] = key;
    forbidden.push_back(boost::json::object{{"user", user},
                                            {"verb", verb},
                                            {"apiGroup", api_group},
                                            {"resource", resource},
                                            {"count", n}});
  }
  return boost::json::object{{"total", total},
                             {"byVerb", std::move(by_verb)},
                             {"byResource", std::move(by_resource)},
                             {"byCode", std::move(by_code)},
                             {"requests", std::move(requests)},
                             {"forbidden", std::move(forbidden)}};
}

void Stats::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  counts_.clear();
  forbidden_.clear();
}

}  // namespace kubesim
