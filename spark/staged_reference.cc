#include "spark/staged_reference.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

bool IsNameByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

constexpr size_t kSha256HexLength = 64;
constexpr std::string_view kPathPrefix = "sha256/";

}  // namespace

std::string StagedKey::ObjectPath() const {
  return absl::StrCat(ToAbsl(kPathPrefix), sha256, "/", name);
}

std::string StagedKey::Reference() const {
  return absl::StrCat(ToAbsl(kStagedSha256Prefix), sha256, "/", name);
}

absl::Status CheckStagedName(std::string_view name) {
  if (name.empty()) return absl::InvalidArgumentError("a staged file needs a name");
  if (name.size() > kMaxStagedNameBytes) {
    return absl::InvalidArgumentError(absl::StrCat("the file name ", QuoteBounded(name), " has ",
                                                   name.size(), " bytes, more than the ",
                                                   kMaxStagedNameBytes, " allowed"));
  }
  if (name.find('/') != std::string_view::npos || name.find('\\') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("the file name ", QuoteBounded(name),
                     " holds a directory separator: give the file's own name, e.g. \"etl.jar\""));
  }
  if (name.front() == '.') {
    return absl::InvalidArgumentError(
        absl::StrCat("the file name ", QuoteBounded(name),
                     " starts with '.' (\".\", \"..\" and hidden files "
                     "can't be staged)"));
  }
  if (!std::all_of(name.begin(), name.end(), IsNameByte)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the file name ", QuoteBounded(name), " may hold only letters, digits, '.', '_' and '-'"));
  }
  return absl::OkStatus();
}

bool IsSha256Hex(std::string_view hex) {
  return hex.size() == kSha256HexLength && std::all_of(hex.begin(), hex.end(), IsLowerHex);
}

bool IsStagedReference(std::string_view text) {
  return absl::StartsWith(ToAbsl(text), ToAbsl(kStagedReferencePrefix));
}

absl::StatusOr<StagedKey> ParseStagedReference(std::string_view reference) {
  auto malformed = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "the staged reference ", QuoteBounded(reference),
        " is malformed: use a reference as UploadArtifacts answered it (staged:sha256:<64 hex "
        "digits>/<name>)"));
  };
  if (!absl::StartsWith(ToAbsl(reference), ToAbsl(kStagedSha256Prefix))) return malformed();
  std::string_view rest = reference.substr(kStagedSha256Prefix.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return malformed();
  StagedKey key{std::string(rest.substr(0, slash)), std::string(rest.substr(slash + 1))};
  if (!IsSha256Hex(key.sha256) || !CheckStagedName(key.name).ok()) return malformed();
  return key;
}

std::vector<std::string> StagedReferencesOf(const SparkTemplate& job) {
  std::vector<std::string> out;
  std::set<std::string_view> seen;
  auto add = [&](const std::string& uri) {
    if (IsStagedReference(uri) && seen.insert(uri).second) out.push_back(uri);
  };
  add(job.executable);
  for (const auto* list : {&job.jars, &job.files, &job.archives}) {
    for (const std::string& uri : *list) add(uri);
  }
  return out;
}

absl::StatusOr<SparkTemplate> WithStagedUris(const SparkTemplate& job,
                                             std::string_view template_name) {
  SparkTemplate out = job;
  auto rewrite = [&](std::string& uri) -> absl::Status {
    if (!IsStagedReference(uri)) return absl::OkStatus();
    auto it = job.staged_uris.find(uri);
    if (it == job.staged_uris.end()) {
      if (absl::Status parsed = ParseStagedReference(uri).status(); !parsed.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Job template ", ToAbsl(template_name), ": ", parsed.message()));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "Job template ", ToAbsl(template_name), " names the staged file ", QuoteBounded(uri),
          ", which the staging store doesn't hold (never uploaded, or removed since; "
          "upload it again with UploadArtifacts)"));
    }
    uri = it->second;
    return absl::OkStatus();
  };
  if (absl::Status s = rewrite(out.executable); !s.ok()) return s;
  for (auto* list : {&out.jars, &out.files, &out.archives}) {
    for (std::string& uri : *list) {
      if (absl::Status s = rewrite(uri); !s.ok()) return s;
    }
  }
  return out;
}

std::vector<std::string> StagedObjectPathsIn(std::string_view text) {
  std::set<std::string> found;
  size_t at = 0;
  while ((at = text.find(kPathPrefix, at)) != std::string_view::npos) {
    size_t hex_begin = at + kPathPrefix.size();
    at = hex_begin;
    if (text.size() < hex_begin + kSha256HexLength + 2) break;
    std::string_view hex = text.substr(hex_begin, kSha256HexLength);
    if (!IsSha256Hex(hex) || text[hex_begin + kSha256HexLength] != '/') continue;
    size_t name_begin = hex_begin + kSha256HexLength + 1;
    size_t name_end = name_begin;
    while (name_end < text.size() && IsNameByte(text[name_end])) ++name_end;
    std::string_view name = text.substr(name_begin, name_end - name_begin);
    if (CheckStagedName(name).ok()) {
      found.insert(StagedKey{std::string(hex), std::string(name)}.ObjectPath());
    }
    at = name_end;
  }
  return {found.begin(), found.end()};
}

}  // namespace kje::spark
