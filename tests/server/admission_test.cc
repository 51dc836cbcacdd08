#include "server/admission.h"

#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/strings.h"
#include "server/metrics.h"
#include "tests/server/prometheus_text.h"

namespace kje::server {
namespace {

using Kind = Admission::Kind;

TEST_CASE("admission: a full bound refuses at once, naming its key, and a place given back is free",
          "[admission]") {
  Admission admission(2, 1);
  auto a = admission.Admit(Kind::kUnary);
  auto b = admission.Admit(Kind::kUnary);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto c = admission.Admit(Kind::kUnary);
  REQUIRE(absl::IsResourceExhausted(c.status()));
  CHECK(std::string(ToStd(c.status().message())).find("server.maxConcurrentRpcs: 2") !=
        std::string::npos);
  CHECK(admission.in_flight(Kind::kUnary) == 2);
  // The bounds are apart: streams still have their place.
  auto s = admission.Admit(Kind::kStream);
  REQUIRE(s.ok());
  auto s2 = admission.Admit(Kind::kStream);
  REQUIRE(absl::IsResourceExhausted(s2.status()));
  CHECK(std::string(ToStd(s2.status().message())).find("server.maxStreams: 1") !=
        std::string::npos);

  { Admission::Ticket gone = *std::move(a); }
  CHECK(admission.in_flight(Kind::kUnary) == 1);
  CHECK(admission.Admit(Kind::kUnary).ok());  // admitted, and given back at once
  CHECK(admission.in_flight(Kind::kUnary) == 1);

  // A moved ticket is given back once.
  Admission::Ticket moved = *std::move(b);
  Admission::Ticket again = std::move(moved);
  CHECK(admission.in_flight(Kind::kUnary) == 1);
  again = Admission::Ticket();
  CHECK(admission.in_flight(Kind::kUnary) == 0);
}

TEST_CASE("admission: a burst from many threads never overshoots the bound", "[admission]") {
  constexpr int kBound = 50;
  Admission admission(kBound, 1);
  std::vector<std::vector<Admission::Ticket>> held(8);
  std::vector<std::thread> threads;
  for (auto& mine : held) {
    threads.emplace_back([&admission, &mine] {
      for (int i = 0; i < 100; ++i) {
        if (auto t = admission.Admit(Kind::kUnary); t.ok()) mine.push_back(*std::move(t));
      }
    });
  }
  for (auto& t : threads) t.join();
  size_t total = 0;
  for (const auto& mine : held) total += mine.size();
  CHECK(total == kBound);
  CHECK(admission.in_flight(Kind::kUnary) == kBound);
  held.clear();
  CHECK(admission.in_flight(Kind::kUnary) == 0);
}

TEST_CASE("admission: calls in flight and refused are in the metrics", "[admission]") {
  FakeClock clock;
  Metrics metrics("test", clock);
  Admission admission(1, 1, &metrics);
  auto held = admission.Admit(Kind::kStream);
  REQUIRE(held.ok());
  CHECK_FALSE(admission.Admit(Kind::kStream).ok());
  CHECK_FALSE(admission.Admit(Kind::kStream).ok());
  testing::PromText text = testing::ParsePromText(metrics.Render());
  CHECK(text.ValueOr0("k8s_job_executor_rpcs_in_flight", {{"kind", "stream"}}) == 1);
  CHECK(text.ValueOr0("k8s_job_executor_rpcs_in_flight", {{"kind", "unary"}}) == 0);
  CHECK(text.ValueOr0("k8s_job_executor_rpcs_refused_total", {{"kind", "stream"}}) == 2);
}

}  // namespace
}  // namespace kje::server
