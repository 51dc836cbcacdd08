// The CLI reads job files users write by hand (YAML, any bytes): a mistake must come back as a
// message naming the file and the key, never a crash or a request the server would refuse.
// Input: the file's text.
// Invariants: every error starts with the file's name, stays bounded and holds no control byte
// (a quoted input byte can't drive the terminal); a file complete enough for kComplete is also
// accepted by kShapeOnly and passes the checks applied to requests built from flags.

#include <string>

#include "base/quote.h"
#include "base/strings.h"
#include "cli/job_file.h"
#include "fuzz/fuzz_check.h"
#include "google/protobuf/util/message_differencer.h"

namespace {

void CheckError(const absl::Status& status) {
  const std::string_view message = kje::ToStd(status.message());
  FUZZ_CHECK_TEXT(message.substr(0, 10) == "fuzz.yaml:", message);
  FUZZ_CHECK_ANSWERABLE(message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(kje::fuzz::AsText(data, size));
  auto complete = kje::cli::ParseJobFile(text, "fuzz.yaml", kje::cli::JobFileChecks::kComplete);
  auto shape = kje::cli::ParseJobFile(text, "fuzz.yaml", kje::cli::JobFileChecks::kShapeOnly);
  if (!complete.ok()) CheckError(complete.status());
  if (!shape.ok()) CheckError(shape.status());
  if (complete.ok()) {
    FUZZ_CHECK(shape.ok());
    FUZZ_CHECK(kje::cli::ValidateSubmitRequest(*complete).ok());
    FUZZ_CHECK(google::protobuf::util::MessageDifferencer::Equals(*complete, *shape));
  }
  return 0;
}
