#pragma once

// The simulated drivers' log in Spark's log4j layout ("yy/MM/dd HH:mm:ss LEVEL Logger: message"),
// and the SparkPi argument both simulators read.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "kubesim/sim/clock.h"

namespace kubesim::sim {

inline std::string LogTime(int64_t ms) {
  std::string t = FormatTime(ms, false);  // 2026-05-12T10:00:02Z
  return t.substr(2, 2) + "/" + t.substr(5, 2) + "/" + t.substr(8, 2) + " " + t.substr(11, 8);
}

class LogWriter {
 public:
  void Line(int64_t ms, const char* level, const std::string& logger, const std::string& msg) {
    text_ += LogTime(ms) + " " + level + " " + logger + ": " + msg + "\n";
  }
  void Raw(const std::string& line) { text_ += line + "\n"; }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

// SparkPi's slices: its first argument when that is a positive whole number, else 2.
inline int64_t PiSlices(const std::vector<std::string>& arguments) {
  if (arguments.empty()) return 2;
  char* end = nullptr;
  long long v = std::strtoll(arguments[0].c_str(), &end, 10);
  return (end != nullptr && *end == '\0' && v > 0) ? v : 2;
}

}  // namespace kubesim::sim
