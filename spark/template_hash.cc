#include "spark/template_hash.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "rapidjson/document.h"

namespace kje::spark {
namespace {

// FNV-1a, 64 bits, over length-prefixed parts: a difference in what a field holds changes its
// hash; a collision would take an adversary, and the caller sending a changed template is the
// only one who benefits from none.
class Hasher {
 public:
  void Part(std::string_view text) {
    Bytes(absl::StrCat(text.size(), ":"));
    Bytes(text);
  }
  void Int(int64_t value) { Part(absl::StrCat(value)); }
  // JSON with every object's members in key order, so that the order they were written in
  // doesn't count.
  void Json(std::string_view text) {
    if (text.empty()) return Part("");
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    if (doc.HasParseError()) return Part(text);
    Value(doc);
  }
  std::string Hex() const { return absl::StrCat(absl::Hex(hash_, absl::kZeroPad16)); }

 private:
  void Bytes(std::string_view text) {
    for (unsigned char c : text) {
      hash_ ^= c;
      hash_ *= 0x100000001b3ULL;
    }
  }
  void Value(const rapidjson::Value& v) {
    if (v.IsObject()) {
      std::vector<const rapidjson::Value::Member*> members;
      for (const auto& m : v.GetObject()) members.push_back(&m);
      std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
        return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
               std::string_view(b->name.GetString(), b->name.GetStringLength());
      });
      Part("{");
      for (const auto* m : members) {
        Part(std::string_view(m->name.GetString(), m->name.GetStringLength()));
        Value(m->value);
      }
      Part("}");
    } else if (v.IsArray()) {
      Part("[");
      for (const auto& item : v.GetArray()) Value(item);
      Part("]");
    } else if (v.IsString()) {
      Part("s");
      Part(std::string_view(v.GetString(), v.GetStringLength()));
    } else if (v.IsBool()) {
      Part(v.GetBool() ? "true" : "false");
    } else if (v.IsNull()) {
      Part("null");
    } else if (v.IsInt64()) {
      Int(v.GetInt64());
    } else if (v.IsUint64()) {
      Part(absl::StrCat(v.GetUint64()));
    } else {
      Part(absl::StrCat(v.GetDouble()));
    }
  }

  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

std::string HashOf(std::initializer_list<std::string_view> parts) {
  Hasher h;
  for (std::string_view part : parts) h.Part(part);
  return h.Hex();
}

std::string HashOf(const std::vector<std::string>& parts) {
  Hasher h;
  h.Int(static_cast<int64_t>(parts.size()));
  for (const std::string& part : parts) h.Part(part);
  return h.Hex();
}

}  // namespace

FieldHashes HashResolvedJob(const ResolvedJob& job) {
  FieldHashes out;
  out.emplace_back("executable", HashOf({job.executable}));
  out.emplace_back("className", HashOf({job.class_name}));
  out.emplace_back("arguments", HashOf(job.arguments));
  out.emplace_back("jars", HashOf(job.jars));
  out.emplace_back("files", HashOf(job.files));
  out.emplace_back("archives", HashOf(job.archives));
  {
    Hasher h;
    for (const auto& [key, value] : job.conf) {  // a sorted map
      h.Part(key);
      h.Part(value.value);
    }
    out.emplace_back("configs", h.Hex());
  }
  out.emplace_back("namespace", HashOf({job.namespace_}));
  out.emplace_back("queue", HashOf({job.queue}));
  {
    Hasher h;
    h.Int(job.deadlines.max_queued_seconds);
    h.Int(job.deadlines.max_run_seconds);
    out.emplace_back("deadlines", h.Hex());
  }
  {
    Hasher h;
    h.Int(job.restart.on_failure);
    h.Int(job.restart.on_failure_retries);
    h.Int(job.restart.on_failure_interval_seconds);
    h.Int(job.restart.submission_retries_set);
    h.Int(job.restart.on_submission_failure_retries);
    h.Int(job.restart.on_submission_failure_interval_seconds);
    out.emplace_back("restartPolicy", h.Hex());
  }
  {
    Hasher h;
    h.Json(job.pod_templates.driver);
    h.Json(job.pod_templates.executor);
    out.emplace_back("podTemplates", h.Hex());
  }
  // The variables' names only: their values are secrets, and never hashed either.
  out.emplace_back("environment", HashOf(job.env_secret.names));
  {
    Hasher h;
    h.Int(job.monitoring.driver);
    h.Int(job.monitoring.executor);
    out.emplace_back("monitoring", h.Hex());
  }
  return out;
}

FieldHashes HashFields(const std::vector<std::pair<std::string, std::string>>& fields) {
  FieldHashes out;
  for (const auto& [name, text] : fields) out.emplace_back(name, HashOf({text}));
  return out;
}

std::string EncodeHashes(const FieldHashes& hashes) {
  std::string out = "v1";
  for (const auto& [field, hash] : hashes) absl::StrAppend(&out, ";", field, ":", hash);
  return out;
}

FieldHashes DecodeHashes(std::string_view text) {
  FieldHashes out;
  if (text.size() > kMaxTemplateHashBytes) return out;
  std::vector<absl::string_view> parts = absl::StrSplit(ToAbsl(text), ';');
  if (parts.empty() || parts[0] != "v1") return out;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(parts[i], ':');
    if (kv.first.empty() || kv.second.empty()) return FieldHashes{};
    out.emplace_back(std::string(kv.first), std::string(kv.second));
  }
  return out;
}

std::vector<std::string> DifferingFields(std::string_view existing, std::string_view wanted) {
  const FieldHashes have = DecodeHashes(existing);
  const FieldHashes want = DecodeHashes(wanted);
  std::vector<std::string> differ;
  for (const auto& [field, hash] : want) {
    for (const auto& [other_field, other_hash] : have) {
      if (other_field == field && other_hash != hash) differ.push_back(field);
    }
  }
  return differ;
}

std::vector<std::string> DifferingSpecFields(const ScheduleSpec& existing,
                                             const ScheduleSpec& wanted) {
  std::vector<std::string> differ;
  if (existing.cron != wanted.cron) differ.push_back("schedule");
  if (existing.time_zone != wanted.time_zone) differ.push_back("time_zone");
  if (existing.concurrency_policy != wanted.concurrency_policy) {
    differ.push_back("concurrency_policy");
  }
  if (existing.successful_run_history_limit != wanted.successful_run_history_limit) {
    differ.push_back("successful_run_history_limit");
  }
  if (existing.failed_run_history_limit != wanted.failed_run_history_limit) {
    differ.push_back("failed_run_history_limit");
  }
  if (existing.suspended != wanted.suspended) differ.push_back("suspend");
  return differ;
}

absl::Status CheckSameTemplate(std::string_view what, std::string_view existing,
                               std::string_view wanted, std::vector<std::string> also) {
  std::vector<std::string> differ = std::move(also);
  for (std::string& field : DifferingFields(existing, wanted)) differ.push_back(std::move(field));
  if (differ.empty()) return absl::OkStatus();
  return absl::AlreadyExistsError(
      absl::StrCat(ToAbsl(what), " exists, made from a different request (it differs in ",
                   absl::StrJoin(differ, ", "),
                   "): a retry must send the same one; use a new id for a different job"));
}

}  // namespace kje::spark
