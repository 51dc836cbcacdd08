#pragma once

// Each part the process composes, configured from the one Config: what key feeds what option
// is read here and nowhere else.

#include <memory>

#include "cache/app_cache.h"
#include "executor/executor.h"
#include "k8s/client.h"
#include "k8s/connection_config.h"
#include "k8s/request_limiter.h"
#include "server/config.h"
#include "server/metrics_http.h"
#include "spark/backend.h"
#include "spark/operators.h"

namespace kje::app {

k8s::ConnectionOptions ConnectionOptionsFrom(const server::Config& config);
k8s::LimiterOptions LimiterOptionsFrom(const server::Config& config);
// The client's options; `metrics` and `limiter` are the process's (metrics not owned).
k8s::ClientOptions ClientOptionsFrom(const server::Config& config, k8s::RequestMetrics* metrics,
                                     std::shared_ptr<k8s::RequestLimiter> limiter);
spark::OperatorOptions OperatorOptionsFrom(const server::Config& config);
// The operator's resource, selector and projection come from its backend, for the cache as for
// the executor.
cache::InformerOptions InformerOptionsFrom(std::shared_ptr<const spark::OperatorBackend> backend);
cache::CacheOptions CacheOptionsFrom(const server::Config& config);
executor::ExecutorOptions ExecutorOptionsFrom(const server::Config& config);
server::MetricsHttpOptions MetricsHttpOptionsFrom(const server::Config& config);

}  // namespace kje::app
