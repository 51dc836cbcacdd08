// Execution ids arrive from callers (Status, Cancel, Output): any text.

#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"
#include "fuzz/fuzz_check.h"
#include "spark/execution_id.h"

using kje::spark::ExecutionId;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = kje::fuzz::AsText(data, size);
  absl::StatusOr<ExecutionId> id = ExecutionId::Parse(text);
  if (id.ok()) {
    // An id that parses names itself: printing and parsing again gives it back.
    FUZZ_CHECK(id->ToString() == text);
    absl::StatusOr<ExecutionId> made =
        ExecutionId::Of(id->cluster, id->kind, id->namespace_, id->name);
    FUZZ_CHECK(made.ok() && *made == *id);
    FUZZ_CHECK(kje::spark::ParseForCluster(text, id->cluster).ok());
    // Only names Kubernetes can hold get as far as a lookup.
    FUZZ_CHECK(kje::IsDns1123Label(id->namespace_) && kje::IsDns1123Subdomain(id->name));
  } else {
    // A malformed id names no job.
    FUZZ_CHECK(absl::IsNotFound(id.status()));
    FUZZ_CHECK(id.status().message().size() < 1024);  // long ids are quoted only in part
  }
  absl::StatusOr<ExecutionId> other = kje::spark::ParseForCluster(text, "default");
  FUZZ_CHECK(other.ok() || absl::IsNotFound(other.status()));
  // Every quote is bounded and escaped: no message is long or holds a control byte.
  for (const absl::Status& status : {id.status(), other.status()}) {
    FUZZ_CHECK_ANSWERABLE(kje::ToStd(status.message()));
  }
  return 0;
}
