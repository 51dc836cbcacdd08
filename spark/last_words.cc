#include "spark/last_words.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "spark/names.h"

namespace kje::spark {
namespace {

using rapidjson::Document;
using rapidjson::Value;

Value& Ensure(Value& object, const char* key, rapidjson::Type type,
              Document::AllocatorType& alloc) {
  if (!object.HasMember(key) || object[key].GetType() != type) {
    object.RemoveMember(key);
    object.AddMember(Value(key, alloc), Value(type), alloc);
  }
  return object[key];
}

// A line that goes on the one before it: a Java stack frame or "... N more", a Python
// traceback's frame and source lines.
bool IsContinuation(std::string_view line) {
  return !line.empty() && (line.front() == ' ' || line.front() == '\t');
}

// A log line at a level that reports, not complains: "yy/MM/dd HH:mm:ss LEVEL logger: text",
// Spark's log4j layout.
bool IsChatter(std::string_view line) {
  const size_t date_end = line.find(' ');
  if (date_end == std::string_view::npos || line.substr(0, date_end).find('/') == line.npos) {
    return false;
  }
  const size_t time_end = line.find(' ', date_end + 1);
  if (time_end == std::string_view::npos ||
      line.substr(date_end + 1, time_end - date_end - 1).find(':') == line.npos) {
    return false;
  }
  const std::string_view rest = line.substr(time_end + 1);
  for (std::string_view level : {"INFO ", "DEBUG ", "TRACE "}) {
    if (rest.starts_with(level)) return true;
  }
  return false;
}

std::string_view Trimmed(std::string_view text) {
  return ToStd(absl::StripAsciiWhitespace(ToAbsl(text)));
}

// The last `max` bytes of `text`, starting on a UTF-8 boundary.
std::string_view LastBytes(std::string_view text, size_t max) {
  if (text.size() <= max) return text;
  size_t start = text.size() - max;
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
  return text.substr(start);
}

}  // namespace

std::string WithTerminationFallback(std::string_view driver_template) {
  Document doc;
  if (!driver_template.empty()) doc.Parse(driver_template.data(), driver_template.size());
  if (driver_template.empty() || doc.HasParseError() || !doc.IsObject()) doc.SetObject();
  auto& alloc = doc.GetAllocator();
  Value& spec = Ensure(doc, "spec", rapidjson::kObjectType, alloc);
  Value& containers = Ensure(spec, "containers", rapidjson::kArrayType, alloc);
  if (containers.Empty()) {
    Value spark(rapidjson::kObjectType);
    spark.AddMember("name",
                    Value(kDriverContainerName.data(),
                          static_cast<rapidjson::SizeType>(kDriverContainerName.size())),
                    alloc);
    containers.PushBack(spark, alloc);
  }
  Value& spark = containers[0];
  if (spark.IsObject() && !spark.HasMember("terminationMessagePolicy")) {
    spark.AddMember("terminationMessagePolicy",
                    Value(kFallbackToLogsOnError.data(),
                          static_cast<rapidjson::SizeType>(kFallbackToLogsOnError.size())),
                    alloc);
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  doc.Accept(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string LastWords(std::string_view termination_message) {
  std::string_view fallback;
  size_t end = termination_message.size();
  while (end > 0) {
    size_t nl = termination_message.rfind('\n', end - 1);
    const size_t start = nl == std::string_view::npos ? 0 : nl + 1;
    const std::string_view line = termination_message.substr(start, end - start);
    const std::string_view trimmed = Trimmed(line);
    if (!trimmed.empty()) {
      if (fallback.empty()) fallback = trimmed;
      if (!IsContinuation(line) && !IsChatter(trimmed)) {
        return std::string(LastBytes(trimmed, kMaxLastWordsBytes));
      }
    }
    if (nl == std::string_view::npos) break;
    end = nl;
  }
  return std::string(Trimmed(LastBytes(fallback, kMaxLastWordsBytes)));
}

std::string WithLastWords(std::string message, JobStatus status, std::string_view last_words,
                          std::optional<int32_t> exit_code) {
  if (status != JobStatus::kFailed) return message;
  const std::string_view words = Trimmed(LastBytes(last_words, kMaxLastWordsBytes));
  if (words.empty() || absl::StrContains(message, ToAbsl(words))) return message;
  const std::string said = exit_code
                               ? absl::StrCat("driver exit code ", *exit_code, ": ", ToAbsl(words))
                               : absl::StrCat("driver: ", ToAbsl(words));
  return message.empty() ? said : absl::StrCat(message, "; ", said);
}

}  // namespace kje::spark
