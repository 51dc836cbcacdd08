#include "cache/app_cache.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "absl/status/status.h"
#include "spark/apache/app_projection.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::cache {
namespace {

struct Loop {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::thread thread{[this] { io.run(); }};
  std::shared_ptr<testing::FakeKubeClient> client = std::make_shared<testing::FakeKubeClient>(io);
  ~Loop() {
    work.reset();
    io.stop();
    thread.join();
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

}  // namespace
}  // namespace kje::cache
