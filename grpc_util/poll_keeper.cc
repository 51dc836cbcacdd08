#include "grpc_util/poll_keeper.h"

#include <utility>

#include "absl/synchronization/notification.h"
#include "base/tsan.h"

namespace kje::grpc_util {
namespace {

// Bounds a call that doesn't complete (a channel stuck connecting), so stopping never hangs.
constexpr absl::Duration kCallDeadline = absl::Seconds(1);

}  // namespace

PollKeeper::PollKeeper(std::shared_ptr<grpc::Channel> channel, std::string method,
                       absl::Duration period, std::function<void(const grpc::Status&)> on_call)
    : channel_(std::move(channel)),
      stub_(channel_),
      method_(std::move(method)),
      period_(period),
      on_call_(std::move(on_call)),
      thread_([this] { Run(); }) {}

PollKeeper::~PollKeeper() {
  stop_.Notify();
  thread_.join();
}

void PollKeeper::Run() {
  // One call's outcome, written on gRPC's thread before `done` is notified and read here after.
  // The outcome reaches gRPC's thread through gRPC's library, whose ordering ThreadSanitizer
  // can't see: the release and acquire tell it.
  struct Outcome {
    grpc::Status status;
    absl::Notification done;
  };
  while (!stop_.WaitForNotificationWithTimeout(period_)) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
    grpc::Slice empty;  // an empty message: a ByteBuffer without a slice is no message at all
    grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    Outcome outcome;
    KJE_TSAN_RELEASE(&outcome);
    // A callback call: its completion is what runs on the threads this keeps awake.
    stub_.UnaryCall(&context, method_, grpc::StubOptions(), &request, &response,
                    [&outcome](grpc::Status s) {
                      KJE_TSAN_ACQUIRE(&outcome);
                      outcome.status = std::move(s);
                      outcome.done.Notify();
                    });
    outcome.done.WaitForNotification();
    if (on_call_) on_call_(outcome.status);
  }
}

}  // namespace kje::grpc_util
