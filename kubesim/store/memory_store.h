#pragma once

// The in-memory Store: the Kubernetes API server's object semantics (see store.h).
//
// Layout: one Bucket per group/plural holds the objects in an ordered map keyed "ns/name" (or
// "name" when cluster-scoped), so a namespace is a contiguous key range and paging resumes from
// the last key. Stored objects are immutable and shared (shared_ptr<const Stored>) between the
// map, the watch history and watch queues, so a write costs one object copy. One global counter
// gives resourceVersions, as etcd's revision does. Each bucket keeps a bounded history of events
// carrying the previous state of the object, which serves three things: watches from a
// resourceVersion, selector transitions in watches (an object leaving a selector is DELETED for
// that watch), and consistent paged lists at an older snapshot (the snapshot is the current map
// with the history after the snapshot undone).
//
// Where kubesim knowingly differs from a real cluster (none of it visible to a client that
// follows the API conventions):
// - Garbage collection is synchronous: dependents are gone (or stripped of the reference, for
//   Orphan, instead of through the "orphan" finalizer) when the owner's DELETE returns.
//   Foreground deletion does use the foregroundDeletion finalizer, held while dependents with
//   blockOwnerDeletion remain.
// - Pods have no kubelet: a deleted pod goes at once, without a grace period.
// - A deleted namespace is Terminating while its content goes; it has no spec.finalizers.
// - A list or watch at a resourceVersion ahead of the store fails at once (504, "Too large
//   resource version") instead of waiting for it; resourceVersion=0 lists still honour limit.
// - A watcher whose queue overflows gets an ERROR event (410 Expired) and ends.
// - No managedFields, no server-side apply; strategic merge patch as described in patch.h
//   (and 415 for custom resources, as upstream).

#include <atomic>
#include <boost/json.hpp>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kubesim/store/object_util.h"
#include "kubesim/store/selector.h"
#include "kubesim/store/store.h"

namespace kubesim::store_internal {

namespace json = boost::json;

// Events kept per resource type for watches and snapshot lists. Older versions answer 410.
inline constexpr size_t kHistoryPerType = 50000;
// Events a watcher may have queued (beyond its initial ADDED events) before it is cut off with
// a 410 ERROR event, so a stuck watcher never holds writers back or grows without bound.
inline constexpr size_t kWatchQueueLimit = 20000;
// Bytes of log kept per container; older whole lines are dropped, as kubelet rotates.
inline constexpr size_t kLogLimitBytes = 8 << 20;
inline constexpr size_t kAnnotationsLimitBytes = 256 * 1024;
// etcd's default --max-request-bytes (1.5 MiB).
inline constexpr size_t kEtcdRequestLimitBytes = 1572864;
inline constexpr std::string_view kForegroundFinalizer = "foregroundDeletion";

// Objects handed out are parsed into a monotonic arena per call (one per Get, List page or
// watch Drain): thousands of small nodes are then allocated and freed at once, where the
// general-purpose allocator spends most of its time otherwise. Such an object is used by one
// thread at a time, as any value is.
json::storage_ptr Arena();

// An object as stored: serialized, which is about a quarter of the memory of the parsed form
// (100k applications with full statuses fit in a few hundred MB), plus its metadata parsed, for
// selectors, garbage collection and finalizers, which must not parse the whole object.
struct Stored {
  std::string text;    // the whole object
  json::object shell;  // {"metadata": <its metadata>}
  uint64_t rv = 0;

  // Parses the object; with `sp`, into that memory resource.
  json::object Object(json::storage_ptr sp = {}) const {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec, sp);
    return ec || !v.is_object() ? json::object(sp) : std::move(v.get_object());
  }
};
using ObjPtr = std::shared_ptr<const Stored>;

ObjPtr MakeStored(json::object obj, uint64_t rv);

enum class EventType { kAdded, kModified, kDeleted };

struct HistoryEvent {
  uint64_t rv;
  EventType type;
  std::string key;
  ObjPtr obj;   // the new state; for kDeleted the final state
  ObjPtr prev;  // the state before; null for kAdded
};

// ---- watches -------------------------------------------------------------------------------

struct QueuedEvent {
  const char* type;
  ObjPtr obj;           // null for ERROR
  json::object status;  // the Status of an ERROR event
  uint64_t floor;       // a bookmark may claim this version while the event is still queued
};

