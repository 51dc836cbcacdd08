// AppProjection's packing: every string and the labels in one allocation.
//
// Layout of packed_: kSlotCount ends (uint16, or uint32 when the strings pass 64 KiB), then the
// slots' bytes back to back; slot i spans [end(i-1), end(i)). The labels slot is a run of
// (key, value): a key is a tag byte, then either a pointer to the interned key or a varint
// length and the bytes; a value is a varint length and the bytes. The operator's slot is opaque
// here: its folder packs it.

#include <cstdint>
#include <cstring>
#include <optional>

#include "base/interner.h"
#include "spark/app_projection.h"
#include "spark/deadline.h"
#include "spark/names.h"

namespace kje::spark {
namespace {

using packing::GetBytes;
using packing::PutBytes;

enum LabelKeyTag : uint8_t { kInternedKey = 0, kInlineKey = 1 };

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
      PutBytes(out.bytes, key);
    }
    if (key == kLabelJobId && !out.job_id_at) out.job_id_at = out.bytes.size();
    PutBytes(out.bytes, value);
  }
  return out;
}

template <typename Offset>
void PutEnd(char* block, size_t slot, size_t end) {
  auto value = static_cast<Offset>(end);
  std::memcpy(block + slot * sizeof(Offset), &value, sizeof(Offset));
}

}  // namespace

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

AppProjection::AppProjection(const AppFields& fields)
    : creation_time_(fields.creation_time),
      deletion_time_(fields.deletion_time),
      status_started_(fields.status_started),
      operator_state_(fields.operator_state),
      stop_kept_done_(fields.stop_kept_done) {
  flags_ = (fields.deleting ? kDeleting : 0) | (fields.managed_by_us ? kManagedByUs : 0) |
           (fields.cancel_requested ? kCancelRequested : 0) | (fields.has_status ? kHasStatus : 0) |
           (fields.suspend_requested ? kSuspendRequested : 0) |
           (fields.kueue_queued ? kKueueQueued : 0) |
           (fields.deadline_exceeded == DeadlineKind::kQueued ? kDeadlineQueued : 0) |
           (fields.deadline_exceeded == DeadlineKind::kRun ? kDeadlineRun : 0);
  interned_namespace_ = Interner::Global().Intern(fields.namespace_);
  interned_container_ = Interner::Global().Intern(fields.driver_container);
  PackedLabels labels = PackLabels(fields.labels);
  for (const auto& [key, value] : fields.labels) {
    has_deadline_labels_ =
        has_deadline_labels_ || key == kLabelMaxQueuedSeconds || key == kLabelMaxRunSeconds;
  }
  const std::string_view slots[kSlotCount] = {
      fields.name,
      fields.uid,
      fields.resource_version,
      fields.metalake,
      fields.unknown_current_state,
      fields.current_message,
      fields.spark_app_id,
      fields.cancel_reason,
      fields.stop_kept_at,
      fields.template_hash,
      fields.last_words,
      interned_namespace_ != nullptr ? std::string_view() : std::string_view(fields.namespace_),
      interned_container_ != nullptr ? std::string_view()
                                     : std::string_view(fields.driver_container),
      labels.bytes,
      fields.operator_status,
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
  std::string_view last = Get(kOperatorStatus);
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
  status_started_ = other.status_started_;
  operator_state_ = other.operator_state_;
  flags_ = other.flags_;
  wide_offsets_ = other.wide_offsets_;
  has_deadline_labels_ = other.has_deadline_labels_;
  stop_kept_done_ = other.stop_kept_done_;
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

size_t AppProjection::ApproximateBytes() const {
  // The allocator's header on the packed block; the interned strings are shared, not counted.
  constexpr size_t kAllocationOverhead = 16;
  return sizeof(AppProjection) + (packed_ != nullptr ? PackedBytes() + kAllocationOverhead : 0);
}

AppFields AppProjection::ToFields() const {
  AppFields fields;
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
  fields.unknown_current_state = std::string(unknown_current_state());
  fields.current_message = std::string(current_message());
  for (const auto& [key, value] : labels()) fields.labels.emplace_back(key, value);
  fields.has_status = has_status();
  fields.suspend_requested = suspend_requested();
  fields.kueue_queued = kueue_queued();
  fields.deadline_exceeded = deadline_exceeded();
  fields.driver_container = std::string(driver_container());
  fields.spark_app_id = std::string(spark_app_id());
  fields.cancel_reason = std::string(cancel_reason());
  fields.stop_kept_at = std::string(stop_kept_at());
  fields.stop_kept_done = stop_kept_done_;
  fields.template_hash = std::string(template_hash());
  fields.last_words = std::string(last_words());
  fields.operator_state = operator_state_;
  fields.status_started = status_started_;
  fields.operator_status = std::string(operator_status());
  return fields;
}

}  // namespace kje::spark
