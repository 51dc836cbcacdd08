#include "cli/command.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "cli/contexts.h"

namespace kje::cli {

int RpcError(Io& io, const std::string& what, const grpc::Status& status) {
  io.err << kProgram << ": " << what << ": " << GrpcCodeName(status.error_code()) << ": "
         << status.error_message() << "\n";
  const TlsHint hint = TlsHintFor(status);
  if (hint.text.empty()) return ExitCodeForRpc(status.error_code());
  io.err << kProgram << ": " << hint.text << "\n";
  return hint.retry_helps ? ExitCodeForRpc(status.error_code()) : kExitError;
}

int UsageError(Io& io, const std::string& command, const std::string& message) {
  io.err << kProgram << " " << command << ": " << message << "\n"
         << "run `" << kProgram << " " << command << " --help` for usage\n";
  return kExitUsage;
}

absl::StatusOr<int> PageSizeFlag(const ParsedFlags& flags) {
  auto v = flags.Get("page-size");
  if (!v) return 0;
  int n = 0;
  if (!absl::SimpleAtoi(*v, &n) || n < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--page-size needs a number >= 1, got ", QuoteBounded(*v)));
  }
  return n;
}

bool PrintStructured(Context& c, const google::protobuf::Message& message, bool stream) {
  switch (c.format) {
    case OutputFormat::kJson:
      c.io.out << ToJson(message, !stream);
      return true;
    case OutputFormat::kYaml:
      if (stream) c.io.out << "---\n";
      c.io.out << ToYaml(message);
      return true;
    default:
      return false;
  }
}

const std::vector<FlagSpec>& CommonFlags() {
  static const std::vector<FlagSpec> kFlags = {
      {"context", 0, "NAME", false,
       absl::StrCat("the context of the contexts file to use (default $", kContextEnv,
                    ", else the file's current-context)")},
      {"server", 0, "HOST:PORT", false,
       absl::StrCat("the server (default $", kServerEnv, ", else the context's, else ",
                    kDefaultServer, ")")},
      {"tls", 0, "", false, "use TLS, trusting the system's roots unless --tls-ca is given"},
      {"tls-ca", 0, "FILE", false,
       "CA certificates (PEM) for the server's certificate; implies --tls"},
      {"tls-cert", 0, "FILE", false, "client certificate (PEM) for mutual TLS; with --tls-key"},
      {"tls-key", 0, "FILE", false, "client private key (PEM) for mutual TLS"},
      {"tls-server-name", 0, "NAME", false, "the name to verify in the server's certificate"},
      {"token-file", 0, "FILE", false, "send \"authorization: Bearer <file content>\""},
      // Each connection flag also comes from K8S_JOB_EXECUTOR_<FLAG> (see `contexts --help`).
      {"timeout", 0, "DURATION", false,
       "deadline of each call, e.g. 10s, 2m (default 30s; none for watch and logs -f)"},
      {"output", 'o', "FORMAT", false,
       "table (default), wide (more columns), json, yaml (the answer as the proto's JSON "
       "mapping) or name (the ids); each command names those it takes"},
      {"help", 'h', "", false, "print this help"},
  };
  return kFlags;
}

}  // namespace kje::cli
