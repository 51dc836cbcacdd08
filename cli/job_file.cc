#include "cli/job_file.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace kje::cli {
namespace {

using jobexecutor::v1::JobTemplate;
using jobexecutor::v1::SubmitRequest;

// A job file is a few kilobytes; anything this big is the wrong file.
constexpr std::streamsize kMaxJobFileBytes = 1 << 20;

// A path through nested maps of a pod template can be long (32 levels of 64-byte keys): its
// start says where, and the message stays within what a terminal line and the fuzz target take.
constexpr size_t kMaxPathBytes = 512;

absl::Status Error(const std::string& path, const std::string& rule) {
  return absl::InvalidArgumentError(absl::StrCat(BoundMessage(path, kMaxPathBytes), ": ", rule));
}

// The path of `key` under `parent`: a key the user wrote may hold any bytes.
std::string Join(const std::string& parent, const std::string& key) {
  return parent.empty() ? NameInPath(key) : absl::StrCat(parent, ".", NameInPath(key));
}

// "class_name" → "className": the proto field name to its JSON name.
std::string CamelCase(const std::string& key) {
  std::string out;
  bool upper = false;
  for (char c : key) {
    if (c == '_') {
      upper = true;
    } else {
      out.push_back(upper ? absl::ascii_toupper(c) : c);
      upper = false;
    }
  }
  return out;
}

// Checks that `node` is a map whose keys are all in `known` (camelCase, snake_case accepted),
// and returns it keyed by the camelCase names.
absl::StatusOr<std::map<std::string, YAML::Node>> Fields(const YAML::Node& node,
                                                         const std::string& path,
                                                         const std::vector<std::string>& known) {
  if (!node.IsMap()) {
    return Error(path.empty() ? "<document>" : path, "must be a map");
  }
  std::map<std::string, YAML::Node> out;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      return Error(path.empty() ? "<document>" : path, "keys must be strings");
    }
    std::string raw = entry.first.as<std::string>();
    std::string key = CamelCase(raw);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return Error(Join(path, raw),
                   absl::StrCat("unknown key (expected one of: ", absl::StrJoin(known, ", "), ")"));
    }
    if (out.count(key)) return Error(Join(path, raw), "given twice");
    out[key] = entry.second;
  }
  return out;
}

absl::StatusOr<std::string> String(const YAML::Node& node, const std::string& path) {
  if (node.IsNull()) return std::string();
  if (!node.IsScalar()) return Error(path, "must be a string");
  return node.as<std::string>();
}

absl::Status StringList(const YAML::Node& node, const std::string& path,
                        google::protobuf::RepeatedPtrField<std::string>* out) {
  if (node.IsNull()) return absl::OkStatus();
  if (!node.IsSequence()) return Error(path, "must be a list of strings");
  size_t i = 0;
  for (const auto& item : node) {
    if (!item.IsScalar()) {
      return Error(absl::StrCat(path, "[", i, "]"), "must be a string");
    }
    out->Add(item.as<std::string>());
    ++i;
  }
  return absl::OkStatus();
}

absl::Status StringMap(const YAML::Node& node, const std::string& path,
                       google::protobuf::Map<std::string, std::string>* out) {
  if (node.IsNull()) return absl::OkStatus();
  if (!node.IsMap()) return Error(path, "must be a map of strings");
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) return Error(path, "keys must be strings");
    std::string key = entry.first.as<std::string>();
    // Dotted Spark keys stay whole: `spark.executor.instances: 2`, never nested maps.
    if (!entry.second.IsScalar() && !entry.second.IsNull()) {
      return Error(Join(path, key), "must be a string");
    }
    if (out->count(key)) return Error(Join(path, key), "given twice");
    (*out)[key] = entry.second.IsNull() ? "" : entry.second.as<std::string>();
  }
  return absl::OkStatus();
}

