#pragma once

// Type-checked reads of Boost.JSON objects for the simulators: a missing or mistyped member reads
// as absent, never as an exception.

#include <boost/json.hpp>
#include <string>
#include <string_view>

namespace kubesim::sim {

// The member as a string, "" when absent or not a string.
inline std::string StringAt(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

// The member as an object, nullptr when absent or not an object (or `o` is null).
inline const boost::json::object* ObjectAt(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}
inline const boost::json::object* ObjectAt(const boost::json::object* o, std::string_view key) {
  return o == nullptr ? nullptr : ObjectAt(*o, key);
}

}  // namespace kubesim::sim
