// Masking sees whatever the service shows: operator messages, Events, errors, job logs and
// arguments, any bytes. Input: parts separated by "%%" lines, taken as free text and as one job's
// arguments.

#include <string>
#include <vector>

#include "base/mask.h"
#include "fuzz/fuzz_check.h"

namespace {

bool IsDelimiter(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';' || c == '&' ||
         c == '"' || c == '\'' || c == ')' || c == ']' || c == '}';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const kje::SensitiveWords words;
  std::vector<std::string> arguments;
  for (std::string_view part : kje::fuzz::SplitParts(kje::fuzz::AsText(data, size))) {
    const std::string masked = kje::MaskText(part, words);
    // Without a separator between a key and a value there is nothing to mask.
    if (part.find_first_of("=\":- ") == std::string_view::npos) FUZZ_CHECK(masked == part);
    // A sensitive conf followed by any bare value shows the mask alone.
    std::string value;
    for (char c : part) {
      if (!IsDelimiter(c)) value.push_back(c);
    }
    if (!value.empty()) {
      FUZZ_CHECK(kje::MaskText("spark.ssl.keyPassword=" + value + " x", words) ==
                 "spark.ssl.keyPassword=****** x");
    }
    arguments.emplace_back(part);
  }
  const std::vector<std::string> masked = kje::MaskArguments(arguments, words);
  FUZZ_CHECK(masked.size() == arguments.size());
  return 0;
}
