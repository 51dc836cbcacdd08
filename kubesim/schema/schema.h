#pragma once

// Structural-schema validation of custom resources against a CRD's openAPIV3Schema, the way the
// Kubernetes API server does it: types (string, integer incl. int32/int64 formats, number,
// boolean, object, array), required, enum, nullable, properties, additionalProperties (maps),
// items, x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string, min/max where present;
// unknown fields pruned, or reported with strict field validation. metadata, apiVersion and kind
// are the API server's business and not checked here.

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "kubesim/store/store.h"

namespace kubesim {

class Schema {
 public:
  virtual ~Schema() = default;

  // Compiles an openAPIV3Schema. Returns null and sets *error on a schema it can't use.
  static std::unique_ptr<Schema> Compile(const boost::json::value& open_api_v3_schema,
                                         std::string* error);

  // Validates `obj` (a whole custom resource) in place. Unknown fields are pruned unless `strict`,
  // in which case their paths (e.g. "spec.foo", "spec.list[0].foo") go to *unknown_fields (if
  // given) and they are kept. As the API server does before validating, nulls of non-nullable
  // fields are dropped (or defaulted) and the schema's defaults are applied to present parents.
  // Returns the violations with field paths (array items "[i]", map values ".key"), e.g.
  // {FieldValueRequired, "Required value", "spec.runtimeVersions.sparkVersion"}; an integer
  // beyond int64 counts as a "number", as the API server's JSON decoder makes it a float.
  virtual std::vector<FieldCause> Validate(boost::json::object& obj, bool strict,
                                           std::vector<std::string>* unknown_fields) const = 0;
};

// YAML → JSON with the YAML 1.2 core-schema typing of plain scalars (null, booleans, integers,
// floats); quoted scalars stay strings.
boost::json::value YamlToJson(const YAML::Node& node);

}  // namespace kubesim
