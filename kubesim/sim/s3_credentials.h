#pragma once

// The S3 credentials a driver pod holds, as hadoop-aws's environment-variable provider finds
// them: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN in its container's
// environment, each a plain `value`, a `valueFrom.secretKeyRef`, or a key of an `envFrom`
// secretRef (with its prefix); an `env` entry wins over `envFrom`, as the kubelet resolves them.
// The Secrets are read through the kubelet's lookup, so a fetch uses exactly what the pod would.

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "kubesim/sim/actions.h"
#include "kubesim/sim/fetch.h"

namespace kubesim::sim {

// nullopt unless both the key id and the secret key resolve (an unset lookup resolves nothing
// from a Secret).
std::optional<S3Credentials> PodS3Credentials(const boost::json::object& pod,
                                              std::string_view container,
                                              const ObjectLookup& lookup);

// Standard base64 as a Secret's `data` holds it; nullopt when malformed.
std::optional<std::string> DecodeBase64(std::string_view in);

}  // namespace kubesim::sim
