// Label selectors come from callers (List filters answered from memory): any text. The input is
// the selector, optionally followed by a "%%" line and labels, one `key=value` per line.

#include <set>
#include <string>

#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/strings.h"
#include "fuzz/fuzz_check.h"
#include "k8s/label_selector.h"

using kje::k8s::LabelSelector;
using Op = LabelSelector::Op;

namespace {

// The canonical text of a parsed selector.
std::string Print(const LabelSelector& s) {
  std::vector<std::string> parts;
  for (const LabelSelector::Requirement& r : s.requirements()) {
    switch (r.op) {
      case Op::kEquals:
        parts.push_back(r.key + "=" + r.values[0]);
        break;
      case Op::kNotEquals:
        parts.push_back(r.key + "!=" + r.values[0]);
        break;
      case Op::kIn:
        parts.push_back(r.key + " in (" + absl::StrJoin(r.values, ",") + ")");
        break;
      case Op::kNotIn:
        parts.push_back(r.key + " notin (" + absl::StrJoin(r.values, ",") + ")");
        break;
      case Op::kExists:
        parts.push_back(r.key);
        break;
      case Op::kDoesNotExist:
        parts.push_back("!" + r.key);
        break;
    }
  }
  return absl::StrJoin(parts, ",");
}

bool SameRequirements(const LabelSelector& a, const LabelSelector& b) {
  if (a.requirements().size() != b.requirements().size()) return false;
  for (size_t i = 0; i < a.requirements().size(); ++i) {
    const auto& x = a.requirements()[i];
    const auto& y = b.requirements()[i];
    if (x.key != y.key || x.op != y.op || x.values != y.values) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  absl::StatusOr<LabelSelector> selector = LabelSelector::Parse(parts[0]);
  kje::k8s::Labels labels;
  if (parts.size() > 1) {
    std::string_view rest = parts[1];
    while (!rest.empty()) {
      size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
      size_t eq = line.find('=');
      labels.emplace_back(std::string(line.substr(0, eq)),
                          eq == std::string_view::npos ? "" : std::string(line.substr(eq + 1)));
    }
  }
  if (!selector.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(selector.status()));
    // A caller's selector is quoted bounded and escaped: the message fits an answer as it is.
    FUZZ_CHECK_ANSWERABLE(kje::ToStd(selector.status().message()));
    return 0;
  }
  (void)selector->Matches(labels);
  // Printing and parsing again gives the same selector.
  std::string printed = Print(*selector);
  absl::StatusOr<LabelSelector> again = LabelSelector::Parse(printed);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(SameRequirements(*selector, *again));
  FUZZ_CHECK(selector->Matches(labels) == again->Matches(labels));
  if (selector->empty()) FUZZ_CHECK(selector->Matches(labels));

  // Labels made to satisfy each requirement match, when no two requirements share a key.
  std::set<std::string> keys;
  kje::k8s::Labels made;
  bool distinct = true;
  for (const LabelSelector::Requirement& r : selector->requirements()) {
    distinct = distinct && keys.insert(r.key).second;
    if (r.op == Op::kEquals || r.op == Op::kIn) made.emplace_back(r.key, r.values[0]);
    if (r.op == Op::kExists) made.emplace_back(r.key, "");
  }
  if (distinct) FUZZ_CHECK(selector->Matches(made));
  return 0;
}
