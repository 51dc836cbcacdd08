#pragma once

// Staging as the rest of the service sees it: the deployment's store, the threads its blocking
// calls run on (never an io thread, never a gRPC reaction), the bounds of an upload, and the
// look-up of a template's references. One per process; null where staging is not configured.

#include <atomic>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "async/cancellable.h"
#include "base/clock.h"
#include "staging/store.h"
#include "staging/upload_session.h"

namespace kje::staging {

struct StagerOptions {
  UploadLimits limits;
  int64_t max_concurrent_uploads = 8;  // staging.maxConcurrentUploads
  int threads = 2;                     // staging.threads: the blocking calls' threads
  // The longest one store call may take, whatever the RPC's deadline.
  absl::Duration request_timeout = absl::Seconds(60);
};

// What a template's references resolve to: each one's URI, and the conf the job needs.
struct ResolvedReferences {
  std::map<std::string, std::string> uris;
  std::map<std::string, std::string> conf;
};

class Stager {
 public:
  using Strand = boost::asio::strand<boost::asio::thread_pool::executor_type>;

  Stager(std::unique_ptr<ArtifactStore> store, StagerOptions options, const Clock& clock);
  ~Stager();  // joins the threads

  const StagerOptions& options() const { return options_; }
  ArtifactStore& store() { return *store_; }
  const Clock& clock() const { return clock_; }

  // A place among the uploads in progress, given back when dropped; RESOURCE_EXHAUSTED naming
  // staging.maxConcurrentUploads when there is none.
  class Slot {
   public:
    Slot() = default;
    explicit Slot(std::atomic<int64_t>* count) : count_(count) {}
    Slot(Slot&& other) noexcept : count_(std::exchange(other.count_, nullptr)) {}
    Slot& operator=(Slot&& other) noexcept {
      std::swap(count_, other.count_);
      return *this;
    }
    ~Slot() {
      if (count_ != nullptr) count_->fetch_sub(1);
    }

   private:
    std::atomic<int64_t>* count_ = nullptr;
  };
  absl::StatusOr<Slot> StartUpload();
  int64_t UploadsInProgress() const { return uploads_.load(); }

  // A strand on the staging threads: one upload's steps run on one, in order.
  Strand NewStrand();

  // Looks up each reference in the store on the staging threads; `done` (a staging thread) gets
  // the URIs and conf, or INVALID_ARGUMENT naming the first reference the store doesn't hold,
  // UNAVAILABLE when the store can't be asked. The handle's Cancel makes `done` get CANCELLED.
  std::shared_ptr<async::Cancellable> Resolve(
      std::vector<std::string> references, absl::Time deadline,
      std::function<void(absl::StatusOr<ResolvedReferences>)> done);

  // On the staging threads: deletes every stored file whose path `in_use` doesn't hold and that
  // was last written before `older_than`; `done` (a staging thread) gets how many went, or the
  // store's error (then nothing more is deleted: the next sweep tries again).
  void Sweep(std::set<std::string> in_use, absl::Time older_than, absl::Time deadline,
             std::function<void(absl::StatusOr<int64_t>)> done);

  // A store call's deadline: the caller's, within options.request_timeout.
  absl::Time Deadline(absl::Time rpc_deadline) const;

 private:
  std::unique_ptr<ArtifactStore> store_;
  const StagerOptions options_;
  const Clock& clock_;
  boost::asio::thread_pool pool_;
  std::atomic<int64_t> uploads_{0};
};

}  // namespace kje::staging
