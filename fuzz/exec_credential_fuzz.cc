// An exec credential plugin's stdout (EKS, GKE and OIDC helpers): any bytes. The first byte picks
// the apiVersion the kubeconfig asked for.

#include <string>

#include "fuzz/fuzz_check.h"
#include "k8s/credentials.h"
#include "rapidjson/document.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string_view version =
      data[0] & 1 ? "client.authentication.k8s.io/v1beta1" : "client.authentication.k8s.io/v1";
  std::string_view json = kje::fuzz::AsText(data + 1, size - 1);
  absl::StatusOr<kje::k8s::ExecCredentialResult> r = kje::k8s::ParseExecCredential(json, version);
  if (!r.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(r.status()));
    FUZZ_CHECK(!r.status().message().empty());
    // The token is never quoted.
    rapidjson::Document doc;
    doc.Parse(json.data(), json.size());
    if (!doc.HasParseError() && doc.IsObject() && doc.HasMember("status") &&
        doc["status"].IsObject() && doc["status"].HasMember("token") &&
        doc["status"]["token"].IsString()) {
      std::string token(doc["status"]["token"].GetString(),
                        doc["status"]["token"].GetStringLength());
      // A marker no fixed text holds: if only the token has it, the message must not.
      std::string message(r.status().message());
      std::string_view marker = "S3CR3T";
      bool only_in_token = token.find(marker) != std::string::npos &&
                           json.find(marker) == json.rfind(marker) &&
                           json.find("\\u") == std::string_view::npos;  // no hidden copy
      if (only_in_token) {
        FUZZ_CHECK(message.find("S3CR3T") == std::string::npos);
      }
    }
    return 0;
  }
  const kje::k8s::Credentials& c = r->credentials;
  FUZZ_CHECK(!c.bearer_token.empty() || !c.client_cert_pem.empty());
  FUZZ_CHECK(c.client_cert_pem.empty() == c.client_key_pem.empty());
  return 0;
}
