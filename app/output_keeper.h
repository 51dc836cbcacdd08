#pragma once

// The loops that keep the records of ended jobs (executor/output_keep.h): one per configured
// namespace, from the start to the drain. Every replica runs them; the record's name makes each
// written once, whichever replica gets there first.

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "executor/executor.h"

namespace kje::app {

class OutputKeeper {
 public:
  // `executor` outlives the keeper.
  OutputKeeper(executor::Executor& executor, std::vector<std::string> namespaces);
  OutputKeeper(const OutputKeeper&) = delete;
  OutputKeeper& operator=(const OutputKeeper&) = delete;

  void Start();
  // Cancels the loops; never waits. Idempotent.
  void Stop();

 private:
  executor::Executor& executor_;
  const std::vector<std::string> namespaces_;
  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::shared_ptr<executor::RpcHandle>> loops_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::app
