#include "k8s/connection_config.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/log.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"

namespace kje::k8s {
namespace {

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::StatusOr<std::string> ReadFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(ToAbsl(what), " ", path, " cannot be read"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Relative paths in a kubeconfig are relative to the file that holds them.
std::string Resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || path.front() == '/' || base_dir.empty()) return path;
  return (std::filesystem::path(base_dir) / path).string();
}

std::string Scalar(const YAML::Node& node, const char* key) {
  if (!node.IsMap()) return "";
  YAML::Node v = node[key];
  return v && v.IsScalar() ? v.Scalar() : "";
}

absl::StatusOr<std::string> DecodeData(const std::string& data, std::string_view what) {
  std::string out;
  if (!absl::Base64Unescape(data, &out)) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(what), " is not valid base64"));
  }
  return out;
}

// PEM from `<key>-data` (base64) or the file named by `<key>`.
absl::StatusOr<std::string> PemFrom(const YAML::Node& node, const std::string& key,
                                    const std::string& base_dir, std::string_view owner) {
  std::string data = Scalar(node, (key + "-data").c_str());
  if (!data.empty()) return DecodeData(data, absl::StrCat(ToAbsl(owner), " ", key, "-data"));
  std::string file = Scalar(node, key.c_str());
  if (file.empty()) return std::string();
  return ReadFile(Resolve(file, base_dir), absl::StrCat(ToAbsl(owner), " ", key));
}

// Named entries of one kubeconfig list ("clusters", "contexts", "users"), each with the directory
// of the file it came from. With several files ($KUBECONFIG=a:b), the first definition wins.
struct Entry {
  YAML::Node node;
  std::string base_dir;
};
struct Merged {
  std::string current_context;
  std::map<std::string, Entry> clusters, contexts, users;
  std::string files;  // for messages
};

