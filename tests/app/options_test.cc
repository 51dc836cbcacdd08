#include "app/options.h"

#include <catch2/catch.hpp>

#include "k8s/request_limiter.h"

namespace kje::app {
namespace {

TEST_CASE("options: the API server's requests in flight and the client's kept connections agree",
          "[options]") {
  server::Config config;
  config.kubernetes.max_in_flight = 40;
  config.kubernetes.qps = 5;
  config.kubernetes.burst = 10;
  auto limiter = std::make_shared<k8s::RequestLimiter>(LimiterOptionsFrom(config));
  k8s::RequestMetrics metrics;
  k8s::ClientOptions client = ClientOptionsFrom(config, &metrics, limiter);
  // Every request the limiter lets through at once finds its connection kept from the last
  // burst: none is closed after its answer to be opened again.
  CHECK(client.max_idle_connections == 40);
  CHECK(LimiterOptionsFrom(config).max_in_flight == 40);
  CHECK(client.limiter == limiter);
  CHECK(client.metrics == &metrics);
}

}  // namespace
}  // namespace kje::app
