#pragma once

// A small command-line parser for the CLI's sub-commands (the project takes no flag library
// beyond Abseil's, whose global flags don't fit per-command flag sets).
//
// Accepted forms: `--name value`, `--name=value`, `-n value`, `-nvalue` for a short flag with a
// value, and `--name` / `-n` for a boolean flag. `--` ends the flags; everything after it is
// positional. Flags and positional arguments may be interleaved.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace kje::cli {

struct FlagSpec {
  std::string name;        // long name without the dashes, e.g. "server"
  char short_name = 0;     // e.g. 'o'; 0 for none
  std::string value_name;  // e.g. "HOST:PORT"; empty for a boolean flag
  bool repeated = false;   // may be given more than once; every value is kept
  std::string help;
};

class ParsedFlags {
 public:
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // The value of a single-valued flag (the last one for a repeated flag), if given.
  std::optional<std::string> Get(const std::string& name) const;
  // Every value of a flag, in command-line order.
  std::vector<std::string> GetAll(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // The positional arguments as a command should see them (job names resolved to ids).
  void set_positional(std::vector<std::string> positional) { positional_ = std::move(positional); }

 private:
  friend absl::StatusOr<ParsedFlags> ParseFlags(const std::vector<std::string>&,
                                                const std::vector<FlagSpec>&);
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

// INVALID_ARGUMENT naming the flag for an unknown flag, a missing value, a value given to a
// boolean flag, or a single-valued flag given twice.
absl::StatusOr<ParsedFlags> ParseFlags(const std::vector<std::string>& args,
                                       const std::vector<FlagSpec>& specs);

// One line per flag, aligned, for usage texts.
std::string FlagsHelp(const std::vector<FlagSpec>& specs);

}  // namespace kje::cli
