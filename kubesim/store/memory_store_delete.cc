// Deletion: preconditions, propagation policies, finalizers, synchronous garbage collection of
// dependents, foreground deletion and namespace termination.

#include <algorithm>

#include "kubesim/store/memory_store.h"

namespace kubesim::store_internal {

namespace json = boost::json;

Result<json::object> MemoryStore::Delete(const ResourceType& type_in, std::string_view ns,
                                         std::string_view name, const DeleteOptions& options) {
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
    return Conflict(*type, name,
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

Result<json::object> MemoryStore::DeleteCollection(const ResourceType& type_in, std::string_view ns,
                                                   const ListOptions& list,
                                                   const DeleteOptions& options) {
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

// The deletion itself, after the checks. Returns the object as it is afterwards.
ObjPtr MemoryStore::DeleteInternal(const ResourceType& t, Bucket& b, const std::string& key,
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

// Removes the object for good: DELETED event, logs, garbage collection of dependents,
// completion of foreground deletions and namespace terminations waiting for it.
ObjPtr MemoryStore::Remove(Bucket& b, const std::string& key,
                           std::optional<json::object> final_state) {
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
  DropLease(b, key);
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
bool MemoryStore::IsSolidOwner(const std::string& uid) const {
  auto it = uids_.find(uid);
  if (it == uids_.end()) return false;
  const json::object& obj = it->second.bucket->objects.at(it->second.key)->shell;
  if (!IsDeleting(obj)) return true;
  std::vector<std::string> f = StringList(Meta(obj), "finalizers");
  return std::find(f.begin(), f.end(), kForegroundFinalizer) == f.end();
}

void MemoryStore::CollectDependents(const std::string& owner_uid, const std::string& policy) {
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

void MemoryStore::StripOwnerRef(json::object& obj, const std::string& owner_uid) {
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

const ResourceType* MemoryStore::TypeOfBucket(const Bucket& b) const {
  for (const auto& [k, t] : types_) {
    if (t.group == b.group && t.plural == b.plural) return &t;
  }
  return nullptr;
}

// Removes the foregroundDeletion finalizer once no dependent blocks the owner.
void MemoryStore::MaybeFinishForeground(const std::string& owner_uid) {
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
void MemoryStore::MaybeFinishNamespace(const std::string& ns) {
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

}  // namespace kubesim::store_internal
