#pragma once

// An awaitable façade of k8s::Client for coroutine code. It pulls in Asio, so only .cc files
// include it (client.h stays Asio-free and cheap for everyone else).
//
// Each call resumes the awaiting coroutine on the coroutine's own executor (its strand), never on
// the client's thread, and a cancellation of the coroutine cancels the call: the call then ends
// with kCancelled and the coroutine resumes (or throws, if the coroutine's cancellation state
// says so) as usual.
//
// Build the operation in a statement of its own and co_await the named result
// (`auto get = Get(...); auto got = co_await std::move(get);`): Debian's GCC 12 destroys twice a
// temporary that a co_await's full expression materializes (a ResourceRef bound to a const
// reference, a lambda converted to std::function), and the heap breaks.

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "k8s/client.h"

namespace kje::k8s::awaitable {

namespace asio = boost::asio;

// Adapts one callback-style operation. `start(complete)` starts it and returns its cancel handle;
// `complete(T)` may be called from any thread, or inline.
template <class T, class Start>
asio::awaitable<T> Call(Start start) {
  return asio::async_initiate<const asio::use_awaitable_t<>, void(T)>(
      [](auto handler, Start start) {
        using Handler = decltype(handler);
        auto executor = asio::get_associated_executor(handler);
        auto slot = asio::get_associated_cancellation_slot(handler);
        auto pending = std::make_shared<std::optional<Handler>>(std::move(handler));
        std::shared_ptr<CallHandle> call = start([pending, executor](T result) {
          // Always through the coroutine's executor: the caller's thread is the client's, and the
          // coroutine must not run there.
          asio::post(executor, [pending, result = std::move(result)]() mutable {
            if (!pending->has_value()) return;
            Handler h = std::move(**pending);
            pending->reset();
            std::move(h)(std::move(result));
          });
        });
        if (call != nullptr && slot.is_connected()) {
          // Held until the coroutine's next operation replaces it: cancelling a finished call
          // is harmless.
          slot.assign([call](asio::cancellation_type) { call->Cancel(); });
        }
      },
      asio::use_awaitable, std::move(start));
}

inline asio::awaitable<absl::StatusOr<std::string>> Get(Client& client, const ResourceRef& ref,
                                                        absl::Time deadline) {
  return Call<absl::StatusOr<std::string>>(
      [&client, ref, deadline](Client::Callback<std::string> done) {
        return client.Get(ref, deadline, std::move(done));
      });
}

inline asio::awaitable<absl::StatusOr<std::string>> Create(Client& client,
                                                           const ResourceRef& collection,
                                                           std::string json, absl::Time deadline) {
  return Call<absl::StatusOr<std::string>>(
      [&client, collection, json = std::move(json), deadline](Client::Callback<std::string> done) {
        return client.Create(collection, json, deadline, std::move(done));
      });
}

inline asio::awaitable<absl::StatusOr<std::string>> Patch(Client& client, const ResourceRef& ref,
                                                          PatchType type, std::string patch,
                                                          absl::Time deadline) {
  return Call<absl::StatusOr<std::string>>(
      [&client, ref, type, patch = std::move(patch), deadline](Client::Callback<std::string> done) {
        return client.Patch(ref, type, patch, deadline, std::move(done));
      });
}

inline asio::awaitable<absl::StatusOr<std::string>> Delete(Client& client, const ResourceRef& ref,
                                                           DeleteOptions options,
                                                           absl::Time deadline) {
  return Call<absl::StatusOr<std::string>>(
      [&client, ref, options = std::move(options), deadline](Client::Callback<std::string> done) {
        return client.Delete(ref, options, deadline, std::move(done));
      });
}

inline asio::awaitable<absl::StatusOr<ListPage>> List(Client& client, const ResourceRef& collection,
                                                      ListOptions options, absl::Time deadline) {
  return Call<absl::StatusOr<ListPage>>([&client, collection, options = std::move(options),
                                         deadline](Client::Callback<ListPage> done) {
    return client.List(collection, options, deadline, std::move(done));
  });
}

// A watch: `on_event` runs on the client's thread, one event at a time, before the watch's end
// resumes the coroutine with its status.
inline asio::awaitable<absl::Status> Watch(Client& client, const ResourceRef& collection,
                                           WatchOptions options, absl::Time deadline,
                                           Client::EventCallback on_event) {
  return Call<absl::Status>([&client, collection, options = std::move(options), deadline,
                             on_event = std::move(on_event)](Client::DoneCallback done) {
    return client.Watch(collection, options, deadline, on_event, std::move(done));
  });
}

// pods/{name}/log streamed: `on_chunk` runs on the client's thread, before the end resumes the
// coroutine.
inline asio::awaitable<absl::Status> StreamLog(Client& client, const ResourceRef& pod,
                                               LogOptions options, absl::Time deadline,
                                               Client::ChunkCallback on_chunk) {
  return Call<absl::Status>([&client, pod, options = std::move(options), deadline,
                             on_chunk = std::move(on_chunk)](Client::DoneCallback done) {
    return client.StreamLog(pod, options, deadline, on_chunk, std::move(done));
  });
}

}  // namespace kje::k8s::awaitable
