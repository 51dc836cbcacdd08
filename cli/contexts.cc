#include "cli/contexts.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/suggest.h"
#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/output.h"

namespace kje::cli {
namespace {

const std::vector<std::string>& ContextKeys() {
  static const std::vector<std::string> kKeys = {
      "server", "tls", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "token-file"};
  return kKeys;
}

std::string EnvOr(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

absl::Status Error(const std::string& path, const std::string& key, std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", key, ": ", ToAbsl(problem)));
}

// A path as the file names it: `~/` from $HOME, relative to the file's directory.
std::string ResolvePath(const std::string& value, const std::string& file,
                        const std::map<std::string, std::string>& env) {
  if (absl::StartsWith(value, "~/")) {
    const std::string home = EnvOr(env, "HOME");
    if (!home.empty()) return (std::filesystem::path(home) / value.substr(2)).string();
    return value;
  }
  std::filesystem::path p(value);
  if (p.is_absolute()) return value;
  return (std::filesystem::path(file).parent_path() / p).string();
}

absl::StatusOr<ContextSettings> ParseContext(const YAML::Node& node, const std::string& path,
                                             const std::string& name,
                                             const std::map<std::string, std::string>& env) {
  const std::string where = absl::StrCat("contexts.", NameInPath(name));
  if (!node.IsMap()) return Error(path, where, "must be a map of settings");
  ContextSettings out;
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.as<std::string>() : "";
    const std::vector<std::string>& known = ContextKeys();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return Error(path, absl::StrCat(where, ".", QuoteBounded(key)),
                   absl::StrCat("unknown setting (expected one of: ", absl::StrJoin(known, ", "),
                                ")", DidYouMean(key, known)));
    }
    if (!entry.second.IsScalar()) {
      return Error(path, absl::StrCat(where, ".", key), "must be a string");
    }
    const std::string value = entry.second.as<std::string>();
    if (key == "tls") {
      const std::string lower = absl::AsciiStrToLower(value);
      if (lower != "true" && lower != "false") {
        return Error(path, absl::StrCat(where, ".tls"), "must be true or false");
      }
      out.tls = lower == "true";
      continue;
    }
    if (value.empty()) return Error(path, absl::StrCat(where, ".", key), "is empty");
    if (key == "server") {
      out.server = value;
    } else if (key == "tls-server-name") {
      out.tls_server_name = value;
    } else {
      std::string resolved = ResolvePath(value, path, env);
      if (key == "tls-ca") out.tls_ca = resolved;
      if (key == "tls-cert") out.tls_cert = resolved;
      if (key == "tls-key") out.tls_key = resolved;
      if (key == "token-file") out.token_file = resolved;
    }
  }
  return out;
}

// The first of the flag, the variable and the context's value.
template <typename T>
std::optional<std::string> Pick(const ParsedFlags& flags, const std::string& flag,
                                const std::map<std::string, std::string>& env,
                                const std::optional<T>& from_context) {
  if (auto v = flags.Get(flag)) return v;
  if (std::string v = EnvOr(env, ConnectionEnvName(flag)); !v.empty()) return v;
  if (from_context) return *from_context;
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& CliEnvironmentNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = {kContextsFileEnv, kContextEnv, "XDG_CONFIG_HOME", "HOME"};
    for (const std::string& flag : ContextKeys()) names.push_back(ConnectionEnvName(flag));
    return names;
  }();
  return kNames;
}

std::string ConnectionEnvName(const std::string& flag) {
  std::string name = absl::StrCat("K8S_JOB_EXECUTOR_", flag);
  for (char& c : name) c = c == '-' ? '_' : absl::ascii_toupper(static_cast<unsigned char>(c));
  return name;
}

std::string ContextsPath(const std::map<std::string, std::string>& env) {
  if (std::string v = EnvOr(env, kContextsFileEnv); !v.empty()) return v;
  if (std::string v = EnvOr(env, "XDG_CONFIG_HOME"); !v.empty()) {
    return (std::filesystem::path(v) / "k8s-job-executor" / "config").string();
  }
  if (std::string v = EnvOr(env, "HOME"); !v.empty()) {
    return (std::filesystem::path(v) / ".config" / "k8s-job-executor" / "config").string();
  }
  return "";
}

