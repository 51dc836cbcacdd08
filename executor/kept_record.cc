#include "executor/kept_record.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "base/utf8.h"
#include "spark/json_util.h"
#include "spark/json_writer.h"
#include "spark/log_cursor.h"
#include "spark/names.h"

namespace kje::executor {

namespace {

namespace jw = spark::json;

// The record's data keys.
constexpr std::string_view kLogKey = "log";
constexpr std::string_view kMetaKey = "record";
constexpr std::string_view kEventsKey = "events";

void WriteData(jw::Writer& w, std::string_view key, std::string_view value, bool as_secret) {
  if (as_secret) {
    jw::KeyStr(w, key, absl::Base64Escape(ToAbsl(value)));
  } else {
    jw::KeyStr(w, key, value);
  }
}

std::string MetaJson(const KeptRecord& record) {
  rapidjson::StringBuffer buffer;
  jw::Writer w(buffer);
  w.StartObject();
  jw::KeyStr(w, "pod", record.pod_name);
  jw::KeyStr(w, "podUid", record.pod_uid);
  jw::Key(w, "truncated");
  w.Bool(record.truncated);
  if (record.exit_code) jw::KeyInt(w, "exitCode", *record.exit_code);
  jw::KeyStr(w, "terminationMessage", record.termination_message);
  jw::Key(w, "eventsTruncated");
  w.Bool(record.events_truncated);
  jw::KeyStr(w, "notKept", NotKeptCode(record.not_kept));
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string EventsJson(const std::vector<k8s::Event>& events) {
  rapidjson::StringBuffer buffer;
  jw::Writer w(buffer);
  w.StartArray();
  for (const k8s::Event& e : events) {
    w.StartObject();
    jw::KeyStr(w, "name", e.name);
    jw::KeyStr(w, "kind", e.object_kind);
    jw::KeyStr(w, "object", e.object_name);
    jw::KeyStr(w, "reason", e.reason);
    jw::KeyStr(w, "type", e.type);
    jw::KeyStr(w, "message", e.message);
    jw::KeyInt(w, "count", e.count);
    jw::KeyStr(w, "source", e.source);
    if (e.first_seen) jw::KeyInt(w, "first", absl::ToUnixMillis(*e.first_seen));
    if (e.last_seen) jw::KeyInt(w, "last", absl::ToUnixMillis(*e.last_seen));
    w.EndObject();
  }
  w.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

// Anyone who may write ConfigMaps or Secrets in the job's namespace may write the record: what
// it says is read as outside text, made valid UTF-8 for the answers' protobuf strings.
std::string Text(const rapidjson::Value* object, std::string_view key) {
  return ToValidUtf8(spark::json::String(object, key).value_or(""));
}

// A time an answer's Timestamp can carry (years 1 to 9999), else none.
std::optional<absl::Time> MillisTime(const rapidjson::Value* object, std::string_view key) {
  auto millis = spark::json::Int(object, key);
  constexpr int64_t kFirst = int64_t{-62135596800} * 1000;
  constexpr int64_t kLast = int64_t{253402300799} * 1000;
  if (!millis || *millis < kFirst || *millis > kLast) return std::nullopt;
  return absl::FromUnixMillis(*millis);
}

bool Bool(const rapidjson::Value* object, std::string_view key) {
  const rapidjson::Value* v = spark::json::Member(object, key);
  return v != nullptr && v->IsBool() && v->GetBool();
}

absl::Status Unreadable(std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("not a kept record: ", ToAbsl(what)));
}

}  // namespace

std::string KeptRecordName(std::string_view app_name) {
  return absl::StrCat(ToAbsl(app_name), "-kept");
}

std::string_view NotKeptCode(NotKept why) {
  switch (why) {
    case NotKept::kNo:
      return "";
    case NotKept::kPodGone:
      return "pod-gone";
    case NotKept::kLogUnreadable:
      return "log-unreadable";
    case NotKept::kNoDriver:
      return "no-driver";
  }
  return "";
}

NotKept NotKeptFromCode(std::string_view code) {
  for (NotKept why : {NotKept::kPodGone, NotKept::kLogUnreadable, NotKept::kNoDriver}) {
    if (code == NotKeptCode(why)) return why;
  }
  return NotKept::kNo;
}

std::string_view NotKeptNote(NotKept why) {
  switch (why) {
    case NotKept::kNo:
      return "";
    case NotKept::kPodGone:
      return "the driver pod was deleted before any replica of the service could read its log";
    case NotKept::kLogUnreadable:
      return "the driver pod's log could not be read when the job ended";
    case NotKept::kNoDriver:
      return "the job ended without a driver pod";
  }
  return "";
}

std::string KeptRecordJson(const RecordOwner& owner, const KeptRecord& record) {
  rapidjson::StringBuffer buffer;
  jw::Writer w(buffer);
  w.StartObject();
  jw::KeyStr(w, "apiVersion", "v1");
  jw::KeyStr(w, "kind", owner.as_secret ? "Secret" : "ConfigMap");
  jw::Key(w, "metadata");
  w.StartObject();
  jw::KeyStr(w, "name", KeptRecordName(owner.app_name));
  jw::KeyStr(w, "namespace", owner.namespace_);
  jw::Key(w, "labels");
  w.StartObject();
  jw::KeyStr(w, spark::kLabelManagedBy, spark::kManagedByGravitino);
  jw::KeyStr(w, kLabelKeptFor, owner.app_name);
  if (!owner.job_id.empty()) jw::KeyStr(w, spark::kLabelJobId, owner.job_id);
  w.EndObject();
  // Owned, not controlled: the garbage collector removes it with the application, and nothing
  // waits for it when the application is deleted in the foreground.
  jw::Key(w, "ownerReferences");
  w.StartArray();
  w.StartObject();
  jw::KeyStr(w, "apiVersion", owner.api_version);
  jw::KeyStr(w, "kind", owner.kind);
  jw::KeyStr(w, "name", owner.app_name);
  jw::KeyStr(w, "uid", owner.app_uid);
  w.EndObject();
  w.EndArray();
  w.EndObject();  // metadata
  if (owner.as_secret) jw::KeyStr(w, "type", "Opaque");
  jw::Key(w, "data");
  w.StartObject();
  std::string log = absl::StrJoin(record.stamped_lines, "\n");
  if (!log.empty()) log += "\n";
  WriteData(w, kLogKey, log, owner.as_secret);
  WriteData(w, kMetaKey, MetaJson(record), owner.as_secret);
  WriteData(w, kEventsKey, EventsJson(record.events), owner.as_secret);
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

absl::StatusOr<KeptRecord> ParseKeptRecord(const rapidjson::Value& object) {
  if (!object.IsObject()) return Unreadable("not an object");
  const std::string kind = Text(&object, "kind");
  const bool secret = kind == "Secret";
  const rapidjson::Value* data = spark::json::Member(&object, "data");
  if (data == nullptr || !data->IsObject()) return Unreadable("no data");
  auto value = [&](std::string_view key) -> std::optional<std::string> {
    auto text = spark::json::String(data, key);
    if (!text) return std::nullopt;
    if (!secret) return std::string(*text);
    std::string decoded;
    if (!absl::Base64Unescape(ToAbsl(*text), &decoded)) return std::nullopt;
    return decoded;
  };
  auto meta_text = value(kMetaKey);
  if (!meta_text) return Unreadable("no record");
  rapidjson::Document meta;
  meta.Parse(meta_text->data(), meta_text->size());
  if (meta.HasParseError() || !meta.IsObject()) return Unreadable("an unreadable record");
  KeptRecord out;
  out.pod_name = Text(&meta, "pod");
  out.pod_uid = Text(&meta, "podUid");
  out.truncated = Bool(&meta, "truncated");
  auto code = spark::json::Int(&meta, "exitCode");
  if (code && *code >= INT32_MIN && *code <= INT32_MAX) out.exit_code = static_cast<int32_t>(*code);
  out.termination_message = CapTerminationMessage(Text(&meta, "terminationMessage"));
  out.events_truncated = Bool(&meta, "eventsTruncated");
  out.not_kept = NotKeptFromCode(Text(&meta, "notKept"));
  if (auto log = value(kLogKey)) {
    for (absl::string_view line : absl::StrSplit(*log, '\n', absl::SkipEmpty())) {
      out.stamped_lines.push_back(ToValidUtf8(ToStd(line)));
    }
  }
  if (auto events_text = value(kEventsKey)) {
    rapidjson::Document events;
    events.Parse(events_text->data(), events_text->size());
    if (!events.HasParseError() && events.IsArray()) {
      for (const rapidjson::Value& e : events.GetArray()) {
        k8s::Event event;
        event.name = Text(&e, "name");
        event.object_kind = Text(&e, "kind");
        event.object_name = Text(&e, "object");
        event.reason = Text(&e, "reason");
        event.type = Text(&e, "type");
        event.message = Text(&e, "message");
        event.count = std::max<int64_t>(spark::json::Int(&e, "count").value_or(1), 1);
        event.source = Text(&e, "source");
        event.first_seen = MillisTime(&e, "first");
        event.last_seen = MillisTime(&e, "last");
        out.events.push_back(std::move(event));
      }
    }
  }
  return out;
}

spark::LogTailResult KeptTail(const KeptRecord& record, int64_t max_lines, int64_t max_bytes) {
  spark::LogTailResult out;
  size_t bytes = 0;
  const size_t line_cap = static_cast<size_t>(std::max<int64_t>(max_lines, 0));
  const size_t byte_cap = static_cast<size_t>(std::max<int64_t>(max_bytes, 0));
  std::vector<std::string> reversed;
  for (auto it = record.stamped_lines.rbegin(); it != record.stamped_lines.rend(); ++it) {
    auto stamped = spark::SplitStamp(*it);
    std::string_view text = stamped ? stamped->text : std::string_view(*it);
    // Each line costs its bytes and its line feed, as in the log.
    if (reversed.size() == line_cap || bytes + text.size() + 1 > byte_cap) {
      out.truncated = true;
      break;
    }
    bytes += text.size() + 1;
    reversed.emplace_back(text);
  }
  out.truncated = out.truncated || record.truncated;
  out.lines.assign(std::make_move_iterator(reversed.rbegin()),
                   std::make_move_iterator(reversed.rend()));
  return out;
}

std::vector<k8s::Event> LastEvents(std::vector<k8s::Event> events, size_t max, bool* truncated) {
  k8s::SortOldestFirst(events);
  *truncated = events.size() > max;
  if (events.size() > max) events.erase(events.begin(), events.end() - static_cast<long>(max));
  return events;
}

std::string CapTerminationMessage(std::string_view message) {
  if (message.size() <= kMaxTerminationMessageBytes) return std::string(message);
  size_t start = message.size() - kMaxTerminationMessageBytes;
  // Skip continuation bytes so the kept text starts on a character.
  while (start < message.size() && (static_cast<unsigned char>(message[start]) & 0xC0) == 0x80) {
    ++start;
  }
  return std::string(message.substr(start));
}

}  // namespace kje::executor
