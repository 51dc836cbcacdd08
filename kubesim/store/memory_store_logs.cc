// Pod logs: per-container buffers trimmed by whole lines, reads with tail and byte limits, and
// followers that survive trimming.

#include <algorithm>
#include <iterator>
#include <limits>

#include "kubesim/store/core_types.h"
#include "kubesim/store/memory_store.h"

namespace kubesim::store_internal {

namespace json = boost::json;

namespace {

// RFC 3339 with the fraction Go's RFC3339Nano gives: up to nine digits, trailing zeros dropped.
std::string Rfc3339Nano(int64_t ms) {
  std::string text = Rfc3339Seconds(ms);  // ...SSZ
  int64_t frac = ((ms % 1000) + 1000) % 1000;
  if (frac == 0) return text;
  std::string digits = std::to_string(frac);
  digits.insert(0, 3 - digits.size(), '0');
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  text.insert(text.size() - 1, "." + digits);
  return text;
}

// The earliest time a line may have been written to be returned; INT64_MIN without a limit.
int64_t SinceMs(const LogOptions& options, int64_t now_ms) {
  if (options.since_time_ms) return *options.since_time_ms;
  if (options.since_seconds) return now_ms - *options.since_seconds * 1000;
  return std::numeric_limits<int64_t>::min();
}

// The bytes of `buffer` from absolute offset `from` to its end as a read returns them: lines
// written before `since_ms` left out, each line start stamped when asked. A line that starts
// before `from` (a follower's partial line) goes on without a second stamp.
std::string Render(const LogBuffer& buffer, uint64_t from, bool timestamps, int64_t since_ms) {
  std::string out;
  const uint64_t end = buffer.dropped + buffer.data.size();
  from = std::max(from, buffer.dropped);
  const auto& times = buffer.line_times;
  auto it = std::upper_bound(times.begin(), times.end(), from,
                             [](uint64_t at, const auto& line) { return at < line.first; });
  if (it != times.begin()) --it;
  uint64_t pos = from;
  while (pos < end && it != times.end()) {
    auto next_it = std::next(it);
    const uint64_t next = next_it != times.end() ? next_it->first : end;
    if (it->second >= since_ms && next > pos) {
      if (timestamps && pos == it->first) out += Rfc3339Nano(it->second) + " ";
      out.append(buffer.data, static_cast<size_t>(pos - buffer.dropped),
                 static_cast<size_t>(next - pos));
    }
    pos = std::max(pos, next);
    it = next_it;
  }
  return out;
}

class FollowerImpl : public LogFollower {
 public:
  FollowerImpl(std::shared_ptr<LogBuffer> buffer, uint64_t id, std::string initial, uint64_t offset,
               std::optional<int64_t> limit, bool timestamps, int64_t since_ms)
      : buffer_(std::move(buffer)),
        id_(id),
        pending_(std::move(initial)),
        offset_(offset),
        remaining_(limit),
        timestamps_(timestamps),
        since_ms_(since_ms) {}

  ~FollowerImpl() override { Stop(); }

  std::string Drain() override {
    std::string out;
    {
      std::lock_guard<std::mutex> lock(buffer_->mu);
      if (stopped_) return "";
      out.swap(pending_);
      uint64_t end = buffer_->dropped + buffer_->data.size();
      if (offset_ < buffer_->dropped) offset_ = buffer_->dropped;  // trimmed before we read it
      if (offset_ < end) {
        out += Render(*buffer_, offset_, timestamps_, since_ms_);
        offset_ = end;
      }
    }
    if (remaining_.has_value()) {
      if (static_cast<int64_t>(out.size()) > *remaining_) {
        out.resize(static_cast<size_t>(*remaining_));
      }
      *remaining_ -= static_cast<int64_t>(out.size());
    }
    return out;
  }

