#pragma once

// kubesim's object store: the semantics of the Kubernetes API server over in-memory objects,
// without any HTTP. The HTTP layer (kubesim/server/) parses requests, calls this, and renders the
// results; the operator controller (kubesim/controller/) reads and writes through it like any
// other client. Thread-safe: every method may be called from any thread.
//
// kubesim shares no code with the service it tests (server/, spark/, cache/, k8s/, base/).

#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kubesim {

// A Kubernetes API error; the HTTP layer renders it as a `Status` object
// {kind: Status, apiVersion: v1, status: Failure, message, reason, details, code}.
struct ApiError {
  int code = 500;      // HTTP status code
  std::string reason;  // NotFound, AlreadyExists, Conflict, Invalid, BadRequest, Gone, Expired,
                       // Forbidden, Unauthorized, MethodNotAllowed, TooManyRequests,
                       // InternalError, UnsupportedMediaType, RequestEntityTooLarge
  std::string message;
  // {name, group, kind, causes: [{reason, message, field}], retryAfterSeconds} as applicable.
  boost::json::object details;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(ApiError error) : v_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  const ApiError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ApiError> v_;
};

// One validation failure, as in Status.details.causes.
struct FieldCause {
  std::string reason;  // FieldValueRequired, FieldValueInvalid, FieldValueNotSupported,
                       // FieldValueTypeInvalid(-> "FieldValueInvalid" on the wire is fine), ...
  std::string message;
  std::string field;  // e.g. "spec.runtimeVersions.sparkVersion"
};

// Validates (and prunes unknown fields of) an object of a type with a schema. `strict` reports
// unknown fields instead of pruning them. Returns the causes; empty means valid.
using Validator = std::function<std::vector<FieldCause>(boost::json::object& obj, bool strict,
                                                        std::vector<std::string>* unknown_fields)>;

// A kind of resource the store serves.
struct ResourceType {
  std::string group;    // "" for the core group
  std::string version;  // e.g. "v1"
  std::string plural;   // e.g. "pods", "sparkapplications"
  std::string singular;
  std::string kind;       // e.g. "Pod"
  std::string list_kind;  // e.g. "PodList"
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool namespaced = true;
  bool status_subresource = false;  // writes to the main resource ignore .status when true
  Validator validator;              // empty: no schema validation
  // > 0: an object goes this many ms (of the store's clock) after its last write, with a DELETED
  // watch event, whatever became of the object it is about: the API server stores Events with an
  // etcd lease of --event-ttl renewed by each write.
  int64_t ttl_ms = 0;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

struct ListOptions {
  std::string label_selector;  // =, ==, !=, in, notin, exists, !exists
  std::string field_selector;  // metadata.name, metadata.namespace (=, ==, !=)
  int64_t limit = 0;           // 0: no paging
  std::string continue_token;
  std::string resource_version;        // "" / "0" / a specific version
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
};

struct WriteOptions {
  bool dry_run = false;
  bool strict_fields = false;  // fieldValidation=Strict
  std::string field_manager;
};

enum class PatchType { kMerge, kJson, kStrategicMerge };

struct DeleteOptions {
  std::string propagation_policy;  // "" (default: Background), Background, Foreground, Orphan
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::optional<int64_t> grace_period_seconds;
  bool dry_run = false;
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  boost::json::object object;
};

// A live watch. Events are queued in the store's thread-safe buffer; `notify` (given to Watch())
// is called, without store locks held, whenever new events may be available.
class WatchHandle {
 public:
  virtual ~WatchHandle() = default;
  // Takes the queued events (possibly none).
  virtual std::vector<WatchEvent> Drain() = 0;
  // The resourceVersion a BOOKMARK sent now would carry.
  virtual std::string BookmarkResourceVersion() const = 0;
  // Stops delivery; further Drain() calls return nothing.
  virtual void Stop() = 0;
};

struct LogOptions {
  std::string container;  // required when the pod has more than one container
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> limit_bytes;
  bool previous = false;  // only false is supported (400 otherwise)
  // Each line prefixed with the time it was written, RFC 3339 with nanoseconds (trailing zeros
  // dropped, as Go's RFC3339Nano) and a space.
  bool timestamps = false;
  // Only lines written at or after this time (ms), or in the last since_seconds: at most one.
  std::optional<int64_t> since_time_ms;
  std::optional<int64_t> since_seconds;
};

// Pod log storage and follow. Logs belong to (namespace, pod, container) and disappear with the
// pod.
class LogFollower {
 public:
  virtual ~LogFollower() = default;
  virtual std::string Drain() = 0;    // new bytes since the last Drain
  virtual bool Finished() const = 0;  // the container terminated or the pod is gone
  virtual void Stop() = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // Types. Registering twice replaces. Namespaces ("namespaces", core v1) are always registered.
  virtual void RegisterType(const ResourceType& type) = 0;
  virtual const ResourceType* FindType(std::string_view group, std::string_view version,
                                       std::string_view plural) const = 0;
  virtual std::vector<ResourceType> Types() const = 0;

