#pragma once

// The API server's pod proxy (pods/{name}:{port}/proxy/{path}) as plain data: the request path,
// and how to read what comes back, where the answer may be the API server's own (an error of
// its, as a Status object) or the proxied service's. No I/O here.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kje::k8s {

// What a service behind the proxy answered.
struct ProxyResponse {
  int http_code = 0;
  std::string content_type;
  // A redirect's Location header as the API server passed it ("" when none).
  std::string location;
  std::string body;
};

// "/api/v1/namespaces/{ns}/pods/{pod}:{port}" + "/proxy": where the proxy of the pod's `port`
// starts; INVALID_ARGUMENT for a segment that would change the path, or a port outside 1-65535.
absl::StatusOr<std::string> PodProxyPrefix(std::string_view ns, std::string_view pod, int port);

// Whether `path_and_query` may be sent through the proxy: INVALID_ARGUMENT, naming the problem,
// for a path that doesn't start with '/', has a control byte, a space or a '#', or a "." or ".."
// segment (which would leave the proxy). "" is "/".
absl::Status CheckProxiedPath(std::string_view path_and_query);

// The prefix followed by `path_and_query` (the service's own path, "" meaning "/"), checked as
// CheckProxiedPath does.
absl::StatusOr<std::string> PodProxyPath(std::string_view ns, std::string_view pod, int port,
                                         std::string_view path_and_query);

// Whether an error answer is the API server's own (a Kubernetes Status object: the pod is
// missing, RBAC forbids the proxy, the service can't be reached) rather than the service's.
bool IsApiServerAnswer(int http_code, std::string_view content_type, std::string_view body);

// A Location inside the proxy `prefix` (a path, or a URL of any host, starting with it) made
// relative to the service's root ("/jobs/"); any other Location as it was.
std::string LocationInsideProxy(std::string_view location, std::string_view prefix);

// An HTML page's links to `prefix` + "/..." made root-relative again ("/..."): the API server
// rewrites a proxied page's links to stay inside the proxy; a caller that serves the page at
// the service's own root (the CLI's forward) needs them as the service wrote them. Other
// content is returned as it was.
std::string UnproxyLinks(std::string body, std::string_view content_type, std::string_view prefix);

}  // namespace kje::k8s
