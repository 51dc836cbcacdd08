#pragma once

// Injected faults and request statistics (POST /kubesim/faults, GET /kubesim/stats).

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kubesim {

struct Fault {
  std::string id;
  std::string verb = "*";      // get|list|watch|create|update|patch|delete|log|* ("delete"
                               // also matches deletecollection)
  std::string resource = "*";  // plural, or *
  std::string ns;              // empty: any namespace
  int64_t latency_ms = 0;
  int status = 0;  // 429, 500 or 503; 0: none
  int64_t retry_after_seconds = 0;
  bool reset_mid_body = false;
  int64_t drop_watch_after_events = 0;  // 0: never
  bool force_gone = false;
  bool revoke_token = false;
  int64_t count = 0;  // requests left to apply to; 0: until cleared
  int64_t applied = 0;

  boost::json::object ToJson() const;
};

class FaultTable {
 public:
  // Parses a fault spec; returns false with a message on an invalid one.
  bool Add(const boost::json::object& spec, Fault* added, std::string* error);
  // The first fault matching the request, with its count consumed (and removed when spent).
  std::optional<Fault> Match(const std::string& verb, const std::string& resource,
                             const std::string& ns);
  boost::json::array List() const;
  bool Remove(const std::string& id);
  void Clear();

 private:
  mutable std::mutex mu_;
  std::vector<Fault> faults_;
  int64_t next_id_ = 1;
};

class Stats {
 public:
  void Record(const std::string& verb, const std::string& resource, int code);
  // A request RBAC denied (also Record()ed with 403), by who asked and for what right.
  void RecordForbidden(const std::string& user, const std::string& verb,
                       const std::string& api_group, const std::string& resource);
  // {total, byVerb, byResource, byCode, requests: [{verb, resource, code, count}],
  //  forbidden: [{user, verb, apiGroup, resource, count}]}
  boost::json::object ToJson() const;
  void Reset();

 private:
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, int>, int64_t> counts_;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int64_t> forbidden_;
};

}  // namespace kubesim
