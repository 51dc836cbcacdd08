#include "k8s/metrics.h"

#include <catch2/catch.hpp>

namespace kje::k8s {
namespace {

TEST_CASE("Requests are counted by verb, resource and code with latency buckets") {
  RequestMetrics metrics;
  metrics.Record("get", "pods", "200", absl::Milliseconds(3));
  metrics.Record("get", "pods", "200", absl::Milliseconds(300));
  metrics.Record("get", "pods", "404", absl::Milliseconds(1));
  metrics.Record("create", "sparkapplications", "error", absl::Seconds(90));

  CHECK(metrics.Count("get", "pods", "200") == 2);
  CHECK(metrics.Count("get", "pods", "404") == 1);
  CHECK(metrics.Count("create", "sparkapplications", "error") == 1);
  CHECK(metrics.Count("delete", "pods", "200") == 0);

  auto snapshot = metrics.Snapshot();
  const auto& ok = snapshot.at({"get", "pods", "200"});
  CHECK(ok.count == 2);
  CHECK(ok.latency_sum_seconds == Approx(0.303));
  CHECK(ok.bucket_counts[0] == 1);  // <= 5 ms
  CHECK(ok.bucket_counts[3] == 1);  // <= 250 ms: only the 3 ms one
  CHECK(ok.bucket_counts[4] == 2);  // <= 500 ms: both
  const auto& slow = snapshot.at({"create", "sparkapplications", "error"});
  CHECK(slow.bucket_counts.back() == 0);  // above the last bucket: only in +Inf (= count)
  CHECK(slow.count == 1);
}

}  // namespace
}  // namespace kje::k8s
