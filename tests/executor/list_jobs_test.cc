#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "executor/executor.h"
#include "k8s/errors.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

constexpr char kOtherNs[] = "team-b";

// `op`'s app `name` in namespace `ns`.
std::string AppIn(const OperatorApps& op, const std::string& ns, const std::string& name) {
  return absl::StrReplaceAll(
      op.AppJson(name, "3", Situation::kRunning),
      {{R"("namespace":"jobs")", absl::StrCat(R"("namespace":")", ns, "\"")}});
}

std::vector<std::string> Where(const JobPage& page) {
  std::vector<std::string> out;
  for (const JobResult& job : page.jobs) out.push_back(job.namespace_ + "/" + job.name);
  return out;
}

// Starts a listing of every namespace; the caller answers its requests, then Get()s it.
void StartAll(Fixture& f, Result<JobPage>& r, const std::string& token, int64_t page_size = 0) {
  f.executor->ListAllNamespaces("", page_size, token, ListFilter{}, absl::Now() + absl::Seconds(5),
                                r.Callback());
}

TEST_CASE("with an allow-list, every allowed namespace is listed in name order, each to its end",
          "[list_jobs]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  // Named out of order and twice: the listing goes by name, each namespace once.
  Fixture f(/*cache_on=*/false, {kOtherNs, kNs, kOtherNs}, 1024, op.backend);

  Result<JobPage> first;
  StartAll(f, first, "", 2);
  auto list = f.Next("list");
  CHECK(list->ref.namespace_ == kNs);
  CHECK(list->list.limit == 2);
  k8s::ListPage page;
  page.items = testing::Items({AppIn(op, kNs, "a"), AppIn(op, kNs, "b")});
  page.continue_token = "Y29udA==";
  f.client->CompleteList(list, page);
  REQUIRE(first.Get().ok());
  CHECK(Where(*first.Get()) == std::vector<std::string>{"jobs/a", "jobs/b"});

  // The API server's token goes on in the same namespace.
  Result<JobPage> second;
  StartAll(f, second, first.Get()->next_page_token, 2);
  list = f.Next("list");
  CHECK(list->ref.namespace_ == kNs);
  CHECK(list->list.continue_token == "Y29udA==");
  page = k8s::ListPage{};
  page.items = testing::Items({AppIn(op, kNs, "c")});
  f.client->CompleteList(list, page);
  REQUIRE(second.Get().ok());
  CHECK(Where(*second.Get()) == std::vector<std::string>{"jobs/c"});

  // That namespace done, the next one from its first page; after it, the end.
  Result<JobPage> third;
  StartAll(f, third, second.Get()->next_page_token, 2);
  list = f.Next("list");
  CHECK(list->ref.namespace_ == kOtherNs);
  CHECK(list->list.continue_token.empty());
  page = k8s::ListPage{};
  page.items = testing::Items({AppIn(op, kOtherNs, "a")});
  f.client->CompleteList(list, page);
  REQUIRE(third.Get().ok());
  CHECK(Where(*third.Get()) == std::vector<std::string>{"team-b/a"});
  CHECK(third.Get()->next_page_token.empty());
  CHECK(third.Get()->jobs[0].execution_id.find(kOtherNs) != std::string::npos);
}

TEST_CASE("with an allow-list, a synced namespace's page comes from memory, without a request",
          "[list_jobs]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/true, {kNs, kOtherNs}, 1024, op.backend);
  f.cache->Pin(kNs);
  k8s::ListPage synced;
  synced.items = testing::Items({AppIn(op, kNs, "a")});
  synced.resource_version = "5";
  f.client->CompleteList(f.Next("list"), synced);
  auto watch = f.Next("watch");

  Result<JobPage> first;
  StartAll(f, first, "");
  REQUIRE(first.Get().ok());
  CHECK(Where(*first.Get()) == std::vector<std::string>{"jobs/a"});
  CHECK(first.Get()->next_page_token == "a:team-b/");
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("without an allow-list, the whole cluster is listed through the API server",
          "[list_jobs]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  // Even with the cache on: it follows some namespaces, not the cluster.
  Fixture f(/*cache_on=*/true, {}, 1024, op.backend);
  Result<JobPage> first;
  StartAll(f, first, "");
  auto list = f.Next("list");
  CHECK(list->ref.namespace_.empty());
  CHECK(list->list.label_selector == op.backend->ManagedSelector());
  k8s::ListPage page;
  page.items = testing::Items({AppIn(op, kNs, "a"), AppIn(op, kOtherNs, "a")});
  page.continue_token = "bW9yZQ==";
  f.client->CompleteList(list, page);
  REQUIRE(first.Get().ok());
  CHECK(Where(*first.Get()) == std::vector<std::string>{"jobs/a", "team-b/a"});
  CHECK(first.Get()->next_page_token == "k:bW9yZQ==");

  Result<JobPage> second;
  StartAll(f, second, first.Get()->next_page_token);
  list = f.Next("list");
  CHECK(list->ref.namespace_.empty());
  CHECK(list->list.continue_token == "bW9yZQ==");
  f.client->CompleteList(list, k8s::ListPage{});
  REQUIRE(second.Get().ok());
  CHECK(second.Get()->next_page_token.empty());
}

TEST_CASE("a cluster-wide listing refused by RBAC says what the service account needs",
          "[list_jobs]") {
  Fixture f(/*cache_on=*/false);
  Result<JobPage> r;
  StartAll(f, r, "");
  f.client->CompleteList(f.Next("list"),
                         k8s::MakeApiStatus({403, "Forbidden", "sparkapplications is forbidden"}));
  REQUIRE_FALSE(r.Get().ok());
  CHECK(absl::IsPermissionDenied(r.Get().status()));
  CHECK(std::string(r.Get().status().message()).find("cluster scope") != std::string::npos);
}

TEST_CASE("a listing of every namespace refuses a token of another listing, before any request",
          "[list_jobs]") {
  Fixture allowed(/*cache_on=*/false, {kNs, kOtherNs});
  Fixture cluster(/*cache_on=*/false);
  struct Case {
    Fixture* f;
    std::string token;
  };
  for (const Case& c : {Case{&allowed, "k:Y29udA=="}, Case{&allowed, "a:elsewhere/"},
                        Case{&allowed, "m:a"}, Case{&cluster, "a:jobs/"}, Case{&cluster, "m:a"}}) {
    INFO(c.token);
    Result<JobPage> r;
    StartAll(*c.f, r, c.token);
    CHECK(absl::IsInvalidArgument(r.Get().status()));
    c.f->client->Barrier();
    CHECK_FALSE(c.f->client->HasPendingCall());
  }
}

}  // namespace
}  // namespace kje::executor