absl::Status MergeFile(const std::string& path, Merged& merged) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path, "kubeconfig"));
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path, " is not valid YAML: ", EscapeBounded(e.what())));
  }
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a kubeconfig: it is not a YAML mapping"));
  }
  std::string kind = Scalar(root, "kind");
  bool has_any = root["clusters"] || root["contexts"] || root["users"] || root["current-context"];
  if ((!kind.empty() && kind != "Config") || (kind.empty() && !has_any)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " is not a kubeconfig: ",
        kind.empty() ? "no clusters, contexts, users or current-context"
                     : absl::StrCat("its kind is ", QuoteBounded(kind), ", not \"Config\"")));
  }
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (merged.current_context.empty()) merged.current_context = Scalar(root, "current-context");
  for (auto [list, key, target] : {std::tuple{"clusters", "cluster", &merged.clusters},
                                   std::tuple{"contexts", "context", &merged.contexts},
                                   std::tuple{"users", "user", &merged.users}}) {
    YAML::Node items = root[list];
    if (!items || items.IsNull()) continue;
    if (!items.IsSequence()) {
      return absl::InvalidArgumentError(
          absl::StrCat("kubeconfig ", path, ": ", QuoteBounded(list), " is not a list"));
    }
    for (const YAML::Node& item : items) {
      std::string name = Scalar(item, "name");
      if (name.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("kubeconfig ", path, ": an entry of ",
                                                       QuoteBounded(list), " has no name"));
      }
      YAML::Node body = item[key];
      target->emplace(name, Entry{body ? body : YAML::Node(YAML::NodeType::Null), base_dir});
    }
  }
  absl::StrAppend(&merged.files, merged.files.empty() ? "" : ":", path);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<CredentialProvider>> UserCredentials(const std::string& user_name,
                                                                    const Entry& user,
                                                                    const Environment& env) {
  const YAML::Node& u = user.node;
  std::string owner = absl::StrCat("user ", QuoteBounded(user_name));
  if (u && !u.IsNull() && !u.IsMap()) {
    return absl::InvalidArgumentError(absl::StrCat(owner, " is not a mapping"));
  }
  if (u && u.IsMap() && u["auth-provider"]) {
    return absl::InvalidArgumentError(absl::StrCat(
        owner, " uses an auth-provider, which is not supported; use an exec credential plugin"));
  }
  if (!Scalar(u, "username").empty() || !Scalar(u, "password").empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(owner, " uses basic authentication, which is not supported"));
  }
  ASSIGN_OR_RETURN(std::string cert, PemFrom(u, "client-certificate", user.base_dir, owner));
  ASSIGN_OR_RETURN(std::string key, PemFrom(u, "client-key", user.base_dir, owner));
  if (cert.empty() != key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(owner, " has a client certificate without a key, or a key without one"));
  }
  if (u && u.IsMap() && u["exec"]) {
    const YAML::Node& e = u["exec"];
    ExecConfig exec;
    exec.api_version = Scalar(e, "apiVersion");
    exec.command = Scalar(e, "command");
    exec.install_hint = Scalar(e, "installHint");
    if (exec.api_version != "client.authentication.k8s.io/v1" &&
        exec.api_version != "client.authentication.k8s.io/v1beta1") {
      return absl::InvalidArgumentError(absl::StrCat(
          owner, ": exec apiVersion ", QuoteBounded(exec.api_version), " is not supported"));
    }
    if (exec.command.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(owner, ": exec has no command"));
    }
    // kubectl resolves a relative command with a slash against the kubeconfig's directory.
    if (exec.command.find('/') != std::string::npos) {
      exec.command = Resolve(exec.command, user.base_dir);
    }
    if (e["args"]) {
      for (const YAML::Node& arg : e["args"]) exec.args.push_back(arg.as<std::string>());
    }
    if (e["env"]) {
      for (const YAML::Node& var : e["env"]) {
        exec.env.emplace_back(Scalar(var, "name"), Scalar(var, "value"));
      }
    }
    if (!cert.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(owner, " has both an exec plugin and a client certificate"));
    }
    return std::shared_ptr<CredentialProvider>(
        std::make_shared<ExecCredentialProvider>(std::move(exec), *env.clock));
  }
  std::string token = Scalar(u, "token");
  std::string token_file = Scalar(u, "tokenFile");
  if (token.empty() && !token_file.empty()) {
    ASSIGN_OR_RETURN(auto provider, TokenFileCredentialProvider::Create(
                                        Resolve(token_file, user.base_dir), cert, key));
    return std::shared_ptr<CredentialProvider>(std::move(provider));
  }
  return std::shared_ptr<CredentialProvider>(
      std::make_shared<StaticCredentialProvider>(Credentials{token, cert, key}));
}

absl::StatusOr<ConnectionConfig> FromMerged(const Merged& merged, const std::string& context_arg,
                                            const Environment& env) {
  std::string context_name = context_arg.empty() ? merged.current_context : context_arg;
  if (context_name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kubeconfig ", merged.files, " has no current-context; set one or configure a context"));
  }
  auto context_it = merged.contexts.find(context_name);
  if (context_it == merged.contexts.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", merged.files, ": ", context_arg.empty() ? "current-" : "",
                     "context ", QuoteBounded(context_name), " is not defined"));
  }
  const YAML::Node& context = context_it->second.node;
  std::string cluster_name = Scalar(context, "cluster");
  if (cluster_name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("kubeconfig ", merged.files, ": context ",
                                                   QuoteBounded(context_name), " has no cluster"));
  }
  auto cluster_it = merged.clusters.find(cluster_name);
  if (cluster_it == merged.clusters.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", merged.files, ": context ", QuoteBounded(context_name),
                     " refers to cluster ", QuoteBounded(cluster_name), ", which is not defined"));
  }
  const YAML::Node& cluster = cluster_it->second.node;
  std::string server = std::string(absl::StripAsciiWhitespace(Scalar(cluster, "server")));
  if (server.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("kubeconfig ", merged.files, ": cluster ",
                                                   QuoteBounded(cluster_name), " has no server"));
  }
  ConnectionConfig config;
  RETURN_IF_ERROR(ParseServerUrl(server, config));
  std::string owner = absl::StrCat("cluster ", QuoteBounded(cluster_name));
  ASSIGN_OR_RETURN(config.ca_pem,
                   PemFrom(cluster, "certificate-authority", cluster_it->second.base_dir, owner));
  config.insecure_skip_tls_verify = Scalar(cluster, "insecure-skip-tls-verify") == "true";
  if (config.insecure_skip_tls_verify && !config.ca_pem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", merged.files, ": ", owner,
                     " sets both a certificate authority and insecure-skip-tls-verify; pick one"));
  }
  config.tls_server_name = Scalar(cluster, "tls-server-name");
  if (!Scalar(cluster, "proxy-url").empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", merged.files, ": ", owner, " uses proxy-url, not supported"));
  }
  config.namespace_ = Scalar(context, "namespace");
  std::string user_name = Scalar(context, "user");
  if (user_name.empty()) {
    config.credentials = std::make_shared<StaticCredentialProvider>(Credentials{});
  } else {
    auto user_it = merged.users.find(user_name);
    if (user_it == merged.users.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("kubeconfig ", merged.files, ": context ", QuoteBounded(context_name),
                       " refers to user ", QuoteBounded(user_name), ", which is not defined"));
    }
    ASSIGN_OR_RETURN(config.credentials, UserCredentials(user_name, user_it->second, env));
  }
  config.source = absl::StrCat("kubeconfig ", merged.files, " (context ", context_name, ")");
  return config;
}

