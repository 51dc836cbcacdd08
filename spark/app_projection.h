#pragma once

// A compact projection of a SparkApplication: the little the executor needs to answer Status,
// Cancel and Submit's adoption check. The informer cache holds one per application instead of
// its JSON (a status with stack traces and pod statuses is easily 20 KB).

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
#include "spark/app_state.h"
#include "spark/kubeflow/app_state.h"
#include "spark/time_util.h"

namespace kje::spark {

// The id given to status.currentState when it is appended behind a trimmed history.
inline constexpr int64_t kCurrentStateId = std::numeric_limits<int64_t>::max();
// The message of the current state is kept up to this many bytes (cut on a UTF-8 boundary):
// SchedulingFailure carries whole Java stack traces.
inline constexpr size_t kMaxMessageBytes = 512;

// One entry of status.stateTransitionHistory.
struct StateEntry {
  int64_t id = 0;
  EpochMillis transition_time = kNoTime;  // lastTransitionTime
  // The driver container's times from lastObservedDriverStatus, when the entry has one.
  EpochMillis driver_started = kNoTime;
  EpochMillis driver_finished = kNoTime;
  AppState state = AppState::kUnknown;
};

// Whose SparkApplication this is: the status fields read differ.
enum class OperatorKind : uint8_t {
  kApache,    // spark.apache.org/v1: `history` and the fields after it
  kKubeflow,  // sparkoperator.k8s.io/v1beta2: `kubeflow`
};

// What a projection is made from: the fields as read, each its own string. The projection
// functions fill one and pack it into an AppProjection; tests build them to make fixtures.
struct AppFields {
  OperatorKind kind = OperatorKind::kApache;
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
  // The history sorted numerically by id, with status.currentState appended (id
  // kCurrentStateId) when the history doesn't end with it. Empty: no state yet.
  std::vector<StateEntry> history;
  // The spelling of the current state when this build doesn't know it (history.back() is
  // kUnknown, or kubeflow.state is kUnrecognized); empty otherwise, as AppStateName and
  // kubeflow::StateName give the known ones.
  std::string unknown_current_state;
  std::string current_message;  // status.currentState.message, capped at kMaxMessageBytes
  // metadata.labels with string values, in the object's order.
  std::vector<std::pair<std::string, std::string>> labels;
  // A .status is there (a non-empty object, or anything else but null) even when no state in it
  // can be read: the operator wrote something this build doesn't understand.
  bool has_status = false;
  // Operator 1.1 holds these without a .status: spec.suspend is true, or the app waits for Kueue
  // admission (label kueue.x-k8s.io/queue-name).
  bool suspend_requested = false;
  bool kueue_queued = false;
  // status.currentState.suspendReason when the current state is Suspended (SpecSuspend when the
  // operator left it out); "" otherwise.
  std::string suspend_reason;
  // status.currentAttemptSummary.attemptInfo.id: a resume or a restart counts it up.
  int64_t attempt_id = 0;
  // The container the driver runs in: spark.kubernetes.driver.podTemplateContainerName, else the
  // name of the driver pod template's first container, else spark-kubernetes-driver.
  std::string driver_container;
  // The Spark application id as the operator reports or fixes it: kubeflow's
  // status.sparkApplicationId; for the Apache operator only spec.sparkConf's spark.app.id, which
  // it keeps (otherwise it derives the id from the name and the attempt: RunDetailsOf).
  std::string spark_app_id;
  // kubeflow/spark-operator's status (kind kKubeflow); its errorMessage is current_message and a
  // status that is there at all is has_status.
  kubeflow::KubeflowStatus kubeflow;
};

// An input iterator over records packed back to back, each decoded as the iterator reaches it;
// Decoder reads one record at `at` and moves `at` past it, keeping what the next one needs.
template <typename Record, typename Decoder>
class PackedIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Record;
  using difference_type = std::ptrdiff_t;
  using pointer = const Record*;
  using reference = const Record&;