  bool Finished() const override {
    std::lock_guard<std::mutex> lock(buffer_->mu);
    if (stopped_) return true;
    if (remaining_.has_value() && *remaining_ <= 0) return true;
    return buffer_->finished && pending_.empty() &&
           offset_ >= buffer_->dropped + buffer_->data.size();
  }

  void Stop() override {
    std::lock_guard<std::mutex> lock(buffer_->mu);
    stopped_ = true;
    auto& f = buffer_->followers;
    f.erase(std::remove_if(f.begin(), f.end(), [&](const auto& p) { return p.first == id_; }),
            f.end());
  }

 private:
  std::shared_ptr<LogBuffer> buffer_;
  const uint64_t id_;
  std::string pending_;  // the initial (tail-applied) content, guarded by buffer_->mu
  uint64_t offset_;      // guarded by buffer_->mu
  std::optional<int64_t> remaining_;
  const bool timestamps_;
  const int64_t since_ms_;
  bool stopped_ = false;  // guarded by buffer_->mu
};

}  // namespace

void MemoryStore::AppendLog(std::string_view ns, std::string_view pod, std::string_view container,
                            std::string_view text) {
  Locked lock(this);
  std::string key = std::string(ns) + "/" + std::string(pod);
  if (pods_ == nullptr || pods_->objects.count(key) == 0) return;
  std::shared_ptr<LogBuffer> buffer = BufferFor(key, container);
  std::lock_guard<std::mutex> buffer_lock(buffer->mu);
  const int64_t now = now_ms_();
  const uint64_t start = buffer->dropped + buffer->data.size();
  if (buffer->line_times.empty() || buffer->data.empty() || buffer->data.back() == '\n') {
    if (!text.empty()) buffer->line_times.emplace_back(start, now);
  }
  for (size_t nl = text.find('\n'); nl != std::string_view::npos && nl + 1 < text.size();
       nl = text.find('\n', nl + 1)) {
    buffer->line_times.emplace_back(start + nl + 1, now);
  }
  buffer->data.append(text);
  if (buffer->data.size() > kLogLimitBytes) {
    size_t cut = buffer->data.size() - kLogLimitBytes;
    size_t nl = buffer->data.find('\n', cut);
    cut = nl == std::string::npos ? buffer->data.size() : nl + 1;
    buffer->data.erase(0, cut);
    buffer->dropped += cut;
    while (!buffer->line_times.empty() && buffer->line_times.front().first < buffer->dropped) {
      buffer->line_times.pop_front();
    }
  }
  for (auto& [id, fn] : buffer->followers) {
    if (fn) notifications_.push_back(fn);
  }
}

Result<std::string> MemoryStore::ReadLog(std::string_view ns, std::string_view pod,
                                         const LogOptions& options) const {
  std::shared_lock lock(mu_);
  auto target = ResolveLogTarget(ns, pod, options);
  if (!target.ok()) return target.error();
  std::string key = std::string(ns) + "/" + std::string(pod);
  auto pod_logs = logs_.find(key);
  if (pod_logs == logs_.end()) return std::string();
  auto c = pod_logs->second.find(target.value());
  if (c == pod_logs->second.end()) return std::string();
  std::lock_guard<std::mutex> buffer_lock(c->second->mu);
  return CutLog(*c->second, options, now_ms_());
}

Result<std::shared_ptr<LogFollower>> MemoryStore::FollowLog(std::string_view ns,
                                                            std::string_view pod,
                                                            const LogOptions& options,
                                                            std::function<void()> notify) {
  Locked lock(this);
  auto target = ResolveLogTarget(ns, pod, options);
  if (!target.ok()) return target.error();
  std::string key = std::string(ns) + "/" + std::string(pod);
  std::shared_ptr<LogBuffer> buffer = BufferFor(key, target.value());
  std::lock_guard<std::mutex> buffer_lock(buffer->mu);
  LogOptions initial_options = options;
  initial_options.limit_bytes.reset();  // the follower applies the byte limit to the total
  const int64_t now = now_ms_();
  std::string initial = CutLog(*buffer, initial_options, now);
  uint64_t id = ++next_follower_id_;
  buffer->finished = ContainerTerminated(pods_->objects.at(key)->Object(), target.value());
  buffer->followers.emplace_back(id, notify);
  if (notify) notifications_.push_back(notify);
  return std::shared_ptr<LogFollower>(std::make_shared<FollowerImpl>(
      buffer, id, std::move(initial), buffer->dropped + buffer->data.size(), options.limit_bytes,
      options.timestamps, SinceMs(options, now)));
}

std::shared_ptr<LogBuffer> MemoryStore::BufferFor(const std::string& pod_key,
                                                  std::string_view container) {
  auto& slot = logs_[pod_key][std::string(container)];
  if (slot == nullptr) slot = std::make_shared<LogBuffer>();
  return slot;
}

bool MemoryStore::ContainerTerminated(const json::object& pod, const std::string& container) {
  const json::object* status = GetObject(pod, "status");
  if (status == nullptr) return false;
  std::string phase = GetString(*status, "phase");
  if (phase == "Succeeded" || phase == "Failed") return true;
  for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
    auto it = status->find(list);
    if (it == status->end() || !it->value().is_array()) continue;
    for (const json::value& cs : it->value().get_array()) {
      if (!cs.is_object() || GetString(cs.get_object(), "name") != container) continue;
      const json::object* state = GetObject(cs.get_object(), "state");
      if (state != nullptr && state->contains("terminated")) return true;
    }
  }
  return false;
}