class WatcherImpl : public WatchHandle {
 public:
  WatcherImpl(std::string ns, LabelSelector labels, FieldSelector fields, std::string api_version,
              std::string kind, std::function<void()> notify,
              std::shared_ptr<std::atomic<uint64_t>> published_rv)
      : ns_(std::move(ns)),
        labels_(std::move(labels)),
        fields_(std::move(fields)),
        api_version_(std::move(api_version)),
        kind_(std::move(kind)),
        notify_(std::move(notify)),
        published_rv_(std::move(published_rv)) {}

  std::vector<WatchEvent> Drain() override;
  std::string BookmarkResourceVersion() const override;
  void Stop() override;
  bool Stopped() const;
  bool Matches(const Stored& s) const;

  // Translates a store event into what this watcher sees (selector transitions included).
  // Returns true when the watcher wants a notification.
  bool Offer(const HistoryEvent& e);
  bool Push(QueuedEvent e);
  // Queues a 410 ERROR event after what is queued and stops; false when already stopped.
  bool Expire();
  void SetInitialCount(size_t n) { max_queue_ = kWatchQueueLimit + n; }
  const std::function<void()>& notify() const { return notify_; }

 private:
  const std::string ns_;
  const LabelSelector labels_;
  const FieldSelector fields_;
  const std::string api_version_;
  const std::string kind_;
  const std::function<void()> notify_;
  const std::shared_ptr<std::atomic<uint64_t>> published_rv_;
  mutable std::mutex mu_;
  std::deque<QueuedEvent> queue_;
  size_t max_queue_ = kWatchQueueLimit;
  bool stopped_ = false;
};

// One container's log. Shared by the store and its followers; offsets are absolute (bytes ever
// written), so followers survive the trimming of old lines.
struct LogBuffer {
  mutable std::mutex mu;
  std::string data;
  uint64_t dropped = 0;  // bytes trimmed from the front
  // Where each line starts (absolute offset) and when its first byte was written (ms): the
  // kubelet stamps every line with its own time, which `timestamps` and `since*` read.
  std::deque<std::pair<uint64_t, int64_t>> line_times;
  bool finished = false;  // container terminated or pod gone
  std::vector<std::pair<uint64_t, std::function<void()>>> followers;  // id, notify
};

// ---- the store -----------------------------------------------------------------------------

struct Bucket {
  std::string group;
  std::string plural;
  bool namespaced = true;
  std::map<std::string, ObjPtr, std::less<>> objects;
  std::deque<HistoryEvent> history;
  uint64_t compacted_rv = 0;  // events at or below this are gone
  std::vector<std::weak_ptr<WatcherImpl>> watchers;
  std::unordered_map<std::string, int64_t> ns_counts;  // objects per namespace
  // Of a type with a TTL: when each object expires (ms), and the same ordered by time.
  int64_t ttl_ms = 0;
  std::unordered_map<std::string, int64_t> expires_at;
  std::set<std::pair<int64_t, std::string>> expiries;
};

struct Loc {
  Bucket* bucket;
  std::string key;
  bool operator<(const Loc& o) const {
    return bucket != o.bucket ? bucket < o.bucket : key < o.key;
  }
};

const std::set<std::string, std::less<>>& KnownMetadataFields();

class MemoryStore : public Store {
 public:
  explicit MemoryStore(std::function<int64_t()> now_ms);

  // ---- types ----

  void RegisterType(const ResourceType& type) override;
  const ResourceType* FindType(std::string_view group, std::string_view version,
                               std::string_view plural) const override;
  std::vector<ResourceType> Types() const override;

  // ---- verbs ----