absl::StatusOr<ConnectionConfig> LoadMerged(const std::vector<std::string>& paths,
                                            const std::string& context, const Environment& env) {
  // yaml-cpp throws on shapes it does not expect (a list where a mapping belongs, ...).
  try {
    Merged merged;
    for (const std::string& path : paths) RETURN_IF_ERROR(MergeFile(path, merged));
    return FromMerged(merged, context, env);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("kubeconfig ", absl::StrJoin(paths, ":"),
                                                   " is malformed: ", EscapeBounded(e.what())));
  }
}

absl::StatusOr<ConnectionConfig> InCluster(const Environment& env) {
  std::optional<std::string> host = env.getenv("KUBERNETES_SERVICE_HOST");
  std::optional<std::string> port = env.getenv("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty()) {
    return absl::FailedPreconditionError(
        "no Kubernetes connection configured: set masterUrl or kubeconfig, or provide $KUBECONFIG "
        "or ~/.kube/config, or run in a cluster (KUBERNETES_SERVICE_HOST/PORT are not set)");
  }
  ConnectionConfig config;
  bool ipv6 = host->find(':') != std::string::npos;
  RETURN_IF_ERROR(ParseServerUrl(
      absl::StrCat("https://", ipv6 ? "[" : "", *host, ipv6 ? "]" : "", ":", *port), config));
  std::string dir = env.service_account_dir;
  ASSIGN_OR_RETURN(config.ca_pem, ReadFile(dir + "/ca.crt", "in-cluster CA file"));
  ASSIGN_OR_RETURN(auto provider, TokenFileCredentialProvider::Create(dir + "/token"));
  config.credentials = std::move(provider);
  if (absl::StatusOr<std::string> ns = ReadFile(dir + "/namespace", "namespace file"); ns.ok()) {
    config.namespace_ = std::string(absl::StripAsciiWhitespace(*ns));
  }
  config.source = "in-cluster";
  return config;
}

}  // namespace

Environment Environment::Process() {
  Environment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  if (const char* home = std::getenv("HOME")) env.home = home;
  return env;
}

absl::Status ParseServerUrl(const std::string& url, ConnectionConfig& config) {
  std::string_view rest = url;
  config.server_url = url;
  if (absl::StartsWith(ToAbsl(rest), "https://")) {
    config.tls = true;
    rest.remove_prefix(8);
  } else if (absl::StartsWith(ToAbsl(rest), "http://")) {
    config.tls = false;
    rest.remove_prefix(7);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL ", QuoteBounded(url), " must start with https:// or http://"));
  }
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.find_first_of("?#") != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL ", QuoteBounded(url), " must not have a query or fragment"));
  }
  if (authority.find('@') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL ", QuoteBounded(url), " must not carry user information"));
  }
  std::string_view host, port;
  if (authority.starts_with("[")) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("server URL ", QuoteBounded(url), " has a bad host"));
    }
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        return absl::InvalidArgumentError(
            absl::StrCat("server URL ", QuoteBounded(url), " has a bad host"));
      }
      port = after.substr(1);
    }
  } else {
    size_t colon = authority.rfind(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (host.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL ", QuoteBounded(url), " has no host"));
  }
  int port_number = 0;
  if (port.empty()) {
    port = config.tls ? "443" : "80";
  } else if (!absl::SimpleAtoi(ToAbsl(port), &port_number) || port_number <= 0 ||
             port_number > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("server URL ", QuoteBounded(url), " has a bad port"));
  }
  config.host = std::string(host);
  config.port = std::string(port);
  config.base_path = std::string(path);
  return absl::OkStatus();
}

