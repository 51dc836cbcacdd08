#include "k8s/pod_proxy.h"

#include <rapidjson/document.h>

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::k8s {
namespace {

absl::Status BadPath(std::string_view why, std::string_view path) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid UI path ", QuoteBounded(path), ": ", ToAbsl(why)));
}

// A name segment of the prefix: a DNS name, nothing that changes the path.
bool PlainSegment(std::string_view s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    if (c == '/' || c == '?' || c == '#' || c == '%' || c == ':' ||
        static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) >= 0x7f) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> PodProxyPrefix(std::string_view ns, std::string_view pod, int port) {
  if (!PlainSegment(ns)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid namespace ", QuoteBounded(ns)));
  }
  if (!PlainSegment(pod)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid pod name ", QuoteBounded(pod)));
  }
  if (port < 1 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("invalid port ", port, ": not in 1-65535"));
  }
  return absl::StrCat("/api/v1/namespaces/", ToAbsl(ns), "/pods/", ToAbsl(pod), ":", port,
                      "/proxy");
}

absl::Status CheckProxiedPath(std::string_view path_and_query) {
  if (path_and_query.empty()) return absl::OkStatus();
  if (path_and_query.front() != '/') return BadPath("it must start with '/'", path_and_query);
  for (char c : path_and_query) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return BadPath("a control byte or a space", path_and_query);
    if (c == '#') return BadPath("a fragment ('#') is the browser's, never sent", path_and_query);
  }
  const std::string_view path = path_and_query.substr(0, path_and_query.find('?'));
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(start, end - start);
    if (segment == "." || segment == ".." || segment == "%2e" || segment == "%2E" ||
        segment == "%2e%2e" || segment == "%2E%2E" || segment == ".%2e" || segment == "%2e.") {
      return BadPath("a '.' or '..' segment would leave the UI", path_and_query);
    }
    start = end + 1;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> PodProxyPath(std::string_view ns, std::string_view pod, int port,
                                         std::string_view path_and_query) {
  absl::StatusOr<std::string> prefix = PodProxyPrefix(ns, pod, port);
  if (!prefix.ok()) return prefix.status();
  if (absl::Status checked = CheckProxiedPath(path_and_query); !checked.ok()) return checked;
  return absl::StrCat(*prefix, path_and_query.empty() ? "/" : ToAbsl(path_and_query));
}

bool IsApiServerAnswer(int http_code, std::string_view content_type, std::string_view body) {
  if (http_code >= 200 && http_code < 400) return false;
  if (content_type.substr(0, content_type.find(';')) != "application/json") return false;
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) return false;
  auto kind = doc.FindMember("kind");
  auto version = doc.FindMember("apiVersion");
  return kind != doc.MemberEnd() && kind->value.IsString() &&
         std::string_view(kind->value.GetString(), kind->value.GetStringLength()) == "Status" &&
         version != doc.MemberEnd() && version->value.IsString() &&
         std::string_view(version->value.GetString(), version->value.GetStringLength()) == "v1";
}

std::string LocationInsideProxy(std::string_view location, std::string_view prefix) {
  std::string_view path = location;
  if (size_t scheme = path.find("://"); scheme != std::string_view::npos) {
    size_t slash = path.find('/', scheme + 3);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
  }
  // The API server may sit under a path of its own, before /api.
  size_t at = path.find(prefix);
  if (at == std::string_view::npos) return std::string(location);
  std::string_view rest = path.substr(at + prefix.size());
  if (rest.empty()) return "/";
  if (rest.front() != '/' && rest.front() != '?') return std::string(location);
  if (rest.front() == '?') return absl::StrCat("/", ToAbsl(rest));
  return std::string(rest);
}

std::string UnproxyLinks(std::string body, std::string_view content_type, std::string_view prefix) {
  if (!content_type.starts_with("text/html") || prefix.empty()) return body;
  const std::string needle = absl::StrCat(ToAbsl(prefix), "/");
  std::string out;
  out.reserve(body.size());
  size_t pos = 0;
  for (size_t at = body.find(needle); at != std::string::npos; at = body.find(needle, pos)) {
    out.append(body, pos, at - pos);
    out += '/';
    pos = at + needle.size();
  }
  out.append(body, pos);
  return out;
}

}  // namespace kje::k8s
