#pragma once

// The executor over a scripted Kubernetes client, for the executor's unit tests.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "executor/executor.h"
#include "spark/apache/backend.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {

inline constexpr char kNs[] = "jobs";

// The executor over a scripted client on a one-thread io_context. The cache is off unless asked:
// every read is then a request the test answers.
struct Fixture {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::thread thread{[this] { io.run(); }};
  std::shared_ptr<kje::testing::FakeKubeClient> client =
      std::make_shared<kje::testing::FakeKubeClient>(io);
  FakeClock clock;
  std::unique_ptr<cache::AppCache> cache;
  std::unique_ptr<Executor> executor;

  explicit Fixture(
      bool cache_on = false, std::vector<std::string> allowed = {},
      size_t known_drivers_first_sweep = 1024,
      std::shared_ptr<const spark::OperatorBackend> backend = spark::apache::NewBackend(),
      std::shared_ptr<const spark::LinkTemplates> links = nullptr) {
    client->set_complete_on_cancel(true);
    cache::InformerOptions informer;
    const spark::ResourceKind apps = backend->Applications();
    informer.collection = k8s::CollectionRef(apps.group, apps.version, apps.plural, "");
    informer.project = [backend](const rapidjson::Value& app) { return backend->Project(app); };
    cache::CacheOptions cache_options;
    cache_options.enabled = cache_on;
    cache = std::make_unique<cache::AppCache>(io, client, informer, cache_options, clock);
    ExecutorOptions options;
    options.builder.namespace_ = kNs;
    options.builder.image = "spark:4";
    options.builder.spark_version = "4.0.0";
    options.request_timeout = absl::Seconds(30);
    options.max_queued_changes = 4;
    options.max_follow_buffer_bytes = 64;
    options.known_drivers_first_sweep = known_drivers_first_sweep;
    options.links = std::move(links);
    executor = std::make_unique<Executor>(io, client, *cache, NamespacePolicy(allowed), options,
                                          clock, std::move(backend));
  }
  ~Fixture() {
    cache->Stop();
    // Stop posts each informer's cancellation to the io_context: it runs, and so do the watch
    // coroutines it resumes, before the io_context stops. Stopped first, a watch left parked on
    // the fake's call would hold itself (its frame, the call, the call's wakeup) and leak.
    for (int i = 0; i < kDrainRounds; ++i) client->Barrier();
    work.reset();
    io.stop();
    thread.join();
    client->DropPending();
  }
  // Each round lets what the previous one posted run: the cancellation, the resumed wait, the
  // call's end.
  static constexpr int kDrainRounds = 4;

  std::shared_ptr<kje::testing::FakeKubeClient::Call> Next(const std::string& verb) {
    auto call = client->NextCall();
    REQUIRE(call != nullptr);
    REQUIRE(call->verb == verb);
    return call;
  }
};

// The result of one call, waited for.
template <class T>
struct Result {
  absl::Notification done;
  absl::StatusOr<T> value = absl::UnknownError("not done");

  std::function<void(absl::StatusOr<T>)> Callback() {
    return [this](absl::StatusOr<T> r) {
      value = std::move(r);
      done.Notify();
    };
  }
  const absl::StatusOr<T>& Get() {
    REQUIRE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    return value;
  }
};

// SparkPi, as a caller's template.
inline spark::SparkTemplate Template() {
  spark::SparkTemplate t;
  t.name = "pi";
  t.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  t.class_name = "org.apache.spark.examples.SparkPi";
  return t;
}

}  // namespace kje::executor
