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

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "kubesim/store/core_types.h"
#include "kubesim/store/patch.h"
#include "kubesim/store/selector.h"
#include "kubesim/store/store.h"

namespace kubesim {
namespace {

namespace json = boost::json;

// Events kept per resource type for watches and snapshot lists. Older versions answer 410.
constexpr size_t kHistoryPerType = 50000;
// Events a watcher may have queued (beyond its initial ADDED events) before it is cut off with
// a 410 ERROR event, so a stuck watcher never holds writers back or grows without bound.
constexpr size_t kWatchQueueLimit = 20000;
// Bytes of log kept per container; older whole lines are dropped, as kubelet rotates.
constexpr size_t kLogLimitBytes = 8 << 20;
constexpr size_t kAnnotationsLimitBytes = 256 * 1024;
constexpr std::string_view kForegroundFinalizer = "foregroundDeletion";

// Objects handed out are parsed into a monotonic arena per call (one per Get, List page or
// watch Drain): thousands of small nodes are then allocated and freed at once, where the
// general-purpose allocator spends most of its time otherwise. Such an object is used by one
// thread at a time, as any value is.
json::storage_ptr Arena() { return json::make_shared_resource<json::monotonic_resource>(); }

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

ObjPtr MakeStored(json::object obj, uint64_t rv) {
  auto s = std::make_shared<Stored>();
  s->rv = rv;
  s->text = json::serialize(obj);
  auto m = obj.find("metadata");
  s->shell["metadata"] = m != obj.end() ? std::move(m->value()) : json::object();
  return s;
}

enum class EventType { kAdded, kModified, kDeleted };

struct HistoryEvent {
  uint64_t rv;
  EventType type;
  std::string key;
  ObjPtr obj;   // the new state; for kDeleted the final state
  ObjPtr prev;  // the state before; null for kAdded
};

// ---- small helpers ------------------------------------------------------------------------

std::string QualifiedResource(const ResourceType& t) {
  return t.group.empty() ? t.plural : t.plural + "." + t.group;
}

std::string QualifiedKind(const ResourceType& t) {
  return t.group.empty() ? t.kind : t.kind + "." + t.group;
}

ApiError Error(int code, std::string reason, std::string message) {
  return ApiError{code, std::move(reason), std::move(message), {}};
}

ApiError BadRequest(std::string message) { return Error(400, "BadRequest", std::move(message)); }

json::object Details(const ResourceType& t, std::string_view name, const std::string& kind) {
  json::object d;
  d["name"] = name;
  if (!t.group.empty()) d["group"] = t.group;
  d["kind"] = kind;
  return d;
}

ApiError NotFound(const ResourceType& t, std::string_view name) {
  ApiError e =
      Error(404, "NotFound", QualifiedResource(t) + " \"" + std::string(name) + "\" not found");
  e.details = Details(t, name, t.plural);
  return e;
}

ApiError AlreadyExists(const ResourceType& t, std::string_view name) {
  ApiError e = Error(409, "AlreadyExists",
                     QualifiedResource(t) + " \"" + std::string(name) + "\" already exists");
  e.details = Details(t, name, t.plural);
  return e;
}

ApiError Conflict(const ResourceType& t, std::string_view name, const std::string& why) {
  ApiError e = Error(409, "Conflict",
                     "Operation cannot be fulfilled on " + QualifiedResource(t) + " \"" +
                         std::string(name) + "\": " + why);
  e.details = Details(t, name, t.plural);
  return e;
}

ApiError Invalid(const ResourceType& t, std::string_view name,
                 const std::vector<FieldCause>& causes) {
  std::string joined;
  json::array causes_json;
  for (const FieldCause& c : causes) {
    if (!joined.empty()) joined += ", ";
    joined += c.field.empty() ? c.message : c.field + ": " + c.message;
    causes_json.push_back(
        json::object{{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  if (causes.size() > 1) joined = "[" + joined + "]";
  ApiError e = Error(422, "Invalid",
                     QualifiedKind(t) + " \"" + std::string(name) + "\" is invalid: " + joined);
  e.details = Details(t, name, t.kind);
  e.details["causes"] = std::move(causes_json);
  return e;
}

ApiError Expired(std::string message) { return Error(410, "Expired", std::move(message)); }

json::object StatusObject(const ApiError& e) {
  json::object s{{"kind", "Status"},    {"apiVersion", "v1"},   {"metadata", json::object()},
                 {"status", "Failure"}, {"message", e.message}, {"reason", e.reason},
                 {"code", e.code}};
  if (!e.details.empty()) s["details"] = e.details;
  return s;
}

const json::object* GetObject(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_object() ? &it->value().get_object() : nullptr;
}

const json::object& Meta(const json::object& o) {
  static const json::object kEmpty;
  const json::object* m = GetObject(o, "metadata");
  return m != nullptr ? *m : kEmpty;
}

json::object& MutableMeta(json::object& o) {
  json::value& m = o["metadata"];
  if (!m.is_object()) m = json::object();
  return m.get_object();
}

std::string GetString(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_string() ? std::string(it->value().get_string()) : "";
}

bool Has(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && !it->value().is_null();
}

std::vector<std::string> StringList(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_array()) return out;
  for (const json::value& v : it->value().get_array()) {
    if (v.is_string()) out.emplace_back(v.get_string());
  }
  return out;
}

bool IsDeleting(const json::object& obj) { return Has(Meta(obj), "deletionTimestamp"); }

bool IsDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; };
  return std::all_of(s.begin(), s.end(), ok) && s.front() != '-' && s.back() != '-';
}

bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    if (!IsDns1123Label(s.substr(start, dot == std::string_view::npos ? s.npos : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::optional<uint64_t> ParseRv(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kB64[(acc >> bits) & 63]);
    }
  }
  if (bits > 0) out.push_back(kB64[(acc << (6 - bits)) & 63]);
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* p = std::strchr(kB64, c);
    if (c == '\0' || p == nullptr) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

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

  std::vector<WatchEvent> Drain() override {
    std::deque<QueuedEvent> taken;
    {
      std::lock_guard<std::mutex> lock(mu_);
      taken.swap(queue_);
    }
    std::vector<WatchEvent> out;
    out.reserve(taken.size());
    json::storage_ptr sp = taken.empty() ? json::storage_ptr() : Arena();
    for (QueuedEvent& e : taken) {
      if (e.obj == nullptr) {
        out.push_back(WatchEvent{e.type, std::move(e.status)});
        continue;
      }
      json::object o = e.obj->Object(sp);
      o["apiVersion"] = api_version_;
      o["kind"] = kind_;
      out.push_back(WatchEvent{e.type, std::move(o)});
    }
    return out;
  }

  std::string BookmarkResourceVersion() const override {
    // Read the published version first: every event at or below it was queued before it was
    // published, so an empty queue means all of them were drained.
    uint64_t published = published_rv_->load(std::memory_order_acquire);
    std::lock_guard<std::mutex> lock(mu_);
    if (!queue_.empty()) return std::to_string(queue_.front().floor);
    return std::to_string(published);
  }

  void Stop() override {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    queue_.clear();
  }

  bool Stopped() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stopped_;
  }

  bool Matches(const Stored& s) const {
    if (!ns_.empty() && GetString(Meta(s.shell), "namespace") != ns_) return false;
    if (!labels_.Matches(GetObject(Meta(s.shell), "labels"))) return false;
    return fields_.Empty() || fields_.Matches(fields_.OnlyMetadata() ? s.shell : s.Object());
  }

  // Translates a store event into what this watcher sees (selector transitions included).
  // Returns true when the watcher wants a notification.
  bool Offer(const HistoryEvent& e) {
    bool now = e.type != EventType::kDeleted && Matches(*e.obj);
    bool before = e.prev != nullptr && Matches(*e.prev);
    const char* type = nullptr;
    if (e.type == EventType::kDeleted) {
      if (before) type = "DELETED";
    } else if (now && before) {
      type = "MODIFIED";
    } else if (now) {
      type = "ADDED";
    } else if (before) {
      type = "DELETED";
    }
    if (type == nullptr) return false;
    return Push(QueuedEvent{type, e.obj, {}, e.rv - 1});
  }

  bool Push(QueuedEvent e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return false;
    if (queue_.size() >= max_queue_) {
      queue_.clear();
      ApiError gone = Expired("The resourceVersion for the provided watch is too old.");
      queue_.push_back(QueuedEvent{"ERROR", nullptr, StatusObject(gone), 0});
      stopped_ = true;  // no more events; the ERROR is still delivered by Drain
      return true;
    }
    queue_.push_back(std::move(e));
    return true;
  }

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

// ---- logs ----------------------------------------------------------------------------------

// One container's log. Shared by the store and its followers; offsets are absolute (bytes ever
// written), so followers survive the trimming of old lines.
struct LogBuffer {
  mutable std::mutex mu;
  std::string data;
  uint64_t dropped = 0;   // bytes trimmed from the front
  bool finished = false;  // container terminated or pod gone
  std::vector<std::pair<uint64_t, std::function<void()>>> followers;  // id, notify
};

class FollowerImpl : public LogFollower {
 public:
  FollowerImpl(std::shared_ptr<LogBuffer> buffer, uint64_t id, std::string initial, uint64_t offset,
               std::optional<int64_t> limit)
      : buffer_(std::move(buffer)),
        id_(id),
        pending_(std::move(initial)),
        offset_(offset),
        remaining_(limit) {}

  ~FollowerImpl() override { Stop(); }

  std::string Drain() override {
    std::string out;
    {
      std::lock_guard<std::mutex> lock(buffer_->mu);
      if (stopped_) return "";
      out.swap(pending_);
      uint64_t end = buffer_->dropped + buffer_->data.size();
      if (offset_ < buffer_->dropped) offset_ = buffer_->dropped;  // trimmed before we read it
      if (offset_ < end) {
        out.append(buffer_->data, static_cast<size_t>(offset_ - buffer_->dropped),
                   std::string::npos);
        offset_ = end;
      }
    }
    if (remaining_.has_value()) {
      if (static_cast<int64_t>(out.size()) > *remaining_) {
        out.resize(static_cast<size_t>(*remaining_));
      }
      *remaining_ -= static_cast<int64_t>(out.size());
    }
    return out;
  }

  bool Finished() const override {
    std::lock_guard<std::mutex> lock(buffer_->mu);
    if (stopped_) return true;
    if (remaining_.has_value() && *remaining_ <= 0) return true;
    return buffer_->finished && pending_.empty() &&
           offset_ >= buffer_->dropped + buffer_->data.size();
  }

  void Stop() override {
    std::lock_guard<std::mutex> lock(buffer_->mu);
    stopped_ = true;
    auto& f = buffer_->followers;
    f.erase(std::remove_if(f.begin(), f.end(), [&](const auto& p) { return p.first == id_; }),
            f.end());
  }

 private:
  std::shared_ptr<LogBuffer> buffer_;
  const uint64_t id_;
  std::string pending_;  // the initial (tail-applied) content, guarded by buffer_->mu
  uint64_t offset_;      // guarded by buffer_->mu
  std::optional<int64_t> remaining_;
  bool stopped_ = false;  // guarded by buffer_->mu
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
};

struct Loc {
  Bucket* bucket;
  std::string key;
  bool operator<(const Loc& o) const {
    return bucket != o.bucket ? bucket < o.bucket : key < o.key;
  }
};

const std::set<std::string, std::less<>>& KnownMetadataFields() {
  static const std::set<std::string, std::less<>> kFields = {"name",
                                                             "generateName",
                                                             "namespace",
                                                             "selfLink",
                                                             "uid",
                                                             "resourceVersion",
                                                             "generation",
                                                             "creationTimestamp",
                                                             "labels",
                                                             "annotations",
                                                             "ownerReferences",
                                                             "finalizers",
                                                             "managedFields",
                                                             "deletionTimestamp",
                                                             "deletionGracePeriodSeconds"};
  return kFields;
}

class MemoryStore : public Store {
 public:
  explicit MemoryStore(std::function<int64_t()> now_ms)
      : now_ms_(std::move(now_ms)),
        rng_(std::random_device{}()),
        published_rv_(std::make_shared<std::atomic<uint64_t>>(0)) {
    RegisterType(NamespaceType());
    // The namespaces every cluster has.
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      json::object obj{{"metadata", json::object{{"name", ns}}}};
      Create(NamespaceType(), "", std::move(obj), WriteOptions{});
    }
  }

  // ---- types ----

  void RegisterType(const ResourceType& type) override {
    Locked lock(this);
    types_[TypeKey(type.group, type.version, type.plural)] = type;
    std::string bkey = type.group + "/" + type.plural;
    auto& b = buckets_[bkey];
    if (b == nullptr) {
      b = std::make_unique<Bucket>();
      b->group = type.group;
      b->plural = type.plural;
    }
    b->namespaced = type.namespaced;
    if (type.group.empty() && type.plural == "pods") pods_ = b.get();
  }

  const ResourceType* FindType(std::string_view group, std::string_view version,
                               std::string_view plural) const override {
    std::shared_lock lock(mu_);
    auto it = types_.find(TypeKey(group, version, plural));
    // Registered types are never erased (only replaced in place), so the pointer stays valid.
    return it == types_.end() ? nullptr : &it->second;
  }

  std::vector<ResourceType> Types() const override {
    std::shared_lock lock(mu_);
    std::vector<ResourceType> out;
    for (const auto& [k, t] : types_) out.push_back(t);
    return out;
  }

  // ---- verbs ----

  Result<json::object> Create(const ResourceType& type_in, std::string_view ns_in, json::object obj,
                              const WriteOptions& options) override {
    Locked lock(this);
    const ResourceType* type = Lookup(type_in);
    if (type == nullptr) return NoSuchType();
    Bucket& b = BucketOf(*type);
    std::string ns = type->namespaced ? std::string(ns_in) : "";
    if (auto err = CheckEnvelope(*type, obj); err) return *err;
    json::object& meta = MutableMeta(obj);
    if (type->namespaced) {
      std::string body_ns = GetString(meta, "namespace");
      if (ns.empty()) ns = body_ns;
      if (ns.empty()) return BadRequest("the namespace of the object is required");
      if (!body_ns.empty() && body_ns != ns) {
        return BadRequest(
            "the namespace of the provided object does not match the namespace sent on the "
            "request");
      }
      meta["namespace"] = ns;
    } else {
      meta.erase("namespace");
    }
    if (!GetString(meta, "resourceVersion").empty()) {
      return BadRequest("resourceVersion should not be set on objects to be created");
    }
    std::vector<std::string> unknown;
    PruneMetadata(meta, options.strict_fields, &unknown);
    std::vector<FieldCause> causes;
    if (type->validator) causes = type->validator(obj, options.strict_fields, &unknown);
    if (!unknown.empty()) return StrictError(unknown);

    std::string name = GetString(Meta(obj), "name");
    std::string generate = GetString(Meta(obj), "generateName");
    if (type->namespaced) {
      auto ns_check = CheckNamespaceForCreate(*type, ns, name.empty() ? generate : name);
      if (ns_check) return *ns_check;
    }
    if (name.empty() && !generate.empty()) {
      std::string prefix = generate;
      if (!IsValidName(*type, prefix + "x")) {
        causes.insert(causes.begin(),
                      FieldCause{"FieldValueInvalid",
                                 "Invalid value: \"" + generate + "\": " + NameRule(*type),
                                 "metadata.generateName"});
      } else {
        do {
          name = prefix + RandomSuffix();
        } while (b.objects.count(Key(*type, ns, name)) != 0);
        MutableMeta(obj)["name"] = name;
      }
    }
    if (name.empty() && generate.empty()) {
      causes.insert(causes.begin(), FieldCause{"FieldValueRequired",
                                               "Required value: name or generateName is required",
                                               "metadata.name"});
    } else if (!name.empty() && !IsValidName(*type, name)) {
      causes.insert(
          causes.begin(),
          FieldCause{"FieldValueInvalid", "Invalid value: \"" + name + "\": " + NameRule(*type),
                     "metadata.name"});
    }
    CheckMetadata(Meta(obj), &causes);
    if (!causes.empty()) return Invalid(*type, name, causes);

    std::string key = Key(*type, ns, name);
    if (b.objects.count(key) != 0) return AlreadyExists(*type, name);

    json::object& m = MutableMeta(obj);
    m["uid"] = NewUid();
    m["creationTimestamp"] = Rfc3339Seconds(now_ms_());
    m.erase("deletionTimestamp");
    m.erase("deletionGracePeriodSeconds");
    m.erase("selfLink");
    if (IsCustom(*type)) {
      m["generation"] = 1;
    } else {
      m.erase("generation");
    }
    InitStatus(*type, obj);
    obj["apiVersion"] = type->api_version();
    obj["kind"] = type->kind;
    if (options.dry_run) return obj;
    ObjPtr stored = Put(b, key, std::move(obj), nullptr);
    return stored->Object(Arena());
  }

  Result<json::object> Get(const ResourceType& type_in, std::string_view ns,
                           std::string_view name) const override {
    std::shared_lock lock(mu_);
    const ResourceType* type = Lookup(type_in);
    if (type == nullptr) return NoSuchType();
    const Bucket& b = BucketOf(*type);
    auto it = b.objects.find(Key(*type, ns, name));
    if (it == b.objects.end()) return NotFound(*type, name);
    return Output(*type, it->second->Object(Arena()));
  }

  Result<json::object> List(const ResourceType& type_in, std::string_view ns_in,
                            const ListOptions& options) const override {
    std::shared_lock lock(mu_);
    const ResourceType* type = Lookup(type_in);
    if (type == nullptr) return NoSuchType();
    const Bucket& b = BucketOf(*type);
    std::string ns = type->namespaced ? std::string(ns_in) : "";
    auto labels = LabelSelector::Parse(options.label_selector);
    if (!labels.ok()) return labels.error();
    auto fields = FieldSelector::Parse(options.field_selector, SupportedFieldSelectors(*type));
    if (!fields.ok()) return fields.error();
    if (options.limit < 0) return BadRequest("limit must be non-negative");

    uint64_t snapshot = rv_;
    std::string start_after;
    std::optional<ContinueToken> token;
    if (!options.continue_token.empty()) {
      if (!options.resource_version.empty() && options.resource_version != "0") {
        return BadRequest("specifying resource version is not allowed when using continue");
      }
      token = DecodeContinue(options.continue_token);
      if (!token) return BadRequest("continue key is not valid: " + options.continue_token);
      snapshot = token->rv;
      start_after = token->start;
      if (snapshot < b.compacted_rv) {
        return Expired(
            "The provided continue parameter is too old to display a consistent list result. You "
            "can start a new list without the continue parameter.");
      }
    } else if (!options.resource_version.empty() && options.resource_version != "0") {
      auto rv = ParseRv(options.resource_version);
      if (!rv) {
        return BadRequest("Invalid value: \"" + options.resource_version +
                          "\": resourceVersion must be an unsigned integer");
      }
      const std::string& match = options.resource_version_match;
      if (match != "" && match != "Exact" && match != "NotOlderThan") {
        return BadRequest("resourceVersionMatch: Unsupported value: \"" + match + "\"");
      }
      if (*rv > rv_) {
        ApiError e = Error(504, "Timeout",
                           "Too large resource version: " + std::to_string(*rv) +
                               ", current: " + std::to_string(rv_));
        e.details["causes"] = json::array{json::object{{"reason", "ResourceVersionTooLarge"},
                                                       {"message", "Too large resource version"}}};
        e.details["retryAfterSeconds"] = 1;
        return e;
      }
      bool exact = match == "Exact" || (match.empty() && options.limit > 0);
      if (exact) {
        if (*rv < b.compacted_rv) {
          return Expired("The resourceVersion for the provided list is too old.");
        }
        snapshot = *rv;
      }
    } else if (!options.resource_version_match.empty() && options.resource_version.empty()) {
      return BadRequest("resourceVersionMatch is forbidden unless resourceVersion is provided");
    }

    // The objects as of `snapshot`: the current map with the later history undone.
    std::map<std::string_view, const Stored*> overlay;
    if (snapshot < rv_) {
      auto first = std::upper_bound(b.history.begin(), b.history.end(), snapshot,
                                    [](uint64_t rv, const HistoryEvent& e) { return rv < e.rv; });
      for (auto it = first; it != b.history.end(); ++it) {
        overlay.emplace(it->key, it->prev.get());  // the first event after wins
      }
    }
    std::string prefix = ns.empty() ? "" : ns + "/";
    std::string lower = prefix;
    if (!start_after.empty() && start_after > lower) lower = start_after;
    auto cur = b.objects.lower_bound(lower);
    auto ov = overlay.lower_bound(lower);
    bool skip_equal = !start_after.empty() && lower == start_after;

    json::storage_ptr sp = Arena();
    json::array items(sp);
    size_t limit = options.limit > 0 ? static_cast<size_t>(options.limit) : SIZE_MAX;
    std::string last_key;
    bool more = false;
    bool filtering = !labels.value().Empty() || !fields.value().Empty();
    // remainingItemCount without walking the rest of a large range: the first page of the
    // current state knows the range size, and later pages inherit the count through the token
    // (the snapshot is fixed, so it only shrinks by what each page returns).
    std::optional<int64_t> total;
    int64_t uncounted = 0;
    if (!filtering) {
      if (token && token->remaining) {
        total = token->remaining;
      } else if (overlay.empty() && start_after.empty()) {
        if (ns.empty()) {
          total = static_cast<int64_t>(b.objects.size());
        } else {
          auto c = b.ns_counts.find(ns);
          total = c == b.ns_counts.end() ? 0 : c->second;
        }
      }
    }
    while (true) {
      // Merge the two ordered sequences; the overlay wins on equal keys.
      std::string_view key;
      const Stored* obj = nullptr;
      bool have_cur = cur != b.objects.end();
      bool have_ov = ov != overlay.end();
      if (!have_cur && !have_ov) break;
      if (have_ov && (!have_cur || ov->first <= std::string_view(cur->first))) {
        key = ov->first;
        obj = ov->second;
        if (have_cur && std::string_view(cur->first) == ov->first) ++cur;
        ++ov;
      } else {
        key = cur->first;
        obj = cur->second.get();
        ++cur;
      }
      if (!prefix.empty() && !key.starts_with(prefix)) break;
      if (skip_equal && key == start_after) continue;
      if (obj == nullptr) continue;  // created after the snapshot
      if (items.size() >= limit) {
        more = true;
        if (filtering || total) break;
        ++uncounted;
        continue;
      }
      if (!labels.value().Matches(GetObject(Meta(obj->shell), "labels"))) continue;
      if (!fields.value().Empty() &&
          !fields.value().Matches(fields.value().OnlyMetadata() ? obj->shell : obj->Object())) {
        continue;
      }
      items.push_back(OutputItem(*type, obj->Object(sp)));
      last_key = key;
    }
    json::object meta{{"resourceVersion", std::to_string(snapshot)}};
    if (more) {
      std::optional<int64_t> remaining;
      if (!filtering) {
        remaining = total ? *total - static_cast<int64_t>(items.size()) : uncounted;
        meta["remainingItemCount"] = *remaining;
      }
      meta["continue"] = EncodeContinue(ContinueToken{snapshot, last_key, remaining});
    }
    json::object out(sp);
    out["apiVersion"] = type->api_version();
    out["kind"] = type->list_kind;
    out["metadata"] = std::move(meta);
    out["items"] = std::move(items);
    return out;
  }

  Result<json::object> Update(const ResourceType& type_in, std::string_view ns,
                              std::string_view name, json::object obj, bool status,
                              const WriteOptions& options) override {
    Locked lock(this);
    const ResourceType* type = Lookup(type_in);
    if (type == nullptr || (status && !type->status_subresource)) return NoSuchType();
    if (auto err = CheckEnvelope(*type, obj); err) return *err;
    if (auto err = CheckUrlIdentity(*type, ns, name, obj); err) return *err;
    Bucket& b = BucketOf(*type);
    std::string key = Key(*type, ns, name);
    auto it = b.objects.find(key);
    if (it == b.objects.end()) return NotFound(*type, name);
    std::string body_rv = GetString(Meta(obj), "resourceVersion");
    if (body_rv.empty() && IsCustom(*type)) {
      return Invalid(
          *type, name,
          {FieldCause{"FieldValueInvalid", "Invalid value: 0x0: must be specified for an update",
                      "metadata.resourceVersion"}});
    }
    return ApplyWrite(*type, b, key, it->second, std::move(obj), status, options);
  }

  Result<json::object> Patch(const ResourceType& type_in, std::string_view ns,
                             std::string_view name, PatchType patch_type, std::string_view body,
                             bool status, const WriteOptions& options) override {
    Locked lock(this);
    const ResourceType* type = Lookup(type_in);
    if (type == nullptr || (status && !type->status_subresource)) return NoSuchType();
    if (patch_type == PatchType::kStrategicMerge && IsCustom(*type)) {
      return Error(415, "UnsupportedMediaType",
                   "the body of the request was in an unknown format - accepted media types "
                   "include: application/json-patch+json, application/merge-patch+json, "
                   "application/apply-patch+yaml");
    }
    boost::system::error_code ec;
    json::value patch = json::parse(body, ec);
    if (ec) return BadRequest("error decoding patch: " + ec.message());
    Bucket& b = BucketOf(*type);
    std::string key = Key(*type, ns, name);
    auto it = b.objects.find(key);
    if (it == b.objects.end()) return NotFound(*type, name);
    json::value doc = it->second->Object(Arena());
    switch (patch_type) {
      case PatchType::kMerge:
        if (!patch.is_object()) return BadRequest("a merge patch must be a JSON object");
        ApplyMergePatch(doc, patch);
        break;
      case PatchType::kStrategicMerge:
        if (!patch.is_object()) return BadRequest("a strategic merge patch must be a JSON object");
        ApplyStrategicMergePatch(doc, patch);
        break;
      case PatchType::kJson: {
        auto applied = ApplyJsonPatch(doc, patch);
        if (!applied.ok()) return applied.error();
        break;
      }
    }
    if (!doc.is_object()) return BadRequest("the patched document is not an object");
    json::object patched = std::move(doc.get_object());
    if (auto err = CheckEnvelope(*type, patched); err) return *err;
    if (auto err = CheckUrlIdentity(*type, ns, name, patched); err) return *err;
    return ApplyWrite(*type, b, key, it->second, std::move(patched), status, options);
  }

  Result<json::object> Delete(const ResourceType& type_in, std::string_view ns,
                              std::string_view name, const DeleteOptions& options) override {
    Locked lock(this);
    const ResourceType* type = Lookup(type_in);
    if (type == nullptr) return NoSuchType();
    Bucket& b = BucketOf(*type);
    std::string key = Key(*type, ns, name);
    auto it = b.objects.find(key);
    if (it == b.objects.end()) return NotFound(*type, name);
    const json::object& meta = Meta(it->second->shell);
    if (options.precondition_uid && *options.precondition_uid != GetString(meta, "uid")) {
      return Conflict(*type, name,
                      "Precondition failed: UID in precondition: " + *options.precondition_uid +
                          ", UID in object meta: " + GetString(meta, "uid"));
    }
    if (options.precondition_resource_version &&
        *options.precondition_resource_version != GetString(meta, "resourceVersion")) {
      return Conflict(
          *type, name,
          "Precondition failed: ResourceVersion in precondition: " +
              *options.precondition_resource_version +
              ", ResourceVersion in object meta: " + GetString(meta, "resourceVersion"));
    }
    std::string policy =
        options.propagation_policy.empty() ? "Background" : options.propagation_policy;
    if (policy != "Background" && policy != "Foreground" && policy != "Orphan") {
      return Invalid(*type, name,
                     {FieldCause{"FieldValueNotSupported",
                                 "Unsupported value: \"" + policy +
                                     "\": supported values: \"Foreground\", \"Background\", "
                                     "\"Orphan\"",
                                 "propagationPolicy"}});
    }
    if (options.grace_period_seconds && *options.grace_period_seconds < 0) {
      return Invalid(
          *type, name,
          {FieldCause{"FieldValueInvalid", "Invalid value: must be >= 0", "gracePeriodSeconds"}});
    }
    if (options.dry_run) return Output(*type, it->second->Object(Arena()));
    ObjPtr after = DeleteInternal(*type, b, key, policy);
    return Output(*type, after->Object(Arena()));
  }

  Result<json::object> DeleteCollection(const ResourceType& type_in, std::string_view ns,
                                        const ListOptions& list,
                                        const DeleteOptions& options) override {
    ListOptions all = list;
    all.limit = 0;
    all.continue_token.clear();
    auto listed = List(type_in, ns, all);
    if (!listed.ok()) return listed.error();
    json::array deleted;
    for (const json::value& item : listed.value().at("items").get_array()) {
      const json::object& m = Meta(item.get_object());
      auto r = Delete(type_in, GetString(m, "namespace"), GetString(m, "name"), options);
      // Objects deleted meanwhile (e.g. by garbage collection of an earlier one) are skipped.
      if (r.ok()) {
        deleted.push_back(std::move(r.value()));
      } else if (r.error().code != 404) {
        return r.error();
      }
    }
    json::object out = std::move(listed.value());
    out["items"] = std::move(deleted);
    out["metadata"] = json::object{{"resourceVersion", CurrentResourceVersion()}};
    return out;
  }

  Result<std::shared_ptr<WatchHandle>> Watch(const ResourceType& type_in, std::string_view ns_in,
                                             const ListOptions& options,
                                             std::function<void()> notify) override {
    Locked lock(this);
    const ResourceType* type = Lookup(type_in);
    if (type == nullptr) return NoSuchType();
    Bucket& b = BucketOf(*type);
    std::string ns = type->namespaced ? std::string(ns_in) : "";
    auto labels = LabelSelector::Parse(options.label_selector);
    if (!labels.ok()) return labels.error();
    auto fields = FieldSelector::Parse(options.field_selector, SupportedFieldSelectors(*type));
    if (!fields.ok()) return fields.error();
    auto watcher = std::make_shared<WatcherImpl>(ns, std::move(labels.value()),
                                                 std::move(fields.value()), type->api_version(),
                                                 type->kind, std::move(notify), published_rv_);
    size_t initial = 0;
    if (options.resource_version.empty() || options.resource_version == "0") {
      std::string prefix = ns.empty() ? "" : ns + "/";
      for (auto it = b.objects.lower_bound(prefix); it != b.objects.end(); ++it) {
        if (!prefix.empty() && !std::string_view(it->first).starts_with(prefix)) break;
        if (!watcher->Matches(*it->second)) continue;
        ++initial;
        watcher->SetInitialCount(initial);
        watcher->Push(QueuedEvent{"ADDED", it->second, {}, rv_});
      }
    } else {
      auto rv = ParseRv(options.resource_version);
      if (!rv) {
        return BadRequest("Invalid value: \"" + options.resource_version +
                          "\": resourceVersion must be an unsigned integer");
      }
      if (*rv < b.compacted_rv) {
        return Expired("too old resource version: " + std::to_string(*rv) + " (" +
                       std::to_string(b.compacted_rv) + ")");
      }
      auto first = std::upper_bound(b.history.begin(), b.history.end(), *rv,
                                    [](uint64_t v, const HistoryEvent& e) { return v < e.rv; });
      for (auto it = first; it != b.history.end(); ++it) watcher->Offer(*it);
    }
    b.watchers.push_back(watcher);
    if (watcher->notify()) notifications_.push_back(watcher->notify());
    return std::shared_ptr<WatchHandle>(watcher);
  }

  // ---- logs ----

  void AppendLog(std::string_view ns, std::string_view pod, std::string_view container,
                 std::string_view text) override {
    Locked lock(this);
    std::string key = std::string(ns) + "/" + std::string(pod);
    if (pods_ == nullptr || pods_->objects.count(key) == 0) return;
    std::shared_ptr<LogBuffer> buffer = BufferFor(key, container);
    std::lock_guard<std::mutex> buffer_lock(buffer->mu);
    buffer->data.append(text);
    if (buffer->data.size() > kLogLimitBytes) {
      size_t cut = buffer->data.size() - kLogLimitBytes;
      size_t nl = buffer->data.find('\n', cut);
      cut = nl == std::string::npos ? buffer->data.size() : nl + 1;
      buffer->data.erase(0, cut);
      buffer->dropped += cut;
    }
    for (auto& [id, fn] : buffer->followers) {
      if (fn) notifications_.push_back(fn);
    }
  }

  Result<std::string> ReadLog(std::string_view ns, std::string_view pod,
                              const LogOptions& options) const override {
    std::shared_lock lock(mu_);
    auto target = ResolveLogTarget(ns, pod, options);
    if (!target.ok()) return target.error();
    std::string key = std::string(ns) + "/" + std::string(pod);
    auto pod_logs = logs_.find(key);
    if (pod_logs == logs_.end()) return std::string();
    auto c = pod_logs->second.find(target.value());
    if (c == pod_logs->second.end()) return std::string();
    std::lock_guard<std::mutex> buffer_lock(c->second->mu);
    return CutLog(c->second->data, options);
  }

  Result<std::shared_ptr<LogFollower>> FollowLog(std::string_view ns, std::string_view pod,
                                                 const LogOptions& options,
                                                 std::function<void()> notify) override {
    Locked lock(this);
    auto target = ResolveLogTarget(ns, pod, options);
    if (!target.ok()) return target.error();
    std::string key = std::string(ns) + "/" + std::string(pod);
    std::shared_ptr<LogBuffer> buffer = BufferFor(key, target.value());
    std::lock_guard<std::mutex> buffer_lock(buffer->mu);
    LogOptions initial_options = options;
    initial_options.limit_bytes.reset();  // the follower applies the byte limit to the total
    std::string initial = CutLog(buffer->data, initial_options);
    uint64_t id = ++next_follower_id_;
    buffer->finished = ContainerTerminated(pods_->objects.at(key)->Object(), target.value());
    buffer->followers.emplace_back(id, notify);
    if (notify) notifications_.push_back(notify);
    return std::shared_ptr<LogFollower>(
        std::make_shared<FollowerImpl>(buffer, id, std::move(initial),
                                       buffer->dropped + buffer->data.size(), options.limit_bytes));
  }

  std::string CurrentResourceVersion() const override {
    std::shared_lock lock(mu_);
    return std::to_string(rv_);
  }

  void Compact() override {
    Locked lock(this);
    for (auto& [k, b] : buckets_) {
      b->history.clear();
      b->compacted_rv = rv_;
    }
  }

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

  static std::string TypeKey(std::string_view g, std::string_view v, std::string_view p) {
    std::string k(g);
    k += '/';
    k += v;
    k += '/';
    k += p;
    return k;
  }

  static ApiError NoSuchType() {
    return Error(404, "NotFound", "the server could not find the requested resource");
  }

  static bool IsCustom(const ResourceType& t) { return !t.group.empty(); }

  static std::string Key(const ResourceType& t, std::string_view ns, std::string_view name) {
    if (!t.namespaced) return std::string(name);
    std::string k(ns);
    k += '/';
    k += name;
    return k;
  }

  const ResourceType* Lookup(const ResourceType& t) const {
    auto it = types_.find(TypeKey(t.group, t.version, t.plural));
    return it == types_.end() ? nullptr : &it->second;
  }

  Bucket& BucketOf(const ResourceType& t) const { return *buckets_.at(t.group + "/" + t.plural); }

  static json::object Output(const ResourceType& t, json::object o) {
    o["apiVersion"] = t.api_version();
    o["kind"] = t.kind;
    return o;
  }

  // Items of core lists carry no apiVersion/kind, as the API server's typed lists.
  static json::value OutputItem(const ResourceType& t, json::object obj) {
    if (!IsCustom(t)) {
      obj.erase("apiVersion");
      obj.erase("kind");
      return obj;
    }
    return Output(t, std::move(obj));
  }

  struct ContinueToken {
    uint64_t rv = 0;
    std::string start;  // the last key returned
    std::optional<int64_t> remaining;
  };

  static std::string EncodeContinue(const ContinueToken& t) {
    json::object token{{"v", "meta.k8s.io/v1"}, {"rv", t.rv}, {"start", t.start}};
    if (t.remaining) token["rem"] = *t.remaining;
    return Base64UrlEncode(json::serialize(token));
  }

  static std::optional<ContinueToken> DecodeContinue(std::string_view text) {
    auto raw = Base64UrlDecode(text);
    if (!raw) return std::nullopt;
    boost::system::error_code ec;
    json::value v = json::parse(*raw, ec);
    if (ec || !v.is_object()) return std::nullopt;
    const json::object& o = v.get_object();
    auto rv = o.find("rv");
    auto start = o.find("start");
    if (rv == o.end() || start == o.end() || !start->value().is_string()) return std::nullopt;
    if (GetString(o, "v") != "meta.k8s.io/v1") return std::nullopt;
    uint64_t version = 0;
    if (rv->value().is_int64() && rv->value().get_int64() >= 0) {
      version = static_cast<uint64_t>(rv->value().get_int64());
    } else if (rv->value().is_uint64()) {
      version = rv->value().get_uint64();
    } else {
      return std::nullopt;
    }
    ContinueToken t{version, std::string(start->value().get_string()), std::nullopt};
    auto rem = o.find("rem");
    if (rem != o.end()) {
      if (!rem->value().is_int64() || rem->value().get_int64() < 0) return std::nullopt;
      t.remaining = rem->value().get_int64();
    }
    return t;
  }

  std::string NewUid() {
    std::uniform_int_distribution<uint32_t> byte(0, 255);
    unsigned char b[16];
    for (auto& x : b) x = static_cast<unsigned char>(byte(rng_));
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    static const char kHex[] = "0123456789abcdef";
    std::string s;
    for (int i = 0; i < 16; ++i) {
      if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
      s.push_back(kHex[b[i] >> 4]);
      s.push_back(kHex[b[i] & 15]);
    }
    return s;
  }

  std::string RandomSuffix() {
    // The alphabet of the API server's name generator: no vowels, no confusable characters.
    static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::uniform_int_distribution<size_t> pick(0, sizeof(kAlphabet) - 2);
    std::string s;
    for (int i = 0; i < 5; ++i) s.push_back(kAlphabet[pick(rng_)]);
    return s;
  }

  static bool IsValidName(const ResourceType& t, std::string_view name) {
    return t.plural == "namespaces" ? IsDns1123Label(name) : IsDns1123Subdomain(name);
  }

  static std::string NameRule(const ResourceType& t) {
    if (t.plural == "namespaces") {
      return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
             "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
             "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    }
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }

  // apiVersion/kind as the endpoint expects (filled when absent), metadata an object of the
  // right shape: what the API server's decoder enforces before anything else.
  static std::optional<ApiError> CheckEnvelope(const ResourceType& t, json::object& obj) {
    std::string api_version = GetString(obj, "apiVersion");
    std::string kind = GetString(obj, "kind");
    if (!api_version.empty() && api_version != t.api_version()) {
      return BadRequest("the API version in the data (" + api_version +
                        ") does not match the expected API version (" + t.api_version() + ")");
    }
    if (!kind.empty() && kind != t.kind) {
      return BadRequest("the kind in the data (" + kind + ") does not match the expected kind (" +
                        t.kind + ")");
    }
    auto m = obj.find("metadata");
    if (m != obj.end() && !m->value().is_object() && !m->value().is_null()) {
      return BadRequest("json: cannot unmarshal " + std::string(KindName(m->value())) +
                        " into Go struct field " + t.kind + ".metadata of type v1.ObjectMeta");
    }
    json::object& meta = MutableMeta(obj);
    for (const char* f : {"labels", "annotations"}) {
      auto it = meta.find(f);
      if (it == meta.end() || it->value().is_null()) continue;
      if (!it->value().is_object()) {
        return BadRequest(std::string("json: cannot unmarshal ") + KindName(it->value()) +
                          " into Go struct field ObjectMeta.metadata." + f +
                          " of type map[string]string");
      }
      for (const auto& [k, v] : it->value().get_object()) {
        if (!v.is_string()) {
          return BadRequest(std::string("json: cannot unmarshal ") + KindName(v) +
                            " into Go struct field ObjectMeta.metadata." + f + " of type string");
        }
      }
    }
    for (const char* f : {"finalizers", "ownerReferences"}) {
      auto it = meta.find(f);
      if (it != meta.end() && !it->value().is_null() && !it->value().is_array()) {
        return BadRequest(std::string("json: cannot unmarshal ") + KindName(it->value()) +
                          " into Go struct field ObjectMeta.metadata." + f);
      }
    }
    for (const char* f : {"name", "generateName", "namespace", "resourceVersion", "uid"}) {
      auto it = meta.find(f);
      if (it != meta.end() && !it->value().is_null() && !it->value().is_string()) {
        return BadRequest(std::string("json: cannot unmarshal ") + KindName(it->value()) +
                          " into Go struct field ObjectMeta.metadata." + f + " of type string");
      }
    }
    return std::nullopt;
  }

  static const char* KindName(const json::value& v) {
    if (v.is_string()) return "string";
    if (v.is_array()) return "array";
    if (v.is_object()) return "object";
    if (v.is_bool()) return "bool";
    if (v.is_null()) return "null";
    return "number";
  }

  static std::optional<ApiError> CheckUrlIdentity(const ResourceType& t, std::string_view ns,
                                                  std::string_view name, json::object& obj) {
    json::object& meta = MutableMeta(obj);
    std::string body_name = GetString(meta, "name");
    if (!body_name.empty() && body_name != name) {
      return BadRequest("the name of the object (" + body_name +
                        ") does not match the name on the URL (" + std::string(name) + ")");
    }
    if (t.namespaced) {
      std::string body_ns = GetString(meta, "namespace");
      if (!body_ns.empty() && body_ns != ns) {
        return BadRequest(
            "the namespace of the provided object does not match the namespace sent on the "
            "request");
      }
    }
    return std::nullopt;
  }

  static void PruneMetadata(json::object& meta, bool strict, std::vector<std::string>* unknown) {
    std::vector<std::string> extra;
    for (const auto& [k, v] : meta) {
      if (KnownMetadataFields().count(std::string_view(k)) == 0) extra.emplace_back(k);
    }
    for (const std::string& k : extra) {
      if (strict) {
        unknown->push_back("metadata." + k);
      } else {
        meta.erase(k);
      }
    }
  }

  static ApiError StrictError(const std::vector<std::string>& unknown) {
    std::string msg = "strict decoding error: ";
    for (size_t i = 0; i < unknown.size(); ++i) {
      if (i > 0) msg += ", ";
      msg += "unknown field \"" + unknown[i] + "\"";
    }
    return BadRequest(msg);
  }

  static void CheckMetadata(const json::object& meta, std::vector<FieldCause>* causes) {
    if (const json::object* labels = GetObject(meta, "labels")) {
      for (const auto& [k, v] : *labels) {
        if (std::string why = CheckLabelKey(k); !why.empty()) {
          causes->push_back({"FieldValueInvalid",
                             "Invalid value: \"" + std::string(k) + "\": " + why,
                             "metadata.labels"});
        }
        std::string value(v.get_string());
        if (std::string why = CheckLabelValue(value); !why.empty()) {
          causes->push_back(
              {"FieldValueInvalid", "Invalid value: \"" + value + "\": " + why, "metadata.labels"});
        }
      }
    }
    if (const json::object* annotations = GetObject(meta, "annotations")) {
      size_t total = 0;
      for (const auto& [k, v] : *annotations) {
        total += k.size() + v.get_string().size();
        if (std::string why = CheckLabelKey(k); !why.empty()) {
          causes->push_back({"FieldValueInvalid",
                             "Invalid value: \"" + std::string(k) + "\": " + why,
                             "metadata.annotations"});
        }
      }
      if (total > kAnnotationsLimitBytes) {
        causes->push_back({"FieldValueTooLong", "Too long: must have at most 262144 bytes",
                           "metadata.annotations"});
      }
    }
    auto refs = meta.find("ownerReferences");
    if (refs != meta.end() && refs->value().is_array()) {
      const json::array& arr = refs->value().get_array();
      for (size_t i = 0; i < arr.size(); ++i) {
        std::string path = "metadata.ownerReferences[" + std::to_string(i) + "]";
        if (!arr[i].is_object()) {
          causes->push_back({"FieldValueInvalid", "Invalid value: must be an object", path});
          continue;
        }
        for (const char* f : {"apiVersion", "kind", "name", "uid"}) {
          if (GetString(arr[i].get_object(), f).empty()) {
            causes->push_back({"FieldValueInvalid",
                               "Invalid value: \"\": " + std::string(f) + " must not be empty",
                               path + "." + f});
          }
        }
      }
    }
  }

  // NamespaceLifecycle admission: the namespace must exist and not be terminating.
  std::optional<ApiError> CheckNamespaceForCreate(const ResourceType& t, const std::string& ns,
                                                  std::string_view name) const {
    const Bucket& nsb = *buckets_.at("/namespaces");
    auto it = nsb.objects.find(ns);
    if (it == nsb.objects.end()) {
      ApiError e = NotFound(NamespaceType(), ns);
      return e;
    }
    if (IsDeleting(it->second->shell)) {
      ApiError e = Error(403, "Forbidden",
                         QualifiedResource(t) + " \"" + std::string(name) +
                             "\" is forbidden: unable to create new content in namespace " + ns +
                             " because it is being terminated");
      e.details = Details(t, name, t.plural);
      e.details["causes"] =
          json::array{json::object{{"reason", "NamespaceTerminating"},
                                   {"message", "namespace " + ns + " is being terminated"},
                                   {"field", "metadata.namespace"}}};
      return e;
    }
    return std::nullopt;
  }

  static std::string PodQosClass(const json::object& pod) {
    const json::object* spec = GetObject(pod, "spec");
    if (spec == nullptr) return "BestEffort";
    bool any = false;
    bool guaranteed = true;
    auto it = spec->find("containers");
    if (it == spec->end() || !it->value().is_array()) return "BestEffort";
    for (const json::value& c : it->value().get_array()) {
      if (!c.is_object()) continue;
      const json::object* res = GetObject(c.get_object(), "resources");
      const json::object* req = res ? GetObject(*res, "requests") : nullptr;
      const json::object* lim = res ? GetObject(*res, "limits") : nullptr;
      if ((req && !req->empty()) || (lim && !lim->empty())) any = true;
      for (const char* r : {"cpu", "memory"}) {
        const json::value* l = lim ? lim->if_contains(r) : nullptr;
        const json::value* q = req ? req->if_contains(r) : nullptr;
        if (l == nullptr || (q != nullptr && *q != *l)) guaranteed = false;
      }
    }
    if (!any) return "BestEffort";
    return guaranteed ? "Guaranteed" : "Burstable";
  }

  // What PrepareForCreate does to status: custom resources with a status subresource start
  // without one; pods start Pending; namespaces Active.
  static void InitStatus(const ResourceType& t, json::object& obj) {
    if (!t.status_subresource) return;
    if (t.group.empty() && t.plural == "pods") {
      obj["status"] = json::object{{"phase", "Pending"}, {"qosClass", PodQosClass(obj)}};
    } else if (t.group.empty() && t.plural == "namespaces") {
      obj["status"] = json::object{{"phase", "Active"}};
    } else {
      obj.erase("status");
    }
  }

  static bool SameIgnoring(const json::object& a, const json::object& b,
                           std::initializer_list<std::string_view> skip) {
    size_t na = 0;
    for (const auto& [k, v] : a) {
      if (std::find(skip.begin(), skip.end(), std::string_view(k)) != skip.end()) continue;
      ++na;
      auto it = b.find(k);
      if (it == b.end() || it->value() != v) return false;
    }
    size_t nb = 0;
    for (const auto& [k, v] : b) {
      if (std::find(skip.begin(), skip.end(), std::string_view(k)) == skip.end()) ++nb;
    }
    return na == nb;
  }

  // The common tail of Update and Patch: `incoming` is the client's full object.
  Result<json::object> ApplyWrite(const ResourceType& t, Bucket& b, const std::string& key,
                                  ObjPtr existing, json::object incoming, bool status,
                                  const WriteOptions& options) {
    const json::object old = existing->Object(Arena());
    const json::object& old_meta = Meta(old);
    std::string name = GetString(old_meta, "name");
    std::string body_rv = GetString(Meta(incoming), "resourceVersion");
    if (!body_rv.empty() && body_rv != std::to_string(existing->rv)) {
      if (!ParseRv(body_rv)) {
        return BadRequest("metadata.resourceVersion: Invalid value: \"" + body_rv +
                          "\": must be an unsigned integer");
      }
      return Conflict(t, name,
                      "the object has been modified; please apply your changes to the latest "
                      "version and try again");
    }
    json::object next;
    std::vector<std::string> unknown;
    if (status) {
      // The status subresource changes .status and nothing else.
      next = old;
      auto s = incoming.find("status");
      if (s != incoming.end()) {
        next["status"] = s->value();
      } else {
        next.erase("status");
      }
    } else {
      next = std::move(incoming);
      json::object& meta = MutableMeta(next);
      PruneMetadata(meta, options.strict_fields, &unknown);
      for (const char* f : {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "generation"}) {
        auto it = old_meta.find(f);
        if (it != old_meta.end()) {
          meta[f] = it->value();
        } else {
          meta.erase(f);
        }
      }
      meta.erase("selfLink");
      if (t.status_subresource) {
        auto s = old.find("status");
        if (s != old.end()) {
          next["status"] = s->value();
        } else {
          next.erase("status");
        }
      }
    }
    next["apiVersion"] = t.api_version();
    next["kind"] = t.kind;
    MutableMeta(next)["resourceVersion"] = std::to_string(existing->rv);

    std::vector<FieldCause> causes;
    if (t.validator) causes = t.validator(next, options.strict_fields, &unknown);
    if (!unknown.empty()) return StrictError(unknown);
    CheckMetadata(Meta(next), &causes);
    if (IsDeleting(old)) {
      std::vector<std::string> before = StringList(old_meta, "finalizers");
      std::vector<std::string> added;
      for (const std::string& f : StringList(Meta(next), "finalizers")) {
        if (std::find(before.begin(), before.end(), f) == before.end()) added.push_back(f);
      }
      if (!added.empty()) {
        std::string list;
        for (const std::string& f : added) list += (list.empty() ? "\"" : ", \"") + f + "\"";
        causes.push_back({"FieldValueForbidden",
                          "Forbidden: no new finalizers can be added if the object is being "
                          "deleted, found new finalizers []string{" +
                              list + "}",
                          "metadata.finalizers"});
      }
    }
    if (!causes.empty()) return Invalid(t, name, causes);

    // generation counts changes of everything but metadata (and status, when it is a
    // subresource of its own).
    bool changed = t.status_subresource ? !SameIgnoring(old, next, {"metadata", "status"})
                                        : !SameIgnoring(old, next, {"metadata"});
    if (IsCustom(t) && !status && changed) {
      auto g = old_meta.find("generation");
      int64_t gen = g != old_meta.end() && g->value().is_int64() ? g->value().get_int64() : 0;
      MutableMeta(next)["generation"] = gen + 1;
    }
    if (next == old) return Output(t, old);  // a no-op write keeps its resourceVersion
    if (options.dry_run) return Output(t, next);
    if (IsDeleting(next) && StringList(Meta(next), "finalizers").empty()) {
      ObjPtr gone = Remove(b, key, std::move(next));
      return Output(t, gone->Object(Arena()));
    }
    ObjPtr stored = Put(b, key, std::move(next), existing);
    return Output(t, stored->Object(Arena()));
  }

  // ---- writes (under the unique lock) ----

  void Record(Bucket& b, HistoryEvent e) {
    for (auto it = b.watchers.begin(); it != b.watchers.end();) {
      std::shared_ptr<WatcherImpl> w = it->lock();
      if (w == nullptr || w->Stopped()) {
        it = b.watchers.erase(it);
        continue;
      }
      if (w->Offer(e) && w->notify()) notifications_.push_back(w->notify());
      ++it;
    }
    b.history.push_back(std::move(e));
    while (b.history.size() > kHistoryPerType) {
      b.compacted_rv = b.history.front().rv;
      b.history.pop_front();
    }
  }

  static std::vector<std::string> OwnerUids(const json::object& obj) {
    std::vector<std::string> out;
    auto refs = Meta(obj).find("ownerReferences");
    if (refs == Meta(obj).end() || !refs->value().is_array()) return out;
    for (const json::value& r : refs->value().get_array()) {
      if (r.is_object()) out.push_back(GetString(r.get_object(), "uid"));
    }
    return out;
  }

  void Unindex(Bucket& b, const std::string& key, const json::object& obj) {
    for (const std::string& owner : OwnerUids(obj)) {
      auto it = dependents_.find(owner);
      if (it == dependents_.end()) continue;
      it->second.erase(Loc{&b, key});
      if (it->second.empty()) dependents_.erase(it);
    }
  }

  void Index(Bucket& b, const std::string& key, const json::object& obj) {
    for (const std::string& owner : OwnerUids(obj)) dependents_[owner].insert(Loc{&b, key});
  }

  ObjPtr Put(Bucket& b, const std::string& key, json::object obj, ObjPtr prev) {
    uint64_t rv = ++rv_;
    MutableMeta(obj)["resourceVersion"] = std::to_string(rv);
    if (&b == pods_) UpdateLogState(key, obj);
    ObjPtr stored = MakeStored(std::move(obj), rv);
    std::string uid = GetString(Meta(stored->shell), "uid");
    if (prev != nullptr) Unindex(b, key, prev->shell);
    Index(b, key, stored->shell);
    uids_[uid] = Loc{&b, key};
    b.objects[key] = stored;
    if (prev == nullptr && b.namespaced) ++b.ns_counts[key.substr(0, key.find('/'))];
    Record(b, HistoryEvent{stored->rv, prev ? EventType::kModified : EventType::kAdded, key, stored,
                           prev});
    return stored;
  }

  // Removes the object for good: DELETED event, logs, garbage collection of dependents,
  // completion of foreground deletions and namespace terminations waiting for it.
  ObjPtr Remove(Bucket& b, const std::string& key, std::optional<json::object> final_state) {
    auto it = b.objects.find(key);
    ObjPtr prev = it->second;
    uint64_t rv = ++rv_;
    json::object last = final_state ? std::move(*final_state) : prev->Object();
    MutableMeta(last)["resourceVersion"] = std::to_string(rv);
    ObjPtr stored = MakeStored(std::move(last), rv);
    b.objects.erase(it);
    if (b.namespaced) {
      auto c = b.ns_counts.find(key.substr(0, key.find('/')));
      if (c != b.ns_counts.end() && --c->second == 0) b.ns_counts.erase(c);
    }
    Unindex(b, key, prev->shell);
    std::string uid = GetString(Meta(prev->shell), "uid");
    uids_.erase(uid);
    Record(b, HistoryEvent{stored->rv, EventType::kDeleted, key, stored, prev});
    if (&b == pods_) DropLogs(key);

    // Garbage collection: dependents whose owners are all gone (or waiting for their own
    // dependents) are deleted; references to a vanished owner are dropped from the others.
    CollectDependents(uid, "Background");
    for (const std::string& owner : OwnerUids(stored->shell)) MaybeFinishForeground(owner);
    if (b.namespaced) {
      std::string ns = key.substr(0, key.find('/'));
      MaybeFinishNamespace(ns);
    }
    return stored;
  }

  // Is an owner "solid": present and not waiting for its dependents to go?
  bool IsSolidOwner(const std::string& uid) const {
    auto it = uids_.find(uid);
    if (it == uids_.end()) return false;
    const json::object& obj = it->second.bucket->objects.at(it->second.key)->shell;
    if (!IsDeleting(obj)) return true;
    std::vector<std::string> f = StringList(Meta(obj), "finalizers");
    return std::find(f.begin(), f.end(), kForegroundFinalizer) == f.end();
  }

  void CollectDependents(const std::string& owner_uid, const std::string& policy) {
    auto deps = dependents_.find(owner_uid);
    if (deps == dependents_.end()) return;
    std::vector<Loc> list(deps->second.begin(), deps->second.end());
    for (const Loc& loc : list) {
      auto it = loc.bucket->objects.find(loc.key);
      if (it == loc.bucket->objects.end()) continue;
      ObjPtr dep = it->second;
      bool has_solid = false;
      for (const std::string& other : OwnerUids(dep->shell)) {
        if (other != owner_uid && IsSolidOwner(other)) has_solid = true;
      }
      if (has_solid) {
        json::object next = dep->Object();
        StripOwnerRef(next, owner_uid);
        Put(*loc.bucket, loc.key, std::move(next), dep);
        continue;
      }
      if (IsDeleting(dep->shell)) continue;
      const ResourceType* t = TypeOfBucket(*loc.bucket);
      if (t != nullptr) DeleteInternal(*t, *loc.bucket, loc.key, policy);
    }
  }

  static void StripOwnerRef(json::object& obj, const std::string& owner_uid) {
    json::object& meta = MutableMeta(obj);
    auto refs = meta.find("ownerReferences");
    if (refs == meta.end() || !refs->value().is_array()) return;
    json::array& arr = refs->value().get_array();
    for (auto it = arr.begin(); it != arr.end();) {
      bool match = it->is_object() && GetString(it->get_object(), "uid") == owner_uid;
      it = match ? arr.erase(it) : it + 1;
    }
    if (arr.empty()) meta.erase("ownerReferences");
  }

  const ResourceType* TypeOfBucket(const Bucket& b) const {
    for (const auto& [k, t] : types_) {
      if (t.group == b.group && t.plural == b.plural) return &t;
    }
    return nullptr;
  }

  // The deletion itself, after the checks. Returns the object as it is afterwards.
  ObjPtr DeleteInternal(const ResourceType& t, Bucket& b, const std::string& key,
                        const std::string& policy) {
    ObjPtr cur = b.objects.at(key);
    std::string uid = GetString(Meta(cur->shell), "uid");
    if (IsDeleting(cur->shell)) return cur;  // already on its way; finalizers decide
    bool is_namespace = t.group.empty() && t.plural == "namespaces";
    if (policy == "Orphan") {
      auto deps = dependents_.find(uid);
      if (deps != dependents_.end()) {
        std::vector<Loc> list(deps->second.begin(), deps->second.end());
        for (const Loc& loc : list) {
          ObjPtr dep = loc.bucket->objects.at(loc.key);
          json::object next = dep->Object();
          StripOwnerRef(next, uid);
          Put(*loc.bucket, loc.key, std::move(next), dep);
        }
      }
    }
    std::vector<std::string> finalizers = StringList(Meta(cur->shell), "finalizers");
    bool foreground = policy == "Foreground" && !is_namespace;
    if (finalizers.empty() && !foreground && !is_namespace) {
      return Remove(b, key, std::nullopt);
    }
    json::object next = cur->Object();
    json::object& meta = MutableMeta(next);
    meta["deletionTimestamp"] = Rfc3339Seconds(now_ms_());
    meta["deletionGracePeriodSeconds"] = 0;
    if (foreground) {
      json::value& f = meta["finalizers"];
      if (!f.is_array()) f = json::array();
      f.get_array().push_back(json::string(kForegroundFinalizer));
    }
    if (is_namespace) {
      json::value& st = next["status"];
      if (!st.is_object()) st = json::object();
      st.get_object()["phase"] = "Terminating";
    }
    ObjPtr marked = Put(b, key, std::move(next), cur);
    if (foreground) {
      CollectDependents(uid, "Foreground");
      MaybeFinishForeground(uid);
    }
    if (is_namespace) {
      std::string ns = key;
      for (auto& [bk, other] : buckets_) {
        if (!other->namespaced) continue;
        const ResourceType* ot = TypeOfBucket(*other);
        if (ot == nullptr) continue;
        std::vector<std::string> keys;
        for (auto it = other->objects.lower_bound(ns + "/"); it != other->objects.end(); ++it) {
          if (!std::string_view(it->first).starts_with(ns + "/")) break;
          keys.push_back(it->first);
        }
        for (const std::string& k : keys) {
          if (other->objects.count(k) != 0) DeleteInternal(*ot, *other, k, "Background");
        }
      }
      MaybeFinishNamespace(ns);
    }
    auto now = b.objects.find(key);
    return now != b.objects.end() ? now->second : marked;
  }

  // Removes the foregroundDeletion finalizer once no dependent blocks the owner.
  void MaybeFinishForeground(const std::string& owner_uid) {
    auto loc = uids_.find(owner_uid);
    if (loc == uids_.end()) return;
    Bucket& b = *loc->second.bucket;
    std::string key = loc->second.key;
    ObjPtr owner = b.objects.at(key);
    if (!IsDeleting(owner->shell)) return;
    std::vector<std::string> finalizers = StringList(Meta(owner->shell), "finalizers");
    if (std::find(finalizers.begin(), finalizers.end(), kForegroundFinalizer) == finalizers.end()) {
      return;
    }
    auto deps = dependents_.find(owner_uid);
    if (deps != dependents_.end()) {
      for (const Loc& d : deps->second) {
        auto it = d.bucket->objects.find(d.key);
        if (it == d.bucket->objects.end()) continue;
        auto refs = Meta(it->second->shell).find("ownerReferences");
        for (const json::value& r : refs->value().get_array()) {
          if (!r.is_object() || GetString(r.get_object(), "uid") != owner_uid) continue;
          auto block = r.get_object().find("blockOwnerDeletion");
          if (block != r.get_object().end() && block->value() == true) return;
        }
      }
    }
    json::object next = owner->Object();
    json::object& meta = MutableMeta(next);
    json::array kept;
    for (const std::string& f : finalizers) {
      if (f != kForegroundFinalizer) kept.push_back(json::string(f));
    }
    if (kept.empty()) {
      meta.erase("finalizers");
      Remove(b, key, std::move(next));
    } else {
      meta["finalizers"] = std::move(kept);
      Put(b, key, std::move(next), owner);
    }
  }

  // A terminating namespace goes once it is empty and has no finalizers of its own.
  void MaybeFinishNamespace(const std::string& ns) {
    Bucket& nsb = *buckets_.at("/namespaces");
    auto it = nsb.objects.find(ns);
    if (it == nsb.objects.end() || !IsDeleting(it->second->shell)) return;
    if (!StringList(Meta(it->second->shell), "finalizers").empty()) return;
    for (auto& [bk, other] : buckets_) {
      if (!other->namespaced) continue;
      auto o = other->objects.lower_bound(ns + "/");
      if (o != other->objects.end() && std::string_view(o->first).starts_with(ns + "/")) return;
    }
    Remove(nsb, ns, std::nullopt);
  }

  // ---- logs (under the unique lock unless noted) ----

  std::shared_ptr<LogBuffer> BufferFor(const std::string& pod_key, std::string_view container) {
    auto& slot = logs_[pod_key][std::string(container)];
    if (slot == nullptr) slot = std::make_shared<LogBuffer>();
    return slot;
  }

  static bool ContainerTerminated(const json::object& pod, const std::string& container) {
    const json::object* status = GetObject(pod, "status");
    if (status == nullptr) return false;
    std::string phase = GetString(*status, "phase");
    if (phase == "Succeeded" || phase == "Failed") return true;
    for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
      auto it = status->find(list);
      if (it == status->end() || !it->value().is_array()) continue;
      for (const json::value& cs : it->value().get_array()) {
        if (!cs.is_object() || GetString(cs.get_object(), "name") != container) continue;
        const json::object* state = GetObject(cs.get_object(), "state");
        if (state != nullptr && state->contains("terminated")) return true;
      }
    }
    return false;
  }

  void UpdateLogState(const std::string& pod_key, const json::object& pod) {
    auto it = logs_.find(pod_key);
    if (it == logs_.end()) return;
    for (auto& [container, buffer] : it->second) {
      std::lock_guard<std::mutex> lock(buffer->mu);
      bool finished = ContainerTerminated(pod, container);
      if (finished == buffer->finished) continue;
      buffer->finished = finished;
      for (auto& [id, fn] : buffer->followers) {
        if (fn) notifications_.push_back(fn);
      }
    }
  }

  void DropLogs(const std::string& pod_key) {
    auto it = logs_.find(pod_key);
    if (it == logs_.end()) return;
    for (auto& [container, buffer] : it->second) {
      std::lock_guard<std::mutex> lock(buffer->mu);
      buffer->finished = true;
      for (auto& [id, fn] : buffer->followers) {
        if (fn) notifications_.push_back(fn);
      }
    }
    logs_.erase(it);
  }

  // Checks the pod, the container and the options; returns the container name.
  Result<std::string> ResolveLogTarget(std::string_view ns, std::string_view pod,
                                       const LogOptions& options) const {
    ResourceType pod_type = PodType();
    std::string key = std::string(ns) + "/" + std::string(pod);
    if (pods_ == nullptr) return NotFound(pod_type, pod);
    auto it = pods_->objects.find(key);
    if (it == pods_->objects.end()) return NotFound(pod_type, pod);
    std::vector<FieldCause> causes;
    if (options.tail_lines && *options.tail_lines < 0) {
      causes.push_back({"FieldValueInvalid",
                        "Invalid value: " + std::to_string(*options.tail_lines) +
                            ": must be greater than or equal to 0",
                        "tailLines"});
    }
    if (options.limit_bytes && *options.limit_bytes < 1) {
      causes.push_back(
          {"FieldValueInvalid",
           "Invalid value: " + std::to_string(*options.limit_bytes) + ": must be greater than 0",
           "limitBytes"});
    }
    if (!causes.empty()) {
      ResourceType opts_type = pod_type;
      opts_type.kind = "PodLogOptions";
      return Invalid(opts_type, pod, causes);
    }
    const json::object obj = it->second->Object();
    std::vector<std::string> containers;
    std::vector<std::string> init_containers;
    if (const json::object* spec = GetObject(obj, "spec")) {
      for (const auto& [list, out] :
           {std::pair{"containers", &containers}, std::pair{"initContainers", &init_containers}}) {
        auto l = spec->find(list);
        if (l == spec->end() || !l->value().is_array()) continue;
        for (const json::value& c : l->value().get_array()) {
          if (c.is_object()) out->push_back(GetString(c.get_object(), "name"));
        }
      }
    }
    std::string container = options.container;
    if (container.empty()) {
      if (containers.size() == 1) {
        container = containers[0];
      } else {
        auto join = [](const std::vector<std::string>& v) {
          std::string s;
          for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
          return s;
        };
        std::string msg = "a container name must be specified for pod " + std::string(pod) +
                          ", choose one of: [" + join(containers) + "]";
        if (!init_containers.empty()) {
          msg += " or one of the init containers: [" + join(init_containers) + "]";
        }
        return BadRequest(msg);
      }
    } else if (std::find(containers.begin(), containers.end(), container) == containers.end() &&
               std::find(init_containers.begin(), init_containers.end(), container) ==
                   init_containers.end()) {
      return BadRequest("container " + container + " is not valid for pod " + std::string(pod));
    }
    if (options.previous) {
      return BadRequest("previous terminated container \"" + container + "\" in pod \"" +
                        std::string(pod) + "\" not found");
    }
    // A container that has not started has no log yet: the kubelet answers 400.
    const json::object* status = GetObject(obj, "status");
    std::string phase = status ? GetString(*status, "phase") : "";
    bool found = false;
    if (status != nullptr) {
      for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
        auto l = status->find(list);
        if (l == status->end() || !l->value().is_array()) continue;
        for (const json::value& cs : l->value().get_array()) {
          if (!cs.is_object() || GetString(cs.get_object(), "name") != container) continue;
          found = true;
          const json::object* state = GetObject(cs.get_object(), "state");
          const json::object* waiting = state ? GetObject(*state, "waiting") : nullptr;
          if (waiting != nullptr) {
            std::string reason = GetString(*waiting, "reason");
            return BadRequest(
                "container \"" + container + "\" in pod \"" + std::string(pod) +
                "\" is waiting to start: " + (reason.empty() ? "ContainerCreating" : reason));
          }
        }
      }
    }
    if (!found && (phase.empty() || phase == "Pending")) {
      return BadRequest("container \"" + container + "\" in pod \"" + std::string(pod) +
                        "\" is waiting to start: ContainerCreating");
    }
    return container;
  }

  static std::string CutLog(const std::string& data, const LogOptions& options) {
    std::string_view view = data;
    if (options.tail_lines) {
      int64_t want = *options.tail_lines;
      size_t pos = view.size();
      // A final line without a newline still counts as a line.
      if (pos > 0 && view[pos - 1] == '\n') --pos;
      int64_t lines = 0;
      size_t start = 0;
      if (want == 0) {
        start = view.size();
      } else {
        while (pos > 0) {
          size_t nl = view.rfind('\n', pos - 1);
          if (nl == std::string_view::npos) break;
          if (++lines == want) {
            start = nl + 1;
            break;
          }
          pos = nl;
        }
      }
      view = view.substr(start);
    }
    if (options.limit_bytes && static_cast<int64_t>(view.size()) > *options.limit_bytes) {
      view = view.substr(0, static_cast<size_t>(*options.limit_bytes));
    }
    return std::string(view);
  }

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

}  // namespace

std::string Rfc3339Seconds(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::unique_ptr<Store> NewMemoryStore(std::function<int64_t()> now_ms) {
  return std::make_unique<MemoryStore>(std::move(now_ms));
}

}  // namespace kubesim
