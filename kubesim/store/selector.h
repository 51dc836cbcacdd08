#pragma once

// Label and field selectors as the Kubernetes API server parses them. Written for kubesim alone:
// the service has its own parser, and the two must not share bugs.

#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "kubesim/store/store.h"

namespace kubesim {

struct LabelRequirement {
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Op op = Op::kExists;
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  // Parses "a=b,c!=d,e in (f,g),h notin (i),j,!k". An empty string selects everything.
  // Errors are 400 BadRequest with the API server's "unable to parse requirement" wording.
  static Result<LabelSelector> Parse(std::string_view text);

  bool Empty() const { return requirements_.empty(); }
  // `labels` is metadata.labels (null or missing: no labels).
  bool Matches(const boost::json::object* labels) const;
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<LabelRequirement> requirements_;
};

struct FieldRequirement {
  std::string field;   // e.g. "metadata.name"
  bool equals = true;  // = / == (true) or != (false)
  std::string value;
};

class FieldSelector {
 public:
  // Parses "metadata.name=x,metadata.namespace!=y". `allowed` lists the fields the resource
  // supports; any other gives 400 `field label not supported: <field>`.
  static Result<FieldSelector> Parse(std::string_view text,
                                     const std::vector<std::string>& allowed);

  bool Empty() const { return requirements_.empty(); }
  // True when every field is under metadata (so the metadata alone decides a match).
  bool OnlyMetadata() const;
  // Compares the object's value at each dotted path (missing reads as "").
  bool Matches(const boost::json::object& obj) const;
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<FieldRequirement> requirements_;
};

// The field selectors the API server supports for a resource (metadata.name and
// metadata.namespace for all; a few more for pods, events, secrets and namespaces).
std::vector<std::string> SupportedFieldSelectors(const ResourceType& type);

// Label key / value syntax (qualified name with optional DNS prefix; value <= 63 characters).
// Return an empty string when valid, else the API server's explanation.
std::string CheckLabelKey(std::string_view key);
std::string CheckLabelValue(std::string_view value);

}  // namespace kubesim
