#include "kubesim/server/pod_proxy.h"

#include <charconv>
#include <optional>
#include <string>

#include "kubesim/server/api.h"
#include "kubesim/sim/json_access.h"
#include "kubesim/sim/spark_ui.h"

namespace kubesim {
namespace json = boost::json;
namespace {

// The first containerPort the pod declares (the API server's choice for a proxy without one).
std::optional<int> FirstPort(const json::object& pod) {
  const json::object* spec = sim::ObjectAt(pod, "spec");
  const json::value* containers = spec ? spec->if_contains("containers") : nullptr;
  if (containers == nullptr || !containers->is_array()) return std::nullopt;
  for (const json::value& c : containers->get_array()) {
    const json::value* ports = c.is_object() ? c.get_object().if_contains("ports") : nullptr;
    if (ports == nullptr || !ports->is_array() || ports->get_array().empty()) continue;
    const json::value& first = ports->get_array().front();
    const json::value* number =
        first.is_object() ? first.get_object().if_contains("containerPort") : nullptr;
    if (number != nullptr && number->is_int64()) return static_cast<int>(number->get_int64());
  }
  return std::nullopt;
}

// Root-relative links of an HTML page made to point through the proxy.
std::string RewriteLinks(const std::string& html, const std::string& prefix) {
  std::string out;
  out.reserve(html.size());
  size_t pos = 0;
  for (;;) {
    size_t best = std::string::npos;
    size_t len = 0;
    for (std::string_view attr : {"href=\"/", "src=\"/", "action=\"/"}) {
      size_t at = html.find(attr, pos);
      if (at < best) {
        best = at;
        len = attr.size() - 1;  // up to the '/'
      }
    }
    if (best == std::string::npos) break;
    out.append(html, pos, best + len - pos);
    out += prefix;
    pos = best + len;
  }
  out.append(html, pos);
  return out;
}

}  // namespace

HttpResponse PodProxy(const Store& store, const HttpRequest& request, const ApiPath& path) {
  if (request.method != "GET" && request.method != "HEAD") {
    return ErrorResponse(
        MakeError(405, "MethodNotAllowed", "the simulated pod proxy serves GET only"));
  }
  std::string name = path.name;
  std::optional<int> port;
  if (size_t colon = name.rfind(':'); colon != std::string::npos) {
    std::string_view digits = std::string_view(name).substr(colon + 1);
    int value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size() || value < 1 || value > 65535) {
      return ErrorResponse(MakeError(400, "BadRequest", "invalid port in " + name));
    }
    port = value;
    name.resize(colon);
  }
  const ResourceType* pods = store.FindType("", "v1", "pods");
  if (pods == nullptr)
    return ErrorResponse(
        MakeError(404, "NotFound", "the server could not find the requested resource"));
  auto found = store.Get(*pods, path.ns, name);
  if (!found.ok()) return ErrorResponse(found.error());
  const json::object& pod = found.value();
  if (!port) port = FirstPort(pod);
  const json::object* status = sim::ObjectAt(pod, "status");
  const std::string ip = status != nullptr ? sim::StringAt(*status, "podIP") : std::string();
  const std::optional<int> ui = sim::RunningUiPort(pod);
  if (!port || !ui || *ui != *port) {
    // Nothing listens: the proxy's dial fails, as the API server reports it.
    const std::string target = (ip.empty() ? std::string("<no IP>") : ip) + ":" +
                               (port ? std::to_string(*port) : std::string("<no port>"));
    return ErrorResponse(MakeError(
        503, "ServiceUnavailable",
        "error trying to reach service: dial tcp " + target + ": connect: connection refused"));
  }
  // The query goes to the UI as it came; the simulated one reads none.
  std::string decoded;
  if (!PercentDecode(path.proxy_path, false, &decoded)) {
    return ErrorResponse(MakeError(400, "BadRequest", "malformed escape in the proxied path"));
  }
  sim::UiAnswer answer = sim::SparkUiGet(pod, decoded);
  const std::string prefix = "/api/v1/namespaces/" + path.ns + "/pods/" + path.name + "/proxy";
  HttpResponse response;
  response.status = answer.status;
  response.content_type = answer.content_type;
  if (!answer.location.empty()) {
    response.headers.emplace_back("Location", prefix + answer.location);
  }
  response.body = answer.content_type.starts_with("text/html") ? RewriteLinks(answer.body, prefix)
                                                               : std::move(answer.body);
  if (request.method == "HEAD") response.body.clear();
  return response;
}

}  // namespace kubesim
