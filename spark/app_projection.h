#pragma once

// A compact projection of a SparkApplication: the little the executor needs to answer Status,
// Cancel and Submit's adoption check. The informer cache holds one per application instead of
// its JSON (a status with stack traces and pod statuses is easily 20 KB).
//
// Operator-neutral: the metadata and the fields every operator's status has alike, plus one
// part that only the operator's own folder writes and reads (its state as a code, and a packed
// slot of the rest of its status). The core reads that part only through the backend.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/packing.h"
#include "spark/time_util.h"

namespace kje::spark {

// The message of the current state is kept up to this many bytes (cut on a UTF-8 boundary): an
// operator's scheduling failure carries whole Java stack traces.
inline constexpr size_t kMaxMessageBytes = 512;

// A job's deadlines (spark/deadline.h): how long it may stay queued, and run.
enum class DeadlineKind : uint8_t { kNone = 0, kQueued = 1, kRun = 2 };

// What a projection is made from: the fields as read, each its own string. The projection
// functions fill one and pack it into an AppProjection; tests build them to make fixtures.
struct AppFields {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string metalake;  // annotation gravitino.apache.org/metalake, "" when absent
  EpochMillis creation_time = kNoTime;
  // metadata.deletionTimestamp; kNoTime when absent or unparsable (`deleting` still tells).
  EpochMillis deletion_time = kNoTime;
  bool deleting = false;          // metadata.deletionTimestamp is set
  bool managed_by_us = false;     // label app.kubernetes.io/managed-by=gravitino
  bool cancel_requested = false;  // annotation cancel-requested is exactly "true"
  // Annotation deadline-exceeded: the service stopped the job for this deadline.
  DeadlineKind deadline_exceeded = DeadlineKind::kNone;
  // The spelling of the current state when this build doesn't know it; empty otherwise (the
  // operator's folder spells the known ones).
  std::string unknown_current_state;
  std::string current_message;  // the current state's message, capped at kMaxMessageBytes
  // metadata.labels with string values, in the object's order.
  std::vector<std::pair<std::string, std::string>> labels;
  // A .status is there (a non-empty object, or anything else but null) even when no state in it
  // can be read: the operator wrote something this build doesn't understand.
  bool has_status = false;
  // spec.suspend is true.
  bool suspend_requested = false;
  // The app names a Kueue queue (label kueue.x-k8s.io/queue-name).
  bool kueue_queued = false;
  // The container the driver runs in: spark.kubernetes.driver.podTemplateContainerName, else the
  // name of the driver pod template's first container, else spark-kubernetes-driver.
  std::string driver_container;
  // The Spark application id as the operator reports or fixes it; "" when it has none yet.
  std::string spark_app_id;
  // Annotation cancel-reason: why the job was cancelled, as Cancel stored it (spark/cancel_keep.h).
  std::string cancel_reason;
  // Annotation stop-kept-at: when the service stopped the job keeping its application (a cancel or
  // a deadline in keep mode), as written; "" when it didn't.
  std::string stop_kept_at;
  bool stop_kept_done = false;  // annotation stop-kept-done is "true"
  // Annotation template-hash: the hashes of the template the app was made from
  // (spark/template_hash.h); "" on an app made without them (the Java executor's).
  std::string template_hash;
  // Annotation last-words: the driver's last words, once the service kept them
  // (spark/last_words.h).
  std::string last_words;

  // The operator's own part, which only its folder writes and reads (the core asks the backend).
  // The current state, as the folder numbers its states.
  uint8_t operator_state = 0;
  // When the status says the driver started (the folder decides how it reads that); kNoTime
  // when it doesn't say. Kept inline: every Status asks for it.
  EpochMillis status_started = kNoTime;
  // The rest of the operator's status, packed by its folder (spark/packing.h).
  std::string operator_status;
};

using Label = std::pair<std::string_view, std::string_view>;
struct LabelDecoder {
  void operator()(const char*& at, Label& label) const;
};

// metadata.labels as the projection packs them: (key, value) pairs in the object's order.
class LabelsView : public packing::PackedRange<Label, LabelDecoder> {
 public:
  using Label = spark::Label;
  using PackedRange::PackedRange;
  // The first label with this key.
  std::optional<std::string_view> Find(std::string_view key) const;
};

// A SparkApplication as the caches hold it, read-only: the fixed fields inline and every string
// and the labels packed into one allocation; the namespace, label keys and the driver container's
// name interned (base/interner.h). The accessors mean what AppFields' fields of the same names
// do; the views point into this projection and live as long as it does.
class AppProjection {
 public:
  AppProjection() = default;
  explicit AppProjection(const AppFields& fields);
  AppProjection(const AppProjection& other);
  AppProjection& operator=(const AppProjection& other);
  AppProjection(AppProjection&&) noexcept = default;
  AppProjection& operator=(AppProjection&&) noexcept = default;

