#include "kubesim/server/tls.h"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <catch2/catch.hpp>

namespace kubesim {
namespace {

X509* ReadCert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return cert;
}

// Verifies `leaf` against `ca` for `host` (a DNS name or an IP address) the way a TLS client
// does.
bool Verifies(const std::string& ca_pem, const std::string& leaf_pem, const std::string& host,
              bool is_ip, int purpose) {
  X509* ca = ReadCert(ca_pem);
  X509* leaf = ReadCert(leaf_pem);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf, nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx);
  if (is_ip) {
    X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
  } else {
    X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
  }
  X509_STORE_CTX_set_purpose(ctx, purpose);
  bool ok = X509_verify_cert(ctx) == 1;
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  X509_free(ca);
  X509_free(leaf);
  return ok;
}

TEST_CASE("GenerateServerTls makes a CA and a server certificate for loopback names", "[tls]") {
  GeneratedTls tls;
  std::string error;
  REQUIRE(GenerateServerTls(&tls, &error));
  CHECK(CertificateCommonName(tls.ca.cert_pem) == "kubesim-ca");
  CHECK(CertificateCommonName(tls.server.cert_pem) == "kubesim");
  CHECK(tls.server.key_pem.find("PRIVATE KEY") != std::string::npos);
  CHECK(Verifies(tls.ca.cert_pem, tls.server.cert_pem, "127.0.0.1", true, X509_PURPOSE_SSL_SERVER));
  CHECK(Verifies(tls.ca.cert_pem, tls.server.cert_pem, "::1", true, X509_PURPOSE_SSL_SERVER));
  CHECK(
      Verifies(tls.ca.cert_pem, tls.server.cert_pem, "localhost", false, X509_PURPOSE_SSL_SERVER));
  CHECK_FALSE(
      Verifies(tls.ca.cert_pem, tls.server.cert_pem, "10.0.0.1", true, X509_PURPOSE_SSL_SERVER));
  CHECK_FALSE(Verifies(tls.ca.cert_pem, tls.server.cert_pem, "example.com", false,
                       X509_PURPOSE_SSL_SERVER));
  // A server certificate is not good for client authentication.
  CHECK_FALSE(
      Verifies(tls.ca.cert_pem, tls.server.cert_pem, "localhost", false, X509_PURPOSE_SSL_CLIENT));
}

TEST_CASE("Each generation has its own CA", "[tls]") {
  GeneratedTls a, b;
  std::string error;
  REQUIRE(GenerateServerTls(&a, &error));
  REQUIRE(GenerateServerTls(&b, &error));
  CHECK(a.ca.cert_pem != b.ca.cert_pem);
  CHECK_FALSE(
      Verifies(a.ca.cert_pem, b.server.cert_pem, "127.0.0.1", true, X509_PURPOSE_SSL_SERVER));
}

TEST_CASE("IssueCertificate issues client certificates", "[tls]") {
  KeyPair ca;
  std::string error;
  CertRequest ca_req;
  ca_req.common_name = "test-ca";
  ca_req.is_ca = true;
  REQUIRE(IssueCertificate(ca_req, nullptr, &ca, &error));
  KeyPair client;
  CertRequest client_req;
  client_req.common_name = "alice";
  client_req.client_auth = true;
  REQUIRE(IssueCertificate(client_req, &ca, &client, &error));
  CHECK(CertificateCommonName(client.cert_pem) == "alice");
  X509* cert = ReadCert(client.cert_pem);
  REQUIRE(cert != nullptr);
  X509_free(cert);
  // Signed by the CA: verifies for the client purpose (no host check).
  X509* ca_cert = ReadCert(ca.cert_pem);
  X509* leaf = ReadCert(client.cert_pem);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca_cert);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf, nullptr);
  X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
  CHECK(X509_verify_cert(ctx) == 1);
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  X509_free(ca_cert);
  X509_free(leaf);
}

TEST_CASE("IssueCertificate reports an unusable issuer", "[tls]") {
  KeyPair bogus{"not a cert", "not a key"};
  KeyPair out;
  std::string error;
  CertRequest req;
  req.common_name = "x";
  CHECK_FALSE(IssueCertificate(req, &bogus, &out, &error));
  CHECK_FALSE(error.empty());
}

TEST_CASE("Base64Encode matches RFC 4648 vectors", "[tls]") {
  CHECK(Base64Encode("").empty());
  CHECK(Base64Encode("f") == "Zg==");
  CHECK(Base64Encode("fo") == "Zm8=");
  CHECK(Base64Encode("foo") == "Zm9v");
  CHECK(Base64Encode("foobar") == "Zm9vYmFy");
}

}  // namespace
}  // namespace kubesim
