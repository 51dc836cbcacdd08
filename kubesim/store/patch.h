#pragma once

// The patch formats of PATCH requests, applied to JSON documents.

#include <boost/json.hpp>
#include <string_view>

#include "kubesim/store/store.h"

namespace kubesim {

// RFC 7386 JSON merge patch: objects merge recursively, null deletes, anything else replaces.
void ApplyMergePatch(boost::json::value& target, const boost::json::value& patch);

// RFC 6902 JSON patch (add, remove, replace, move, copy, test). A malformed patch document is
// 400 BadRequest; an operation that does not apply (missing path, failed test) is 422 Invalid,
// as the API server answers. `doc` is unchanged on error.
Result<bool> ApplyJsonPatch(boost::json::value& doc, const boost::json::value& patch);

// Strategic merge patch, simplified: a merge patch, except that lists the API server merges by a
// key (containers, initContainers, volumes, env, volumeMounts, imagePullSecrets by "name"; ports
// by "containerPort"; ownerReferences by "uid"; conditions by "type") are merged element-wise
// (an element {"<key>": x, "$patch": "delete"} removes one), metadata.finalizers is merged as a
// set, `$deleteFromPrimitiveList/<field>` removes values, and `$patch: replace|delete` on an
// object replaces or deletes it. Other `$` directives ($setElementOrder, $retainKeys) are
// ignored. Every other list is replaced, as upstream does for lists without a patch strategy.
void ApplyStrategicMergePatch(boost::json::value& target, const boost::json::value& patch);

}  // namespace kubesim
