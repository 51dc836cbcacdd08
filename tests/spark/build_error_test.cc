#include "spark/build_error.h"

#include <catch2/catch.hpp>

namespace kje::spark {
namespace {

TEST_CASE("A builder's error carries the input it refused, whatever its words") {
  for (BuildInput input :
       {BuildInput::kTemplate, BuildInput::kJobId, BuildInput::kRunId, BuildInput::kServerConfig}) {
    absl::Status tagged = TagBuildError(input, absl::InvalidArgumentError("no such words"));
    CHECK(BuildInputOf(tagged) == input);
    CHECK(tagged.code() == absl::StatusCode::kInvalidArgument);
    CHECK(tagged.message() == "no such words");
  }
  // Untagged, or a message that merely mentions a job id: the template.
  CHECK(BuildInputOf(absl::InvalidArgumentError("job id run_id")) == BuildInput::kTemplate);
  CHECK(TagBuildError(BuildInput::kJobId, absl::OkStatus()).ok());
}

}  // namespace
}  // namespace kje::spark
