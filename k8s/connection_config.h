#pragma once

// How to reach the Kubernetes API server, resolved once at start:
//   1. master_url (+ ca_cert_file, token_file), exclusive with kubeconfig/context;
//   2. kubeconfig (+ context: the current one by default; a named one must exist);
//   3. neither: $KUBECONFIG, then ~/.kube/config, then in-cluster (KUBERNETES_SERVICE_HOST/PORT
//      and the service-account token, ca.crt and namespace).
// A kubeconfig that cannot be used is rejected with a message that says what is wrong.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "base/clock.h"
#include "k8s/credentials.h"

namespace kje::k8s {

// The service's configuration, as written by the operator of the service.
struct ConnectionOptions {
  std::string kubeconfig;
  std::string context;
  std::string master_url;
  std::string ca_cert_file;
  std::string token_file;
};

// The process environment, injectable for tests.
struct Environment {
  std::function<std::optional<std::string>(const std::string&)> getenv;
  std::string home;  // "" = none
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  const Clock* clock = &RealClock::Get();

  static Environment Process();
};

struct ConnectionConfig {
  std::string server_url;  // as configured, for messages
  bool tls = true;         // https (false: plain http, e.g. a local proxy)
  std::string host;        // without brackets for IPv6
  std::string port;
  std::string base_path;  // "" or a prefix such as "/k8s/clusters/c-1", without trailing '/'
  std::string ca_pem;     // "" = the system trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // SNI and the name verified; "" = host
  std::string namespace_;       // of the context or the service account; "" = none given
  std::string source;           // "kubeconfig /x (context y)", "masterUrl", "in-cluster"
  std::shared_ptr<CredentialProvider> credentials;  // never null
};

absl::StatusOr<ConnectionConfig> ResolveConnection(const ConnectionOptions& options,
                                                   const Environment& env);

// A kubeconfig file, with `context` ("" = its current-context).
absl::StatusOr<ConnectionConfig> LoadKubeconfig(const std::string& path, const std::string& context,
                                                const Environment& env);

// Parses "https://host[:port][/prefix]" into the endpoint fields of `config`.
absl::Status ParseServerUrl(const std::string& url, ConnectionConfig& config);

}  // namespace kje::k8s
