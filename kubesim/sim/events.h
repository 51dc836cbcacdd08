#pragma once

// core/v1 Events as a cluster records them for the simulated objects: one shape for every
// recorder (the operators, the scheduler, the kubelet), and the scheduler's and kubelet's events
// for a pod, which both simulated operators' pods share.
//
// An event's name is `<involved>.<16 hex>`, the hex drawn from what makes it one occurrence (the
// `key`), so a reconcile repeated after a conflict publishes the same name again and the API
// answers 409. A recurrence of the same event (the recorder's aggregation) keeps the name and
// carries a higher `count`: whoever writes it keeps the higher count with its lastTimestamp.

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace kubesim::sim {

inline constexpr const char* kScheduler = "default-scheduler";
inline constexpr const char* kKubelet = "kubelet";

struct Involved {
  std::string api_version;
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;               // empty for a pod created in the same pass: the loop fills it
  std::string resource_version;  // optional
  std::string field_path;        // a container's events: spec.containers{<name>}
};

struct EventSource {
  std::string component;
  std::string host;  // the node, for the kubelet
};

struct EventSpec {
  std::string reason;
  std::string message;
  const char* type = "Normal";
  EventSource source;
  std::string key;  // what makes this one occurrence
  int64_t first_ms = 0;
  int64_t last_ms = 0;  // 0: first_ms
  int64_t count = 1;
};

boost::json::object MakeEvent(const Involved& involved, const EventSpec& spec);

// An event of the pod's kubelet (source: its node), one occurrence per `key` of that pod.
EventSpec KubeletSpec(const boost::json::object& pod, std::string reason, std::string message,
                      const std::string& key, int64_t at_ms);

// A pod as an event's involved object; with a container, that container's field path.
Involved PodInvolved(const boost::json::object& pod, const std::string& container = "");

// The scheduler's verdict on a pod just created: Scheduled to its spec.nodeName, else
// FailedScheduling with its PodScheduled condition's message.
void AppendScheduleEvents(const boost::json::object& pod, int64_t at_ms,
                          std::vector<boost::json::object>* out);
// The same verdict re-reported: a FailedScheduling retried `count` times from `first_ms` to
// `last_ms` is one event, as the recorder aggregates it (a bound pod: its Scheduled event).
void AppendFailedSchedulingEvent(const boost::json::object& pod, int64_t first_ms, int64_t last_ms,
                                 int64_t count, std::vector<boost::json::object>* out);

// The kubelet starting every container of a bound pod: Pulling and Pulled (or Pulled as already
// present, when `images_present`), Created, Started. Pulling begins at `pull_from_ms` and the
// containers are running at `started_ms`.
void AppendStartEvents(const boost::json::object& pod, int64_t pull_from_ms, int64_t started_ms,
                       bool images_present, std::vector<boost::json::object>* out);

// The kubelet pulling one container's image from `from_ms` to `to_ms` (Pulling, Pulled), or
// finding it present (Pulled, already present on machine).
void AppendPullEvents(const boost::json::object& pod, const std::string& container,
                      const std::string& image, int64_t from_ms, int64_t to_ms, bool present,
                      std::vector<boost::json::object>* out);

// The kubelet stopping the containers that run in the pod's status (a deletion, an eviction).
void AppendKillingEvents(const boost::json::object& pod, int64_t at_ms,
                         std::vector<boost::json::object>* out);

// The kubelet's eviction manager evicting the pod, with its status message.
void AppendEvictedEvent(const boost::json::object& pod, const std::string& message, int64_t at_ms,
                        std::vector<boost::json::object>* out);

// Go's time.Duration text at millisecond precision ("812ms", "1.5s").
std::string GoDuration(int64_t ms);

}  // namespace kubesim::sim
