#pragma once

// Request parsing shared by the API's handlers: query values, bodies (JSON, YAML, protobuf),
// the options of each verb, and JSON responses.

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kubesim/server/api.h"
#include "kubesim/server/http_types.h"
#include "kubesim/store/store.h"

namespace kubesim::api_internal {

namespace json = boost::json;

extern const std::vector<std::string> kAllVerbs;

std::string Get(const std::map<std::string, std::string>& q, const std::string& key);
bool IsTrue(const std::string& v);
bool ParseInt(const std::string& text, int64_t* out);
std::string MediaType(std::string_view content_type);
HttpResponse JsonResponse(int status, const json::value& body);
// The same for an object, serialized where it is: a json::value made of it would be a deep copy
// (a LIST page of 500 objects copied node by node before it is written).
HttpResponse JsonResponse(int status, const json::object& body);
ApiError NotFoundPath();
ApiError BadRequest(std::string message);
// Objects nest deeper than Boost.JSON's default limit of 32 (CRDs with their schemas do).
json::value ParseJson(std::string_view text, json::error_code& ec);
// Parses a request body as JSON, or YAML when the client says so.
bool ParseBody(const HttpRequest& request, json::object* out, ApiError* error);
std::string MetaString(const json::object& obj, std::string_view key);
// The checks the API server's REST handler makes before the object reaches storage.
bool CheckBodyIdentity(const ResourceType& type, const std::string& ns, const std::string& name,
                       const json::object& obj, ApiError* error);
bool ParseWriteOptions(const std::map<std::string, std::string>& q, WriteOptions* wo,
                       ApiError* error);
bool ParseListOptions(const std::map<std::string, std::string>& q, ListOptions* lo,
                      ApiError* error);
bool ParseDeleteOptions(const HttpRequest& request, const std::map<std::string, std::string>& q,
                        DeleteOptions* d, ApiError* error);

}  // namespace kubesim::api_internal
