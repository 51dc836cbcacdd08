#include "spark/execution_id.h"

#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

// The usual id (every Status parses one), accepted in one pass: a cluster starting with a
// non-blank byte, the kind, and a namespace and a name that Kubernetes accepts. It answers only
// what the full checks would accept, with the same parts; for anything else they decide, and say
// what is wrong.
std::optional<ExecutionIdView> ParseUsual(std::string_view text) {
  const size_t cluster_end = text.find('/');
  if (cluster_end == 0 || cluster_end == std::string_view::npos || IsBlankByte(text[0])) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(cluster_end + 1);
  if (rest.size() <= kKindSparkApp.size() ||
      rest.substr(0, kKindSparkApp.size()) != kKindSparkApp || rest[kKindSparkApp.size()] != '/') {
    return std::nullopt;
  }
  rest.remove_prefix(kKindSparkApp.size() + 1);
  const size_t ns_end = rest.find('/');
  if (ns_end == std::string_view::npos) return std::nullopt;
  std::string_view ns = rest.substr(0, ns_end);
  std::string_view name = rest.substr(ns_end + 1);
  // A name with a '/' is a fifth part: not a subdomain either.
  if (!IsDns1123Label(ns) || !IsDns1123Subdomain(name)) return std::nullopt;
  return ExecutionIdView{text.substr(0, cluster_end),
                         text.substr(cluster_end + 1, kKindSparkApp.size()), ns, name};
}

}  // namespace

absl::StatusOr<ExecutionId> ExecutionId::Of(std::string_view cluster, std::string_view kind,
                                            std::string_view namespace_, std::string_view name) {
  for (std::string_view part : {cluster, kind, namespace_, name}) {
    if (IsBlank(part) || part.find('/') != std::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "A part of a job execution id must be non-blank and free of '/': ", QuoteBounded(part)));
    }
  }
  if (kind != kKindSparkApp) {
    return absl::InvalidArgumentError(absl::StrCat("Unknown kind of a job: ", QuoteBounded(kind)));
  }
  return ExecutionId{std::string(cluster), std::string(kind), std::string(namespace_),
                     std::string(name)};
}

absl::StatusOr<ExecutionIdView> ExecutionIdView::Parse(std::string_view text) {
  if (std::optional<ExecutionIdView> usual = ParseUsual(text)) return *usual;
  // The parts are found in place, without a container.
  std::array<std::string_view, 4> parts;
  size_t count = 0;
  size_t start = 0;
  while (count <= parts.size()) {
    size_t slash = text.find('/', start);
    if (count < parts.size()) {
      parts[count] = text.substr(start, slash == std::string_view::npos ? slash : slash - start);
    }
    ++count;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  // The whole id is quoted with one part beside it: each part gets a smaller share, so that
  // however every byte escapes, the message stays under 1 KiB.
  constexpr size_t kPartQuote = 64;
  if (text.empty() || count != parts.size()) {
    return absl::NotFoundError(absl::StrCat("Invalid job execution id ", QuoteBounded(text),
                                            ": expected <cluster>/<kind>/<namespace>/<name>"));
  }
  for (std::string_view part : parts) {
    if (IsBlank(part)) {
      return absl::NotFoundError(
          absl::StrCat("Invalid job execution id ", QuoteBounded(text), ": a part is blank"));
    }
  }
  if (parts[1] != kKindSparkApp) {
    return absl::NotFoundError(
        absl::StrCat("Invalid job execution id ", QuoteBounded(text),
                     ": unknown kind of a job: ", QuoteBounded(parts[1], kPartQuote)));
  }
  // No object can have a name Kubernetes refuses: such an id is refused here, before any cache
  // read or request.
  if (!IsDns1123Label(parts[2])) {
    return absl::NotFoundError(absl::StrCat(
        "Invalid job execution id ", QuoteBounded(text), ": the namespace ",
        QuoteBounded(parts[2], kPartQuote),
        " is not a Kubernetes namespace name (a DNS-1123 label of at most 63 characters)"));
  }
  if (!IsDns1123Subdomain(parts[3])) {
    return absl::NotFoundError(absl::StrCat(
        "Invalid job execution id ", QuoteBounded(text), ": the name ",
        QuoteBounded(parts[3], kPartQuote),
        " is not a Kubernetes object name (a DNS-1123 subdomain of at most 253 characters)"));
  }
  return ExecutionIdView{parts[0], parts[1], parts[2], parts[3]};
}

ExecutionId ExecutionIdView::ToOwned() const {
  return ExecutionId{std::string(cluster), std::string(kind), std::string(namespace_),
                     std::string(name)};
}

absl::StatusOr<ExecutionId> ExecutionId::Parse(std::string_view text) {
  absl::StatusOr<ExecutionIdView> id = ExecutionIdView::Parse(text);
  if (!id.ok()) return id.status();
  return id->ToOwned();
}

std::string ExecutionId::ToString() const {
  return absl::StrCat(cluster, "/", kind, "/", namespace_, "/", name);
}

absl::Status CheckCluster(const ExecutionIdView& id, std::string_view cluster) {
  if (id.cluster == cluster) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat("Job ", QuoteBounded(id.ToOwned().ToString()),
                                          " runs in cluster ", QuoteBounded(id.cluster, 64),
                                          ", but the k8s job executor is connected to cluster ",
                                          QuoteBounded(cluster, 64)));
}

absl::StatusOr<ExecutionIdView> ParseViewForCluster(std::string_view text,
                                                    std::string_view cluster) {
  absl::StatusOr<ExecutionIdView> id = ExecutionIdView::Parse(text);
  if (!id.ok()) return id;
  absl::Status status = CheckCluster(*id, cluster);
  if (!status.ok()) return status;
  return id;
}

absl::StatusOr<ExecutionId> ParseForCluster(std::string_view text, std::string_view cluster) {
  absl::StatusOr<ExecutionIdView> id = ParseViewForCluster(text, cluster);
  if (!id.ok()) return id.status();
  return id->ToOwned();
}

}  // namespace kje::spark