  PackedIterator() = default;
  // At `next`, or the end when next == end.
  PackedIterator(const char* next, const char* end) : next_(next), end_(end) { Advance(); }
  reference operator*() const { return record_; }
  pointer operator->() const { return &record_; }
  PackedIterator& operator++() {
    Advance();
    return *this;
  }
  PackedIterator operator++(int) {
    PackedIterator before = *this;
    Advance();
    return before;
  }
  bool operator==(const PackedIterator& other) const { return at_ == other.at_; }
  bool operator!=(const PackedIterator& other) const { return at_ != other.at_; }

 private:
  void Advance() {
    at_ = next_;
    if (next_ != end_) decoder_(next_, record_);
  }

  const char* at_ = nullptr;  // the current record; the end once past the last
  const char* next_ = nullptr;
  const char* end_ = nullptr;
  Decoder decoder_;
  Record record_{};
};

// Records packed back to back in `packed`, read through PackedIterator.
template <typename Record, typename Decoder>
class PackedRange {
 public:
  using Iterator = PackedIterator<Record, Decoder>;
  explicit PackedRange(std::string_view packed) : packed_(packed) {}
  Iterator begin() const { return Iterator(packed_.data(), packed_.data() + packed_.size()); }
  Iterator end() const {
    return Iterator(packed_.data() + packed_.size(), packed_.data() + packed_.size());
  }
  bool empty() const { return packed_.empty(); }
  size_t size() const { return static_cast<size_t>(std::distance(begin(), end())); }

 private:
  std::string_view packed_;
};

// Decodes the history's entries: ids and times are differences from the previous ones.
struct HistoryDecoder {
  void operator()(const char*& at, StateEntry& entry);
  uint64_t previous_id = 0;
  uint64_t previous_time = 0;
};

// The history as the projection packs it.
class HistoryView : public PackedRange<StateEntry, HistoryDecoder> {
 public:
  using PackedRange::PackedRange;
  StateEntry front() const { return *begin(); }
  StateEntry back() const;
  StateEntry operator[](size_t i) const;
};

using Label = std::pair<std::string_view, std::string_view>;
struct LabelDecoder {
  void operator()(const char*& at, Label& label) const;
};

// metadata.labels as the projection packs them: (key, value) pairs in the object's order.
class LabelsView : public PackedRange<Label, LabelDecoder> {
 public:
  using Label = spark::Label;
  using PackedRange::PackedRange;
  // The first label with this key.
  std::optional<std::string_view> Find(std::string_view key) const;
};

// kubeflow/spark-operator's status as the projection keeps it (AppFields::kubeflow).
struct KubeflowView {
  kubeflow::State state = kubeflow::State::kNew;
  std::string_view submission_id;
  std::string_view driver_pod_name;
  EpochMillis submission_time = kNoTime;
  EpochMillis termination_time = kNoTime;
  int64_t execution_attempts = 0;
  std::string_view web_ui_address;
};

// A SparkApplication as the caches hold it, read-only: the fixed fields inline and every string,
// the labels and the history packed into one allocation; the namespace, label keys and the
// driver container's name interned (base/interner.h). The accessors mean what AppFields' fields
// of the same names do; the views point into this projection and live as long as it does.
class AppProjection {
 public:
  AppProjection() = default;
  explicit AppProjection(const AppFields& fields);
  AppProjection(const AppProjection& other);
  AppProjection& operator=(const AppProjection& other);
  AppProjection(AppProjection&&) noexcept = default;
  AppProjection& operator=(AppProjection&&) noexcept = default;

