#include "kubesim/sim/termination_message.h"

#include <cstdint>
#include <utility>

namespace kubesim::sim {

namespace json = boost::json;

namespace {

constexpr std::string_view kFallbackToLogs = "FallbackToLogsOnError";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

const json::array* Array(const json::object& parent, std::string_view key) {
  const json::value* v = parent.if_contains(key);
  return v != nullptr && v->is_array() ? &v->as_array() : nullptr;
}

std::string_view Text(const json::object& parent, std::string_view key) {
  const json::value* v = parent.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

// The terminated state of a container status, when it has no message yet; nullptr otherwise.
const json::object* Unexplained(const json::value& container_status) {
  if (!container_status.is_object()) return nullptr;
  const json::value* state = container_status.as_object().if_contains("state");
  if (state == nullptr || !state->is_object()) return nullptr;
  const json::value* terminated = state->as_object().if_contains("terminated");
  if (terminated == nullptr || !terminated->is_object()) return nullptr;
  if (terminated->as_object().contains("message")) return nullptr;
  return &terminated->as_object();
}

const json::object* ContainerNamed(const json::array* containers, std::string_view name) {
  if (containers == nullptr) return nullptr;
  for (const json::value& c : *containers) {
    if (c.is_object() && Text(c.as_object(), "name") == name) return &c.as_object();
  }
  return nullptr;
}

int64_t ExitCode(const json::object& terminated) {
  const json::value* code = terminated.if_contains("exitCode");
  if (code == nullptr) return 0;
  if (code->is_int64()) return code->as_int64();
  return code->is_uint64() ? static_cast<int64_t>(code->as_uint64()) : 0;
}

}  // namespace

std::string TerminationLogTail(std::string_view log) {
  // The newline that ends the log ends its last line; a last line without one counts too.
  size_t end = log.size();
  if (end > 0 && log[end - 1] == '\n') --end;
  size_t start = 0;
  size_t lines = 0;
  for (size_t pos = end;;) {
    const size_t nl = pos == 0 ? std::string_view::npos : log.rfind('\n', pos - 1);
    ++lines;  // the line after `nl`, up to `pos`
    if (nl == std::string_view::npos) break;
    if (lines == kTerminationLogLines) {
      start = nl + 1;
      break;
    }
    pos = nl;
  }
  std::string_view tail = log.substr(start);
  if (tail.size() > kTerminationLogBytes) tail = tail.substr(tail.size() - kTerminationLogBytes);
  std::string out;
  size_t i = 0;
  while (i < tail.size() && (static_cast<unsigned char>(tail[i]) & 0xC0) == 0x80) {
    out += kReplacement;
    ++i;
  }
  out.append(tail.substr(i));
  return out;
}

bool NeedsTerminationMessage(const json::object& status) {
  for (std::string_view key : {"containerStatuses", "initContainerStatuses"}) {
    const json::array* statuses = Array(status, key);
    if (statuses == nullptr) continue;
    for (const json::value& s : *statuses) {
      const json::object* terminated = Unexplained(s);
      if (terminated != nullptr && ExitCode(*terminated) != 0) return true;
    }
  }
  return false;
}

void FillTerminationMessages(const json::object& pod_spec,
                             const std::function<std::string(std::string_view)>& read_log,
                             json::object* status) {
  for (auto [statuses_key, containers_key] :
       {std::pair{"containerStatuses", "containers"},
        std::pair{"initContainerStatuses", "initContainers"}}) {
    json::value* statuses = status->if_contains(statuses_key);
    if (statuses == nullptr || !statuses->is_array()) continue;
    for (json::value& s : statuses->as_array()) {
      const json::object* found = Unexplained(s);
      if (found == nullptr || ExitCode(*found) == 0) continue;
      const std::string_view name = Text(s.as_object(), "name");
      const json::object* container = ContainerNamed(Array(pod_spec, containers_key), name);
      // The API server defaults the policy to File: a message only from the file, never written.
      if (container == nullptr || Text(*container, "terminationMessagePolicy") != kFallbackToLogs) {
        continue;
      }
      std::string message = TerminationLogTail(read_log(name));
      if (message.empty()) continue;
      s.as_object()["state"].as_object()["terminated"].as_object()["message"] = std::move(message);
    }
  }
}

}  // namespace kubesim::sim