absl::StatusOr<ContextsFile> ParseContextsFile(const std::string& text, const std::string& path,
                                               const std::map<std::string, std::string>& env) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not YAML: ", EscapeBounded(e.what())));
  }
  ContextsFile file;
  file.path = path;
  if (root.IsNull()) return file;
  if (!root.IsMap()) return Error(path, "<document>", "must be a map");
  try {
    for (const auto& entry : root) {
      const std::string key = entry.first.IsScalar() ? entry.first.as<std::string>() : "";
      if (key == "current-context") {
        if (!entry.second.IsScalar()) return Error(path, key, "must be a string");
        file.current = entry.second.as<std::string>();
      } else if (key == "contexts") {
        if (!entry.second.IsMap()) return Error(path, key, "must be a map of named contexts");
        for (const auto& context : entry.second) {
          const std::string name = context.first.IsScalar() ? context.first.as<std::string>() : "";
          if (name.empty()) return Error(path, key, "a context needs a name");
          ASSIGN_OR_RETURN(file.contexts[name], ParseContext(context.second, path, name, env));
        }
      } else {
        return Error(path, QuoteBounded(key),
                     absl::StrCat("unknown key (expected current-context, contexts)",
                                  DidYouMean(key, {"current-context", "contexts"})));
      }
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", EscapeBounded(e.what())));
  }
  if (!file.current.empty() && !file.contexts.count(file.current)) {
    return Error(path, "current-context",
                 absl::StrCat("names ", QuoteBounded(file.current), ", which isn't in contexts"));
  }
  return file;
}

absl::StatusOr<std::optional<ContextsFile>> LoadContextsFile(
    const std::map<std::string, std::string>& env) {
  const std::string path = ContextsPath(env);
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return std::nullopt;
  std::string text;
  if (const auto size = std::filesystem::file_size(path, ec); ec || size > 0) {
    ASSIGN_OR_RETURN(text, ReadSmallFile(path, "contexts file"));
  }
  ASSIGN_OR_RETURN(ContextsFile file, ParseContextsFile(text, path, env));
  return std::optional<ContextsFile>(std::move(file));
}

absl::StatusOr<ConnectionOptions> ResolveConnection(const ParsedFlags& flags,
                                                    const std::map<std::string, std::string>& env) {
  ASSIGN_OR_RETURN(std::optional<ContextsFile> file, LoadContextsFile(env));
  std::string chosen = flags.Get("context").value_or(EnvOr(env, kContextEnv));
  const bool asked = !chosen.empty();
  if (!asked && file) chosen = file->current;
  ContextSettings context;
  if (!chosen.empty()) {
    if (!file) {
      const std::string path = ContextsPath(env);
      return absl::InvalidArgumentError(absl::StrCat(
          "context ", QuoteBounded(chosen), ": there is no contexts file",
          path.empty() ? " (set $K8S_JOB_EXECUTOR_CONFIG or $HOME)" : absl::StrCat(" at ", path)));
    }
    auto it = file->contexts.find(chosen);
    if (it == file->contexts.end()) {
      std::vector<std::string> names;
      for (const auto& [name, settings] : file->contexts) names.push_back(name);
      return absl::InvalidArgumentError(absl::StrCat(
          "context ", QuoteBounded(chosen), " isn't in ", file->path, " (it has: ",
          names.empty() ? "none" : absl::StrJoin(names, ", "), ")", DidYouMean(chosen, names)));
    }
    context = it->second;
  }
  ConnectionOptions options;
  options.server = Pick(flags, "server", env, context.server).value_or(kDefaultServer);
  options.tls_ca_file = Pick(flags, "tls-ca", env, context.tls_ca).value_or("");
  options.tls_cert_file = Pick(flags, "tls-cert", env, context.tls_cert).value_or("");
  options.tls_key_file = Pick(flags, "tls-key", env, context.tls_key).value_or("");
  options.tls_server_name =
      Pick(flags, "tls-server-name", env, context.tls_server_name).value_or("");
  options.token_file = Pick(flags, "token-file", env, context.token_file).value_or("");
  if (flags.Has("tls")) {
    options.tls = true;
  } else if (std::string v = absl::AsciiStrToLower(EnvOr(env, ConnectionEnvName("tls")));
             !v.empty()) {
    if (v != "true" && v != "false" && v != "1" && v != "0") {
      return absl::InvalidArgumentError(
          absl::StrCat(ConnectionEnvName("tls"), " must be true or false"));
    }
    options.tls = v == "true" || v == "1";
  } else {
    options.tls = context.tls.value_or(false);
  }
  return options;
}

int ListContexts(Context& c) {
  auto file = LoadContextsFile(c.io.env);
  if (!file.ok()) return UsageError(c.io, "contexts", std::string(file.status().message()));
  if (!*file) {
    const std::string path = ContextsPath(c.io.env);
    c.io.err << kProgram << ": contexts: no contexts file"
             << (path.empty() ? "" : absl::StrCat(" at ", path)) << "\n";
    return kExitOk;
  }
  const std::string chosen = c.flags.Get("context").value_or(EnvOr(c.io.env, kContextEnv));
  const std::string current = chosen.empty() ? (*file)->current : chosen;
  std::vector<std::vector<std::string>> rows = {{"CURRENT", "NAME", "SERVER", "TLS"}};
  for (const auto& [name, settings] : (*file)->contexts) {
    const bool tls = settings.tls.value_or(false) || settings.tls_ca || settings.tls_cert;
    rows.push_back({name == current ? "*" : "", name, settings.server.value_or(kDefaultServer),
                    tls ? "yes" : "no"});
  }
  c.io.out << FormatTable(rows);
  return kExitOk;
}

}  // namespace kje::cli
