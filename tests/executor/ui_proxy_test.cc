// ProxyUi on both operators: the running driver's UI port through the pod proxy, the body bound,
// and the refusals that tell a caller what to do (stopped job, no driver yet, bad path).

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "executor/executor.h"
#include "k8s/errors.h"
#include "spark/execution_id.h"
#include "spark/names.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

std::string IdOf(const std::string& name) {
  return spark::ExecutionId{"default", std::string(spark::kKindSparkApp), kNs, name}.ToString();
}

absl::Time Soon() { return absl::Now() + absl::Seconds(5); }

k8s::ListPage Pods(const std::string& pod_json) {
  k8s::ListPage page;
  page.items = testing::Items({pod_json});
  return page;
}

// The op's running driver of `app`, its UI on `ui_port` (0: no spark-ui port declared).
std::string DriverWithUiPort(const OperatorApps& op, const std::string& app, int ui_port) {
  std::string pod = op.DriverPodJson(app);
  if (ui_port == 0) return pod;
  return absl::StrReplaceAll(
      pod, {{R"("containers":[{"name":"spark-kubernetes-driver"})",
             absl::StrCat(R"("containers":[{"name":"spark-kubernetes-driver","ports":[)",
                          R"({"containerPort":7078,"name":"driver-rpc-port"},)",
                          R"({"containerPort":)", ui_port, R"(,"name":"spark-ui"}]})")}});
}

TEST_CASE("executor: ProxyUi GETs the running driver's UI port through the pod proxy",
          "[executor][ui]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  const int ui_port = GENERATE(0, 4041);
  INFO(op.name << " spark-ui port " << ui_port);
  Fixture f(false, {}, 1024, op.backend);
  Result<UiPage> r;
  f.executor->ProxyUi(IdOf("a"), "/api/v1/applications?status=running", Soon(), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  auto pods = f.Next("list");
  CHECK(pods->ref.plural == "pods");
  f.client->CompleteList(pods, Pods(DriverWithUiPort(op, "a", ui_port)));
  auto proxied = f.Next("proxy_get");
  CHECK(proxied->ref.plural == "pods");
  CHECK(proxied->ref.namespace_ == kNs);
  CHECK(proxied->ref.name == "a-driver");
  CHECK(proxied->proxy_port == (ui_port == 0 ? 4040 : ui_port));
  CHECK(proxied->proxy_path == "/api/v1/applications?status=running");
  // The configured bound goes with the request (server.maxUiProxyBytes).
  CHECK(proxied->proxy_max_body_bytes == f.executor->options().max_ui_proxy_bytes);
  f.client->Complete(proxied, "<html>pi</html>");
  const auto& page = r.Get();
  REQUIRE(page.ok());
  CHECK(page->status_code == 200);
  CHECK(page->content_type == "text/html");
  CHECK(page->body == "<html>pi</html>");
}

TEST_CASE("executor: ProxyUi of a stopped job points to the history server", "[executor][ui]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(false, {}, 1024, op.backend);
  Result<UiPage> r;
  f.executor->ProxyUi(IdOf("a"), "/", Soon(), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kSucceeded));
  const auto& page = r.Get();
  REQUIRE(absl::IsFailedPrecondition(page.status()));
  CHECK(page.status().message().find("has stopped (SUCCEEDED)") != std::string_view::npos);
  CHECK(page.status().message().find("history server") != std::string_view::npos);
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());  // no pod looked for
}

TEST_CASE("executor: ProxyUi without a running driver is FAILED_PRECONDITION", "[executor][ui]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  const bool has_pod = GENERATE(false, true);
  Fixture f(false, {}, 1024, op.backend);
  Result<UiPage> r;
  f.executor->ProxyUi(IdOf("a"), "/", Soon(), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kSubmitted));
  std::string pending = absl::StrReplaceAll(
      op.DriverPodJson("a"), {{R"("phase":"Running")", R"("phase":"Pending")"},
                              {R"("state":{"running":{"startedAt":"2026-01-01T00:00:03Z"}})",
                               R"("state":{"waiting":{"reason":"ContainerCreating"}})"}});
  f.client->CompleteList(f.Next("list"), has_pod ? Pods(pending) : k8s::ListPage{});
  const auto& page = r.Get();
  REQUIRE(absl::IsFailedPrecondition(page.status()));
  CHECK(page.status().message().find("no running driver") != std::string_view::npos);
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("executor: ProxyUi maps the proxy's failures through the error table", "[executor][ui]") {
  struct Case {
    absl::Status failure;
    absl::StatusCode code;
  };
  const Case c =
      GENERATE(Case{k8s::MakeApiStatus({404, "NotFound", "pods \"a-driver\" not found"}),
                    absl::StatusCode::kFailedPrecondition},
               Case{absl::ResourceExhaustedError("kubernetes: the response is larger than 8 bytes"),
                    absl::StatusCode::kResourceExhausted},
               Case{k8s::MakeApiStatus({403, "Forbidden", "cannot get pods/proxy"}),
                    absl::StatusCode::kPermissionDenied},
               Case{k8s::MakeApiStatus({503, "ServiceUnavailable", "connection refused"}),
                    absl::StatusCode::kUnavailable});
  const OperatorApps op = OperatorApps::Named("apache");
  Fixture f(false, {}, 1024, op.backend);
  Result<UiPage> r;
  f.executor->ProxyUi(IdOf("a"), "/jobs/", Soon(), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  f.client->CompleteList(f.Next("list"), Pods(op.DriverPodJson("a")));
  f.client->Complete(f.Next("proxy_get"), c.failure);
  const auto& page = r.Get();
  INFO(page.status());
  CHECK(page.status().code() == c.code);
  CHECK(page.status().message().find("Spark UI of driver pod jobs/a-driver:4040") !=
        std::string_view::npos);
}

TEST_CASE("executor: ProxyUi refuses a bad path or id before any request", "[executor][ui]") {
  Fixture f;
  for (const char* path : {"jobs", "/../api", "/a b"}) {
    Result<UiPage> r;
    f.executor->ProxyUi(IdOf("a"), path, Soon(), r.Callback());
    CHECK(absl::IsInvalidArgument(r.Get().status()));
  }
  Result<UiPage> malformed;
  f.executor->ProxyUi("nope", "/", Soon(), malformed.Callback());
  CHECK(absl::IsNotFound(malformed.Get().status()));
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

}  // namespace
}  // namespace kje::executor
