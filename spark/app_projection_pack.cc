// AppProjection's packing: every string, the labels and the history in one allocation.
//
// Layout of packed_: kSlotCount ends (uint16, or uint32 when the strings pass 64 KiB), then the
// slots' bytes back to back; slot i spans [end(i-1), end(i)). The labels slot is a run of
// (key, value): a key is a tag byte, then either a pointer to the interned key or a varint
// length and the bytes; a value is a varint length and the bytes. The history slot is a run of
// entries: the state, a byte of flags, then the id and times present as zigzag varints of their
// difference from the previous id or time (ids count up by one and times by seconds, so most
// take one or two bytes).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "base/interner.h"
#include "spark/app_projection.h"
#include "spark/names.h"

namespace kje::spark {
namespace {

enum EntryFlag : uint8_t {
  kCurrentId = 1,  // the id is kCurrentStateId (not encoded)
  kHasTransition = 2,
  kHasDriverStarted = 4,
  kHasDriverFinished = 8,
};
enum LabelKeyTag : uint8_t { kInternedKey = 0, kInlineKey = 1 };

void PutVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// The caller's bytes were written by PutVarint into this projection: they are well formed.
uint64_t GetVarint(const char*& at) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    auto byte = static_cast<uint8_t>(*at++);
    value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

// Differences taken modulo 2^64, so any two int64 values have one.
void PutDelta(std::string& out, uint64_t& previous, int64_t value) {
  auto delta = static_cast<int64_t>(static_cast<uint64_t>(value) - previous);
  PutVarint(out, (static_cast<uint64_t>(delta) << 1) ^ static_cast<uint64_t>(delta >> 63));
  previous = static_cast<uint64_t>(value);
}

int64_t GetDelta(const char*& at, uint64_t& previous) {
  uint64_t zigzag = GetVarint(at);
  uint64_t delta = (zigzag >> 1) ^ (~(zigzag & 1) + 1);
  previous += delta;
  return static_cast<int64_t>(previous);
}

std::string PackHistory(const std::vector<StateEntry>& history) {
  std::string out;
  uint64_t previous_id = 0;
  uint64_t previous_time = 0;
  for (const StateEntry& entry : history) {
    uint8_t flags = 0;
    if (entry.id == kCurrentStateId) flags |= kCurrentId;
    if (entry.transition_time != kNoTime) flags |= kHasTransition;
    if (entry.driver_started != kNoTime) flags |= kHasDriverStarted;
    if (entry.driver_finished != kNoTime) flags |= kHasDriverFinished;
    out.push_back(static_cast<char>(entry.state));
    out.push_back(static_cast<char>(flags));
    if (!(flags & kCurrentId)) PutDelta(out, previous_id, entry.id);
    if (flags & kHasTransition) PutDelta(out, previous_time, entry.transition_time);
    if (flags & kHasDriverStarted) PutDelta(out, previous_time, entry.driver_started);
    if (flags & kHasDriverFinished) PutDelta(out, previous_time, entry.driver_finished);
  }
  return out;
}

// The labels slot, and where in it the first job-id label's value (its varint length) starts.
struct PackedLabels {
  std::string bytes;
  std::optional<size_t> job_id_at;
};

PackedLabels PackLabels(const std::vector<std::pair<std::string, std::string>>& labels) {
  PackedLabels out;
  for (const auto& [key, value] : labels) {
    if (const std::string* interned = Interner::Global().Intern(key)) {
      out.bytes.push_back(static_cast<char>(kInternedKey));
      // The pointer itself is packed: the pool keeps the text for the life of the process.
      out.bytes.append(reinterpret_cast<const char*>(&interned),
                       sizeof(interned));  // NOLINT(bugprone-sizeof-expression)
    } else {
      out.bytes.push_back(static_cast<char>(kInlineKey));
      PutVarint(out.bytes, key.size());
      out.bytes.append(key);
    }
    if (key == kLabelJobId && !out.job_id_at) out.job_id_at = out.bytes.size();
    PutVarint(out.bytes, value.size());
    out.bytes.append(value);
  }
  return out;
}

template <typename Offset>
void PutEnd(char* block, size_t slot, size_t end) {
  auto value = static_cast<Offset>(end);
  std::memcpy(block + slot * sizeof(Offset), &value, sizeof(Offset));
}

std::string_view GetBytes(const char*& at) {
  size_t size = GetVarint(at);
  std::string_view bytes(at, size);
  at += size;
  return bytes;
}

}  // namespace

void HistoryDecoder::operator()(const char*& at, StateEntry& entry) {
  entry.state = static_cast<AppState>(static_cast<uint8_t>(*at++));
  auto flags = static_cast<uint8_t>(*at++);
  entry.id = (flags & kCurrentId) ? kCurrentStateId : GetDelta(at, previous_id);
  entry.transition_time = (flags & kHasTransition) ? GetDelta(at, previous_time) : kNoTime;
  entry.driver_started = (flags & kHasDriverStarted) ? GetDelta(at, previous_time) : kNoTime;
  entry.driver_finished = (flags & kHasDriverFinished) ? GetDelta(at, previous_time) : kNoTime;
}

StateEntry HistoryView::back() const {
  StateEntry last;
  for (const StateEntry& entry : *this) last = entry;
  return last;
}

StateEntry HistoryView::operator[](size_t i) const {
  Iterator it = begin();
  std::advance(it, i);
  return *it;
}

void LabelDecoder::operator()(const char*& at, Label& label) const {
  if (static_cast<uint8_t>(*at++) == kInternedKey) {
    const std::string* key = nullptr;
    std::memcpy(&key, at, sizeof(key));  // NOLINT(bugprone-sizeof-expression)
    at += sizeof(key);                   // NOLINT(bugprone-sizeof-expression)
    label.first = *key;
  } else {
    label.first = GetBytes(at);
  }
  label.second = GetBytes(at);
}

std::optional<std::string_view> LabelsView::Find(std::string_view key) const {
  for (const Label& label : *this) {
    if (label.first == key) return label.second;
  }
  return std::nullopt;
}

namespace {

EpochMillis HistoryStarted(const std::vector<StateEntry>& history) {
  EpochMillis earliest = kNoTime;
  EpochMillis first_started = kNoTime;  // stays kNoTime if the first started entry has no time
  bool started = false;
  for (const StateEntry& entry : history) {
    if (entry.driver_started != kNoTime &&
        (earliest == kNoTime || entry.driver_started < earliest)) {
      earliest = entry.driver_started;
    }
    if (!started && IsStartedState(entry.state)) {
      started = true;
      first_started = entry.transition_time;
    }
  }
  return earliest != kNoTime ? earliest : first_started;
}

}  // namespace

AppProjection::AppProjection(const AppFields& fields)
    : creation_time_(fields.creation_time),
      deletion_time_(fields.deletion_time),
      attempt_id_(fields.attempt_id),
      kubeflow_submission_time_(fields.kubeflow.submission_time),
      kubeflow_termination_time_(fields.kubeflow.termination_time),
      kubeflow_execution_attempts_(fields.kubeflow.execution_attempts),
      history_started_(HistoryStarted(fields.history)),
      kind_(fields.kind),
      kubeflow_state_(fields.kubeflow.state),
      current_state_(fields.history.empty() ? AppState::kUnknown : fields.history.back().state) {
  flags_ = (fields.deleting ? kDeleting : 0) | (fields.managed_by_us ? kManagedByUs : 0) |
           (fields.cancel_requested ? kCancelRequested : 0) | (fields.has_status ? kHasStatus : 0) |
           (fields.suspend_requested ? kSuspendRequested : 0) |
           (fields.kueue_queued ? kKueueQueued : 0);
  interned_namespace_ = Interner::Global().Intern(fields.namespace_);
  interned_container_ = Interner::Global().Intern(fields.driver_container);
  PackedLabels labels = PackLabels(fields.labels);
  std::string history = PackHistory(fields.history);
  const std::string_view slots[kSlotCount] = {
      fields.name,
      fields.uid,
      fields.resource_version,
      fields.metalake,
      fields.unknown_current_state,
      fields.current_message,
      fields.suspend_reason,
      fields.spark_app_id,
      fields.kubeflow.submission_id,
      fields.kubeflow.driver_pod_name,
      fields.kubeflow.web_ui_address,
      interned_namespace_ != nullptr ? std::string_view() : std::string_view(fields.namespace_),
      interned_container_ != nullptr ? std::string_view()
                                     : std::string_view(fields.driver_container),
      labels.bytes,
      history,
  };
  size_t text = 0;
  for (std::string_view slot : slots) text += slot.size();
  wide_offsets_ = text > UINT16_MAX;
  const size_t width = wide_offsets_ ? sizeof(uint32_t) : sizeof(uint16_t);
  const size_t header = kSlotCount * width;
  packed_ = std::make_unique_for_overwrite<char[]>(header + text);
  char* out = packed_.get() + header;
  size_t end = 0;
  for (size_t i = 0; i < kSlotCount; ++i) {
    if (!slots[i].empty()) std::memcpy(out + end, slots[i].data(), slots[i].size());
    end += slots[i].size();
    if (wide_offsets_) {
      PutEnd<uint32_t>(packed_.get(), i, end);
    } else {
      PutEnd<uint16_t>(packed_.get(), i, end);
    }
  }
  if (labels.job_id_at) {
    const size_t offset =
        static_cast<size_t>(Get(kLabels).data() - packed_.get()) + *labels.job_id_at;
    if (offset <= UINT16_MAX) job_id_at_ = static_cast<uint16_t>(offset);
  }
}

size_t AppProjection::PackedBytes() const {
  if (packed_ == nullptr) return 0;
  std::string_view last = Get(kHistory);
  return static_cast<size_t>(last.data() + last.size() - packed_.get());
}

AppProjection::AppProjection(const AppProjection& other) { *this = other; }

AppProjection& AppProjection::operator=(const AppProjection& other) {
  if (this == &other) return *this;
  std::unique_ptr<char[]> packed;
  if (other.packed_ != nullptr) {
    size_t bytes = other.PackedBytes();
    packed = std::make_unique_for_overwrite<char[]>(bytes);
    std::memcpy(packed.get(), other.packed_.get(), bytes);
  }
  packed_ = std::move(packed);
  interned_namespace_ = other.interned_namespace_;
  interned_container_ = other.interned_container_;
  creation_time_ = other.creation_time_;
  deletion_time_ = other.deletion_time_;
  attempt_id_ = other.attempt_id_;
  kubeflow_submission_time_ = other.kubeflow_submission_time_;
  kubeflow_termination_time_ = other.kubeflow_termination_time_;
  kubeflow_execution_attempts_ = other.kubeflow_execution_attempts_;
  kind_ = other.kind_;
  kubeflow_state_ = other.kubeflow_state_;
  history_started_ = other.history_started_;
  current_state_ = other.current_state_;
  flags_ = other.flags_;
  wide_offsets_ = other.wide_offsets_;
  job_id_at_ = other.job_id_at_;
  return *this;
}

std::string_view AppProjection::namespace_() const {
  return interned_namespace_ != nullptr ? std::string_view(*interned_namespace_) : Get(kNamespace);
}

std::string_view AppProjection::driver_container() const {
  return interned_container_ != nullptr ? std::string_view(*interned_container_) : Get(kContainer);
}

std::string_view AppProjection::job_id() const {
  if (job_id_at_ != 0 && packed_ != nullptr) {
    const char* at = packed_.get() + job_id_at_;
    return GetBytes(at);
  }
  return labels().Find(kLabelJobId).value_or(std::string_view());
}

KubeflowView AppProjection::kubeflow() const {
  KubeflowView view;
  view.state = kubeflow_state_;
  view.submission_id = Get(kSubmissionId);
  view.driver_pod_name = Get(kDriverPodName);
  view.submission_time = kubeflow_submission_time_;
  view.termination_time = kubeflow_termination_time_;
  view.execution_attempts = kubeflow_execution_attempts_;
  view.web_ui_address = Get(kWebUiAddress);
  return view;
}

size_t AppProjection::ApproximateBytes() const {
  // The allocator's header on the packed block; the interned strings are shared, not counted.
  constexpr size_t kAllocationOverhead = 16;
  return sizeof(AppProjection) + (packed_ != nullptr ? PackedBytes() + kAllocationOverhead : 0);
}

AppFields AppProjection::ToFields() const {
  AppFields fields;
  fields.kind = kind_;
  fields.namespace_ = std::string(namespace_());
  fields.name = std::string(name());
  fields.uid = std::string(uid());
  fields.resource_version = std::string(resource_version());
  fields.metalake = std::string(metalake());
  fields.creation_time = creation_time_;
  fields.deletion_time = deletion_time_;
  fields.deleting = deleting();
  fields.managed_by_us = managed_by_us();
  fields.cancel_requested = cancel_requested();
  for (const StateEntry& entry : history()) fields.history.push_back(entry);
  fields.unknown_current_state = std::string(unknown_current_state());
  fields.current_message = std::string(current_message());
  for (const auto& [key, value] : labels()) fields.labels.emplace_back(key, value);
  fields.has_status = has_status();
  fields.suspend_requested = suspend_requested();
  fields.kueue_queued = kueue_queued();
  fields.suspend_reason = std::string(suspend_reason());
  fields.attempt_id = attempt_id_;
  fields.driver_container = std::string(driver_container());
  fields.spark_app_id = std::string(spark_app_id());
  KubeflowView kf = kubeflow();
  fields.kubeflow.state = kf.state;
  fields.kubeflow.submission_id = std::string(kf.submission_id);
  fields.kubeflow.driver_pod_name = std::string(kf.driver_pod_name);
  fields.kubeflow.submission_time = kf.submission_time;
  fields.kubeflow.termination_time = kf.termination_time;
  fields.kubeflow.execution_attempts = kf.execution_attempts;
  fields.kubeflow.web_ui_address = std::string(kf.web_ui_address);
  return fields;
}

}  // namespace kje::spark
