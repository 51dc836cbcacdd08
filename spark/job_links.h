#pragma once

// Links out of a job's answer (JobInfo.links): the deployment's URL templates (the Spark UI
// through an ingress, the history server, a log system), each resolved once when the
// configuration loads, so that rendering one for a Status is a few appends and no parsing.
//
// A template is a URL with variables in braces, e.g.
//   https://logs.example/explore?ns={namespace}&from={createdAtMillis}&to={finishedAtMillis}
// `{{` and `}}` stand for literal braces. Each value is percent-encoded where it is inserted
// (everything but RFC 3986's unreserved characters), so a value can't change the URL's shape.
// A link whose variables aren't all known yet (no Spark app id before the operator has one, no
// finish time while the job runs) is left out of the answer rather than rendered half-empty.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kje::spark {

// At most this many templates, each at most kMaxLinkTemplateBytes: links go into every JobInfo.
inline constexpr size_t kMaxLinkTemplates = 16;
inline constexpr size_t kMaxLinkTemplateBytes = 2048;

// What a job offers the templates, borrowed; an empty string or an absent time is "not known".
struct LinkValues {
  std::string_view namespace_;
  std::string_view name;
  std::string_view execution_id;
  std::string_view job_id;
  std::string_view spark_app_id;
  std::string_view driver_pod;
  std::optional<absl::Time> created_at;
  std::optional<absl::Time> started_at;
  std::optional<absl::Time> finished_at;
};

struct JobLink {
  std::string name;
  std::string url;
};

// The variables' names as a template writes them, for documentation and errors:
// namespace, name, executionId, jobId, sparkAppId, driverPod, createdAt, startedAt, finishedAt
// (RFC 3339, UTC), createdAtMillis, startedAtMillis, finishedAtMillis (Unix epoch milliseconds).
std::string_view LinkVariableNames();

class LinkTemplates {
 public:
  LinkTemplates() = default;

  // `named` maps a link's name (a DNS-1123 label: "spark-ui", "history", "logs") to its template,
  // an absolute http:// or https:// URL. INVALID_ARGUMENT naming the link and what is wrong: an
  // unknown variable, an unclosed or stray brace, a space or control character, too many or too
  // long templates.
  static absl::StatusOr<LinkTemplates> Parse(
      const std::vector<std::pair<std::string, std::string>>& named);

  bool empty() const { return templates_.empty(); }
  size_t size() const { return templates_.size(); }

  // The links whose variables are all known, in the order the templates were given.
  std::vector<JobLink> Render(const LinkValues& values) const;

 private:
  enum class Var : uint8_t;
  // A literal run of the URL, or one variable (then `literal` is empty).
  struct Piece {
    std::string literal;
    std::optional<Var> var;
  };
  struct Template {
    std::string name;
    std::vector<Piece> pieces;
  };
  static absl::StatusOr<Template> ParseOne(const std::string& name, std::string_view text);
  // Appends the variable's value, escaped; false when it isn't known.
  static bool AppendValue(Var var, const LinkValues& values, std::string& out);

  std::vector<Template> templates_;
};

}  // namespace kje::spark