  std::string_view namespace_() const;
  std::string_view name() const { return Get(kName); }
  std::string_view uid() const { return Get(kUid); }
  std::string_view resource_version() const { return Get(kResourceVersion); }
  // label gravitino.apache.org/job-id, "" when absent
  std::string_view job_id() const;
  std::string_view metalake() const { return Get(kMetalake); }
  EpochMillis creation_time() const { return creation_time_; }
  EpochMillis deletion_time() const { return deletion_time_; }
  bool deleting() const { return Flag(kDeleting); }
  bool managed_by_us() const { return Flag(kManagedByUs); }
  bool cancel_requested() const { return Flag(kCancelRequested); }
  std::string_view unknown_current_state() const { return Get(kUnknownState); }
  std::string_view current_message() const { return Get(kMessage); }
  LabelsView labels() const { return LabelsView(Get(kLabels)); }
  bool has_status() const { return Flag(kHasStatus); }
  bool suspend_requested() const { return Flag(kSuspendRequested); }
  bool kueue_queued() const { return Flag(kKueueQueued); }
  DeadlineKind deadline_exceeded() const {
    return Flag(kDeadlineRun)      ? DeadlineKind::kRun
           : Flag(kDeadlineQueued) ? DeadlineKind::kQueued
                                   : DeadlineKind::kNone;
  }
  // Whether a deadline label (spark/deadline.h) is among the labels.
  bool has_deadline_labels() const { return has_deadline_labels_; }
  std::string_view driver_container() const;
  std::string_view spark_app_id() const { return Get(kSparkAppId); }
  std::string_view cancel_reason() const { return Get(kCancelReason); }
  std::string_view stop_kept_at() const { return Get(kStopKeptAt); }
  bool stop_kept_done() const { return stop_kept_done_; }
  std::string_view template_hash() const { return Get(kTemplateHash); }
  std::string_view last_words() const { return Get(kLastWords); }
  uint8_t operator_state() const { return operator_state_; }
  EpochMillis status_started() const { return status_started_; }
  std::string_view operator_status() const { return Get(kOperatorStatus); }

  // Heap and inline bytes, for memory accounting in the cache.
  size_t ApproximateBytes() const;
  // The fields back, unpacked (tests, and a projection edited before it is packed again).
  AppFields ToFields() const;

 private:
  // The packed strings, in this order; the namespace and driver container are packed only when
  // the interner had no room for them.
  enum Slot : uint8_t {
    kName,
    kUid,
    kResourceVersion,
    kMetalake,
    kUnknownState,
    kMessage,
    kSparkAppId,
    kCancelReason,
    kStopKeptAt,
    kTemplateHash,
    kLastWords,
    kNamespace,
    kContainer,
    kLabels,
    kOperatorStatus,
    kSlotCount,
  };
  enum FlagBit : uint8_t {
    kDeleting = 1,
    kManagedByUs = 2,
    kCancelRequested = 4,
    kHasStatus = 8,
    kSuspendRequested = 16,
    kKueueQueued = 32,
    kDeadlineQueued = 64,
    kDeadlineRun = 128,
  };
  // Inline: a Status reads about ten slots.
  std::string_view Get(Slot slot) const {
    if (packed_ == nullptr) return {};
    return wide_offsets_ ? SlotOf<uint32_t>(packed_.get(), slot)
                         : SlotOf<uint16_t>(packed_.get(), slot);
  }
  // Slot `slot` of a block whose kSlotCount slot ends, each an Offset, precede the bytes.
  template <typename Offset>
  static std::string_view SlotOf(const char* block, size_t slot) {
    Offset ends[2] = {0, 0};
    if (slot > 0) std::memcpy(&ends[0], block + (slot - 1) * sizeof(Offset), sizeof(Offset));
    std::memcpy(&ends[1], block + slot * sizeof(Offset), sizeof(Offset));
    return std::string_view(block + kSlotCount * sizeof(Offset) + ends[0], ends[1] - ends[0]);
  }
  bool Flag(FlagBit bit) const { return (flags_ & bit) != 0; }
  size_t PackedBytes() const;

  std::unique_ptr<char[]> packed_;
  const std::string* interned_namespace_ = nullptr;
  const std::string* interned_container_ = nullptr;
  EpochMillis creation_time_ = kNoTime;
  EpochMillis deletion_time_ = kNoTime;
  EpochMillis status_started_ = kNoTime;
  uint8_t operator_state_ = 0;
  uint8_t flags_ = 0;
  bool wide_offsets_ = false;  // the slots' ends are uint32, not uint16
  // A deadline label is among the labels: every Status applies deadlines, and most apps have
  // none (kept in what was padding).
  bool has_deadline_labels_ = false;
  bool stop_kept_done_ = false;  // in what was padding too
  // Where in packed_ the job-id label's value (its varint length) is, so that job_id(), which
  // every Status asks for, needn't walk the labels; 0 when there is none or it lies past 64 KiB.
  uint16_t job_id_at_ = 0;
};

// The fields every operator's SparkApplication has alike: metadata (names, uid, times, labels,
// the executor's labels and annotations) and whether a .status is there. INVALID_ARGUMENT when the
// value isn't an object with a non-empty metadata.name and metadata.namespace; every other field is
// optional and a malformed one reads as absent.
absl::StatusOr<AppFields> ProjectMetadata(const rapidjson::Value& app);

// The Kueue queue the app's label kueue.x-k8s.io/queue-name names; "" without one.
std::string_view KueueQueueOf(const AppProjection& app);

// A message as the projection keeps it: at most kMaxMessageBytes, cut on a UTF-8 boundary.
std::string CapMessage(std::string_view message);

// Parses `json` and projects the value with `project` (an operator's projection);
// INVALID_ARGUMENT when the text isn't JSON.
absl::StatusOr<AppProjection> ProjectJsonWith(
    std::string_view json,
    absl::FunctionRef<absl::StatusOr<AppProjection>(const rapidjson::Value&)> project);

}  // namespace kje::spark