  // The CRUD verbs. `ns` is empty for cluster-scoped types and for a list across namespaces.
  // Create: 409 AlreadyExists, 404 when the namespace is missing, 422 Invalid with causes.
  virtual Result<boost::json::object> Create(const ResourceType& type, std::string_view ns,
                                             boost::json::object obj,
                                             const WriteOptions& options) = 0;
  virtual Result<boost::json::object> Get(const ResourceType& type, std::string_view ns,
                                          std::string_view name) const = 0;
  // Returns the whole List object: {apiVersion, kind: <ListKind>, metadata: {resourceVersion,
  // continue?, remainingItemCount?}, items}.
  virtual Result<boost::json::object> List(const ResourceType& type, std::string_view ns,
                                           const ListOptions& options) const = 0;
  // The same List, serialized: the text json::serialize gives of List's object, made without
  // building that object (a LIST of 100k applications is 200 MB of JSON).
  virtual Result<std::string> ListText(const ResourceType& type, std::string_view ns,
                                       const ListOptions& options) const = 0;
  // Replace (PUT). `status` selects the status subresource. 409 Conflict on a stale
  // metadata.resourceVersion (an empty one means unconditional).
  virtual Result<boost::json::object> Update(const ResourceType& type, std::string_view ns,
                                             std::string_view name, boost::json::object obj,
                                             bool status, const WriteOptions& options) = 0;
  virtual Result<boost::json::object> Patch(const ResourceType& type, std::string_view ns,
                                            std::string_view name, PatchType patch_type,
                                            std::string_view body, bool status,
                                            const WriteOptions& options) = 0;
  // Returns the object as it is after the call: with deletionTimestamp when finalizers hold it,
  // or as it was when it is gone (the HTTP layer returns it with 200 either way, as the API does).
  virtual Result<boost::json::object> Delete(const ResourceType& type, std::string_view ns,
                                             std::string_view name,
                                             const DeleteOptions& options) = 0;
  virtual Result<boost::json::object> DeleteCollection(const ResourceType& type,
                                                       std::string_view ns, const ListOptions& list,
                                                       const DeleteOptions& options) = 0;

  // Watch from options.resource_version ("" or "0": send ADDED for every existing object first).
  // 410 Expired (reason "Expired", code 410) when that version has been compacted away.
  virtual Result<std::shared_ptr<WatchHandle>> Watch(const ResourceType& type, std::string_view ns,
                                                     const ListOptions& options,
                                                     std::function<void()> notify) = 0;

  // Pod logs (core v1 pods only).
  virtual void AppendLog(std::string_view ns, std::string_view pod, std::string_view container,
                         std::string_view text) = 0;
  virtual Result<std::string> ReadLog(std::string_view ns, std::string_view pod,
                                      const LogOptions& options) const = 0;
  virtual Result<std::shared_ptr<LogFollower>> FollowLog(std::string_view ns, std::string_view pod,
                                                         const LogOptions& options,
                                                         std::function<void()> notify) = 0;

  // The current (newest) resourceVersion of the whole store.
  virtual std::string CurrentResourceVersion() const = 0;

  // Forget watch history older than the current version, so a watch from an older version gets
  // 410 (for tests of relist behaviour).
  virtual void Compact() = 0;

  // Ends every open watch: what it has queued, then a 410 ERROR event, as the API server ends a
  // watcher it has cut off; the client must list again (for tests and benchmarks of relists,
  // whose watches otherwise stay open for as long as they asked). Returns how many ended.
  virtual size_t ExpireWatches() = 0;

  // Deletes the objects whose type's ttl_ms has passed since their last write, as etcd revokes
  // an expired lease. Returns how many went.
  virtual size_t ExpireTtl() = 0;
};

// The in-memory implementation. `now_ms` gives wall-clock milliseconds since the epoch (for
// creationTimestamp, deletionTimestamp); tests inject their own.
std::unique_ptr<Store> NewMemoryStore(std::function<int64_t()> now_ms);

// A metadata timestamp as the API server writes it: RFC 3339, UTC, whole seconds.
std::string Rfc3339Seconds(int64_t ms);

}  // namespace kubesim
