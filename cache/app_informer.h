#pragma once

// An informer for the SparkApplications of one namespace: a paged LIST, then a WATCH from the
// list's resourceVersion, kept up to date for as long as it runs. It holds a compact projection of
// each application, never its JSON, and answers reads from memory: a read never touches the
// network and never waits for the watch.
//
// One coroutine per informer runs the LIST and WATCH loop on a strand of its own. Readers never
// wait for it: they look up an immutable projection under a short lock that guards nothing but
// the map, and no code outside the informer ever runs under that lock.
//
// Failure handling: a watch that ends (deadline, server close) is re-opened from the last
// resourceVersion seen (bookmarks included); 410 Gone relists; a LIST page that timed out waiting
// for its answer is asked again (not counted as a failure); other errors back off
// exponentially and try again. While it relists, reads keep getting the previous snapshot.
//
// Our own writes (a create, the cancel annotation) are pushed in with ObserveWrite, so the next
// read on this replica sees them even before the watch delivers them; an older version arriving
// later never replaces a newer one.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "base/clock.h"
#include "cache/mailbox.h"
#include "k8s/client.h"
#include "spark/app_projection.h"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace kje::cache {

struct InformerOptions {
  // The collection to follow: group/version/plural and namespace_ (no name).
  k8s::ResourceRef collection;
  std::string label_selector;
  int64_t page_size = 500;
  // Deadline of each LIST page request.
  absl::Duration list_timeout = absl::Seconds(60);
  // Deadline of one WATCH call; it is then re-opened from the last resourceVersion. Keeps a
  // silently dead connection from going unnoticed forever.
  absl::Duration watch_period = absl::Minutes(5);
  absl::Duration min_backoff = absl::Milliseconds(200);
  absl::Duration max_backoff = absl::Seconds(30);
  // Reads one object of the collection (the operator backend's projection); required, there is
  // no default operator. Runs on the client's io thread, on the object as parsed from the page or
  // the watch line.
  std::function<absl::StatusOr<spark::AppProjection>(const rapidjson::Value&)> project;
};

struct InformerStats {
  int64_t objects = 0;
  int64_t relists = 0;         // LISTs after the first
  int64_t watch_restarts = 0;  // watches opened after the first
  int64_t errors = 0;
  bool synced = false;
  // When the informer last knew it was up to date (a list completed or a watch event or bookmark
  // arrived); absl::InfinitePast() before the first sync.
  absl::Time last_sync = absl::InfinitePast();
  std::string resource_version;
};

using AppPtr = std::shared_ptr<const spark::AppProjection>;

// A change of the informer's snapshot: `app` is the new version, or for kDeleted the last one.
struct AppEvent {
  enum class Type { kUpserted, kDeleted };
  Type type = Type::kUpserted;
  AppPtr app;
};

// One subscriber's end: the informer fills `mailbox` with the changes of the named applications
// (all of them when `names` is empty) without blocking and without holding a lock; the
// subscriber drains it. A full mailbox closes as overflowed: the subscriber fell too far behind.
class Subscription {
 public:
  // Several subscriptions (one per namespace of a multi-namespace watch) may share a mailbox.
  Subscription(std::vector<std::string> names, std::shared_ptr<Mailbox<AppEvent>> mailbox);
  Mailbox<AppEvent>& mailbox() { return *mailbox_; }
  // The applications followed; empty: all of them (the informer's SubscriberIndex routes by it).
  const std::vector<std::string>& names() const { return names_; }

 private:
  const std::vector<std::string> names_;
  const std::shared_ptr<Mailbox<AppEvent>> mailbox_;
};

class AppInformer {
 public:
  virtual ~AppInformer() = default;

  // Starts the list/watch loop on a strand of the client's io_context. Idempotent.
  virtual void Start() = 0;
  // Cancels the requests in flight and stops; reads keep answering from the last snapshot, and
  // every subscription is closed.
  virtual void Stop() = 0;

  // Whether a LIST has completed at least once: before that, a miss says nothing.
  virtual bool synced() const = 0;
  // The application named `name`, if the informer knows it: an immutable version shared with the
  // snapshot, not a copy. A miss doesn't mean the application doesn't exist (it may be younger
  // than the snapshot): the caller GETs it.
  virtual AppPtr Find(std::string_view name) const = 0;

  // A write of ours succeeded and the API server returned `app`: reads see it from now on, unless
  // the informer already holds a newer version.
  virtual void ObserveWrite(const spark::AppProjection& app) = 0;
  // An application of ours is gone (404 on GET, or a delete that removed it at once).
  virtual void ObserveGone(std::string_view name) = 0;

  virtual InformerStats stats() const = 0;

  // Every change of the snapshot from now on (watch events, our own writes, the differences a
  // relist finds) of the applications in `names` (all when empty) goes to `mailbox`. Changes of one
  // application arrive in resourceVersion order except across a write of ours racing its own
  // watch event: subscribers drop versions older than one they have seen.
  virtual std::shared_ptr<Subscription> Subscribe(std::vector<std::string> names,
                                                  std::shared_ptr<Mailbox<AppEvent>> mailbox) = 0;
  // Closes the subscription and forgets it; never waits.
  virtual void Unsubscribe(const std::shared_ptr<Subscription>& subscription) = 0;
  virtual size_t subscribers() const = 0;

  // Up to `limit` applications whose names sort after `after` and that `filter` accepts, in name
  // order: a page of a listing served from memory.
  virtual std::vector<AppPtr> ListAfter(
      std::string_view after, size_t limit,
      const std::function<bool(const spark::AppProjection&)>& filter) const = 0;
};

// `io` runs the backoff timers; it must be the client's io_context and outlive the informer's
// activity (Stop() before destroying it).
std::shared_ptr<AppInformer> NewAppInformer(boost::asio::io_context& io,
                                            std::shared_ptr<k8s::Client> client,
                                            InformerOptions options, const Clock& clock);

// Compares two resourceVersions. Kubernetes calls them opaque, but every API server hands out
// etcd revisions, which are integers that only grow; when both parse as integers the newer one is
// the larger. Returns nullopt when they can't be compared.
std::optional<int> CompareResourceVersions(std::string_view a, std::string_view b);

}  // namespace kje::cache
