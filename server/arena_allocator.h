#pragma once

// Request and response of a unary RPC on one protobuf arena per call, whose first block lives in
// the same allocation as the arena: the strings a JobInfo carries (and the request's id) cost no
// allocation of their own, and the whole call frees at once. A cached Status answers in a few
// microseconds, so a dozen malloc/free pairs per call were a large share of its cost.

#include <google/protobuf/arena.h>
#include <grpcpp/support/message_allocator.h>

#include <cstddef>

namespace kje::server {

template <class Request, class Response>
class ArenaMessageAllocator final : public grpc::MessageAllocator<Request, Response> {
 public:
  grpc::MessageHolder<Request, Response>* AllocateMessages() override { return new Holder(); }

 private:
  // The holder, arena and first block together stay within the sizes malloc serves from its
  // per-thread cache (a larger chunk takes its slow path, which consolidates free chunks on
  // every call). That first block holds a Status call; larger answers (a page of ListJobs) grow
  // the arena as usual.
  static constexpr size_t kHolderBytes = 1024;
  static constexpr size_t kFirstBlockBytes =
      kHolderBytes - sizeof(google::protobuf::Arena) - 4 * sizeof(void*);

  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    Holder() : arena_(Options(first_block_)) {
      this->set_request(google::protobuf::Arena::CreateMessage<Request>(&arena_));
      this->set_response(google::protobuf::Arena::CreateMessage<Response>(&arena_));
    }
    Holder(const Holder&) = delete;
    Holder& operator=(const Holder&) = delete;

    void Release() override { delete this; }

   private:
    static google::protobuf::ArenaOptions Options(char* block) {
      google::protobuf::ArenaOptions options;
      options.initial_block = block;
      options.initial_block_size = kFirstBlockBytes;
      return options;
    }

    alignas(std::max_align_t) char first_block_[kFirstBlockBytes];
    google::protobuf::Arena arena_;  // after first_block_: it is built on it
  };
  static_assert(sizeof(Holder) <= kHolderBytes);
};

}  // namespace kje::server
