#include "server/proto_convert.h"

#include <catch2/catch.hpp>
#include <string>

namespace kje::server {
namespace {

namespace pb = jobexecutor::v1;

TEST_CASE("proto convert: ListJobs' filters as the executor takes them", "[server]") {
  pb::ListJobsRequest request;
  absl::StatusOr<executor::ListFilter> none = ToListFilter(request);
  REQUIRE(none.ok());
  CHECK(none->empty());

  request.add_statuses(pb::JobInfo::FAILED);
  request.add_statuses(pb::JobInfo::CANCELLED);
  request.mutable_created_after()->set_seconds(1767225600);
  request.mutable_finished_before()->set_seconds(1767229200);
  request.mutable_finished_before()->set_nanos(250000000);
  absl::StatusOr<executor::ListFilter> filter = ToListFilter(request);
  REQUIRE(filter.ok());
  spark::JobStatusInfo failed;
  failed.status = spark::JobStatus::kFailed;
  failed.finished_at = absl::FromUnixMillis(1767229200249);
  const absl::Time created = absl::FromUnixSeconds(1767225600);
  CHECK(filter->Matches(failed, created));
  failed.finished_at = absl::FromUnixMillis(1767229200250);  // the bound itself: out
  CHECK_FALSE(filter->Matches(failed, created));
  spark::JobStatusInfo succeeded = failed;
  succeeded.status = spark::JobStatus::kSucceeded;
  succeeded.finished_at = absl::FromUnixSeconds(1767225700);
  CHECK_FALSE(filter->Matches(succeeded, created));
  CHECK(filter->created_after == created);
  CHECK_FALSE(filter->created_before.has_value());
  CHECK_FALSE(filter->finished_after.has_value());
}

TEST_CASE("proto convert: a status that isn't one is refused, naming it", "[server]") {
  for (int bad : {static_cast<int>(pb::JobInfo::STATUS_UNSPECIFIED), 42}) {
    pb::ListJobsRequest request;
    request.add_statuses(pb::JobInfo::QUEUED);
    request.add_statuses(static_cast<pb::JobInfo::Status>(bad));
    absl::StatusOr<executor::ListFilter> filter = ToListFilter(request);
    REQUIRE(absl::IsInvalidArgument(filter.status()));
    CHECK(std::string(filter.status().message()) ==
          "statuses: " + std::to_string(bad) +
              " is not a job status (QUEUED, STARTED, SUCCEEDED, FAILED, CANCELLING, CANCELLED)");
  }
}

}  // namespace
}  // namespace kje::server
