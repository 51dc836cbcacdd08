#pragma once

// A child process for integration tests (the fake API server, kubesim): started with a pipe on
// its stdout, read line by line with a deadline, killed and reaped at the end.

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kje::k8s::testing {

class Subprocess {
 public:
  Subprocess() = default;
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  absl::Status Start(const std::vector<std::string>& argv);
  // The next line of the child's stdout, without the newline.
  absl::StatusOr<std::string> ReadLine(absl::Time deadline);
  // SIGTERM, then SIGKILL if it has not exited within `grace`.
  void Stop(absl::Duration grace = absl::Seconds(2));
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string buffer_;
};

}  // namespace kje::k8s::testing
