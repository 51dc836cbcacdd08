#include "cache/app_cache.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "tests/fakes/fake_kube_client.h"

namespace kje::cache {
namespace {

struct Loop {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::thread thread{[this] { io.run(); }};
  ~Loop() {
    work.reset();
    io.stop();
    thread.join();
  }
};

InformerOptions Prototype() {
  InformerOptions options;
  options.collection = {"spark.apache.org", "v1", "sparkapplications", "", "", ""};
  options.label_selector = "app.kubernetes.io/managed-by=gravitino";
  return options;
}

TEST_CASE("app cache: disabled, it never lists and always misses", "[cache]") {
  Loop loop;
  auto client = std::make_shared<testing::FakeKubeClient>(loop.io);
  FakeClock clock;
  AppCache cache(loop.io, client, Prototype(), /*enabled=*/false, clock);
  cache.Watch("jobs");
  CHECK_FALSE(cache.Find("jobs", "a").has_value());
  client->Barrier();
  CHECK_FALSE(client->HasPendingCall());
  CHECK(cache.Stats().empty());
}

TEST_CASE("app cache: one informer per namespace, started on first use", "[cache]") {
  Loop loop;
  auto client = std::make_shared<testing::FakeKubeClient>(loop.io);
  FakeClock clock;
  AppCache cache(loop.io, client, Prototype(), /*enabled=*/true, clock);
  cache.Watch("jobs");
  auto first = client->NextCall();
  REQUIRE(first != nullptr);
  CHECK(first->verb == "list");
  CHECK(first->ref.namespace_ == "jobs");
  CHECK(first->list.label_selector == "app.kubernetes.io/managed-by=gravitino");
  cache.Watch("jobs");  // already followed
  // A lookup in another namespace starts following it, and misses until it has synced.
  CHECK_FALSE(cache.Find("etl", "x").has_value());
  auto second = client->NextCall();
  REQUIRE(second != nullptr);
  CHECK(second->ref.namespace_ == "etl");
  client->Barrier();
  CHECK_FALSE(client->HasPendingCall());
  CHECK(cache.Stats().size() == 2);
  CHECK_FALSE(cache.AllSynced());
  cache.Stop();
  CHECK(first->cancelled);
  CHECK(second->cancelled);
}

}  // namespace
}  // namespace kje::cache
