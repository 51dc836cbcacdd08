// A job's pod templates come from its custom fields: JSON or YAML a catalog's user wrote, read
// by the service before anything is created. Input: "%%"-separated parts, taken as alternating
// custom field keys and values.
// Invariants: a refusal is bounded and holds no control byte; an accepted template is a JSON
// object whose first container is Spark's, for each role that customises anything.

#include <map>
#include <string>
#include <vector>

#include "base/quote.h"
#include "base/strings.h"
#include "fuzz/fuzz_check.h"
#include "rapidjson/document.h"
#include "spark/pod_spec_rules.h"
#include "spark/pod_template.h"

namespace {

void CheckRole(const std::string& json, kje::spark::PodRole role) {
  if (json.empty()) return;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  FUZZ_CHECK(!doc.HasParseError() && doc.IsObject());
  auto spec = doc.FindMember("spec");
  FUZZ_CHECK(spec != doc.MemberEnd() && spec->value.IsObject());
  auto containers = spec->value.FindMember("containers");
  FUZZ_CHECK(containers != spec->value.MemberEnd() && containers->value.IsArray() &&
             !containers->value.Empty() && containers->value[0].IsObject());
  auto name = containers->value[0].FindMember("name");
  FUZZ_CHECK(name != containers->value[0].MemberEnd() && name->value.IsString() &&
             std::string_view(name->value.GetString()) == kje::spark::SparkContainerName(role));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  std::map<std::string, std::string> fields;
  for (size_t i = 0; i + 1 < parts.size(); i += 2) {
    fields[std::string(parts[i])] = std::string(parts[i + 1]);
  }
  for (std::string_view env_secret : {std::string_view(), std::string_view("job-env")}) {
    auto templates = kje::spark::ResolvePodTemplates(fields, env_secret, "\"t\"");
    if (!templates.ok()) {
      FUZZ_CHECK_ANSWERABLE(kje::ToStd(templates.status().message()));
      continue;
    }
    CheckRole(templates->driver, kje::spark::PodRole::kDriver);
    CheckRole(templates->executor, kje::spark::PodRole::kExecutor);
  }
  return 0;
}
