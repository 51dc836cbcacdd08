// The in-memory store's types, creates, reads and writes (see memory_store.h for the layout).

#include "kubesim/store/memory_store.h"

#include <algorithm>
#include <ctime>

#include "kubesim/store/core_types.h"
#include "kubesim/store/patch.h"

namespace kubesim::store_internal {

namespace json = boost::json;

json::storage_ptr Arena() { return json::make_shared_resource<json::monotonic_resource>(); }

ObjPtr MakeStored(json::object obj, uint64_t rv) {
  auto s = std::make_shared<Stored>();
  s->rv = rv;
  s->text = json::serialize(obj);
  auto m = obj.find("metadata");
  s->shell["metadata"] = m != obj.end() ? std::move(m->value()) : json::object();
  return s;
}

MemoryStore::MemoryStore(std::function<int64_t()> now_ms)
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

void MemoryStore::RegisterType(const ResourceType& type) {
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
  b->ttl_ms = type.ttl_ms;
  if (type.group.empty() && type.plural == "pods") pods_ = b.get();
}

const ResourceType* MemoryStore::FindType(std::string_view group, std::string_view version,
                                          std::string_view plural) const {
  std::shared_lock lock(mu_);
  auto it = types_.find(TypeKey(group, version, plural));
  // Registered types are never erased (only replaced in place), so the pointer stays valid.
  return it == types_.end() ? nullptr : &it->second;
}

std::vector<ResourceType> MemoryStore::Types() const {
  std::shared_lock lock(mu_);
  std::vector<ResourceType> out;
  for (const auto& [k, t] : types_) out.push_back(t);
  return out;
}

Result<json::object> MemoryStore::Create(const ResourceType& type_in, std::string_view ns_in,
                                         json::object obj, const WriteOptions& options) {
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
      causes.insert(
          causes.begin(),
          FieldCause{"FieldValueInvalid", "Invalid value: \"" + generate + "\": " + NameRule(*type),
                     "metadata.generateName"});
    } else {
      do {
        name = prefix + RandomSuffix();
      } while (b.objects.count(Key(*type, ns, name)) != 0);
      MutableMeta(obj)["name"] = name;
    }
  }
  if (name.empty() && generate.empty()) {
    causes.insert(causes.begin(),
                  FieldCause{"FieldValueRequired",
                             "Required value: name or generateName is required", "metadata.name"});
  } else if (!name.empty() && !IsValidName(*type, name)) {
    causes.insert(causes.begin(), FieldCause{"FieldValueInvalid",
                                             "Invalid value: \"" + name + "\": " + NameRule(*type),
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
  if (auto err = CheckStoredSize(obj); err) return *err;
  ObjPtr stored = Put(b, key, std::move(obj), nullptr);
  return stored->Object(Arena());
}

Result<json::object> MemoryStore::Get(const ResourceType& type_in, std::string_view ns,
                                      std::string_view name) const {
  std::shared_lock lock(mu_);
  const ResourceType* type = Lookup(type_in);
  if (type == nullptr) return NoSuchType();
  const Bucket& b = BucketOf(*type);
  auto it = b.objects.find(Key(*type, ns, name));
  if (it == b.objects.end()) return NotFound(*type, name);
  return Output(*type, it->second->Object(Arena()));
}

Result<json::object> MemoryStore::Update(const ResourceType& type_in, std::string_view ns,
                                         std::string_view name, json::object obj, bool status,
                                         const WriteOptions& options) {
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

Result<json::object> MemoryStore::Patch(const ResourceType& type_in, std::string_view ns,
                                        std::string_view name, PatchType patch_type,
                                        std::string_view body, bool status,
                                        const WriteOptions& options) {
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

// The common tail of Update and Patch: `incoming` is the client's full object.
Result<json::object> MemoryStore::ApplyWrite(const ResourceType& t, Bucket& b,
                                             const std::string& key, ObjPtr existing,
                                             json::object incoming, bool status,
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
  if (auto err = CheckStoredSize(next); err) return *err;
  ObjPtr stored = Put(b, key, std::move(next), existing);
  return Output(t, stored->Object(Arena()));
}

std::string MemoryStore::CurrentResourceVersion() const {
  std::shared_lock lock(mu_);
  return std::to_string(rv_);
}

std::string MemoryStore::TypeKey(std::string_view g, std::string_view v, std::string_view p) {
  std::string k(g);
  k += '/';
  k += v;
  k += '/';
  k += p;
  return k;
}

ApiError MemoryStore::NoSuchType() {
  return Error(404, "NotFound", "the server could not find the requested resource");
}

std::string MemoryStore::Key(const ResourceType& t, std::string_view ns, std::string_view name) {
  if (!t.namespaced) return std::string(name);
  std::string k(ns);
  k += '/';
  k += name;
  return k;
}

const ResourceType* MemoryStore::Lookup(const ResourceType& t) const {
  auto it = types_.find(TypeKey(t.group, t.version, t.plural));
  return it == types_.end() ? nullptr : &it->second;
}

json::object MemoryStore::Output(const ResourceType& t, json::object o) {
  o["apiVersion"] = t.api_version();
  o["kind"] = t.kind;
  return o;
}

// Items of core lists carry no apiVersion/kind, as the API server's typed lists.
json::value MemoryStore::OutputItem(const ResourceType& t, json::object obj) {
  if (!IsCustom(t)) {
    obj.erase("apiVersion");
    obj.erase("kind");
    return obj;
  }
  return Output(t, std::move(obj));
}

std::string MemoryStore::NewUid() {
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

std::string MemoryStore::RandomSuffix() {
  // The alphabet of the API server's name generator: no vowels, no confusable characters.
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<size_t> pick(0, sizeof(kAlphabet) - 2);
  std::string s;
  for (int i = 0; i < 5; ++i) s.push_back(kAlphabet[pick(rng_)]);
  return s;
}

ObjPtr MemoryStore::Put(Bucket& b, const std::string& key, json::object obj, ObjPtr prev) {
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
  if (b.ttl_ms > 0) RenewLease(b, key);
  Record(b, HistoryEvent{stored->rv, prev ? EventType::kModified : EventType::kAdded, key, stored,
                         prev});
  return stored;
}

std::vector<std::string> MemoryStore::OwnerUids(const json::object& obj) {
  std::vector<std::string> out;
  auto refs = Meta(obj).find("ownerReferences");
  if (refs == Meta(obj).end() || !refs->value().is_array()) return out;
  for (const json::value& r : refs->value().get_array()) {
    if (r.is_object()) out.push_back(GetString(r.get_object(), "uid"));
  }
  return out;
}

void MemoryStore::Index(Bucket& b, const std::string& key, const json::object& obj) {
  for (const std::string& owner : OwnerUids(obj)) dependents_[owner].insert(Loc{&b, key});
}

void MemoryStore::Unindex(Bucket& b, const std::string& key, const json::object& obj) {
  for (const std::string& owner : OwnerUids(obj)) {
    auto it = dependents_.find(owner);
    if (it == dependents_.end()) continue;
    it->second.erase(Loc{&b, key});
    if (it->second.empty()) dependents_.erase(it);
  }
}

}  // namespace kubesim::store_internal

namespace kubesim {

std::string Rfc3339Seconds(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::unique_ptr<Store> NewMemoryStore(std::function<int64_t()> now_ms) {
  return std::make_unique<store_internal::MemoryStore>(std::move(now_ms));
}

}  // namespace kubesim
