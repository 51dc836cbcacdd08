// The server's configuration file, as an operator writes it: any YAML. (Environment variables
// and flags go through the same validation; the file is the part with a parser.)

#include <string>

#include "fuzz/fuzz_check.h"
#include "server/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (256 << 10)) return 0;
  std::string yaml(kje::fuzz::AsText(data, size));
  kje::server::ConfigSources rest;
  absl::StatusOr<kje::server::Config> config = kje::server::LoadConfigFromYaml(yaml, rest);
  if (!config.ok()) {
    FUZZ_CHECK(!config.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(!config->spark.image.empty());
  FUZZ_CHECK(!config->spark.spark_version.empty());
  FUZZ_CHECK(!config->name_prefix.empty());
  FUZZ_CHECK(config->server.io_threads > 0);
  return 0;
}
