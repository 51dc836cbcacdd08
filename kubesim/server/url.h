#pragma once

// Parsing of request targets: the query string and the Kubernetes REST path layout.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim {

// Percent-decoding; `plus_is_space` for query components (application/x-www-form-urlencoded).
// Returns false on a malformed escape.
bool PercentDecode(std::string_view in, bool plus_is_space, std::string* out);

// Splits "a=1&b=x%20y" into {a: "1", b: "x y"}; a repeated key keeps its first value.
// Returns false on a malformed escape.
bool ParseQuery(std::string_view query, std::map<std::string, std::string>* out);

// What a request path addresses.
struct ApiPath {
  enum class Kind {
    kNotFound,
    kVersion,        // /version
    kHealth,         // /healthz, /livez, /readyz (and their /... checks)
    kCoreVersions,   // /api
    kGroupList,      // /apis
    kGroup,          // /apis/<group>
    kResourceList,   // /api/v1, /apis/<group>/<version>
    kResource,       // a resource path (collection, object or subresource)
    kOpenApiV2,      // /openapi/v2
    kOpenApiV3Root,  // /openapi/v3
    kOpenApiV3Doc,   // /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>
    kKubesim,        // /kubesim/...
  };
  Kind kind = Kind::kNotFound;
  std::string group;  // "" for the core group
  std::string version;
  std::string ns;  // "" when not namespaced or across namespaces
  std::string plural;
  std::string name;  // "" for a collection
  std::string subresource;
  bool legacy_watch = false;  // /api/v1/watch/... (the deprecated watch prefix)
  // The proxy subresource (namespaces/{ns}/pods/{name[:port]}/proxy/...): the path after it as
  // received (still percent-encoded), "/" when there is none.
  std::string proxy_path;
  std::vector<std::string> rest;  // segments after /kubesim
};

// Parses the path part of a target (no query). Segments are percent-decoded.
ApiPath ParseApiPath(std::string_view path);

// Splits a target into path and query at the first '?'.
void SplitTarget(std::string_view target, std::string_view* path, std::string_view* query);

}  // namespace kubesim
