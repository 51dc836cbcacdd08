// YAML → JSON with YAML 1.2 core-schema typing of plain scalars.

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "kubesim/schema/schema.h"

namespace kubesim {
namespace {

bool IsNull(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

bool ParseBool(const std::string& s, bool* out) {
  if (s == "true" || s == "True" || s == "TRUE") {
    *out = true;
    return true;
  }
  if (s == "false" || s == "False" || s == "FALSE") {
    *out = false;
    return true;
  }
  return false;
}

// Integers per the core schema: decimal with an optional sign, 0o octal, 0x hex. Values beyond
// int64 become uint64 or, beyond that, double, as a JSON decoder would keep them.
bool AllOf(const std::string& s, size_t from, bool (*pred)(char)) {
  if (from >= s.size()) return false;
  for (size_t i = from; i < s.size(); ++i) {
    if (!pred(s[i])) return false;
  }
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsOctal(char c) { return c >= '0' && c <= '7'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool ParseInt(const std::string& s, boost::json::value* out) {
  int base = 10;
  std::string digits = s;
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o' && AllOf(s, 2, IsOctal)) {
    base = 8;
    digits = s.substr(2);
  } else if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && AllOf(s, 2, IsHex)) {
    base = 16;
    digits = s.substr(2);
  } else if (!AllOf(s, (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0, IsDigit)) {
    return false;
  }
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(digits.c_str(), &end, base);
  if (errno == 0) {
    *out = static_cast<int64_t>(v);
    return true;
  }
  if (digits[0] != '-') {
    errno = 0;
    std::string unsigned_digits = digits[0] == '+' ? digits.substr(1) : digits;
    unsigned long long u = std::strtoull(unsigned_digits.c_str(), &end, base);
    if (errno == 0) {
      *out = static_cast<uint64_t>(u);
      return true;
    }
  }
  *out = std::strtod(s.c_str(), nullptr);
  return true;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsCoreFloat(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t int_digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++int_digits;
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++frac_digits;
    if (int_digits == 0 && frac_digits == 0) return false;
  } else if (int_digits == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

bool ParseFloat(const std::string& s, double* out) {
  if (IsCoreFloat(s)) {
    *out = std::strtod(s.c_str(), nullptr);
    return true;
  }
  std::string body = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? s.substr(1) : s;
  if (body == ".inf" || body == ".Inf" || body == ".INF") {
    *out = s[0] == '-' ? -std::numeric_limits<double>::infinity()
                       : std::numeric_limits<double>::infinity();
    return true;
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  return false;
}

boost::json::value PlainScalar(const std::string& s) {
  if (IsNull(s)) return nullptr;
  bool b = false;
  if (ParseBool(s, &b)) return b;
  boost::json::value v;
  if (ParseInt(s, &v)) return v;
  double d = 0;
  if (ParseFloat(s, &d)) return d;
  return boost::json::string(s);
}

}  // namespace

boost::json::value YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar: {
      // yaml-cpp tags quoted and block scalars "!" and leaves plain ones "?" (or an explicit tag).
      const std::string& tag = node.Tag();
      const std::string& text = node.Scalar();
      if (tag == "!" || tag == "tag:yaml.org,2002:str") return boost::json::string(text);
      return PlainScalar(text);
    }
    case YAML::NodeType::Sequence: {
      boost::json::array arr;
      arr.reserve(node.size());
      for (const auto& item : node) arr.push_back(YamlToJson(item));
      return arr;
    }
    case YAML::NodeType::Map: {
      boost::json::object obj;
      obj.reserve(node.size());
      for (const auto& kv : node) {
        std::string key = kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first);
        obj[key] = YamlToJson(kv.second);
      }
      return obj;
    }
  }
  return nullptr;
}

}  // namespace kubesim