absl::Status ParseSpark(const YAML::Node& node, const std::string& path,
                        jobexecutor::v1::SparkJob* spark) {
  if (node.IsNull()) return absl::OkStatus();  // `spark:` alone: a Spark job with no extras
  ASSIGN_OR_RETURN(auto fields,
                   Fields(node, path, {"className", "jars", "files", "archives", "configs"}));
  for (const auto& [key, value] : fields) {
    std::string p = Join(path, key);
    if (key == "className") {
      ASSIGN_OR_RETURN(*spark->mutable_class_name(), String(value, p));
    } else if (key == "jars") {
      RETURN_IF_ERROR(StringList(value, p, spark->mutable_jars()));
    } else if (key == "files") {
      RETURN_IF_ERROR(StringList(value, p, spark->mutable_files()));
    } else if (key == "archives") {
      RETURN_IF_ERROR(StringList(value, p, spark->mutable_archives()));
    } else {
      RETURN_IF_ERROR(StringMap(value, p, spark->mutable_configs()));
    }
  }
  return absl::OkStatus();
}

// A YAML node as JSON, typed as YAML 1.2's core schema types plain scalars (true/false, null,
// integers, floats); a quoted scalar stays a string. For the pod templates, which the service
// reads as JSON.
absl::Status ToJson(const YAML::Node& node, const std::string& path, int depth,
                    rapidjson::Writer<rapidjson::StringBuffer>& w) {
  if (depth > 32) return Error(path, "is nested too deeply");
  switch (node.Type()) {
    case YAML::NodeType::Map:
      w.StartObject();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) return Error(path, "keys must be strings");
        const std::string key = entry.first.as<std::string>();
        w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
        RETURN_IF_ERROR(ToJson(entry.second, Join(path, key), depth + 1, w));
      }
      w.EndObject();
      return absl::OkStatus();
    case YAML::NodeType::Sequence:
      w.StartArray();
      for (size_t i = 0; i < node.size(); ++i) {
        RETURN_IF_ERROR(ToJson(node[i], absl::StrCat(path, "[", i, "]"), depth + 1, w));
      }
      w.EndArray();
      return absl::OkStatus();
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() != "!") {  // plain, not quoted
        int64_t i = 0;
        double d = 0;
        if (text == "true" || text == "false") return w.Bool(text == "true"), absl::OkStatus();
        if (text == "null" || text == "~") return w.Null(), absl::OkStatus();
        if (absl::SimpleAtoi(text, &i)) return w.Int64(i), absl::OkStatus();
        if (text.find_first_of("0123456789") != std::string::npos &&
            text.find_first_not_of("0123456789+-.eE") == std::string::npos &&
            absl::SimpleAtod(text, &d)) {
          return w.Double(d), absl::OkStatus();
        }
      }
      w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
      return absl::OkStatus();
    }
    default:
      w.Null();
      return absl::OkStatus();
  }
}

// `pod:` — the pod templates as the service's custom fields take them: `driver`, `executor`, or
// `all` for both (podTemplate.driver, podTemplate.executor, podTemplate), each written as a
// core/v1 PodTemplateSpec in YAML rather than as a JSON string.
absl::Status ParsePod(const YAML::Node& node, const std::string& path, JobTemplate* t) {
  ASSIGN_OR_RETURN(auto fields, Fields(node, path, {"all", "driver", "executor"}));
  for (const auto& [key, value] : fields) {
    const std::string field = key == "all" ? "podTemplate" : absl::StrCat("podTemplate.", key);
    if (t->custom_fields().count(field)) {
      return Error(Join(path, key), absl::StrCat("and customFields.", field, " are both given"));
    }
    if (!value.IsMap()) return Error(Join(path, key), "must be a map (a PodTemplateSpec)");
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    RETURN_IF_ERROR(ToJson(value, Join(path, key), 0, w));
    (*t->mutable_custom_fields())[field] = std::string(buffer.GetString(), buffer.GetSize());
  }
  return absl::OkStatus();
}

