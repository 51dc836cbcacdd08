#include "spark/monitoring.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::spark {

absl::Status ParseMonitoringExpose(std::string_view text, std::string_view what,
                                   Monitoring& monitoring) {
  bool driver = false;
  bool executor = false;
  bool none = false;
  for (absl::string_view part : absl::StrSplit(ToAbsl(text), ',')) {
    absl::string_view word = absl::StripAsciiWhitespace(part);
    if (word.empty()) continue;
    if (word == "driver") {
      driver = true;
    } else if (word == "executor") {
      executor = true;
    } else if (word == "none") {
      none = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(what), " must list driver, executor or both (comma-separated), or be none, not ",
          QuoteBounded(text)));
    }
  }
  if (none && (driver || executor)) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(what), " can't be none together with driver or executor: ", QuoteBounded(text)));
  }
  monitoring.driver = driver;
  monitoring.executor = executor;
  return absl::OkStatus();
}

absl::StatusOr<Monitoring> ResolveMonitoring(
    const std::map<std::string, std::string>& custom_fields, const Monitoring& deployment,
    std::string_view template_name) {
  Monitoring monitoring = deployment;
  auto it = custom_fields.find(std::string(kCustomFieldMonitoring));
  if (it == custom_fields.end() || IsBlank(it->second)) return monitoring;
  absl::Status parsed =
      ParseMonitoringExpose(it->second,
                            absl::StrCat("The custom field ", ToAbsl(kCustomFieldMonitoring),
                                         " of job template ", ToAbsl(template_name)),
                            monitoring);
  if (!parsed.ok()) return parsed;
  return monitoring;
}

}  // namespace kje::spark
