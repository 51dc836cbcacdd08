#pragma once

// The execution id of a job: `<cluster>/<kind>/<namespace>/<name>`, the same text the Java k8s
// executor returns, so that ids stored by Gravitino stay valid whichever executor answers.

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kje::spark {

// The only kind: a SparkApplication.
inline constexpr std::string_view kKindSparkApp = "sparkapp";

struct ExecutionId;

// An id's parts borrowed from its text: a cache lookup needs no copy of them. Its text is the
// parts joined by '/', exactly: the parse neither trims nor folds anything.
struct ExecutionIdView {
  std::string_view cluster;
  std::string_view kind;
  std::string_view namespace_;
  std::string_view name;

  // As ExecutionId::Parse.
  static absl::StatusOr<ExecutionIdView> Parse(std::string_view text);

  ExecutionId ToOwned() const;
};

struct ExecutionId {
  std::string cluster;
  std::string kind;
  std::string namespace_;
  std::string name;

  // INVALID_ARGUMENT for a blank part, a part containing '/', or an unknown kind: these come
  // from our own configuration, never from a caller.
  static absl::StatusOr<ExecutionId> Of(std::string_view cluster, std::string_view kind,
                                        std::string_view namespace_, std::string_view name);

  // NOT_FOUND for anything that isn't exactly four non-blank '/'-separated parts with a known
  // kind: a malformed id names no job.
  static absl::StatusOr<ExecutionId> Parse(std::string_view text);

  std::string ToString() const;

  friend bool operator==(const ExecutionId&, const ExecutionId&) = default;
};

// NOT_FOUND unless the id belongs to `cluster`, the cluster this service is connected to.
absl::Status CheckCluster(const ExecutionIdView& id, std::string_view cluster);

// Parse followed by CheckCluster.
absl::StatusOr<ExecutionId> ParseForCluster(std::string_view text, std::string_view cluster);
absl::StatusOr<ExecutionIdView> ParseViewForCluster(std::string_view text,
                                                    std::string_view cluster);

}  // namespace kje::spark