absl::Status ParseTemplate(const YAML::Node& node, const std::string& path, JobTemplate* t) {
  ASSIGN_OR_RETURN(auto fields, Fields(node, path,
                                       {"name", "comment", "executable", "arguments",
                                        "environments", "customFields", "pod", "spark", "shell"}));
  if (fields.count("spark") && fields.count("shell")) {
    return Error(path, "has both spark and shell; a job is one or the other");
  }
  for (const auto& [key, value] : fields) {
    std::string p = Join(path, key);
    if (key == "name") {
      ASSIGN_OR_RETURN(*t->mutable_name(), String(value, p));
    } else if (key == "comment") {
      ASSIGN_OR_RETURN(*t->mutable_comment(), String(value, p));
    } else if (key == "executable") {
      ASSIGN_OR_RETURN(*t->mutable_executable(), String(value, p));
    } else if (key == "arguments") {
      RETURN_IF_ERROR(StringList(value, p, t->mutable_arguments()));
    } else if (key == "environments") {
      RETURN_IF_ERROR(StringMap(value, p, t->mutable_environments()));
    } else if (key == "customFields") {
      RETURN_IF_ERROR(StringMap(value, p, t->mutable_custom_fields()));
    } else if (key == "pod") {
      continue;  // after customFields, whose podTemplate fields it mustn't silently replace
    } else if (key == "spark") {
      RETURN_IF_ERROR(ParseSpark(value, p, t->mutable_spark()));
    } else {
      if (value.IsNull()) {
        t->mutable_shell();
        continue;
      }
      ASSIGN_OR_RETURN(auto shell, Fields(value, p, {"scripts"}));
      t->mutable_shell();
      if (shell.count("scripts")) {
        RETURN_IF_ERROR(StringList(shell["scripts"], Join(p, "scripts"),
                                   t->mutable_shell()->mutable_scripts()));
      }
    }
  }
  if (fields.count("pod")) RETURN_IF_ERROR(ParsePod(fields["pod"], Join(path, "pod"), t));
  // Most jobs are Spark jobs; saying so shouldn't be required.
  if (!t->has_spark() && !t->has_shell()) t->mutable_spark();
  return absl::OkStatus();
}

// Reads one byte more than the limit, so an oversized input is recognised as such.
std::string ReadBounded(std::istream& in) {
  std::string text(static_cast<size_t>(kMaxJobFileBytes) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

}  // namespace

absl::Status ValidateSubmitRequest(const SubmitRequest& request) {
  if (IsBlank(request.job_id())) return Error("jobId", "is required");
  if (IsBlank(request.metalake())) return Error("metalake", "is required");
  if (!request.has_template_()) return Error("template", "is required");
  if (IsBlank(request.template_().name())) return Error("template.name", "is required");
  if (IsBlank(request.template_().executable())) {
    return Error("template.executable", "is required");
  }
  return absl::OkStatus();
}

absl::StatusOr<SubmitRequest> ParseJobFile(const std::string& text, std::string_view origin,
                                           JobFileChecks checks) {
  auto fail = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(origin), ": ", s.message()));
  };
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return fail(
        absl::InvalidArgumentError(absl::StrCat("not valid YAML: ", EscapeBounded(e.what()))));
  }
  if (root.IsNull()) return fail(absl::InvalidArgumentError("empty job file"));
  SubmitRequest request;
  try {
    auto fields = Fields(root, "", {"jobId", "metalake", "template"});
    if (!fields.ok()) return fail(fields.status());
    for (const auto& [key, value] : *fields) {
      absl::Status s;
      if (key == "jobId") {
        auto v = String(value, key);
        if (v.ok()) request.set_job_id(*v);
        s = v.status();
      } else if (key == "metalake") {
        auto v = String(value, key);
        if (v.ok()) request.set_metalake(*v);
        s = v.status();
      } else {
        s = ParseTemplate(value, key, request.mutable_template_());
      }
      if (!s.ok()) return fail(s);
    }
  } catch (const YAML::Exception& e) {
    return fail(absl::InvalidArgumentError(EscapeBounded(e.what())));
  }
  if (checks == JobFileChecks::kComplete) {
    if (absl::Status s = ValidateSubmitRequest(request); !s.ok()) return fail(s);
  }
  return request;
}

absl::StatusOr<SubmitRequest> LoadJobFile(const std::string& path, JobFileChecks checks) {
  std::string text;
  if (path == "-") {
    text = ReadBounded(std::cin);
  } else {
    std::ifstream f(path, std::ios::binary);
    if (!f) return absl::InvalidArgumentError(absl::StrCat(path, ": can't read the job file"));
    text = ReadBounded(f);
  }
  if (text.size() > static_cast<size_t>(kMaxJobFileBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": larger than ", kMaxJobFileBytes, " bytes; not a job file"));
  }
  return ParseJobFile(text, path == "-" ? "<stdin>" : path, checks);
}

}  // namespace kje::cli
