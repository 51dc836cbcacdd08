#include "spark/run_details.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

namespace kje::spark {
namespace {

TEST_CASE("RunDetailsRef answers the app's strings, or an id it holds itself", "[run_details]") {
  const std::string reported = "spark-1f2e";
  const std::string ui = "10.96.12.7:4040";
  const std::string queue = "root.etl";
  RunDetailsRef in_place(reported, 2, ui, "pi-driver");
  in_place.SetQueue(queue);
  CHECK(in_place.spark_app_id().data() == reported.data());  // read in place, not copied
  CHECK(in_place.queue().data() == queue.data());
  CHECK(in_place.ToDetails() ==
        RunDetails{"spark-1f2e", 2, "10.96.12.7:4040", "pi-driver", "root.etl"});

  std::optional<RunDetailsRef> copy;
  {
    std::string composed = "pi-4";
    RunDetailsRef ref("", 5, "");
    ref.HoldSparkAppId(composed);
    composed.assign("overwritten");
    copy = ref;  // the original's buffer goes at the end of this scope
  }
  CHECK(copy->spark_app_id() == "pi-4");
  CHECK(copy->attempts() == 5);
  // Never more than the longest composed id.
  RunDetailsRef long_id;
  long_id.HoldSparkAppId(std::string(60, 'x'));
  CHECK(long_id.spark_app_id() == std::string(RunDetailsRef::kMaxComposedIdLength, 'x'));
  CHECK(RunDetailsRef().ToDetails() == RunDetails{});
}

}  // namespace
}  // namespace kje::spark
