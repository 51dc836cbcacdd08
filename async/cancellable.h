#pragma once

// Something running that its starter may stop: an RPC's coroutine, as the gRPC edge sees it.
// Thread-safe, idempotent, harmless after the end. No Asio here: the edge includes it.

namespace kje::async {

class Cancellable {
 public:
  virtual ~Cancellable() = default;
  virtual void Cancel() = 0;
};

}  // namespace kje::async
