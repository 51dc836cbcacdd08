#pragma once

// "Did you mean" for a mistyped name: the config's keys and variables, the CLI's contexts and
// job names. Names only, never values (a value may be a secret).

#include <string>
#include <string_view>
#include <vector>

namespace kje {

// The edit distance of two short names (insertions, deletions, substitutions), case folded.
size_t EditDistance(std::string_view a, std::string_view b);

// "; did you mean X?" for the candidate nearest `name` when it is a likely typo of it (a few
// edits, fewer than a third of the name), else "".
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace kje
