// kubesim's own endpoints behind the admin token: faults, statistics, compaction, expiring
// watches.

#include "kubesim/server/api.h"
#include "kubesim/server/api_request.h"

namespace kubesim {

namespace json = boost::json;
using api_internal::BadRequest;
using api_internal::JsonResponse;
using api_internal::NotFoundPath;
using api_internal::ParseJson;

HttpResponse Api::HandleKubesim(const HttpRequest& request, const ApiPath& path) {
  const auto& rest = path.rest;
  const std::string& m = request.method;
  if (!rest.empty() && rest[0] == "faults") {
    if (rest.size() == 1 && m == "POST") {
      json::error_code ec;
      json::value v = ParseJson(request.body, ec);
      if (ec || !v.is_object()) return ErrorResponse(BadRequest("a fault is a JSON object"));
      Fault added;
      std::string message;
      if (!faults_.Add(v.as_object(), &added, &message)) {
        return ErrorResponse(BadRequest("invalid fault: " + message));
      }
      return JsonResponse(201, json::object{{"id", added.id}});
    }
    if (rest.size() == 1 && m == "GET") {
      return JsonResponse(200, json::object{{"items", faults_.List()}});
    }
    if (rest.size() == 1 && m == "DELETE") {
      faults_.Clear();
      return JsonResponse(200, json::object{});
    }
    if (rest.size() == 2 && m == "DELETE") {
      if (!faults_.Remove(rest[1])) {
        return ErrorResponse(MakeError(404, "NotFound", "fault \"" + rest[1] + "\" not found"));
      }
      return JsonResponse(200, json::object{});
    }
  } else if (rest.size() == 1 && rest[0] == "stats") {
    if (m == "GET") {
      json::object s = stats_.ToJson();
      s["activeStreams"] = active_streams_->load();
      return JsonResponse(200, s);
    }
    if (m == "DELETE") {
      stats_.Reset();
      return JsonResponse(200, json::object{});
    }
  } else if (rest.size() == 1 && rest[0] == "compact" && m == "POST") {
    store_.Compact();
    return JsonResponse(200, json::object{{"resourceVersion", store_.CurrentResourceVersion()}});
  } else if (rest.size() == 2 && rest[0] == "watches" && rest[1] == "expire" && m == "POST") {
    return JsonResponse(200, json::object{{"expired", store_.ExpireWatches()}});
  } else {
    return ErrorResponse(NotFoundPath());
  }
  return ErrorResponse(MakeError(405, "MethodNotAllowed", "method not allowed"));
}

}  // namespace kubesim