  OperatorKind kind() const { return kind_; }
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
  HistoryView history() const { return HistoryView(Get(kHistory)); }
  // history().back().state without decoding the history; kUnknown when it is empty.
  AppState current_state() const { return current_state_; }
  // When the history says the driver started, without decoding it: the earliest driver start any
  // entry saw, else the first started state's transition time; kNoTime when neither is there.
  EpochMillis history_started() const { return history_started_; }
  std::string_view unknown_current_state() const { return Get(kUnknownState); }
  std::string_view current_message() const { return Get(kMessage); }
  LabelsView labels() const { return LabelsView(Get(kLabels)); }
  bool has_status() const { return Flag(kHasStatus); }
  bool suspend_requested() const { return Flag(kSuspendRequested); }
  bool kueue_queued() const { return Flag(kKueueQueued); }
  std::string_view suspend_reason() const { return Get(kSuspendReason); }
  int64_t attempt_id() const { return attempt_id_; }
  std::string_view driver_container() const;
  std::string_view spark_app_id() const { return Get(kSparkAppId); }
  KubeflowView kubeflow() const;

  // The operator's name of the current state; "" when there is no state.
  std::string_view OperatorState() const;
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
    kSuspendReason,
    kSparkAppId,
    kSubmissionId,
    kDriverPodName,
    kWebUiAddress,
    kNamespace,
    kContainer,
    kLabels,
    kHistory,
    kSlotCount,
  };
  enum FlagBit : uint8_t {
    kDeleting = 1,
    kManagedByUs = 2,
    kCancelRequested = 4,
    kHasStatus = 8,
    kSuspendRequested = 16,
    kKueueQueued = 32,
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
  int64_t attempt_id_ = 0;
  EpochMillis kubeflow_submission_time_ = kNoTime;
  EpochMillis kubeflow_termination_time_ = kNoTime;
  int64_t kubeflow_execution_attempts_ = 0;
  EpochMillis history_started_ = kNoTime;
  OperatorKind kind_ = OperatorKind::kApache;
  kubeflow::State kubeflow_state_ = kubeflow::State::kNew;
  // Kept beside the packed history, which only decodes front to back: every Status asks for them
  // (history_started_ among the other 8-byte fields, so that it takes no padding).
  AppState current_state_ = AppState::kUnknown;
  uint8_t flags_ = 0;
  bool wide_offsets_ = false;  // the slots' ends are uint32, not uint16
  // Where in packed_ the job-id label's value (its varint length) is, so that job_id(), which
  // every Status asks for, needn't walk the labels; 0 when there is none or it lies past 64 KiB.
  uint16_t job_id_at_ = 0;
};

// The fields every operator's SparkApplication has alike: metadata (names, uid, times, labels,
// the executor's labels and annotations) and whether a .status is there. INVALID_ARGUMENT when
// the value isn't an object with a non-empty metadata.name and metadata.namespace; every other
// field is optional and a malformed one reads as absent.
absl::StatusOr<AppFields> ProjectMetadata(const rapidjson::Value& app);

// A message as the projection keeps it: at most kMaxMessageBytes, cut on a UTF-8 boundary.
std::string CapMessage(std::string_view message);

// An apache/spark-kubernetes-operator SparkApplication; errors as ProjectMetadata's.
absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app);
absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json);

// Parses `json` and projects the value with `project` (either operator's ProjectApp);
// INVALID_ARGUMENT when the text isn't JSON.
absl::StatusOr<AppProjection> ProjectJsonWith(
    std::string_view json,
    absl::FunctionRef<absl::StatusOr<AppProjection>(const rapidjson::Value&)> project);

// Whether the application has any state: no status means the operator hasn't reconciled it.
// These three answer for either operator's projection (AppProjection::kind).
bool HasState(const AppProjection& app);
// Whether a missing state is a hold rather than a loss: spec.suspend or a Kueue queue label (an
// operator 1.1 writes no status for either until it lets the app run).
bool IsHeldWithoutStatus(const AppProjection& app);
// Whether the current state is an outcome (Succeeded or a failure) or a stopped state; a stopped
// app has a state (HasState).
bool IsStopped(const AppProjection& app);

}  // namespace kje::spark
