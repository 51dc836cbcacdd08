#pragma once

// A CRD overlay: a small, documented set of schema edits applied to a loaded CRD, for an operator
// release whose CRD file isn't vendored yet (see crds/apache-spark-operator/1.1.0-overlay/).
// Format (YAML or JSON): {crd: <metadata.name>, version: <served version>, operations: [{op:
// add|append, path: <JSON pointer into that version's openAPIV3Schema>, value: ...}]}. `add` sets
// a member whose parent object exists (and must not replace one: an overlay only adds), `append`
// pushes onto an existing array.

#include <string>
#include <vector>

#include "kubesim/schema/crd.h"

namespace kubesim {

// Applies the overlay file to the matching CRD of `crds` (rebuilt with its new schema). False with
// a message when the file can't be read, names no loaded CRD or version, or an operation's path
// doesn't fit the schema.
bool ApplyCrdOverlayFile(const std::string& path, std::vector<Crd>* crds, std::string* error);

}  // namespace kubesim
