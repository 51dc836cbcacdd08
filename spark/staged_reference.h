#pragma once

// Staged artifacts as a job template names them, whatever the store: the opaque reference the
// UploadArtifacts RPC answers ("staged:sha256:<64 hex digits>/<name>"), the checks of a staged
// file's name and digest, and the rewrite of a template's references into the URIs the cluster
// reaches, which the executor looks up in the store before the job is resolved. Pure: the store's
// I/O is staging/'s.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "spark/job_template.h"

namespace kje::spark {

inline constexpr std::string_view kStagedReferencePrefix = "staged:";
inline constexpr std::string_view kStagedSha256Prefix = "staged:sha256:";
// The longest name a staged file may have (a file name on every file system we meet).
inline constexpr size_t kMaxStagedNameBytes = 200;

// A staged file: its content's SHA-256 (64 lower-case hex digits) and the name the job sees.
struct StagedKey {
  std::string sha256;
  std::string name;

  // Its path inside a store: "sha256/<hex>/<name>". The name is part of the address because a
  // job sees a file under its name (a --py-files module, a jar on the class path).
  std::string ObjectPath() const;
  // The opaque reference a template names.
  std::string Reference() const;
  bool operator==(const StagedKey&) const = default;
  auto operator<=>(const StagedKey&) const = default;
};

// OK when `name` may name a staged file: 1 to kMaxStagedNameBytes bytes of letters, digits and
// ._-, not starting with '.' (so neither "." nor ".." nor a hidden file), no slash.
// INVALID_ARGUMENT otherwise, saying why.
absl::Status CheckStagedName(std::string_view name);
// Whether `hex` is 64 lower-case hexadecimal digits.
bool IsSha256Hex(std::string_view hex);

// Whether the text is meant as a staged reference (it starts with "staged:"): a malformed one is
// refused rather than passed to the cluster as a URI.
bool IsStagedReference(std::string_view text);
// The key of a reference; INVALID_ARGUMENT naming it when it is malformed.
absl::StatusOr<StagedKey> ParseStagedReference(std::string_view reference);

// The distinct references of a template's executable, jars, files and archives, in that order.
std::vector<std::string> StagedReferencesOf(const SparkTemplate& job);

// The template with every reference replaced by its URI from `job.staged_uris`. INVALID_ARGUMENT
// naming the template (`template_name`, quoted) and the reference when one has no URI there: it
// was never uploaded, its object is gone, or staging is not configured.
absl::StatusOr<SparkTemplate> WithStagedUris(const SparkTemplate& job,
                                             std::string_view template_name);

// The object paths ("sha256/<hex>/<name>") of staged files a text (an application's JSON, a
// schedule's) names, distinct and sorted: what the sweep keeps.
std::vector<std::string> StagedObjectPathsIn(std::string_view text);

}  // namespace kje::spark
