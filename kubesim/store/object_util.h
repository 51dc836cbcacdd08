#pragma once

// Helpers of the in-memory store: API errors as the API server words them, JSON and metadata
// accessors, name rules and resourceVersion parsing.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kubesim/store/store.h"

namespace kubesim::store_internal {

namespace json = boost::json;

std::string QualifiedResource(const ResourceType& t);
std::string QualifiedKind(const ResourceType& t);
ApiError Error(int code, std::string reason, std::string message);
ApiError BadRequest(std::string message);
json::object Details(const ResourceType& t, std::string_view name, const std::string& kind);
ApiError NotFound(const ResourceType& t, std::string_view name);
ApiError AlreadyExists(const ResourceType& t, std::string_view name);
ApiError Conflict(const ResourceType& t, std::string_view name, const std::string& why);
ApiError Invalid(const ResourceType& t, std::string_view name,
                 const std::vector<FieldCause>& causes);
ApiError Expired(std::string message);
json::object StatusObject(const ApiError& e);
const json::object* GetObject(const json::object& o, std::string_view key);
const json::object& Meta(const json::object& o);
json::object& MutableMeta(json::object& o);
std::string GetString(const json::object& o, std::string_view key);
bool Has(const json::object& o, std::string_view key);
std::vector<std::string> StringList(const json::object& o, std::string_view key);
bool IsDeleting(const json::object& obj);
bool IsDns1123Label(std::string_view s);
bool IsDns1123Subdomain(std::string_view s);
std::optional<uint64_t> ParseRv(std::string_view s);

}  // namespace kubesim::store_internal
