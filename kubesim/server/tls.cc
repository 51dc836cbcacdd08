#include "kubesim/server/tls.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace kubesim {
namespace {

template <typename T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

std::string OpenSslError(const std::string& what) {
  unsigned long code = ERR_get_error();
  char buf[256] = {0};
  if (code != 0) ERR_error_string_n(code, buf, sizeof(buf));
  ERR_clear_error();
  return what + (code != 0 ? std::string(": ") + buf : std::string());
}

std::string BioToString(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, len > 0 ? static_cast<size_t>(len) : 0);
}

PkeyPtr ReadKey(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return PkeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

X509Ptr ReadCert(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

// Adds one extension in the openssl config syntax ("critical,CA:TRUE").
bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

}  // namespace

bool IssueCertificate(const CertRequest& request, const KeyPair* issuer, KeyPair* out,
                      std::string* error) {
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) {
    *error = OpenSslError("generating a P-256 key");
    return false;
  }
  PkeyPtr issuer_key;
  X509Ptr issuer_cert;
  if (issuer != nullptr) {
    issuer_key = ReadKey(issuer->key_pem);
    issuer_cert = ReadCert(issuer->cert_pem);
    if (!issuer_key || !issuer_cert) {
      *error = OpenSslError("reading the issuer's certificate or key");
      return false;
    }
  }
  X509Ptr cert(X509_new());
  X509_set_version(cert.get(), 2);  // v3
  // A random 127-bit serial: unique across restarts, which browsers and Go's TLS expect.
  unsigned char serial_bytes[16];
  RAND_bytes(serial_bytes, sizeof(serial_bytes));
  serial_bytes[0] &= 0x7f;
  BIGNUM* serial_bn = BN_bin2bn(serial_bytes, sizeof(serial_bytes), nullptr);
  BN_to_ASN1_INTEGER(serial_bn, X509_get_serialNumber(cert.get()));
  BN_free(serial_bn);
  // Valid from an hour ago: tolerate small clock differences between processes.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(request.valid_days) * 86400);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("kubesim"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(request.common_name.c_str()),
                             -1, -1, 0);
  X509* signer_cert = issuer_cert ? issuer_cert.get() : cert.get();
  EVP_PKEY* signer_key = issuer_key ? issuer_key.get() : key.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer_cert));

  bool ok = true;
  if (request.is_ca) {
    ok = ok && AddExtension(cert.get(), signer_cert, NID_basic_constraints, "critical,CA:TRUE");
    ok = ok && AddExtension(cert.get(), signer_cert, NID_key_usage,
                            "critical,keyCertSign,cRLSign,digitalSignature");
  } else {
    ok = ok && AddExtension(cert.get(), signer_cert, NID_basic_constraints, "critical,CA:FALSE");
    ok = ok && AddExtension(cert.get(), signer_cert, NID_key_usage,
                            "critical,digitalSignature,keyEncipherment");
    std::string eku;
    if (request.server_auth) eku = "serverAuth";
    if (request.client_auth) eku += eku.empty() ? "clientAuth" : ",clientAuth";
    if (!eku.empty()) ok = ok && AddExtension(cert.get(), signer_cert, NID_ext_key_usage, eku);
  }
  ok = ok && AddExtension(cert.get(), signer_cert, NID_subject_key_identifier, "hash");
  if (issuer != nullptr) {
    ok = ok && AddExtension(cert.get(), signer_cert, NID_authority_key_identifier, "keyid:always");
  }
  std::string san;
  for (const auto& dns : request.dns_names) san += (san.empty() ? "DNS:" : ",DNS:") + dns;
  for (const auto& ip : request.ip_addresses) san += (san.empty() ? "IP:" : ",IP:") + ip;
  if (!san.empty()) ok = ok && AddExtension(cert.get(), signer_cert, NID_subject_alt_name, san);
  if (!ok) {
    *error = OpenSslError("adding certificate extensions");
    return false;
  }
  if (X509_sign(cert.get(), signer_key, EVP_sha256()) == 0) {
    *error = OpenSslError("signing the certificate");
    return false;
  }
  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(cert_bio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
    *error = OpenSslError("writing PEM");
    return false;
  }
  out->cert_pem = BioToString(cert_bio.get());
  out->key_pem = BioToString(key_bio.get());
  return true;
}

bool GenerateServerTls(GeneratedTls* out, std::string* error) {
  CertRequest ca;
  ca.common_name = "kubesim-ca";
  ca.is_ca = true;
  ca.valid_days = 3650;
  if (!IssueCertificate(ca, nullptr, &out->ca, error)) return false;
  CertRequest server;
  server.common_name = "kubesim";
  server.dns_names = {"localhost"};
  server.ip_addresses = {"127.0.0.1", "::1"};
  server.server_auth = true;
  return IssueCertificate(server, &out->ca, &out->server, error);
}

std::string Base64Encode(const std::string& data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

std::string CertificateCommonName(const std::string& cert_pem) {
  X509Ptr cert = ReadCert(cert_pem);
  if (!cert) return "";
  char buf[256] = {0};
  int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, buf,
                                    sizeof(buf));
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

}  // namespace kubesim
