#pragma once

// Where the CLI's connection settings come from, so that `--tls-ca` and `--token-file` need not
// be repeated on every call: the flags, then K8S_JOB_EXECUTOR_* variables, then a named context
// of the contexts file, then the defaults. The file (YAML, the flags' own names):
//
//   current-context: prod
//   contexts:
//     prod:
//       server: kje.example.com:443
//       tls-ca: prod-ca.crt              # relative to the file's directory; ~/ is $HOME
//       tls-server-name: kje.example.com
//       token-file: ~/.config/k8s-job-executor/prod.token
//     local:
//       server: 127.0.0.1:50051
//
// The file holds paths, never the token or a key itself.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/client.h"
#include "cli/flags.h"

namespace kje::cli {

inline constexpr char kContextsFileEnv[] = "K8S_JOB_EXECUTOR_CONFIG";
inline constexpr char kContextEnv[] = "K8S_JOB_EXECUTOR_CONTEXT";

// One context: each setting it gives.
struct ContextSettings {
  std::optional<std::string> server;
  std::optional<bool> tls;
  std::optional<std::string> tls_ca;
  std::optional<std::string> tls_cert;
  std::optional<std::string> tls_key;
  std::optional<std::string> tls_server_name;
  std::optional<std::string> token_file;
};

struct ContextsFile {
  std::string path;
  std::string current;  // current-context; "" when unset
  std::map<std::string, ContextSettings> contexts;
};

// The file's path: $K8S_JOB_EXECUTOR_CONFIG, else $XDG_CONFIG_HOME/k8s-job-executor/config, else
// $HOME/.config/k8s-job-executor/config; "" when none of them is set.
std::string ContextsPath(const std::map<std::string, std::string>& env);

// Parses the file's text. INVALID_ARGUMENT prefixed with `path` and naming the key for anything
// but the layout above (an unknown key, with "did you mean" when it's a likely typo). Relative
// paths are resolved against the file's directory, `~/` against $HOME.
absl::StatusOr<ContextsFile> ParseContextsFile(const std::string& text, const std::string& path,
                                               const std::map<std::string, std::string>& env);

// Reads the file at ContextsPath; nullopt when there is no such file (it is optional).
absl::StatusOr<std::optional<ContextsFile>> LoadContextsFile(
    const std::map<std::string, std::string>& env);

// The connection settings, each from the first of: its flag, its variable
// (K8S_JOB_EXECUTOR_SERVER, _TLS, _TLS_CA, _TLS_CERT, _TLS_KEY, _TLS_SERVER_NAME, _TOKEN_FILE),
// the context (--context, else $K8S_JOB_EXECUTOR_CONTEXT, else the file's current-context), the
// default. INVALID_ARGUMENT for a context that isn't in the file (naming those that are), a
// --context without a file, or a malformed file.
absl::StatusOr<ConnectionOptions> ResolveConnection(const ParsedFlags& flags,
                                                    const std::map<std::string, std::string>& env);

// The environment variable of a connection flag, e.g. "tls-ca" -> K8S_JOB_EXECUTOR_TLS_CA.
std::string ConnectionEnvName(const std::string& flag);

// Every environment variable the CLI reads (Io::env need hold no other).
const std::vector<std::string>& CliEnvironmentNames();

struct Context;
// The `contexts` command: the file's contexts, the one in use marked.
int ListContexts(Context& c);

}  // namespace kje::cli
