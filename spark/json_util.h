#pragma once

// Guarded RapidJSON reads: a Get* on a value of the wrong type asserts, so every access here
// checks the type first and answers "absent" instead.

#include <cstdint>
#include <optional>
#include <string_view>

#include "rapidjson/document.h"
#include "spark/time_util.h"

namespace kje::spark::json {

// The member `key` of `object`, or nullptr when `object` isn't an object or lacks it.
const rapidjson::Value* Member(const rapidjson::Value& object, std::string_view key);
const rapidjson::Value* Member(const rapidjson::Value* object, std::string_view key);

// The member as a string, or nullopt when absent or not a string.
std::optional<std::string_view> String(const rapidjson::Value* object, std::string_view key);

// The member as an integer (int64 range, no fraction), or nullopt when absent or not one.
std::optional<int64_t> Int(const rapidjson::Value* object, std::string_view key);

// The member parsed as an RFC 3339 time, or kNoTime.
EpochMillis Time(const rapidjson::Value* object, std::string_view key);

inline std::string_view View(const rapidjson::Value& string_value) {
  return std::string_view(string_value.GetString(), string_value.GetStringLength());
}

}  // namespace kje::spark::json
