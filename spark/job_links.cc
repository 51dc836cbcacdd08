#include "spark/job_links.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::spark {

enum class LinkTemplates::Var : uint8_t {
  kNamespace,
  kName,
  kExecutionId,
  kJobId,
  kSparkAppId,
  kDriverPod,
  kCreatedAt,
  kStartedAt,
  kFinishedAt,
  kCreatedAtMillis,
  kStartedAtMillis,
  kFinishedAtMillis,
};

namespace {

constexpr std::string_view kVariableNames =
    "namespace, name, executionId, jobId, sparkAppId, driverPod, createdAt, startedAt, "
    "finishedAt, createdAtMillis, startedAtMillis, finishedAtMillis";

// RFC 3986's unreserved characters go in as they are; every other byte is percent-encoded, so
// that a value (a name with a '/', a time with ':' and '+') stays one value wherever it lands.
bool IsUnreserved(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
         c == '~';
}

void AppendEscaped(std::string_view value, std::string& out) {
  constexpr char kHex[] = "0123456789ABCDEF";
  for (char c : value) {
    if (IsUnreserved(c)) {
      out.push_back(c);
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
}

bool AppendText(std::string_view value, std::string& out) {
  if (value.empty()) return false;
  AppendEscaped(value, out);
  return true;
}

// RFC 3339 in UTC with a 'Z' and only the fraction digits the time has, as Kubernetes writes it.
bool AppendTime(const std::optional<absl::Time>& t, std::string& out) {
  if (!t) return false;
  AppendEscaped(absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", *t, absl::UTCTimeZone()), out);
  return true;
}

bool AppendMillis(const std::optional<absl::Time>& t, std::string& out) {
  if (!t) return false;
  absl::StrAppend(&out, absl::ToUnixMillis(*t));
  return true;
}

}  // namespace

std::string_view LinkVariableNames() { return kVariableNames; }

absl::StatusOr<LinkTemplates::Template> LinkTemplates::ParseOne(const std::string& name,
                                                                std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, Var>, 12> kVars = {{
      {"namespace", Var::kNamespace},
      {"name", Var::kName},
      {"executionId", Var::kExecutionId},
      {"jobId", Var::kJobId},
      {"sparkAppId", Var::kSparkAppId},
      {"driverPod", Var::kDriverPod},
      {"createdAt", Var::kCreatedAt},
      {"startedAt", Var::kStartedAt},
      {"finishedAt", Var::kFinishedAt},
      {"createdAtMillis", Var::kCreatedAtMillis},
      {"startedAtMillis", Var::kStartedAtMillis},
      {"finishedAtMillis", Var::kFinishedAtMillis},
  }};
  auto refuse = [&name](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("link ", QuoteBounded(name), ": ", ToAbsl(why)));
  };
  if (text.size() > kMaxLinkTemplateBytes) {
    return refuse(
        absl::StrCat("the template is ", text.size(), " bytes, at most ", kMaxLinkTemplateBytes));
  }
  const std::string lower = absl::AsciiStrToLower(ToAbsl(text.substr(0, 8)));
  if (!absl::StartsWith(lower, "http://") && !absl::StartsWith(lower, "https://")) {
    return refuse(
        absl::StrCat("must be an absolute http:// or https:// URL, got ", QuoteBounded(text)));
  }
  Template out;
  out.name = name;
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) out.pieces.push_back(Piece{std::move(literal), std::nullopt});
    literal.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return refuse(absl::StrCat("a URL can't hold a space or control character (at byte ", i,
                                 "); write it percent-encoded"));
    }
    if (c == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        literal.push_back('}');
        ++i;
        continue;
      }
      return refuse(
          absl::StrCat("a '}' with no '{' before it (at byte ", i, "); write }} for one"));
    }
    if (c != '{') {
      literal.push_back(c);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      literal.push_back('{');
      ++i;
      continue;
    }
    const size_t close = text.find('}', i + 1);
    if (close == std::string_view::npos) {
      return refuse(absl::StrCat("a '{' that is never closed (at byte ", i, "); write {{ for one"));
    }
    const std::string_view var = text.substr(i + 1, close - i - 1);
    std::optional<Var> found;
    for (const auto& [spelling, v] : kVars) {
      if (spelling == var) found = v;
    }
    if (!found) {
      return refuse(absl::StrCat("unknown variable ", QuoteBounded(var), "; the variables are ",
                                 ToAbsl(kVariableNames)));
    }
    flush();
    out.pieces.push_back(Piece{"", *found});
    i = close;
  }
  flush();
  return out;
}

absl::StatusOr<LinkTemplates> LinkTemplates::Parse(
    const std::vector<std::pair<std::string, std::string>>& named) {
  if (named.size() > kMaxLinkTemplates) {
    return absl::InvalidArgumentError(
        absl::StrCat(named.size(), " link templates, at most ", kMaxLinkTemplates));
  }
  LinkTemplates out;
  for (const auto& [name, text] : named) {
    if (!IsDns1123Label(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "link name ", QuoteBounded(name),
          " must be a DNS-1123 label (lower-case letters, digits and '-', at most 63)"));
    }
    for (const Template& t : out.templates_) {
      if (t.name == name) {
        return absl::InvalidArgumentError(
            absl::StrCat("link ", QuoteBounded(name), " given twice"));
      }
    }
    absl::StatusOr<Template> parsed = ParseOne(name, text);
    if (!parsed.ok()) return parsed.status();
    out.templates_.push_back(*std::move(parsed));
  }
  return out;
}

bool LinkTemplates::AppendValue(Var var, const LinkValues& v, std::string& out) {
  switch (var) {
    case Var::kNamespace:
      return AppendText(v.namespace_, out);
    case Var::kName:
      return AppendText(v.name, out);
    case Var::kExecutionId:
      return AppendText(v.execution_id, out);
    case Var::kJobId:
      return AppendText(v.job_id, out);
    case Var::kSparkAppId:
      return AppendText(v.spark_app_id, out);
    case Var::kDriverPod:
      return AppendText(v.driver_pod, out);
    case Var::kCreatedAt:
      return AppendTime(v.created_at, out);
    case Var::kStartedAt:
      return AppendTime(v.started_at, out);
    case Var::kFinishedAt:
      return AppendTime(v.finished_at, out);
    case Var::kCreatedAtMillis:
      return AppendMillis(v.created_at, out);
    case Var::kStartedAtMillis:
      return AppendMillis(v.started_at, out);
    case Var::kFinishedAtMillis:
      return AppendMillis(v.finished_at, out);
  }
  return false;
}

std::vector<JobLink> LinkTemplates::Render(const LinkValues& values) const {
  std::vector<JobLink> links;
  links.reserve(templates_.size());
  for (const Template& t : templates_) {
    std::string url;
    bool known = true;
    for (const Piece& piece : t.pieces) {
      if (!piece.var) {
        url.append(piece.literal);
      } else if (!AppendValue(*piece.var, values, url)) {
        known = false;
        break;
      }
    }
    if (known) links.push_back(JobLink{t.name, std::move(url)});
  }
  return links;
}

}  // namespace kje::spark