  Result<json::object> Create(const ResourceType& type_in, std::string_view ns_in, json::object obj,
                              const WriteOptions& options) override;
  Result<json::object> Get(const ResourceType& type_in, std::string_view ns,
                           std::string_view name) const override;
  Result<json::object> List(const ResourceType& type_in, std::string_view ns_in,
                            const ListOptions& options) const override;
  Result<std::string> ListText(const ResourceType& type_in, std::string_view ns_in,
                               const ListOptions& options) const override;
  Result<json::object> Update(const ResourceType& type_in, std::string_view ns,
                              std::string_view name, json::object obj, bool status,
                              const WriteOptions& options) override;
  Result<json::object> Patch(const ResourceType& type_in, std::string_view ns,
                             std::string_view name, PatchType patch_type, std::string_view body,
                             bool status, const WriteOptions& options) override;
  Result<json::object> Delete(const ResourceType& type_in, std::string_view ns,
                              std::string_view name, const DeleteOptions& options) override;
  Result<json::object> DeleteCollection(const ResourceType& type_in, std::string_view ns,
                                        const ListOptions& list,
                                        const DeleteOptions& options) override;
  Result<std::shared_ptr<WatchHandle>> Watch(const ResourceType& type_in, std::string_view ns_in,
                                             const ListOptions& options,
                                             std::function<void()> notify) override;

  // ---- logs ----

  void AppendLog(std::string_view ns, std::string_view pod, std::string_view container,
                 std::string_view text) override;
  Result<std::string> ReadLog(std::string_view ns, std::string_view pod,
                              const LogOptions& options) const override;
  Result<std::shared_ptr<LogFollower>> FollowLog(std::string_view ns, std::string_view pod,
                                                 const LogOptions& options,
                                                 std::function<void()> notify) override;
  std::string CurrentResourceVersion() const override;
  void Compact() override;
  size_t ExpireWatches() override;
  size_t ExpireTtl() override;

 private:
  // A unique lock that runs the queued notifications after unlocking, so watch and log
  // callbacks never run under the store lock.
  class Locked {
   public:
    explicit Locked(MemoryStore* s) : s_(s), lock_(s->mu_) {}
    ~Locked() {
      std::vector<std::function<void()>> fns;
      fns.swap(s_->notifications_);
      s_->published_rv_->store(s_->rv_, std::memory_order_release);
      lock_.unlock();
      for (auto& fn : fns) fn();
    }

   private:
    MemoryStore* s_;
    std::unique_lock<std::shared_mutex> lock_;
  };
  static std::string TypeKey(std::string_view g, std::string_view v, std::string_view p);
  static ApiError NoSuchType();
  static bool IsCustom(const ResourceType& t) { return !t.group.empty(); }

  static std::string Key(const ResourceType& t, std::string_view ns, std::string_view name);
  const ResourceType* Lookup(const ResourceType& t) const;
  Bucket& BucketOf(const ResourceType& t) const { return *buckets_.at(t.group + "/" + t.plural); }

  static json::object Output(const ResourceType& t, json::object o);

  // What a LIST returns, before it is rendered: the objects in order and the list's metadata.
  // Called with mu_ held; the pointers are valid while it is.
  struct Selection {
    const ResourceType* type = nullptr;
    std::vector<const Stored*> items;
    json::object meta;
  };
  Result<Selection> Select(const ResourceType& type_in, std::string_view ns_in,
                           const ListOptions& options) const;

  // Items of core lists carry no apiVersion/kind, as the API server's typed lists.
  static json::value OutputItem(const ResourceType& t, json::object obj);

  struct ContinueToken {
    uint64_t rv = 0;
    std::string start;  // the last key returned
    std::optional<int64_t> remaining;
  };
  static std::string EncodeContinue(const ContinueToken& t);
  static std::optional<ContinueToken> DecodeContinue(std::string_view text);
  std::string NewUid();
  std::string RandomSuffix();
  static bool IsValidName(const ResourceType& t, std::string_view name);
  static std::string NameRule(const ResourceType& t);

  // apiVersion/kind as the endpoint expects (filled when absent), metadata an object of the
  // right shape: what the API server's decoder enforces before anything else.
  static std::optional<ApiError> CheckEnvelope(const ResourceType& t, json::object& obj);
  static const char* KindName(const json::value& v);
  static std::optional<ApiError> CheckUrlIdentity(const ResourceType& t, std::string_view ns,
                                                  std::string_view name, json::object& obj);
  static void PruneMetadata(json::object& meta, bool strict, std::vector<std::string>* unknown);
  static ApiError StrictError(const std::vector<std::string>& unknown);
  static void CheckMetadata(const json::object& meta, std::vector<FieldCause>* causes);

