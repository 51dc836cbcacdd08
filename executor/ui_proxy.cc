// ProxyUi: one GET of a running driver's Spark UI through the API server's pod proxy, so that a
// caller without a kubeconfig (the CLI's `forward`) can browse it. The UI lives in the driver:
// before the driver runs there is nothing to reach, and after it stops the UI is gone.

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "executor/error_table.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "k8s/pod_proxy.h"
#include "spark/job_status.h"

namespace kje::executor {

namespace asio = boost::asio;

namespace coroutines {
namespace {

// Spark's default spark.ui.port, for a driver pod that names no spark-ui port.
constexpr int kDefaultUiPort = 4040;

constexpr std::string_view kHistoryHint =
    "its Spark UI went with its driver; a finished job's UI is the Spark history server's "
    "(spark.eventLog.enabled)";

// Whether the driver serves its UI now: its container runs (the pod's phase when the container
// can't be told apart).
bool DriverRuns(const spark::DriverPod& pod) {
  if (pod.deleting) return false;
  if (const spark::ContainerStatus* driver = pod.DriverStatus("")) {
    return driver->run == spark::ContainerRun::kRunning;
  }
  return pod.phase == "Running";
}

}  // namespace

asio::awaitable<absl::StatusOr<UiPage>> ProxyUi(ExecutorContext& ex, spark::ExecutionId id,
                                                std::string path, absl::Time rpc_deadline) {
  // Each operation built in its own statement (see k8s/client.h).
  auto look_up = LookUp(ex, id.namespace_, id.name, rpc_deadline);
  auto app = co_await std::move(look_up);
  if (!app.ok()) co_return app.status();
  const spark::JobStatusInfo info = ex.MapStatus(**app, nullptr);
  if (spark::IsTerminal(info.status)) {
    co_return absl::FailedPreconditionError(absl::StrCat("job ", id.ToString(), " has stopped (",
                                                         ToAbsl(spark::JobStatusName(info.status)),
                                                         "): ", ToAbsl(kHistoryHint)));
  }
  auto find_driver = FindDriver(ex, id.namespace_, id.name, *app, rpc_deadline);
  auto driver = co_await std::move(find_driver);
  if (!driver.ok()) {
    co_return FromKubernetes(
        driver.status(), Rpc::kProxyUi,
        absl::StrCat("listing the driver pods of ", Where(id.namespace_, id.name)), rpc_deadline,
        absl::Now());
  }
  if (!driver->has_value() || !DriverRuns(**driver)) {
    const std::string_view where = driver->has_value()
                                       ? std::string_view("its driver pod isn't running")
                                       : std::string_view("it has no driver pod");
    co_return absl::FailedPreconditionError(
        absl::StrCat("job ", id.ToString(), " has no running driver (",
                     ToAbsl(spark::JobStatusName(info.status)), ": ", ToAbsl(where),
                     "), so no Spark UI; try again once it runs"));
  }
  const spark::DriverPod& pod = **driver;
  const int port = pod.ui_port > 0 ? pod.ui_port : kDefaultUiPort;
  auto get =
      ex.client->ProxyGet(k8s::CoreRef("pods", id.namespace_, pod.name), port, std::move(path),
                          ex.options.max_ui_proxy_bytes, ex.Deadline(rpc_deadline));
  auto got = co_await std::move(get);
  if (!got.ok()) {
    co_return FromKubernetes(got.status(), Rpc::kProxyUi,
                             absl::StrCat("reaching the Spark UI of driver pod ",
                                          Where(id.namespace_, pod.name), ":", port),
                             rpc_deadline, absl::Now());
  }
  co_return UiPage{got->http_code, std::move(got->content_type), std::move(got->body),
                   std::move(got->location)};
}

}  // namespace coroutines

std::shared_ptr<RpcHandle> Executor::ProxyUi(std::string_view execution_id, std::string path,
                                             absl::Time deadline, Done<UiPage> done) {
  auto id = ctx_.ParseId(execution_id);
  if (!id.ok()) {
    done(id.status());
    return internal::FinishedHandle();
  }
  if (absl::Status checked = k8s::CheckProxiedPath(path); !checked.ok()) {
    done(checked);
    return internal::FinishedHandle();
  }
  return internal::Spawn(
      ctx_.io,
      [this, id = *std::move(id), path = std::move(path), deadline]() mutable {
        return coroutines::ProxyUi(ctx_, std::move(id), std::move(path), deadline);
      },
      std::move(done));
}

}  // namespace kje::executor
