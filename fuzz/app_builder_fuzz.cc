// A job template reaches the builder from a caller's Submit: every field is outside input. The
// input is one `key=value` per line (values unescape \n, \0 and \\), so mutations stay close to
// what a template can hold:
//   job_id metalake name comment executable class shell arg jar file archive
//   env=K=V custom=K=V conf=K=V

#include <map>
#include <string>
#include <vector>

#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"
#include "fuzz/fuzz_check.h"
#include "rapidjson/document.h"
#include "spark/apache/app_builder.h"

namespace {

constexpr std::string_view kMarker = "S3CR3T";

std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[++i];
      out.push_back(c == 'n' ? '\n' : c == '0' ? '\0' : c == 't' ? '\t' : c);
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::pair<std::string, std::string> KeyValue(std::string_view s) {
  size_t eq = s.find('=');
  if (eq == std::string_view::npos) return {Unescape(s), ""};
  return {Unescape(s.substr(0, eq)), Unescape(s.substr(eq + 1))};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (64 << 10)) return 0;  // a template's size is bounded by the gRPC message limit
  kje::spark::SparkTemplate t;
  std::string job_id = "job-1", metalake = "ml";
  bool marker_outside_env = false;
  std::string_view input = kje::fuzz::AsText(data, size);
  while (!input.empty()) {
    size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    input.remove_prefix(nl == std::string_view::npos ? input.size() : nl + 1);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = line.substr(0, eq);
    std::string_view raw = line.substr(eq + 1);
    std::string value = Unescape(raw);
    std::string visible = key == "env" ? KeyValue(raw).first : value;  // names may be quoted
    if (visible.find(kMarker) != std::string::npos) {
      marker_outside_env = true;
    }
    const std::map<std::string_view, std::string*> strings = {
        {"job_id", &job_id},     {"metalake", &metalake},       {"name", &t.name},
        {"comment", &t.comment}, {"executable", &t.executable}, {"class", &t.class_name}};
    const std::map<std::string_view, std::vector<std::string>*> lists = {
        {"arg", &t.arguments}, {"jar", &t.jars}, {"file", &t.files}, {"archive", &t.archives}};
    const std::map<std::string_view, std::map<std::string, std::string>*> maps = {
        {"env", &t.environments}, {"custom", &t.custom_fields}, {"conf", &t.configs}};
    if (auto it = strings.find(key); it != strings.end()) {
      *it->second = value;
    } else if (auto list = lists.find(key); list != lists.end()) {
      list->second->push_back(value);
    } else if (auto map = maps.find(key); map != maps.end()) {
      map->second->insert(KeyValue(raw));
    } else if (key == "shell") {
      t.is_shell = value == "true";
    }
  }

  kje::spark::BuilderOptions options;
  options.image = "apache/spark:3.5.3";
  options.spark_version = "3.5.3";
  options.conf = {{"spark.executor.instances", "1"}};
  absl::StatusOr<kje::spark::BuiltApplication> built =
      kje::spark::apache::BuildSparkApplication(job_id, metalake, t, options);
  if (!built.ok()) {
    if (std::getenv("KJE_FUZZ_VERBOSE") != nullptr) {  // why a seed is refused
      std::fprintf(stderr, "%s\n", built.status().ToString().c_str());
    }
    // A template the executor can't run is the caller's mistake, with the reason.
    FUZZ_CHECK(absl::IsInvalidArgument(built.status()));
    FUZZ_CHECK(!built.status().message().empty());
    // Every value it quotes is bounded and escaped: the message fits an answer as it is.
    FUZZ_CHECK_ANSWERABLE(kje::ToStd(built.status().message()));
    // Environment values never reach a message: a marker only an env value holds stays out.
    if (!marker_outside_env) {
      FUZZ_CHECK(std::string(built.status().message()).find(kMarker) == std::string::npos);
    }
    return 0;
  }
  FUZZ_CHECK(kje::IsDns1123Label(built->name));
  FUZZ_CHECK(kje::IsDns1123Label(built->namespace_));
  FUZZ_CHECK(built->execution_id.name == built->name);
  FUZZ_CHECK(built->execution_id.namespace_ == built->namespace_);
  absl::StatusOr<kje::spark::ExecutionId> id =
      kje::spark::ExecutionId::Parse(built->execution_id.ToString());
  FUZZ_CHECK(id.ok() && *id == built->execution_id);
  rapidjson::Document doc;
  doc.Parse(built->json.data(), built->json.size());
  FUZZ_CHECK(!doc.HasParseError() && doc.IsObject());
  FUZZ_CHECK(doc.HasMember("metadata") && doc["metadata"].IsObject());
  const rapidjson::Value& metadata = doc["metadata"];
  FUZZ_CHECK(metadata.HasMember("name") && metadata["name"].IsString() &&
             built->name == metadata["name"].GetString());
  FUZZ_CHECK(metadata.HasMember("namespace") && metadata["namespace"].IsString() &&
             built->namespace_ == metadata["namespace"].GetString());

  // The URI helpers see every resource the template names.
  for (const auto* list : {&t.jars, &t.files, &t.archives}) {
    for (const std::string& uri : *list) {
      (void)kje::spark::IsValidUri(uri);
      (void)kje::spark::IsClusterReachable(uri);
      (void)kje::spark::IsPythonResource(uri);
      std::string_view scheme = kje::spark::UriScheme(uri);
      FUZZ_CHECK(scheme.size() < uri.size() || scheme.empty());
    }
  }
  return 0;
}
