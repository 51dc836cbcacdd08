// An exec credential plugin's stdout (EKS, GKE and OIDC helpers): any bytes. The first byte picks
// the apiVersion the kubeconfig asked for.

#include <string>

#include "fuzz/fuzz_check.h"
#include "k8s/credentials.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string_view version =
      data[0] & 1 ? "client.authentication.k8s.io/v1beta1" : "client.authentication.k8s.io/v1";
  std::string_view json = kje::fuzz::AsText(data + 1, size - 1);
  absl::StatusOr<kje::k8s::ExecCredentialResult> r = kje::k8s::ParseExecCredential(json, version);
  if (!r.ok()) {
    FUZZ_CHECK(!r.status().message().empty());
    // The output is never quoted: it may hold a token.
    FUZZ_CHECK(json.size() < 16 ||
               std::string(r.status().message()).find(json) == std::string::npos);
    return 0;
  }
  const kje::k8s::Credentials& c = r->credentials;
  FUZZ_CHECK(!c.bearer_token.empty() || !c.client_cert_pem.empty());
  FUZZ_CHECK(c.client_cert_pem.empty() == c.client_key_pem.empty());
  return 0;
}
