#pragma once

// Certificates for kubesim's HTTPS endpoint, generated in memory with the OpenSSL 3 API: a
// self-signed CA and certificates it issues (the server's, and clients' for tests of
// client-certificate authentication). Keys are ECDSA P-256: fast to generate at every start.

#include <string>
#include <vector>

namespace kubesim {

struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

struct CertRequest {
  std::string common_name;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  // "127.0.0.1", "::1"
  bool is_ca = false;
  bool server_auth = false;
  bool client_auth = false;
  int valid_days = 365;
};

// Issues a certificate for `request`, signed by `issuer`; self-signed when `issuer` is null.
// Returns false and sets *error on failure.
bool IssueCertificate(const CertRequest& request, const KeyPair* issuer, KeyPair* out,
                      std::string* error);

// The CA and the server certificate kubesim generates when none is given: SANs localhost,
// 127.0.0.1 and ::1.
struct GeneratedTls {
  KeyPair ca;
  KeyPair server;
};
bool GenerateServerTls(GeneratedTls* out, std::string* error);

// Standard base64 (for certificate-authority-data in a kubeconfig).
std::string Base64Encode(const std::string& data);

// Subject common name of a PEM certificate ("" when unreadable). Used by tests.
std::string CertificateCommonName(const std::string& cert_pem);

}  // namespace kubesim
