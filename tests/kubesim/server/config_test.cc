#include "kubesim/server/config.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "kubesim/server/tls.h"

namespace kubesim {
namespace {

TEST_CASE("ParseFlags reads both flag forms and repeated flags", "[config]") {
  Flags f;
  std::string error;
  REQUIRE(
      ParseFlags({"--listen", "127.0.0.1:0", "--crd-dir=/a", "--crd-dir", "/b", "--namespaces",
                  "x, y,,z", "--operator-namespaces=", "--time-scale", "100", "--token-file", "/t"},
                 &f, &error));
  CHECK(f.listen == "127.0.0.1:0");
  CHECK(f.crd_dirs == std::vector<std::string>{"/a", "/b"});
  CHECK(f.namespaces == std::vector<std::string>{"x", "y", "z"});
  REQUIRE(f.operator_namespaces.has_value());
  CHECK(f.operator_namespaces->empty());
  CHECK(f.time_scale == 100.0);
  CHECK(f.token_file == "/t");
  Flags defaults;
  REQUIRE(ParseFlags({}, &defaults, &error));
  CHECK_FALSE(defaults.operator_namespaces.has_value());
  // The API server's --event-ttl default, 1 h.
  CHECK(defaults.event_ttl_seconds == 3600);
  REQUIRE(ParseFlags({"--event-ttl-seconds=90"}, &f, &error));
  CHECK(f.event_ttl_seconds == 90);
}

TEST_CASE("ParseFlags rejects bad input", "[config]") {
  Flags f;
  std::string error;
  CHECK_FALSE(ParseFlags({"--bogus", "1"}, &f, &error));
  CHECK(error.find("--bogus") != std::string::npos);
  CHECK_FALSE(ParseFlags({"--listen"}, &f, &error));
  CHECK_FALSE(ParseFlags({"--time-scale", "0"}, &f, &error));
  CHECK_FALSE(ParseFlags({"--time-scale", "fast"}, &f, &error));
  CHECK_FALSE(ParseFlags({"--threads", "0"}, &f, &error));
  CHECK_FALSE(ParseFlags({"--event-ttl-seconds", "0"}, &f, &error));
  CHECK(error.find("--event-ttl-seconds") != std::string::npos);
  CHECK_FALSE(ParseFlags({"--tls-cert", "/c"}, &f, &error));  // without --tls-key
  CHECK_FALSE(ParseFlags({"positional"}, &f, &error));
}

TEST_CASE("The operator version is global or per namespace - CRD overlays repeat", "[config]") {
  Flags f;
  std::string error;
  REQUIRE(ParseFlags(
      {"--operator-version", "1.1", "--operator-version=spark-jobs=1.0", "--operator-version",
       "legacy=0.9", "--crd-overlay", "/a.yaml", "--crd-overlay=/b.yaml"},
      &f, &error));
  CHECK(f.operator_version == "1.1");
  CHECK(f.namespace_operator_versions ==
        std::map<std::string, std::string>{{"legacy", "0.9"}, {"spark-jobs", "1.0"}});
  CHECK(f.crd_overlays == std::vector<std::string>{"/a.yaml", "/b.yaml"});
  Flags defaults;
  CHECK(defaults.operator_version == "1.0");
  for (const char* bad : {"1.2", "", "ns=", "ns=2.0"}) {
    INFO(bad);
    Flags g;
    CHECK_FALSE(ParseFlags({"--operator-version", bad}, &g, &error));
    CHECK(error.find("--operator-version") != std::string::npos);
  }
}

TEST_CASE("The Kubeflow operator's namespaces and executor owners", "[config]") {
  Flags defaults;
  CHECK(defaults.kubeflow_namespaces.empty());
  CHECK_FALSE(defaults.kubeflow_namespaces_given);
  CHECK(defaults.kubeflow_executor_owner == "app");
  Flags f;
  std::string error;
  REQUIRE(ParseFlags({"--kubeflow-namespaces", "a,b", "--kubeflow-executor-owner=driver-only"}, &f,
                     &error));
  CHECK(f.kubeflow_namespaces == std::vector<std::string>{"a", "b"});
  CHECK(f.kubeflow_namespaces_given);
  CHECK(f.kubeflow_executor_owner == "driver-only");
  Flags g;
  CHECK_FALSE(ParseFlags({"--kubeflow-executor-owner", "both"}, &g, &error));
  CHECK(error.find("--kubeflow-executor-owner") != std::string::npos);
}

TEST_CASE("SplitHostPort handles IPv4, IPv6 and localhost", "[config]") {
  std::string host, error;
  uint16_t port = 1;
  REQUIRE(SplitHostPort("127.0.0.1:0", &host, &port, &error));
  CHECK(host == "127.0.0.1");
  CHECK(port == 0);
  REQUIRE(SplitHostPort("[::1]:6443", &host, &port, &error));
  CHECK(host == "::1");
  CHECK(port == 6443);
  REQUIRE(SplitHostPort("localhost:8443", &host, &port, &error));
  CHECK(host == "127.0.0.1");
  CHECK_FALSE(SplitHostPort("127.0.0.1", &host, &port, &error));
  CHECK_FALSE(SplitHostPort("h:70000", &host, &port, &error));
  CHECK_FALSE(SplitHostPort("h:x", &host, &port, &error));
}

TEST_CASE("The kubeconfig is complete and parses as YAML", "[config]") {
  GeneratedTls tls;
  std::string error;
  REQUIRE(GenerateServerTls(&tls, &error));
  std::string text = KubeconfigYaml("https://127.0.0.1:4321", tls.ca.cert_pem, "tok-123", "team");
  YAML::Node kc = YAML::Load(text);
  CHECK(kc["current-context"].as<std::string>() == "kubesim");
  CHECK(kc["clusters"][0]["cluster"]["server"].as<std::string>() == "https://127.0.0.1:4321");
  CHECK(kc["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>() ==
        Base64Encode(tls.ca.cert_pem));
  CHECK(kc["users"][0]["user"]["token"].as<std::string>() == "tok-123");
  CHECK(kc["contexts"][0]["name"].as<std::string>() == "kubesim");
  CHECK(kc["contexts"][0]["context"]["namespace"].as<std::string>() == "team");
  CHECK(kc["contexts"][0]["context"]["cluster"].as<std::string>() ==
        kc["clusters"][0]["name"].as<std::string>());
  CHECK(kc["contexts"][0]["context"]["user"].as<std::string>() ==
        kc["users"][0]["name"].as<std::string>());
}

TEST_CASE("WriteFileAtomically replaces the file and keeps it private", "[config]") {
  char dir[] = "/tmp/kubesim-config-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/kubeconfig";
  std::string error;
  REQUIRE(WriteFileAtomically(path, "one", &error));
  REQUIRE(WriteFileAtomically(path, "two", &error));
  std::string content;
  REQUIRE(ReadFile(path, &content, &error));
  CHECK(content == "two");
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK_FALSE(WriteFileAtomically(std::string(dir) + "/missing/dir/file", "x", &error));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kubesim
