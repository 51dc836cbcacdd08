#include "cache/app_cache.h"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include "absl/status/status.h"
#include "spark/apache/app_projection.h"
#include "tests/fakes/fake_kube_client.h"
#include "tests/fakes/io_loop.h"

namespace kje::cache {
namespace {

// Declared before the cache, so the cache (and every informer it stops) goes first.
struct Loop {
  testing::IoLoop loop;
  boost::asio::io_context& io = loop.io();
  std::shared_ptr<testing::FakeKubeClient> client = std::make_shared<testing::FakeKubeClient>(io);
  ~Loop() {
    // The stopped informers' cancellations run, and their loops and fetches end, before the
    // io_context goes.
    client->EndEveryCall();
    CHECK(loop.Finish());
    client->DropPending();
  }
};

InformerOptions Prototype() {
  InformerOptions options;
  options.project = spark::apache::ProjectApp;
  options.collection = {"spark.apache.org", "v1", "sparkapplications", "", "", ""};
  options.label_selector = "app.kubernetes.io/managed-by=gravitino";
  return options;
}

CacheOptions Options(bool enabled, size_t max_on_demand = 2) {
  CacheOptions options;
  options.enabled = enabled;
  options.max_on_demand = max_on_demand;
  return options;
}

TEST_CASE("app cache: disabled, it never lists and always misses", "[cache]") {
  Loop loop;
  auto& client = loop.client;
  FakeClock clock;
  AppCache cache(loop.io, client, Prototype(), Options(false), clock);
  cache.Pin("jobs");
  CHECK(cache.Find("jobs", "a") == nullptr);
  auto sub = cache.Subscribe("jobs", {"a"}, std::make_shared<Mailbox<AppEvent>>(4));
  CHECK(absl::IsFailedPrecondition(sub.status()));
  client->Barrier();
  CHECK_FALSE(client->HasPendingCall());
  CHECK(cache.Stats().empty());
}

TEST_CASE("app cache: pinned namespaces are followed; reads of others start nothing", "[cache]") {
  Loop loop;
  auto& client = loop.client;
  FakeClock clock;
  AppCache cache(loop.io, client, Prototype(), Options(true), clock);
  cache.Pin("jobs");
  auto first = client->NextCall();
  REQUIRE(first != nullptr);
  CHECK(first->verb == "list");
  CHECK(first->ref.namespace_ == "jobs");
  CHECK(first->list.label_selector == "app.kubernetes.io/managed-by=gravitino");
  cache.Pin("jobs");  // already followed
  // Reads of 100 other namespaces miss (the caller GETs) and follow nothing.
  for (int i = 0; i < 100; ++i) {
    std::string ns = "made-up-" + std::to_string(i);
    CHECK(cache.Find(ns, "x") == nullptr);
    CHECK_FALSE(cache.ListAfter(ns, "", 10, [](const spark::AppProjection&) { return true; }));
    CHECK_FALSE(cache.Follows(ns));
  }
  client->Barrier();
  CHECK_FALSE(client->HasPendingCall());
  CHECK(cache.Stats().size() == 1);
  CHECK_FALSE(cache.PinnedSynced());
  cache.Stop();
  client->Barrier();
  client->Barrier();
  CHECK(first->WaitCancelled());
}

TEST_CASE("app cache: on-demand informers are bounded and stop when their last subscriber leaves",
          "[cache]") {
  Loop loop;
  auto& client = loop.client;
  FakeClock clock;
  AppCache cache(loop.io, client, Prototype(), Options(true, /*max_on_demand=*/2), clock);
  auto mailbox = [] { return std::make_shared<Mailbox<AppEvent>>(4); };
  auto a1 = cache.Subscribe("a", {"x"}, mailbox());
  REQUIRE(a1.ok());
  auto list_a = client->NextCall();
  REQUIRE(list_a != nullptr);
  CHECK(list_a->ref.namespace_ == "a");
  auto a2 = cache.Subscribe("a", {"y"}, mailbox());  // the same informer
  REQUIRE(a2.ok());
  CHECK(a2->informer == a1->informer);
  auto b = cache.Subscribe("b", {"x"}, mailbox());
  REQUIRE(b.ok());
  REQUIRE(client->NextCall() != nullptr);
  auto c = cache.Subscribe("c", {"x"}, mailbox());
  CHECK(absl::IsResourceExhausted(c.status()));
  CHECK(cache.Stats().size() == 2);
  cache.Unsubscribe("a", *a1);
  CHECK(cache.Follows("a"));  // a2 still listens
  cache.Unsubscribe("a", *a2);
  CHECK_FALSE(cache.Follows("a"));
  client->Barrier();
  client->Barrier();
  CHECK(list_a->WaitCancelled());
  CHECK(cache.Subscribe("c", {"x"}, mailbox()).ok());  // room again
}

// Idle namespaces stop their on-demand informers all day long on the service's one io_context,
// often while a LIST page is in flight. Each stop must free everything it started, with the
// io_context still running: the loop (which holds the informer) and the page fetch (whose frame
// holds the client's call). A frame parked for good would keep the fake's count of live calls
// above zero and its informer alive, and add up over the rounds.
TEST_CASE("app cache: an on-demand informer stopped mid-list a thousand times frees everything",
          "[cache]") {
  constexpr int kRounds = 1000;
  testing::IoLoop loop(/*threads=*/2);
  auto client = std::make_shared<testing::FakeKubeClient>(loop.io());
  client->set_complete_on_cancel(true);  // as the real client ends a cancelled request
  FakeClock clock;
  InformerOptions prototype = Prototype();
  prototype.page_size = 1;
  std::vector<std::weak_ptr<AppInformer>> informers;
  int cancelled = 0;
  int calls_ended = 0;
  {
    AppCache cache(loop.io(), client, prototype, Options(true), clock);
    for (int round = 0; round < kRounds; ++round) {
      auto sub = cache.Subscribe("idle", {"x"}, std::make_shared<Mailbox<AppEvent>>(4));
      REQUIRE(sub.ok());
      informers.push_back(sub->informer);
      auto list = client->NextCall();
      REQUIRE(list != nullptr);
      REQUIRE(list->verb == "list");
      // Odd rounds stop with the first page in flight, even ones with the second (asked as soon
      // as the first one's continue token is known, while the first is being read).
      if (round % 2 == 0) {
        k8s::ListPage first;
        first.continue_token = "page-2";
        client->CompleteList(list, std::move(first));
        list = client->NextCall();
        REQUIRE(list != nullptr);
        REQUIRE(list->list.continue_token == "page-2");
      }
      cache.Unsubscribe("idle", *sub);
      REQUIRE_FALSE(cache.Follows("idle"));
      sub->informer.reset();
      sub->subscription.reset();
      const bool seen = list->WaitCancelled();
      const bool ended = client->WaitNoLiveCalls();
      cancelled += seen;
      calls_ended += ended;
      if (!seen || !ended) break;  // one failed round says it; the others would wait it out too
    }
  }
  CHECK(cancelled == kRounds);
  CHECK(calls_ended == kRounds);
  // Nothing is left to run once every stop's cancellation has: whatever the informers started
  // has ended, with no help from the teardown.
  REQUIRE(loop.Finish());
  int alive = 0;
  for (const auto& informer : informers) alive += !informer.expired();
  CHECK(alive == 0);
  CHECK(client->live_calls() == 0);
  client->DropPending();
}

}  // namespace
}  // namespace kje::cache
