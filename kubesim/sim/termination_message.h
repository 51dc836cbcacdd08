#pragma once

// The kubelet's termination message: what it puts in a terminated container's
// state.terminated.message. The simulated containers write no termination-message file, so with
// the default policy (File) there is no message; with FallbackToLogsOnError and a non-zero exit
// code the kubelet falls back to the container's log: its last 80 lines, of which it keeps the
// last 2048 bytes. Both simulated operators' pods get it when the control loop writes their status.

#include <boost/json.hpp>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kubesim::sim {

inline constexpr size_t kTerminationLogLines = 80;
inline constexpr size_t kTerminationLogBytes = 2048;

// The message a log gives: its last kTerminationLogLines lines, then the last
// kTerminationLogBytes bytes of those. A multi-byte character cut at the front becomes U+FFFD
// for each byte left of it, as the API server's JSON encoding writes invalid UTF-8.
std::string TerminationLogTail(std::string_view log);

// Whether `status` (a pod's .status) has a container that terminated with a non-zero exit code
// and no message: only then is FillTerminationMessages worth a look at the pod's spec and logs.
bool NeedsTerminationMessage(const boost::json::object& status);

// Sets state.terminated.message of each terminated container (and init container) of `status`
// that has none, whose container in `pod_spec` has terminationMessagePolicy
// FallbackToLogsOnError, and whose exit code isn't 0, from `read_log(container name)`; an empty
// log gives no message.
void FillTerminationMessages(const boost::json::object& pod_spec,
                             const std::function<std::string(std::string_view)>& read_log,
                             boost::json::object* status);

}  // namespace kubesim::sim
