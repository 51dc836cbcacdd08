#include "cli/flags.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace kje::cli {
namespace {

const FlagSpec* FindLong(const std::vector<FlagSpec>& specs, const std::string& name) {
  for (const FlagSpec& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const FlagSpec* FindShort(const std::vector<FlagSpec>& specs, char c) {
  for (const FlagSpec& s : specs) {
    if (s.short_name != 0 && s.short_name == c) return &s;
  }
  return nullptr;
}

std::string Display(const FlagSpec& spec) {
  return spec.short_name != 0 ? absl::StrCat("-", std::string(1, spec.short_name), "/--", spec.name)
                              : absl::StrCat("--", spec.name);
}

}  // namespace

std::optional<std::string> ParsedFlags::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> ParsedFlags::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<ParsedFlags> ParseFlags(const std::vector<std::string>& args,
                                       const std::vector<FlagSpec>& specs) {
  ParsedFlags parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      parsed.positional_.insert(parsed.positional_.end(), args.begin() + i + 1, args.end());
      break;
    }
    // "-" alone is a positional argument (conventionally stdin).
    if (arg.size() < 2 || arg[0] != '-') {
      parsed.positional_.push_back(arg);
      continue;
    }
    const FlagSpec* spec = nullptr;
    std::optional<std::string> inline_value;
    std::string shown;
    if (arg[1] == '-') {
      std::string name = arg.substr(2);
      if (auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name.resize(eq);
      }
      shown = absl::StrCat("--", name);
      spec = FindLong(specs, name);
    } else {
      shown = arg.substr(0, 2);
      spec = FindShort(specs, arg[1]);
      if (arg.size() > 2) inline_value = arg.substr(2);
    }
    if (spec == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag ", shown));
    std::string value;
    if (spec->value_name.empty()) {
      if (inline_value) {
        return absl::InvalidArgumentError(absl::StrCat(Display(*spec), " takes no value"));
      }
    } else if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(Display(*spec), " needs a value (", spec->value_name, ")"));
    }
    std::vector<std::string>& slot = parsed.values_[spec->name];
    if (!slot.empty() && !spec->repeated) {
      return absl::InvalidArgumentError(absl::StrCat(Display(*spec), " given more than once"));
    }
    slot.push_back(std::move(value));
  }
  return parsed;
}

std::string FlagsHelp(const std::vector<FlagSpec>& specs) {
  std::vector<std::pair<std::string, std::string>> rows;
  size_t width = 0;
  for (const FlagSpec& s : specs) {
    std::string left = s.short_name != 0
                           ? absl::StrCat("-", std::string(1, s.short_name), ", --", s.name)
                           : absl::StrCat("    --", s.name);
    if (!s.value_name.empty()) absl::StrAppend(&left, " ", s.value_name);
    width = std::max(width, left.size());
    rows.emplace_back(std::move(left), s.help + (s.repeated ? " (repeatable)" : ""));
  }
  std::string out;
  for (const auto& [left, help] : rows) {
    absl::StrAppend(&out, "  ", left, std::string(width - left.size() + 2, ' '), help, "\n");
  }
  return out;
}

}  // namespace kje::cli
