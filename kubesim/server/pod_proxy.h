#pragma once

// The API server's pod proxy: GET namespaces/{ns}/pods/{name}[:{port}]/proxy/{path} reaches
// `path` of the pod's port (the first declared container port when none is named) and passes the
// answer back, Location headers and links of HTML pages rewritten to stay inside the proxy, as
// the API server's proxy transport does. What a pod serves is the simulated Spark UI of a
// running driver (sim/spark_ui.h); any other port or a pod whose UI doesn't run refuses the
// connection (503). RBAC (pods/proxy) is checked before this, as for every subresource.

#include <string_view>

#include "kubesim/server/http_types.h"
#include "kubesim/server/url.h"
#include "kubesim/store/store.h"

namespace kubesim {

HttpResponse PodProxy(const Store& store, const HttpRequest& request, const ApiPath& path);

}  // namespace kubesim
