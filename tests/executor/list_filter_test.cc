#include "executor/list_filter.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "executor/executor.h"
#include "spark/job_links.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

absl::Time Day(int day) {
  return absl::FromCivil(absl::CivilDay(2026, 1, day), absl::UTCTimeZone());
}

spark::JobStatusInfo Info(spark::JobStatus status, std::optional<absl::Time> finished = {}) {
  spark::JobStatusInfo info;
  info.status = status;
  info.finished_at = finished;
  return info;
}

TEST_CASE("an empty filter takes every job", "[list_filter]") {
  ListFilter filter;
  CHECK(filter.empty());
  CHECK(filter.Matches(Info(spark::JobStatus::kQueued), std::nullopt));
  CHECK(CheckListFilter(filter).ok());
}

TEST_CASE("statuses take only jobs in one of them", "[list_filter]") {
  ListFilter filter;
  filter.AddStatus(spark::JobStatus::kFailed);
  filter.AddStatus(spark::JobStatus::kCancelled);
  CHECK_FALSE(filter.empty());
  CHECK(filter.Matches(Info(spark::JobStatus::kFailed), Day(1)));
  CHECK(filter.Matches(Info(spark::JobStatus::kCancelled), Day(1)));
  CHECK_FALSE(filter.Matches(Info(spark::JobStatus::kSucceeded), Day(1)));
  CHECK_FALSE(filter.Matches(Info(spark::JobStatus::kCancelling), Day(1)));
}

TEST_CASE("time ranges are half-open, and a finished bound leaves out what hasn't finished",
          "[list_filter]") {
  ListFilter created;
  created.created_after = Day(2);
  created.created_before = Day(4);
  CHECK_FALSE(created.Matches(Info(spark::JobStatus::kQueued), Day(1)));
  CHECK(created.Matches(Info(spark::JobStatus::kQueued), Day(2)));
  CHECK(created.Matches(Info(spark::JobStatus::kQueued), Day(3)));
  CHECK_FALSE(created.Matches(Info(spark::JobStatus::kQueued), Day(4)));
  CHECK_FALSE(created.Matches(Info(spark::JobStatus::kQueued), std::nullopt));

  ListFilter finished;
  finished.finished_before = Day(5);
  CHECK(finished.Matches(Info(spark::JobStatus::kSucceeded, Day(4)), Day(1)));
  CHECK_FALSE(finished.Matches(Info(spark::JobStatus::kSucceeded, Day(5)), Day(1)));
  CHECK_FALSE(finished.Matches(Info(spark::JobStatus::kStarted), Day(1)));
}

TEST_CASE("a range that holds nothing is refused, naming it", "[list_filter]") {
  ListFilter filter;
  filter.finished_after = Day(3);
  filter.finished_before = Day(3);
  absl::Status bad = CheckListFilter(filter);
  CHECK(absl::IsInvalidArgument(bad));
  CHECK(std::string(bad.message())
            .find("finished_after (2026-01-03T00:00:00+00:00) must be "
                  "before finished_before") != std::string::npos);
  filter = ListFilter{};
  filter.created_after = Day(4);
  filter.created_before = Day(2);
  CHECK(std::string(CheckListFilter(filter).message()).find("created_after") != std::string::npos);
}

// Three jobs: a running (created day 1), b succeeded (day 2), c submitted (day 3).
std::vector<k8s::ParsedJson> ThreeApps(const OperatorApps& op) {
  return testing::Items({op.AppJson("a", "3", Situation::kRunning, "1", "2026-01-01T00:00:00Z"),
                         op.AppJson("b", "4", Situation::kSucceeded, "2", "2026-01-02T00:00:00Z"),
                         op.AppJson("c", "5", Situation::kSubmitted, "3", "2026-01-03T00:00:00Z")});
}

std::vector<std::string> Names(const JobPage& page) {
  std::vector<std::string> out;
  for (const JobResult& job : page.jobs) out.push_back(job.name);
  return out;
}

JobPage List(Fixture& f, const ListFilter& filter, int64_t page_size = 0,
             const std::string& token = "") {
  Result<JobPage> r;
  f.executor->ListJobs(kNs, "", page_size, token, filter, absl::Now() + absl::Seconds(5),
                       r.Callback());
  INFO(r.Get().status().ToString());
  REQUIRE(r.Get().ok());
  return *r.Get();
}

