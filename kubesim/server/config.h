#pragma once

// The kubesim binary's command line and the files it writes (CA, kubeconfig).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kubesim {

struct Flags {
  std::string listen = "127.0.0.1:0";
  std::string tls_cert;  // PEM chain; with tls_key replaces the generated certificate
  std::string tls_key;
  std::string tls_ca;      // CA for the kubeconfig when tls_cert is given (default: tls_cert)
  std::string write_ca;    // write the CA certificate (PEM) here
  std::string token_file;  // the accepted bearer token; re-read when it changes
  std::string client_ca;   // client certificates signed by this CA authenticate
  std::string write_kubeconfig;
  std::string kubeconfig_namespace = "default";
  std::vector<std::string> namespaces;  // created at start besides default and kube-system
  std::vector<std::string> crd_dirs;
  // Namespaces the simulated operator watches. Absent: "default"; empty: no operator.
  std::optional<std::vector<std::string>> operator_namespaces;
  double time_scale = 1.0;
  // --operator-version V (every namespace) and NS=V (one namespace): "0.9", "1.0" or "1.1".
  std::string operator_version = "1.0";
  std::map<std::string, std::string> namespace_operator_versions;
  std::vector<std::string> crd_overlays;  // --crd-overlay F, applied to the loaded CRDs in order
  // Namespaces the simulated Kubeflow operator (sparkoperator.k8s.io) watches. Absent or empty:
  // none.
  std::vector<std::string> kubeflow_namespaces;
  bool kubeflow_namespaces_given = false;
  // --kubeflow-executor-owner: "app" (v2.5.2, default) or "driver-only".
  std::string kubeflow_executor_owner = "app";
  int threads = 2;
  int64_t max_body_bytes = 3 * 1024 * 1024;
  int64_t bookmark_interval_ms = 2000;
  // How long an Event lives after its last write, in operator time (--time-scale applies).
  int64_t event_ttl_seconds = 3600;
  std::vector<std::string> seeds;  // --seed NS:COUNT:STATE[:LOG_BYTES] (seed.h), in order
  bool help = false;
};

// Parses `--name value` and `--name=value`. Returns false with a message on bad input.
bool ParseFlags(const std::vector<std::string>& args, Flags* flags, std::string* error);

std::string UsageText();

// "127.0.0.1:0", "[::1]:8443", "localhost:6443".
bool SplitHostPort(const std::string& listen, std::string* host, uint16_t* port,
                   std::string* error);

// Comma-separated list without empty items.
std::vector<std::string> SplitList(const std::string& text);

// A complete kubeconfig: cluster and user "kubesim", context "kubesim" with `ns`, current.
std::string KubeconfigYaml(const std::string& server_url, const std::string& ca_pem,
                           const std::string& token, const std::string& ns);

// Writes through a temporary file and rename(2), so readers never see a partial file. The file
// is private (0600): it may hold a token or a key.
bool WriteFileAtomically(const std::string& path, const std::string& content, std::string* error);

bool ReadFile(const std::string& path, std::string* content, std::string* error);

}  // namespace kubesim
