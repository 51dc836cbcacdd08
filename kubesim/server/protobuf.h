#pragma once

// The Kubernetes protobuf encoding, as far as kubectl needs it: kubectl's typed clients send
// core objects as `application/vnd.kubernetes.protobuf` (kubectl create namespace / configmap /
// secret), and a real API server always accepts that. kubesim decodes the envelope and the few
// kinds those commands create; anything else gets 415. Responses are always JSON, which
// kubectl accepts (it offers application/json after protobuf).

#include <boost/json.hpp>
#include <string>
#include <string_view>

namespace kubesim {

// Decodes "k8s\0" + runtime.Unknown{typeMeta, raw} with raw a v1 Namespace, ConfigMap, Secret
// or ServiceAccount into its JSON form. Returns false with a message otherwise.
bool DecodeKubernetesProtobuf(std::string_view body, boost::json::object* out, std::string* error);

}  // namespace kubesim
