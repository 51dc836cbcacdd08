#include "k8s/connection_config.h"

#include <catch2/catch.hpp>
#include <map>

#include "absl/strings/escaping.h"
#include "base/quote.h"
#include "tests/k8s/test_util.h"

namespace kje::k8s {
namespace {

using testing::TempDir;

Environment FakeEnv(std::map<std::string, std::string> vars, std::string home, std::string sa_dir) {
  Environment env;
  env.getenv = [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  env.home = std::move(home);
  env.service_account_dir = std::move(sa_dir);
  return env;
}

const char kCaPem[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

std::string Kubeconfig(const std::string& current, const std::string& extra_clusters = "",
                       const std::string& extra_contexts = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: " + current +
         "\n"
         "clusters:\n"
         "- name: c1\n"
         "  cluster:\n"
         "    server: https://10.0.0.1:6443/prefix/\n"
         "    certificate-authority-data: " +
         absl::Base64Escape(kCaPem) + "\n" + extra_clusters +
         "contexts:\n"
         "- name: ctx1\n"
         "  context: {cluster: c1, user: u1, namespace: jobs}\n"
         "- name: ctx2\n"
         "  context: {cluster: c1, user: u2}\n" +
         extra_contexts +
         "users:\n"
         "- name: u1\n"
         "  user: {token: tok-1}\n"
         "- name: u2\n"
         "  user: {tokenFile: tok.txt}\n";
}

std::string Error(const absl::StatusOr<ConnectionConfig>& c) {
  REQUIRE_FALSE(c.ok());
  return std::string(c.status().message());
}

TEST_CASE("A kubeconfig's current context gives server, CA, namespace and token") {
  TempDir dir;
  std::string path = dir.Write("config", Kubeconfig("ctx1"));
  auto c = ResolveConnection({path, "", "", "", ""}, FakeEnv({}, "", ""));
  REQUIRE(c.ok());
  CHECK(c->tls);
  CHECK(c->host == "10.0.0.1");
  CHECK(c->port == "6443");
  CHECK(c->base_path == "/prefix");
  CHECK(c->ca_pem == kCaPem);
  CHECK(c->namespace_ == "jobs");
  CHECK(c->credentials->Get()->bearer_token == "tok-1");
  CHECK(c->source.find("ctx1") != std::string::npos);
}

TEST_CASE("A named context wins, its tokenFile is relative to the kubeconfig") {
  TempDir dir;
  std::string path = dir.Write("sub/config", Kubeconfig("ctx1"));
  dir.Write("sub/tok.txt", "from-file\n");
  auto c = ResolveConnection({path, "ctx2", "", "", ""}, FakeEnv({}, "", ""));
  REQUIRE(c.ok());
  CHECK(c->namespace_.empty());
  CHECK(c->credentials->Get()->bearer_token == "from-file");
}

TEST_CASE("Unusable kubeconfigs are rejected with what is wrong") {
  TempDir dir;
  Environment env = FakeEnv({}, "", "");
  auto load = [&](const std::string& content, const std::string& context = "") {
    return ResolveConnection({dir.Write("config", content), context, "", "", ""}, env);
  };
  CHECK(Error(ResolveConnection({dir.File("nope"), "", "", "", ""}, env)).find("does not exist") !=
        std::string::npos);
  CHECK(Error(load("just a string")).find("is not a kubeconfig") != std::string::npos);
  CHECK(Error(load("kind: Pod\napiVersion: v1\n")).find("is not a kubeconfig") !=
        std::string::npos);
  CHECK(Error(load("foo: bar\n")).find("is not a kubeconfig") != std::string::npos);
  CHECK(Error(load("key: [unclosed\n")).find("not valid YAML") != std::string::npos);
  // yaml-cpp names the character it could not read; the message escapes it.
  std::string bad_escape = Error(load("kind: \"a\\\x03\"\n"));
  CHECK_THAT(bad_escape, Catch::Contains("unknown escape character: \\x03"));
  CHECK_FALSE(HasControlByte(bad_escape));
  CHECK(Error(load(Kubeconfig(""))).find("has no current-context") != std::string::npos);
  CHECK(Error(load(Kubeconfig("ghost"))).find("current-context \"ghost\" is not defined") !=
        std::string::npos);
  CHECK(Error(load(Kubeconfig("ctx1"), "other")).find("context \"other\" is not defined") !=
        std::string::npos);
  CHECK(Error(load(Kubeconfig("bad", "", "- name: bad\n  context: {user: u1}\n")))
            .find("context \"bad\" has no cluster") != std::string::npos);
  CHECK(Error(load(Kubeconfig("bad", "", "- name: bad\n  context: {cluster: c9, user: u1}\n")))
            .find("refers to cluster \"c9\", which is not defined") != std::string::npos);
  CHECK(Error(load(Kubeconfig("bad", "- name: c2\n  cluster: {server: '  '}\n",
                              "- name: bad\n  context: {cluster: c2, user: u1}\n")))
            .find("cluster \"c2\" has no server") != std::string::npos);
  CHECK(Error(load(Kubeconfig("bad", "- name: c2\n  cluster: {}\n",
                              "- name: bad\n  context: {cluster: c2, user: u1}\n")))
            .find("cluster \"c2\" has no server") != std::string::npos);
  CHECK(Error(load(Kubeconfig("bad", "- name: c2\n",
                              "- name: bad\n  context: {cluster: c2, user: u1}\n")))
            .find("cluster \"c2\" has no server") != std::string::npos);
  CHECK(Error(load(Kubeconfig("bad", "- name: c2\n  cluster: {server: 'ftp://x'}\n",
                              "- name: bad\n  context: {cluster: c2, user: u1}\n")))
            .find("must start with https:// or http://") != std::string::npos);
  CHECK(Error(load("kind: Config\ncurrent-context: x\ncontexts: {x: y}\n")).find("is not a list") !=
        std::string::npos);
  CHECK(Error(load(Kubeconfig("bad", "", "- name: bad\n  context: {cluster: c1, user: nobody}\n")))
            .find("refers to user \"nobody\", which is not defined") != std::string::npos);
}

TEST_CASE("Kubeconfig credentials: client certificates from files and data, insecure mode") {
  TempDir dir;
  dir.Write("client.crt", "CERT-PEM");
  dir.Write("client.key", "KEY-PEM");
  std::string config =
      "kind: Config\ncurrent-context: x\n"
      "clusters:\n- name: c\n  cluster: {server: 'https://kube.example', "
      "insecure-skip-tls-verify: true}\n"
      "contexts:\n- name: x\n  context: {cluster: c, user: files}\n"
      "- name: y\n  context: {cluster: c, user: data}\n"
      "- name: z\n  context: {cluster: c, user: half}\n"
      "users:\n- name: files\n  user: {client-certificate: client.crt, client-key: client.key}\n"
      "- name: data\n  user: {client-certificate-data: " +
      absl::Base64Escape("C2") + ", client-key-data: " + absl::Base64Escape("K2") +
      ", token: t2}\n"
      "- name: half\n  user: {client-certificate: client.crt}\n";
  std::string path = dir.Write("config", config);
  Environment env = FakeEnv({}, "", "");
  auto x = ResolveConnection({path, "x", "", "", ""}, env);
  REQUIRE(x.ok());
  CHECK(x->insecure_skip_tls_verify);
  CHECK(x->port == "443");
  CHECK(x->credentials->Get()->client_cert_pem == "CERT-PEM");
  CHECK(x->credentials->Get()->client_key_pem == "KEY-PEM");
  auto y = ResolveConnection({path, "y", "", "", ""}, env);
  REQUIRE(y.ok());
  CHECK(y->credentials->Get()->client_cert_pem == "C2");
  CHECK(y->credentials->Get()->bearer_token == "t2");
  CHECK(Error(ResolveConnection({path, "z", "", "", ""}, env)).find("without a key") !=
        std::string::npos);
}

TEST_CASE("A CA together with insecure-skip-tls-verify is rejected") {
  TempDir dir;
  std::string path = dir.Write(
      "config", Kubeconfig("bad",
                           "- name: c2\n  cluster: {server: 'https://h', insecure-skip-tls-verify: "
                           "true, certificate-authority-data: " +
                               absl::Base64Escape(kCaPem) + "}\n",
                           "- name: bad\n  context: {cluster: c2, user: u1}\n"));
  CHECK(Error(ResolveConnection({path, "", "", "", ""}, FakeEnv({}, "", ""))).find("pick one") !=
        std::string::npos);
}

TEST_CASE("Exec users become exec credential providers, unsupported auth is rejected") {
  TempDir dir;
  std::string base =
      "kind: Config\ncurrent-context: x\n"
      "clusters:\n- name: c\n  cluster: {server: 'https://kube.example:8443'}\n"
      "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
      "users:\n- name: u\n  user:\n";
  Environment env = FakeEnv({}, "", "");
  auto exec = ResolveConnection(
      {dir.Write("a", base + "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                             "      command: ./helper.sh\n      args: [token]\n"
                             "      env: [{name: A, value: b}]\n"),
       "", "", "", ""},
      env);
  REQUIRE(exec.ok());
  CHECK(dynamic_cast<ExecCredentialProvider*>(exec->credentials.get()) != nullptr);
  CHECK(Error(ResolveConnection(
                  {dir.Write("b", base + "    exec: {apiVersion: client.authentication.k8s.io/"
                                         "v1alpha1, command: x}\n"),
                   "", "", "", ""},
                  env))
            .find("is not supported") != std::string::npos);
  CHECK(
      Error(ResolveConnection(
                {dir.Write("c", base + "    exec: {apiVersion: client.authentication.k8s.io/v1}\n"),
                 "", "", "", ""},
                env))
          .find("exec has no command") != std::string::npos);
  CHECK(Error(ResolveConnection(
                  {dir.Write("d", base + "    auth-provider: {name: gcp}\n"), "", "", "", ""}, env))
            .find("auth-provider") != std::string::npos);
  CHECK(Error(ResolveConnection(
                  {dir.Write("e", base + "    {username: a, password: b}\n"), "", "", "", ""}, env))
            .find("basic authentication") != std::string::npos);
}

TEST_CASE("masterUrl with a CA file and a token file") {
  TempDir dir;
  std::string ca = dir.Write("ca.crt", kCaPem);
  std::string token = dir.Write("token", "t-1\n");
  Environment env = FakeEnv({}, "", "");
  auto c = ResolveConnection({"", "", "https://[::1]:9443", ca, token}, env);
  REQUIRE(c.ok());
  CHECK(c->host == "::1");
  CHECK(c->port == "9443");
  CHECK(c->ca_pem == kCaPem);
  CHECK(c->credentials->Get()->bearer_token == "t-1");
  CHECK(c->source == "masterUrl");

  CHECK(Error(ResolveConnection({"k", "", "https://h", "", ""}, env)).find("cannot be combined") !=
        std::string::npos);
  CHECK(
      Error(ResolveConnection({"", "ctx", "https://h", "", ""}, env)).find("cannot be combined") !=
      std::string::npos);
  CHECK(Error(ResolveConnection({"", "", "", ca, ""}, env)).find("need masterUrl") !=
        std::string::npos);
  CHECK(Error(ResolveConnection({"", "", "https://h", dir.File("none"), ""}, env))
            .find("caCertFile") != std::string::npos);
  CHECK(Error(ResolveConnection({"", "", "https://h", "", dir.File("none")}, env))
            .find("does not exist") != std::string::npos);
  CHECK(Error(ResolveConnection({"", "", "https://h:99999", "", ""}, env)).find("bad port") !=
        std::string::npos);
}

TEST_CASE("Default lookup: $KUBECONFIG, then ~/.kube/config, then in-cluster") {
  TempDir dir;
  std::string sa = dir.path() + "/sa";
  dir.Write("sa/token", "sa-token");
  dir.Write("sa/ca.crt", kCaPem);
  dir.Write("sa/namespace", "spark-jobs\n");
  std::map<std::string, std::string> in_cluster = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                                   {"KUBERNETES_SERVICE_PORT", "443"}};

  SECTION("in-cluster when nothing else exists") {
    auto c = ResolveConnection({}, FakeEnv(in_cluster, dir.path() + "/home", sa));
    REQUIRE(c.ok());
    CHECK(c->source == "in-cluster");
    CHECK(c->host == "10.96.0.1");
    CHECK(c->namespace_ == "spark-jobs");
    CHECK(c->ca_pem == kCaPem);
    CHECK(c->credentials->Get()->bearer_token == "sa-token");
  }
  SECTION("no configuration at all") {
    auto c = ResolveConnection({}, FakeEnv({}, dir.path() + "/home", sa));
    CHECK(Error(c).find("no Kubernetes connection configured") != std::string::npos);
  }
  SECTION("a context without any kubeconfig") {
    auto c = ResolveConnection({"", "ctx1", "", "", ""}, FakeEnv(in_cluster, "", sa));
    CHECK(Error(c).find("no kubeconfig was found") != std::string::npos);
  }
  SECTION("~/.kube/config before in-cluster") {
    dir.Write("home/.kube/config", Kubeconfig("ctx1"));
    auto c = ResolveConnection({}, FakeEnv(in_cluster, dir.path() + "/home", sa));
    REQUIRE(c.ok());
    CHECK(c->host == "10.0.0.1");
  }
  SECTION("$KUBECONFIG before ~/.kube/config; several files merge, the first one wins") {
    dir.Write("home/.kube/config", Kubeconfig("ctx1"));
    std::string first =
        dir.Write("first",
                  "kind: Config\ncurrent-context: mine\nclusters:\n- name: c1\n  cluster: {server: "
                  "'http://127.0.0.1:8001'}\ncontexts:\n- name: mine\n  context: {cluster: c1}\n");
    std::string second = dir.Write("second", Kubeconfig("ctx1"));
    dir.Write("tok.txt", "second-file-token");
    auto env = FakeEnv({{"KUBECONFIG", dir.File("missing") + ":" + first + ":" + second}},
                       dir.path() + "/home", sa);
    auto c = ResolveConnection({}, env);
    REQUIRE(c.ok());
    CHECK_FALSE(c->tls);
    CHECK(c->host == "127.0.0.1");
    CHECK(c->port == "8001");
    // A context only the second file defines is still reachable.
    auto c2 = ResolveConnection({"", "ctx2", "", "", ""}, env);
    REQUIRE(c2.ok());
    CHECK(c2->host == "127.0.0.1");  // cluster c1 of the first file wins
    CHECK(c2->credentials->Get()->bearer_token == "second-file-token");
  }
}

TEST_CASE("Server URLs are parsed strictly") {
  ConnectionConfig c;
  REQUIRE(ParseServerUrl("https://kube.example", c).ok());
  CHECK(c.host == "kube.example");
  CHECK(c.port == "443");
  CHECK(c.base_path.empty());
  REQUIRE(ParseServerUrl("http://localhost:8080/", c).ok());
  CHECK_FALSE(c.tls);
  CHECK(c.port == "8080");
  CHECK(c.base_path.empty());
  CHECK_FALSE(ParseServerUrl("kube.example:443", c).ok());
  CHECK_FALSE(ParseServerUrl("https://", c).ok());
  CHECK_FALSE(ParseServerUrl("https://user:pw@h", c).ok());
  CHECK_FALSE(ParseServerUrl("https://h/x?y=1", c).ok());
  CHECK_FALSE(ParseServerUrl("https://[::1", c).ok());
  CHECK_FALSE(ParseServerUrl("https://h:abc", c).ok());
}

TEST_CASE("An over-long or control-byte name or URL is quoted bounded") {
  TempDir dir;
  std::string path = dir.Write("config", Kubeconfig("ctx1"));
  const std::string context = std::string(8999, 'x') + "\x1b";
  std::string message = Error(ResolveConnection({path, context, "", "", ""}, FakeEnv({}, "", "")));
  INFO(message.substr(0, 200));
  CHECK(message.size() < 1024);
  CHECK(message.find("context \"xxx") != std::string::npos);
  CHECK(message.find("(9000 bytes) is not defined") != std::string::npos);
  CHECK_FALSE(HasControlByte(message));

  ConnectionConfig c;
  absl::Status url = ParseServerUrl("ftp://" + std::string(8993, 'a') + "\n", c);
  REQUIRE_FALSE(url.ok());
  std::string url_message(url.message());
  CHECK(url_message.size() < 1024);
  CHECK(url_message.find("(9000 bytes) must start with https://") != std::string::npos);
  CHECK_FALSE(HasControlByte(url_message));
}

}  // namespace
}  // namespace kje::k8s
