#pragma once

// A small reader of the Prometheus text format (0.0.4) for tests: what a scraper would see.

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kje::testing {

struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct PromText {
  std::vector<PromSample> samples;
  std::map<std::string, std::string> types;  // family name -> "counter", "histogram", ...
  std::vector<std::string> errors;           // lines that did not parse

  // The value of the sample with exactly these labels, if present.
  std::optional<double> Value(std::string_view name,
                              const std::map<std::string, std::string>& labels) const {
    for (const auto& s : samples) {
      if (s.name == name && s.labels == labels) return s.value;
    }
    return std::nullopt;
  }
  // Value(), or 0 when absent (a counter not yet created).
  double ValueOr0(std::string_view name, const std::map<std::string, std::string>& labels) const {
    return Value(name, labels).value_or(0);
  }
  // Every sample of `name` whose labels include `subset`.
  std::vector<PromSample> Matching(std::string_view name,
                                   const std::map<std::string, std::string>& subset = {}) const {
    std::vector<PromSample> out;
    for (const auto& s : samples) {
      if (s.name != name) continue;
      bool all = true;
      for (const auto& [k, v] : subset) {
        auto it = s.labels.find(k);
        all &= it != s.labels.end() && it->second == v;
      }
      if (all) out.push_back(s);
    }
    return out;
  }
};

inline PromText ParsePromText(std::string_view text) {
  PromText out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (line.substr(0, 7) == "# TYPE ") {
        std::string_view rest = line.substr(7);
        size_t sp = rest.find(' ');
        if (sp != std::string_view::npos) {
          out.types[std::string(rest.substr(0, sp))] = std::string(rest.substr(sp + 1));
        }
      }
      continue;
    }
    PromSample sample;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    sample.name = std::string(line.substr(0, i));
    bool ok = !sample.name.empty();
    if (ok && i < line.size() && line[i] == '{') {
      ++i;
      while (ok && i < line.size() && line[i] != '}') {
        size_t eq = line.find('=', i);
        if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] != '"') {
          ok = false;
          break;
        }
        std::string key(line.substr(i, eq - i));
        std::string value;
        size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\' && j + 1 < line.size()) {
            ++j;
            value += line[j] == 'n' ? '\n' : line[j];
          } else {
            value += line[j];
          }
        }
        if (j >= line.size()) {
          ok = false;
          break;
        }
        sample.labels[key] = value;
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      if (i >= line.size()) ok = false;
      ++i;  // '}'
    }
    if (ok && (i >= line.size() || line[i] != ' ')) ok = false;
    if (ok) {
      std::string value(line.substr(i + 1));
      size_t sp = value.find(' ');  // an optional timestamp follows
      if (sp != std::string::npos) value.resize(sp);
      char* end = nullptr;
      sample.value = std::strtod(value.c_str(), &end);
      ok = !value.empty() && end == value.c_str() + value.size();
    }
    if (ok) {
      out.samples.push_back(std::move(sample));
    } else {
      out.errors.emplace_back(line);
    }
  }
  return out;
}

}  // namespace kje::testing
