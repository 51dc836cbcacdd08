// Output, Events and Status read a job's kept record back from a ConfigMap or Secret in the job's
// namespace: anyone allowed to write those there can fill it with anything. Input: the object's
// JSON, optionally a `%%` line and two bytes (the lines and bytes Output asks for).
// Invariants: reading never fails on an object but says "not a kept record"; what it reads is
// valid UTF-8 (answers are protobuf strings), a termination message stays within its cap, an
// Event has a count of at least one and times an answer's Timestamp can carry; what it reads is
// written back by KeptRecordJson (ConfigMap and Secret) to the same record; and the tail Output
// answers stays within the lines and bytes asked for.

#include <cstdint>
#include <string>
#include <vector>

#include "executor/kept_record.h"
#include "fuzz/fuzz_check.h"
#include "rapidjson/document.h"

namespace {

using kje::executor::KeptRecord;
using kje::fuzz::IsValidUtf8;

bool InTimestampRange(const std::optional<absl::Time>& t) {
  return !t ||
         (*t >= absl::FromUnixSeconds(-62135596800) && *t <= absl::FromUnixSeconds(253402300799));
}

bool SameRecord(const KeptRecord& a, const KeptRecord& b) {
  if (a.pod_name != b.pod_name || a.pod_uid != b.pod_uid || a.stamped_lines != b.stamped_lines ||
      a.truncated != b.truncated || a.exit_code != b.exit_code ||
      a.termination_message != b.termination_message || a.events_truncated != b.events_truncated ||
      a.not_kept != b.not_kept || a.events.size() != b.events.size()) {
    return false;
  }
  for (size_t i = 0; i < a.events.size(); ++i) {
    const auto& x = a.events[i];
    const auto& y = b.events[i];
    if (x.name != y.name || x.object_kind != y.object_kind || x.object_name != y.object_name ||
        x.reason != y.reason || x.type != y.type || x.message != y.message || x.count != y.count ||
        x.source != y.source || x.first_seen != y.first_seen || x.last_seen != y.last_seen) {
      return false;
    }
  }
  return true;
}

void CheckRead(const KeptRecord& record) {
  FUZZ_CHECK(IsValidUtf8(record.pod_name) && IsValidUtf8(record.pod_uid));
  FUZZ_CHECK(record.termination_message.size() <= kje::executor::kMaxTerminationMessageBytes);
  FUZZ_CHECK(IsValidUtf8(record.termination_message));
  for (const std::string& line : record.stamped_lines) {
    FUZZ_CHECK(IsValidUtf8(line) && line.find('\n') == std::string::npos);
  }
  for (const auto& e : record.events) {
    FUZZ_CHECK(e.count >= 1);
    FUZZ_CHECK(InTimestampRange(e.first_seen) && InTimestampRange(e.last_seen));
    for (const std::string* text :
         {&e.name, &e.object_kind, &e.object_name, &e.reason, &e.type, &e.message, &e.source}) {
      FUZZ_CHECK(IsValidUtf8(*text));
    }
  }
}

void CheckRoundTrip(const KeptRecord& record, bool as_secret) {
  kje::executor::RecordOwner owner;
  owner.namespace_ = "spark-jobs";
  owner.app_name = "gravitino-job-1";
  owner.app_uid = "3c8e6a3e-0000-4000-8000-000000000001";
  owner.api_version = "sparkoperator.k8s.io/v1beta2";
  owner.kind = "SparkApplication";
  owner.job_id = "1";
  owner.as_secret = as_secret;
  std::string written = kje::executor::KeptRecordJson(owner, record);
  rapidjson::Document doc;
  doc.Parse(written.data(), written.size());
  FUZZ_CHECK(!doc.HasParseError());
  auto back = kje::executor::ParseKeptRecord(doc);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(SameRecord(*back, record));
}

void CheckTail(const KeptRecord& record, int64_t max_lines, int64_t max_bytes) {
  auto tail = kje::executor::KeptTail(record, max_lines, max_bytes);
  FUZZ_CHECK(static_cast<int64_t>(tail.lines.size()) <= max_lines);
  int64_t bytes = 0;
  for (const std::string& line : tail.lines) {
    FUZZ_CHECK(IsValidUtf8(line));
    bytes += static_cast<int64_t>(line.size()) + 1;
  }
  FUZZ_CHECK(bytes <= max_bytes);
  if (tail.lines.size() < record.stamped_lines.size()) FUZZ_CHECK(tail.truncated);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  rapidjson::Document object;
  object.Parse(parts[0].data(), parts[0].size());
  if (object.HasParseError()) return 0;
  auto record = kje::executor::ParseKeptRecord(object);
  if (!record.ok()) {
    FUZZ_CHECK(record.status().code() == absl::StatusCode::kInvalidArgument);
    FUZZ_CHECK(std::string_view(record.status().message().data(), record.status().message().size())
                   .starts_with("not a kept record: "));
    return 0;
  }
  CheckRead(*record);
  CheckRoundTrip(*record, false);
  CheckRoundTrip(*record, true);
  int64_t max_lines = 1000;
  int64_t max_bytes = 262144;
  if (parts.size() > 1 && parts[1].size() >= 2) {
    max_lines = 1 + static_cast<unsigned char>(parts[1][0]) % 16;
    max_bytes = 1 + static_cast<unsigned char>(parts[1][1]);
  }
  CheckTail(*record, max_lines, max_bytes);
  return 0;
}
