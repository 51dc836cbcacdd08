// The Events of a job's driver pods found by name. Once the driver pod is gone (and with it,
// maybe, the application: a Cancel, a TTL, a schedule's pruning), the cluster still holds its
// Events for an hour after their last write; the names the operator gives drivers (each backend
// knows its own) find them, with no LIST of live pods, which would find nothing.

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "executor/error_table.h"
#include "executor/executor.h"
#include "executor/internal.h"

namespace kje::executor::coroutines {

namespace asio = boost::asio;

asio::awaitable<absl::Status> NamedDriverEvents(ExecutorContext& ex, std::string ns,
                                                std::string app_name, absl::Time rpc_deadline,
                                                JobEvents& out) {
  std::string previous;
  for (int64_t attempt = 0; attempt < kMaxDriverAttemptsProbed; ++attempt) {
    std::string pod = ex.backend->DriverPodName(ns, app_name, attempt);
    // An operator that gives every attempt's driver the same name: one name to look at.
    if (pod == previous) break;
    const size_t before = out.events.size();
    auto listing = ListObjectEvents(ex, ns, "Pod", pod, rpc_deadline, out);
    absl::Status listed = co_await std::move(listing);
    if (!listed.ok()) {
      co_return FromKubernetes(
          listed, Rpc::kEvents,
          absl::StrCat("listing the events of Pod ", ToAbsl(ns), "/", ToAbsl(pod)), rpc_deadline,
          absl::Now());
    }
    // An attempt whose driver left no Events had none after it either. Attempt 0's may have
    // expired before a restarted attempt's (the oldest go first), so the next is looked at too.
    if (out.events.size() == before && attempt > 0) break;
    previous = std::move(pod);
  }
  co_return absl::OkStatus();
}

}  // namespace kje::executor::coroutines
