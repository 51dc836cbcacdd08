#include "staging/stager.h"

#include <boost/asio/post.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/quote.h"

namespace kje::staging {

namespace asio = boost::asio;

Stager::Stager(std::unique_ptr<ArtifactStore> store, StagerOptions options, const Clock& clock)
    : store_(std::move(store)),
      options_(options),
      clock_(clock),
      pool_(static_cast<size_t>(options.threads)) {}

Stager::~Stager() { pool_.join(); }

absl::StatusOr<Stager::Slot> Stager::StartUpload() {
  int64_t now = uploads_.fetch_add(1) + 1;
  if (now > options_.max_concurrent_uploads) {
    uploads_.fetch_sub(1);
    return absl::ResourceExhaustedError(
        absl::StrCat(options_.max_concurrent_uploads,
                     " uploads are in progress, as many as this replica takes at once "
                     "(staging.maxConcurrentUploads): retry shortly"));
  }
  return Slot(&uploads_);
}

Stager::Strand Stager::NewStrand() { return asio::make_strand(pool_.get_executor()); }

absl::Time Stager::Deadline(absl::Time rpc_deadline) const {
  return std::min(rpc_deadline, clock_.Now() + options_.request_timeout);
}

namespace {

class Flag final : public async::Cancellable {
 public:
  void Cancel() override { cancelled.store(true); }
  std::atomic<bool> cancelled{false};
};

}  // namespace

std::shared_ptr<async::Cancellable> Stager::Resolve(
    std::vector<std::string> references, absl::Time deadline,
    std::function<void(absl::StatusOr<ResolvedReferences>)> done) {
  auto flag = std::make_shared<Flag>();
  asio::post(pool_, [this, flag, references = std::move(references), deadline,
                     done = std::move(done)]() mutable {
    ResolvedReferences out;
    const absl::Time store_deadline = Deadline(deadline);
    for (const std::string& reference : references) {
      if (flag->cancelled.load()) return done(absl::CancelledError("cancelled"));
      auto key = spark::ParseStagedReference(reference);
      if (!key.ok()) return done(key.status());
      // Refreshed: the sweep's grace period covers the time until the application names it.
      auto exists = store_->Refresh(*key, store_deadline);
      if (!exists.ok()) return done(exists.status());
      if (!*exists) {
        return done(absl::InvalidArgumentError(absl::StrCat(
            "the staged file ", QuoteBounded(reference),
            " is not in the staging store (never uploaded, or removed since no job named it): "
            "upload it again with UploadArtifacts")));
      }
      auto uri = store_->ClusterUri(*key, clock_.Now());
      if (!uri.ok()) return done(uri.status());
      out.uris[reference] = *std::move(uri);
    }
    for (auto& [key, value] : store_->JobConf()) out.conf[key] = value;
    done(std::move(out));
  });
  return flag;
}

void Stager::Sweep(std::set<std::string> in_use, absl::Time older_than, absl::Time deadline,
                   std::function<void(absl::StatusOr<int64_t>)> done) {
  asio::post(pool_,
             [this, in_use = std::move(in_use), older_than, deadline, done = std::move(done)] {
               auto stored = store_->List(deadline);
               if (!stored.ok()) return done(stored.status());
               int64_t deleted = 0;
               for (const StoredObject& o : *stored) {
                 if (in_use.contains(o.path) || o.modified >= older_than) continue;
                 if (absl::Status s = store_->Delete(o.path, deadline); !s.ok()) return done(s);
                 ++deleted;
               }
               done(deleted);
             });
}

}  // namespace kje::staging