absl::StatusOr<ConnectionConfig> LoadKubeconfig(const std::string& path, const std::string& context,
                                                const Environment& env) {
  if (!FileExists(path)) {
    return absl::NotFoundError(absl::StrCat("kubeconfig ", path, " does not exist"));
  }
  return LoadMerged({path}, context, env);
}

absl::StatusOr<ConnectionConfig> ResolveConnection(const ConnectionOptions& options,
                                                   const Environment& env) {
  absl::StatusOr<ConnectionConfig> config;
  if (!options.master_url.empty()) {
    if (!options.kubeconfig.empty() || !options.context.empty()) {
      return absl::InvalidArgumentError("masterUrl cannot be combined with kubeconfig or context");
    }
    ConnectionConfig c;
    RETURN_IF_ERROR(ParseServerUrl(options.master_url, c));
    if (!options.ca_cert_file.empty()) {
      if (!FileExists(options.ca_cert_file)) {
        return absl::NotFoundError(
            absl::StrCat("caCertFile ", options.ca_cert_file, " does not exist"));
      }
      ASSIGN_OR_RETURN(c.ca_pem, ReadFile(options.ca_cert_file, "caCertFile"));
    }
    if (!options.token_file.empty()) {
      ASSIGN_OR_RETURN(auto provider, TokenFileCredentialProvider::Create(options.token_file));
      c.credentials = std::move(provider);
    } else {
      c.credentials = std::make_shared<StaticCredentialProvider>(Credentials{});
    }
    c.source = "masterUrl";
    config = std::move(c);
  } else if (!options.ca_cert_file.empty() || !options.token_file.empty()) {
    return absl::InvalidArgumentError("caCertFile and tokenFile need masterUrl");
  } else if (!options.kubeconfig.empty()) {
    config = LoadKubeconfig(options.kubeconfig, options.context, env);
  } else {
    std::optional<std::string> kubeconfig_env = env.getenv("KUBECONFIG");
    std::vector<std::string> paths;
    if (kubeconfig_env) {
      for (absl::string_view p : absl::StrSplit(*kubeconfig_env, ':', absl::SkipEmpty())) {
        if (FileExists(std::string(p))) paths.emplace_back(p);
      }
    }
    std::string home_config = env.home.empty() ? "" : env.home + "/.kube/config";
    if (!paths.empty()) {
      config = LoadMerged(paths, options.context, env);
    } else if (!home_config.empty() && FileExists(home_config)) {
      config = LoadMerged({home_config}, options.context, env);
    } else if (!options.context.empty()) {
      return absl::NotFoundError(absl::StrCat("context ", QuoteBounded(options.context),
                                              " is configured, but no kubeconfig was found "
                                              "($KUBECONFIG, ~/.kube/config)"));
    } else {
      config = InCluster(env);
    }
  }
  if (!config.ok()) return config.status();
  if (config->insecure_skip_tls_verify) {
    log::Warn(
        "TLS VERIFICATION OF THE KUBERNETES API SERVER IS DISABLED "
        "(insecure-skip-tls-verify): anyone on the path can impersonate it")
        .Kv("server", config->server_url);
  }
  if (!config->tls) {
    log::Warn("the Kubernetes API server is reached over plain HTTP")
        .Kv("server", config->server_url);
  }
  log::Info("kubernetes connection resolved")
      .Kv("source", config->source)
      .Kv("server", config->server_url);
  return config;
}

}  // namespace kje::k8s
