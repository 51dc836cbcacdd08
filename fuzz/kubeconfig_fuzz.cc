// A kubeconfig is written by hand or by cloud tooling: any YAML. The input is the file's text,
// optionally followed by a "%%" line and the context to select. The file lives in a private
// temporary directory, so relative certificate and token paths resolve inside it.

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "base/quote.h"
#include "base/strings.h"
#include "fuzz/fuzz_check.h"
#include "k8s/connection_config.h"

namespace {

// The token file's content: a marker no kubeconfig text would hold by chance.
constexpr std::string_view kToken = "kje-fuzz-secret-7f3a9c1e5b20d4";

const std::string& Dir() {
  static const std::string dir =
      [] {
        char tmpl[] = "/tmp/kje-kubeconfig-fuzz-XXXXXX";
        FUZZ_CHECK(::mkdtemp(tmpl) != nullptr);
        std::string d = tmpl;
        // A token file and a certificate for relative references to find.
        std::ofstream(d + "/token") << kToken << "\n";
        std::ofstream(d + "/ca.crt")
            << "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n";
        return d;
      }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (256 << 10)) return 0;
  std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  std::string path = Dir() + "/config";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(parts[0].data(), static_cast<std::streamsize>(parts[0].size()));
  }
  kje::k8s::Environment env;
  env.getenv = [](const std::string&) { return std::nullopt; };
  std::string context = parts.size() > 1 ? std::string(parts[1]) : "";
  absl::StatusOr<kje::k8s::ConnectionConfig> config = kje::k8s::LoadKubeconfig(path, context, env);
  if (!config.ok()) {
    if (std::getenv("KJE_FUZZ_VERBOSE") != nullptr) {  // why an input is refused
      std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    }
    // Unusable: a message that says what is wrong, and never the token it may read. A message
    // may quote the caller's own input (the file's text, or the context name it asked for), so
    // an input that spells the marker out in any of its parts is no leak.
    FUZZ_CHECK(!config.status().message().empty());
    // Every name, URL and value it quotes is bounded and escaped: the message fits a log line.
    FUZZ_CHECK_ANSWERABLE(kje::ToStd(config.status().message()));
    bool input_spells_marker = false;
    for (std::string_view part : parts) {
      input_spells_marker = input_spells_marker || part.find(kToken) != std::string_view::npos;
    }
    FUZZ_CHECK(config.status().message().find(absl::string_view(kToken.data(), kToken.size())) ==
                   absl::string_view::npos ||
               input_spells_marker);
    return 0;
  }
  FUZZ_CHECK(config->credentials != nullptr);
  FUZZ_CHECK(!config->host.empty());
  FUZZ_CHECK(!config->port.empty());
  FUZZ_CHECK(config->base_path.empty() || config->base_path.back() != '/');
  // Round trip: the endpoint parses the same again.
  kje::k8s::ConnectionConfig again;
  FUZZ_CHECK(kje::k8s::ParseServerUrl(config->server_url, again).ok() ||
             config->server_url.empty());
  return 0;
}