TEST_CASE("ListJobs filters from the informer, its pages full and their tokens good",
          "[list_filter]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/true, {}, 1024, op.backend);
  f.cache->Pin(kNs);
  k8s::ListPage page;
  page.items = ThreeApps(op);
  page.resource_version = "5";
  f.client->CompleteList(f.Next("list"), page);
  auto watch = f.Next("watch");

  ListFilter done;
  done.AddStatus(spark::JobStatus::kSucceeded);
  CHECK(Names(List(f, done)) == std::vector<std::string>{"b"});

  ListFilter not_done;
  not_done.AddStatus(spark::JobStatus::kQueued);
  not_done.AddStatus(spark::JobStatus::kStarted);
  JobPage first = List(f, not_done, 1);
  CHECK(Names(first) == std::vector<std::string>{"a"});
  REQUIRE_FALSE(first.next_page_token.empty());
  // The next page skips b (filtered out) and is still full.
  JobPage second = List(f, not_done, 1, first.next_page_token);
  CHECK(Names(second) == std::vector<std::string>{"c"});
  CHECK(second.next_page_token.empty());

  ListFilter created;
  created.created_after = absl::FromUnixSeconds(1767312000);  // 2026-01-02T00:00:00Z
  CHECK(Names(List(f, created)) == std::vector<std::string>{"b", "c"});

  ListFilter finished;
  finished.finished_after = absl::FromUnixSeconds(1767225600);  // 2026-01-01T00:00:00Z
  CHECK(Names(List(f, finished)) == std::vector<std::string>{"b"});
  // All from memory.
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("ListJobs filters a LIST passed through the same way; its token is kept",
          "[list_filter]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  ListFilter queued;
  queued.AddStatus(spark::JobStatus::kQueued);
  Result<JobPage> r;
  f.executor->ListJobs(kNs, "", 3, "", queued, absl::Now() + absl::Seconds(5), r.Callback());
  auto list = f.Next("list");
  k8s::ListPage page;
  page.items = ThreeApps(op);
  page.continue_token = "Y29udGludWU";
  f.client->CompleteList(list, page);
  REQUIRE(r.Get().ok());
  CHECK(Names(*r.Get()) == std::vector<std::string>{"c"});  // a shorter page
  CHECK(r.Get()->next_page_token == "k:Y29udGludWU");
}

TEST_CASE("ListJobs refuses an empty range before any request", "[list_filter]") {
  Fixture f(/*cache_on=*/false);
  ListFilter empty;
  empty.created_after = absl::FromUnixSeconds(10);
  empty.created_before = absl::FromUnixSeconds(10);
  Result<JobPage> r;
  f.executor->ListJobs(kNs, "", 0, "", empty, absl::Now() + absl::Seconds(5), r.Callback());
  CHECK(absl::IsInvalidArgument(r.Get().status()));
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("listed jobs carry their links, each once its values are known", "[list_filter]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  auto links = std::make_shared<const spark::LinkTemplates>(*spark::LinkTemplates::Parse(
      {{"ui", "https://ui.example/{namespace}/{name}?from={createdAtMillis}"},
       {"done", "https://logs.example/{name}?to={finishedAtMillis}"}}));
  Fixture f(/*cache_on=*/true, {}, 1024, op.backend, links);
  f.cache->Pin(kNs);
  k8s::ListPage page;
  page.items = ThreeApps(op);
  page.resource_version = "5";
  f.client->CompleteList(f.Next("list"), page);
  auto watch = f.Next("watch");
  JobPage all = List(f, ListFilter{});
  REQUIRE(all.jobs.size() == 3);
  std::vector<spark::JobLink> running = LinksOf(ViewOf(all.jobs[0]));
  REQUIRE(running.size() == 1);  // not finished: no "done" link
  CHECK(running[0].url == "https://ui.example/jobs/a?from=1767225600000");
  std::vector<spark::JobLink> succeeded = LinksOf(ViewOf(all.jobs[1]));
  REQUIRE(succeeded.size() == 2);
  CHECK(succeeded[1].name == "done");
  CHECK(succeeded[1].url.starts_with("https://logs.example/b?to=17672256"));
}

}  // namespace
}  // namespace kje::executor
