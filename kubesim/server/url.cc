#include "kubesim/server/url.h"

namespace kubesim {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool SplitSegments(std::string_view path, std::vector<std::string>* segments) {
  size_t pos = 0;
  while (pos < path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string_view::npos) next = path.size();
    if (next > pos) {
      std::string seg;
      if (!PercentDecode(path.substr(pos, next - pos), false, &seg)) return false;
      segments->push_back(std::move(seg));
    }
    pos = next + 1;
  }
  return true;
}

// Fills the resource part of `out` from the segments after /api/v1 or /apis/<g>/<v>.
void ParseResourceSegments(std::vector<std::string> segs, ApiPath* out) {
  if (!segs.empty() && segs[0] == "watch") {
    out->legacy_watch = true;
    segs.erase(segs.begin());
  }
  if (segs.empty()) {
    out->kind = out->legacy_watch ? ApiPath::Kind::kNotFound : ApiPath::Kind::kResourceList;
    return;
  }
  out->kind = ApiPath::Kind::kResource;
  // namespaces/{ns}/{plural}/... addresses a namespaced resource; namespaces[/{name}[/{sub}]]
  // addresses the Namespace objects themselves. The two are told apart by length, and
  // namespaces/{name}/status|finalize by the subresource names Namespaces have.
  if (segs[0] == "namespaces" && segs.size() >= 3 &&
      !(segs.size() == 3 && (segs[2] == "status" || segs[2] == "finalize"))) {
    out->ns = segs[1];
    out->plural = segs[2];
    if (segs.size() >= 4) out->name = segs[3];
    if (segs.size() >= 5) out->subresource = segs[4];
    // A proxy's path goes on past the subresource (ParseApiPath keeps it).
    if (segs.size() > 5 && segs[4] != "proxy") out->kind = ApiPath::Kind::kNotFound;
    return;
  }
  out->plural = segs[0];
  if (segs.size() >= 2) out->name = segs[1];
  if (segs.size() >= 3) out->subresource = segs[2];
  if (segs.size() > 3) out->kind = ApiPath::Kind::kNotFound;
}

}  // namespace

bool PercentDecode(std::string_view in, bool plus_is_space, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out->push_back(' ');
    } else {
      out->push_back(c);
    }
  }
  return true;
}

bool ParseQuery(std::string_view query, std::map<std::string, std::string>* out) {
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view pair = query.substr(pos, amp - pos);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      std::string key;
      std::string value;
      if (!PercentDecode(pair.substr(0, eq), true, &key)) return false;
      if (eq != std::string_view::npos && !PercentDecode(pair.substr(eq + 1), true, &value)) {
        return false;
      }
      out->emplace(std::move(key), std::move(value));
    }
    pos = amp + 1;
  }
  return true;
}

void SplitTarget(std::string_view target, std::string_view* path, std::string_view* query) {
  size_t q = target.find('?');
  *path = target.substr(0, q);
  *query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
}

namespace {

// The raw rest of `path` after its first `count` non-empty segments, from its '/' on.
std::string_view RawRest(std::string_view path, size_t count) {
  size_t pos = 0;
  while (count > 0 && pos < path.size()) {
    while (pos < path.size() && path[pos] == '/') ++pos;
    if (pos == path.size()) break;
    pos = path.find('/', pos);
    if (pos == std::string_view::npos) return {};
    --count;
  }
  return pos < path.size() ? path.substr(pos) : std::string_view();
}

}  // namespace

ApiPath ParseApiPath(std::string_view path) {
  ApiPath out;
  std::vector<std::string> segs;
  if (path.empty() || path[0] != '/' || !SplitSegments(path, &segs)) return out;
  if (segs.empty()) return out;
  const std::string& first = segs[0];
  if (first == "version" && segs.size() == 1) {
    out.kind = ApiPath::Kind::kVersion;
  } else if (first == "healthz" || first == "livez" || first == "readyz") {
    out.kind = ApiPath::Kind::kHealth;
  } else if (first == "api") {
    if (segs.size() == 1) {
      out.kind = ApiPath::Kind::kCoreVersions;
    } else {
      out.version = segs[1];
      ParseResourceSegments(std::vector<std::string>(segs.begin() + 2, segs.end()), &out);
      if (out.kind == ApiPath::Kind::kResource && out.subresource == "proxy" && !out.ns.empty()) {
        // api, version, namespaces, ns, plural, name, proxy.
        std::string_view rest = RawRest(path, 7);
        out.proxy_path = rest.empty() ? "/" : std::string(rest);
      }
    }
  } else if (first == "apis") {
    if (segs.size() == 1) {
      out.kind = ApiPath::Kind::kGroupList;
    } else if (segs.size() == 2) {
      out.kind = ApiPath::Kind::kGroup;
      out.group = segs[1];
    } else {
      out.group = segs[1];
      out.version = segs[2];
      ParseResourceSegments(std::vector<std::string>(segs.begin() + 3, segs.end()), &out);
    }
  } else if (first == "openapi" && segs.size() >= 2) {
    if (segs[1] == "v2" && segs.size() == 2) {
      out.kind = ApiPath::Kind::kOpenApiV2;
    } else if (segs[1] == "v3" && segs.size() == 2) {
      out.kind = ApiPath::Kind::kOpenApiV3Root;
    } else if (segs[1] == "v3" && segs.size() == 4 && segs[2] == "api") {
      out.kind = ApiPath::Kind::kOpenApiV3Doc;
      out.version = segs[3];
    } else if (segs[1] == "v3" && segs.size() == 5 && segs[2] == "apis") {
      out.kind = ApiPath::Kind::kOpenApiV3Doc;
      out.group = segs[3];
      out.version = segs[4];
    }
  } else if (first == "kubesim") {
    out.kind = ApiPath::Kind::kKubesim;
    out.rest.assign(segs.begin() + 1, segs.end());
  }
  return out;
}

}  // namespace kubesim
