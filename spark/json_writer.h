#pragma once

// Writing JSON with RapidJSON's SAX writer from string_views: the builders' shared shorthands.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace kje::spark::json {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

inline void Key(Writer& w, std::string_view key) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}
inline void Str(Writer& w, std::string_view value) {
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}
inline void KeyStr(Writer& w, std::string_view key, std::string_view value) {
  Key(w, key);
  Str(w, value);
}
inline void KeyInt(Writer& w, std::string_view key, int64_t value) {
  Key(w, key);
  w.Int64(value);
}
inline void KeyStrings(Writer& w, std::string_view key, const std::vector<std::string>& values) {
  Key(w, key);
  w.StartArray();
  for (const std::string& value : values) Str(w, value);
  w.EndArray();
}

}  // namespace kje::spark::json
