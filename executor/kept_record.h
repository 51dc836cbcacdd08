#pragma once

// The kept record of a job: what a user needs after the driver pod is gone (the tail of its log,
// how the driver ended, the job's last Events), written once into a ConfigMap (or a Secret) that
// the application owns, so that it goes with the application. Pure: the object's JSON for the
// create, and the record read back from a GET; no I/O.
//
// The log is kept with the kubelet's stamps ("<RFC 3339> <text>" per line), so that a followed
// log's cursor (spark/log_cursor.h) holds across the switch from the pod to the record.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "k8s/event.h"
#include "rapidjson/document.h"
#include "spark/log_tail.h"

namespace kje::executor {

// The record of application `app_name`: one per application name, so that whoever sees the job
// end first creates it and the others get 409.
std::string KeptRecordName(std::string_view app_name);

// On the application, once its record is written (a label: the informer's projection carries it,
// so Status says where output comes from without a request): kKept, or kNotKeptPrefix + a
// reason code.
inline constexpr std::string_view kLabelOutput = "gravitino.apache.org/output";
inline constexpr std::string_view kOutputKept = "kept";
inline constexpr std::string_view kNotKeptPrefix = "not-kept.";
// On the application too: the driver container's exit code, once known.
inline constexpr std::string_view kLabelExitCode = "gravitino.apache.org/exit-code";
// On the record: the application it keeps.
inline constexpr std::string_view kLabelKeptFor = "gravitino.apache.org/kept-for";

// Why a record holds no log.
enum class NotKept {
  kNo,             // it holds the log
  kPodGone,        // the driver pod was gone before any replica read it
  kLogUnreadable,  // the pod was there, its log couldn't be read
  kNoDriver,       // the job never had a driver pod
};
std::string_view NotKeptCode(NotKept why);  // "" for kNo
// The code back (kNo for anything unknown or "").
NotKept NotKeptFromCode(std::string_view code);
// What JobInfo.output_note says.
std::string_view NotKeptNote(NotKept why);

struct KeptRecord {
  std::string pod_name;
  std::string pod_uid;
  // The log's last lines, each with its stamp; oldest first.
  std::vector<std::string> stamped_lines;
  bool truncated = false;  // older lines were left out (the caps)
  std::optional<int32_t> exit_code;
  std::string termination_message;  // the driver's last words (masked, capped)
  std::vector<k8s::Event> events;   // the job's last Events, oldest first
  bool events_truncated = false;
  NotKept not_kept = NotKept::kNo;
};

// Where the record goes and who owns it.
struct RecordOwner {
  std::string namespace_;
  std::string app_name;
  std::string app_uid;
  std::string api_version;  // the application's
  std::string kind;
  std::string job_id;  // "" when the app has none
  bool as_secret = false;
};

// The ConfigMap (or Secret, its data base64) to create.
std::string KeptRecordJson(const RecordOwner& owner, const KeptRecord& record);
// A ConfigMap or Secret made by KeptRecordJson, as the API server returns it. INVALID_ARGUMENT
// when it isn't one.
absl::StatusOr<KeptRecord> ParseKeptRecord(const rapidjson::Value& object);

// The lines Output answers from a record: the last `max_lines` within `max_bytes` (both > 0),
// without their stamps.
spark::LogTailResult KeptTail(const KeptRecord& record, int64_t max_lines, int64_t max_bytes);

// The last `max` Events of `events` (oldest first), and whether some were left out.
std::vector<k8s::Event> LastEvents(std::vector<k8s::Event> events, size_t max, bool* truncated);

// The termination message as the record and JobInfo keep it: at most this many bytes, the last
// ones (a stack trace's end says most), on a UTF-8 boundary.
inline constexpr size_t kMaxTerminationMessageBytes = 2048;
std::string CapTerminationMessage(std::string_view message);

}  // namespace kje::executor