  // NamespaceLifecycle admission: the namespace must exist and not be terminating.
  std::optional<ApiError> CheckNamespaceForCreate(const ResourceType& t, const std::string& ns,
                                                  std::string_view name) const;
  static std::string PodQosClass(const json::object& pod);

  // What PrepareForCreate does to status: custom resources with a status subresource start
  // without one; pods start Pending; namespaces Active.
  static void InitStatus(const ResourceType& t, json::object& obj);
  // etcd refuses a write over its request limit; the API server passes etcd's error on as an
  // error it has no reason for (500). Dry runs never reach etcd, so they are not refused.
  static std::optional<ApiError> CheckStoredSize(const json::object& obj);
  static bool SameIgnoring(const json::object& a, const json::object& b,
                           std::initializer_list<std::string_view> skip);

  // The common tail of Update and Patch: `incoming` is the client's full object.
  Result<json::object> ApplyWrite(const ResourceType& t, Bucket& b, const std::string& key,
                                  ObjPtr existing, json::object incoming, bool status,
                                  const WriteOptions& options);

  // ---- writes (under the unique lock) ----

  void Record(Bucket& b, HistoryEvent e);
  static std::vector<std::string> OwnerUids(const json::object& obj);
  void Unindex(Bucket& b, const std::string& key, const json::object& obj);
  void Index(Bucket& b, const std::string& key, const json::object& obj);
  ObjPtr Put(Bucket& b, const std::string& key, json::object obj, ObjPtr prev);
  // A TTL bucket's lease of `key`: renewed by each write, dropped when the object goes.
  void RenewLease(Bucket& b, const std::string& key);
  static void DropLease(Bucket& b, const std::string& key);

  // Removes the object for good: DELETED event, logs, garbage collection of dependents,
  // completion of foreground deletions and namespace terminations waiting for it.
  ObjPtr Remove(Bucket& b, const std::string& key, std::optional<json::object> final_state);

  // Is an owner "solid": present and not waiting for its dependents to go?
  bool IsSolidOwner(const std::string& uid) const;
  void CollectDependents(const std::string& owner_uid, const std::string& policy);
  static void StripOwnerRef(json::object& obj, const std::string& owner_uid);
  const ResourceType* TypeOfBucket(const Bucket& b) const;

  // The deletion itself, after the checks. Returns the object as it is afterwards.
  ObjPtr DeleteInternal(const ResourceType& t, Bucket& b, const std::string& key,
                        const std::string& policy);

  // Removes the foregroundDeletion finalizer once no dependent blocks the owner.
  void MaybeFinishForeground(const std::string& owner_uid);

  // A terminating namespace goes once it is empty and has no finalizers of its own.
  void MaybeFinishNamespace(const std::string& ns);

  // ---- logs (under the unique lock unless noted) ----

  std::shared_ptr<LogBuffer> BufferFor(const std::string& pod_key, std::string_view container);
  static bool ContainerTerminated(const json::object& pod, const std::string& container);
  void UpdateLogState(const std::string& pod_key, const json::object& pod);
  void DropLogs(const std::string& pod_key);

  // Checks the pod, the container and the options; returns the container name.
  Result<std::string> ResolveLogTarget(std::string_view ns, std::string_view pod,
                                       const LogOptions& options) const;
  // The log as a read with `options` returns it at `now_ms` (tail, since, timestamps, limit).
  static std::string CutLog(const LogBuffer& buffer, const LogOptions& options, int64_t now_ms);

  // ---- state ----

  std::function<int64_t()> now_ms_;
  mutable std::shared_mutex mu_;
  std::mt19937_64 rng_;
  uint64_t rv_ = 0;
  std::shared_ptr<std::atomic<uint64_t>> published_rv_;
  std::map<std::string, ResourceType, std::less<>> types_;
  std::map<std::string, std::unique_ptr<Bucket>, std::less<>> buckets_;
  std::unordered_map<std::string, Loc> uids_;
  std::unordered_map<std::string, std::set<Loc>> dependents_;
  Bucket* pods_ = nullptr;
  std::map<std::string, std::map<std::string, std::shared_ptr<LogBuffer>>> logs_;
  uint64_t next_follower_id_ = 0;
  std::vector<std::function<void()>> notifications_;  // run by ~Locked
};

}  // namespace kubesim::store_internal
