#include "kubesim/server/api_streams.h"

#include "kubesim/server/api.h"

namespace kubesim::api_internal {

namespace json = boost::json;

std::string EventLine(std::string_view type, json::value object) {
  std::string line = json::serialize(json::object{{"type", type}, {"object", std::move(object)}});
  line.push_back('\n');
  return line;
}

std::string GoneEventLine(const std::string& message) {
  return EventLine("ERROR", StatusObject(MakeError(410, "Expired", message)));
}

}  // namespace kubesim::api_internal