void MemoryStore::UpdateLogState(const std::string& pod_key, const json::object& pod) {
  auto it = logs_.find(pod_key);
  if (it == logs_.end()) return;
  for (auto& [container, buffer] : it->second) {
    std::lock_guard<std::mutex> lock(buffer->mu);
    bool finished = ContainerTerminated(pod, container);
    if (finished == buffer->finished) continue;
    buffer->finished = finished;
    for (auto& [id, fn] : buffer->followers) {
      if (fn) notifications_.push_back(fn);
    }
  }
}

void MemoryStore::DropLogs(const std::string& pod_key) {
  auto it = logs_.find(pod_key);
  if (it == logs_.end()) return;
  for (auto& [container, buffer] : it->second) {
    std::lock_guard<std::mutex> lock(buffer->mu);
    buffer->finished = true;
    for (auto& [id, fn] : buffer->followers) {
      if (fn) notifications_.push_back(fn);
    }
  }
  logs_.erase(it);
}

// Checks the pod, the container and the options; returns the container name.
Result<std::string> MemoryStore::ResolveLogTarget(std::string_view ns, std::string_view pod,
                                                  const LogOptions& options) const {
  ResourceType pod_type = PodType();
  std::string key = std::string(ns) + "/" + std::string(pod);
  if (pods_ == nullptr) return NotFound(pod_type, pod);
  auto it = pods_->objects.find(key);
  if (it == pods_->objects.end()) return NotFound(pod_type, pod);
  std::vector<FieldCause> causes;
  if (options.tail_lines && *options.tail_lines < 0) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + std::to_string(*options.tail_lines) +
                          ": must be greater than or equal to 0",
                      "tailLines"});
  }
  if (options.limit_bytes && *options.limit_bytes < 1) {
    causes.push_back(
        {"FieldValueInvalid",
         "Invalid value: " + std::to_string(*options.limit_bytes) + ": must be greater than 0",
         "limitBytes"});
  }
  if (options.since_seconds && *options.since_seconds < 1) {
    causes.push_back(
        {"FieldValueInvalid",
         "Invalid value: " + std::to_string(*options.since_seconds) + ": must be greater than 0",
         "sinceSeconds"});
  }
  if (options.since_seconds && options.since_time_ms) {
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
                      "sinceSeconds"});
  }
  if (!causes.empty()) {
    ResourceType opts_type = pod_type;
    opts_type.kind = "PodLogOptions";
    return Invalid(opts_type, pod, causes);
  }
  const json::object obj = it->second->Object();
  std::vector<std::string> containers;
  std::vector<std::string> init_containers;
  if (const json::object* spec = GetObject(obj, "spec")) {
    for (const auto& [list, out] :
         {std::pair{"containers", &containers}, std::pair{"initContainers", &init_containers}}) {
      auto l = spec->find(list);
      if (l == spec->end() || !l->value().is_array()) continue;
      for (const json::value& c : l->value().get_array()) {
        if (c.is_object()) out->push_back(GetString(c.get_object(), "name"));
      }
    }
  }
  std::string container = options.container;
  if (container.empty()) {
    if (containers.size() == 1) {
      container = containers[0];
    } else {
      auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
        return s;
      };
      std::string msg = "a container name must be specified for pod " + std::string(pod) +
                        ", choose one of: [" + join(containers) + "]";
      if (!init_containers.empty()) {
        msg += " or one of the init containers: [" + join(init_containers) + "]";
      }
      return BadRequest(msg);
    }
  } else if (std::find(containers.begin(), containers.end(), container) == containers.end() &&
             std::find(init_containers.begin(), init_containers.end(), container) ==
                 init_containers.end()) {
    return BadRequest("container " + container + " is not valid for pod " + std::string(pod));
  }
  if (options.previous) {
    return BadRequest("previous terminated container \"" + container + "\" in pod \"" +
                      std::string(pod) + "\" not found");
  }
  // A container that has not started has no log yet: the kubelet answers 400.
  const json::object* status = GetObject(obj, "status");
  std::string phase = status ? GetString(*status, "phase") : "";
  bool found = false;
  if (status != nullptr) {
    for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
      auto l = status->find(list);
      if (l == status->end() || !l->value().is_array()) continue;
      for (const json::value& cs : l->value().get_array()) {
        if (!cs.is_object() || GetString(cs.get_object(), "name") != container) continue;
        found = true;
        const json::object* state = GetObject(cs.get_object(), "state");
        const json::object* waiting = state ? GetObject(*state, "waiting") : nullptr;
        if (waiting != nullptr) {
          std::string reason = GetString(*waiting, "reason");
          return BadRequest(
              "container \"" + container + "\" in pod \"" + std::string(pod) +
              "\" is waiting to start: " + (reason.empty() ? "ContainerCreating" : reason));
        }
      }
    }
  }
  if (!found && (phase.empty() || phase == "Pending")) {
    return BadRequest("container \"" + container + "\" in pod \"" + std::string(pod) +
                      "\" is waiting to start: ContainerCreating");
  }
  return container;
}

std::string MemoryStore::CutLog(const LogBuffer& buffer, const LogOptions& options,
                                int64_t now_ms) {
  std::string_view view = buffer.data;
  size_t start = 0;
  if (options.tail_lines) {
    int64_t want = *options.tail_lines;
    size_t pos = view.size();
    // A final line without a newline still counts as a line.
    if (pos > 0 && view[pos - 1] == '\n') --pos;
    int64_t lines = 0;
    if (want == 0) {
      start = view.size();
    } else {
      while (pos > 0) {
        size_t nl = view.rfind('\n', pos - 1);
        if (nl == std::string_view::npos) break;
        if (++lines == want) {
          start = nl + 1;
          break;
        }
        pos = nl;
      }
    }
  }
  // As the kubelet: the tail is found first, then lines older than `since` are skipped, and the
  // byte limit counts what is sent, stamps included.
  std::string out = start >= view.size() ? std::string()
                                         : Render(buffer, buffer.dropped + start,
                                                  options.timestamps, SinceMs(options, now_ms));
  if (options.limit_bytes && static_cast<int64_t>(out.size()) > *options.limit_bytes) {
    out.resize(static_cast<size_t>(*options.limit_bytes));
  }
  return out;
}

}  // namespace kubesim::store_internal
