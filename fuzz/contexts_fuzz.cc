// The CLI reads its contexts file (YAML a user wrote, any bytes) on every call that connects.
// Input: the file's text.
// Invariants: a refusal starts with the file's path, stays bounded and holds no control byte; an
// accepted file's current context is one of its contexts, and every path it names is absolute
// (resolved against the file's directory or $HOME).

#include <map>
#include <optional>
#include <string>

#include "base/quote.h"
#include "base/strings.h"
#include "cli/contexts.h"
#include "fuzz/fuzz_check.h"

namespace {

bool Absolute(const std::optional<std::string>& path) { return !path || path->front() == '/'; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(kje::fuzz::AsText(data, size));
  const std::map<std::string, std::string> env = {{"HOME", "/home/user"}};
  auto file = kje::cli::ParseContextsFile(text, "/etc/kje/config", env);
  if (!file.ok()) {
    const std::string_view message = kje::ToStd(file.status().message());
    FUZZ_CHECK_TEXT(message.substr(0, 16) == "/etc/kje/config:", message);
    FUZZ_CHECK_ANSWERABLE(message);
    return 0;
  }
  if (!file->current.empty()) FUZZ_CHECK(file->contexts.count(file->current) == 1);
  for (const auto& [name, context] : file->contexts) {
    FUZZ_CHECK(Absolute(context.tls_ca) && Absolute(context.tls_cert) &&
               Absolute(context.tls_key) && Absolute(context.token_file));
    if (context.server) FUZZ_CHECK(!context.server->empty());
  }
  return 0;
}
