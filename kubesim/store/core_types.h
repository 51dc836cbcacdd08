#pragma once

// The built-in core v1 resource types kubesim serves besides custom resources.

#include <vector>

#include "kubesim/store/store.h"

namespace kubesim {

// namespaces (cluster-scoped, status subresource), pods (status subresource; a light validator
// requiring named containers with images), events, secrets, configmaps, services (status
// subresource), serviceaccounts.
std::vector<ResourceType> CoreTypes();

// Each of CoreTypes() by plural.
ResourceType NamespaceType();
ResourceType PodType();

}  // namespace kubesim
