#include "app/output_keeper.h"

#include <utility>

#include "base/log.h"

namespace kje::app {

OutputKeeper::OutputKeeper(executor::Executor& executor, std::vector<std::string> namespaces)
    : executor_(executor), namespaces_(std::move(namespaces)) {}

void OutputKeeper::Start() {
  std::vector<std::shared_ptr<executor::RpcHandle>> started;
  for (const std::string& ns : namespaces_) {
    started.push_back(executor_.KeepRecords(ns, [ns](absl::Status status) {
      if (!status.ok() && !absl::IsCancelled(status)) {
        log::Warn("the loop keeping ended jobs' records stopped")
            .Kv("namespace", ns)
            .Kv("error", std::string(status.message()));
      }
    }));
  }
  bool stop_now = false;
  {
    absl::MutexLock lock(&mu_);
    stop_now = stopped_;
    if (!stop_now) loops_ = started;
  }
  // Cancelled outside the lock: a loop's end may log.
  if (stop_now) {
    for (auto& loop : started) loop->Cancel();
  }
}

void OutputKeeper::Stop() {
  std::vector<std::shared_ptr<executor::RpcHandle>> loops;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    loops.swap(loops_);
  }
  for (auto& loop : loops) loop->Cancel();
}

}  // namespace kje::app
