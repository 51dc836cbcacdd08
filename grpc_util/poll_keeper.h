#pragma once

// Keeps gRPC's callback threads awake, so an idle process notices a request or a pushed message
// at once instead of up to 100 ms late.
//
// gRPC 1.51 runs every callback-API reaction of a process (server handlers and reactors, client
// reactors alike) on the threads of one process-wide completion queue, and on Linux those same
// threads poll the sockets. Each waits up to a second for work, then sleeps 100 ms before it
// waits again; after a quiet second they all sleep together, and for those 100 ms nothing polls
// and nothing runs. An idle server is deaf for 100 ms of every 1.1 s: a Status sent 1.05 s after
// the previous call took 51 ms instead of 1 ms, and the first WatchStatus changes after a quiet
// second reached callers up to 100 ms late (make bench, P9 and P10).
//
// One call that completes on that queue more often than once a second keeps one of its threads
// waiting, and so polling, at all times. The keeper makes such a call every `period` on a thread
// of its own: an in-process call costs microseconds and touches no network.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace kje::grpc_util {

class PollKeeper {
 public:
  // The path of the method the server's keeper calls on its in-process channel. No service
  // has it, so the server answers UNIMPLEMENTED at once; the metrics leave it out.
  static constexpr const char* kMethod = "/kje.internal.PollKeeper/Tick";
  static constexpr absl::Duration kDefaultPeriod = absl::Milliseconds(250);

  // Calls `method` (an empty request) on `channel` every `period`, from now until destroyed.
  // `on_call`, when given, runs on the keeper's thread after each call with its outcome.
  PollKeeper(std::shared_ptr<grpc::Channel> channel, std::string method,
             absl::Duration period = kDefaultPeriod,
             std::function<void(const grpc::Status&)> on_call = nullptr);
  // Stops; returns once the call in flight, if any, has completed (each has a deadline).
  ~PollKeeper();

  PollKeeper(const PollKeeper&) = delete;
  PollKeeper& operator=(const PollKeeper&) = delete;

 private:
  void Run();

  std::shared_ptr<grpc::Channel> channel_;
  grpc::GenericStub stub_;
  const std::string method_;
  const absl::Duration period_;
  const std::function<void(const grpc::Status&)> on_call_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace kje::grpc_util
