// What the API server checks and defaults in an object before it is stored: envelope, metadata,
// names, namespace lifecycle, initial status.

#include <algorithm>

#include "kubesim/store/core_types.h"
#include "kubesim/store/memory_store.h"

namespace kubesim::store_internal {

namespace json = boost::json;

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

namespace {

// RBAC objects are named by path segment rules, so "system:discovery" is a valid name.
bool PathSegmentNamed(const ResourceType& t) { return t.group == "rbac.authorization.k8s.io"; }

}  // namespace

bool MemoryStore::IsValidName(const ResourceType& t, std::string_view name) {
  if (PathSegmentNamed(t)) {
    return !name.empty() && name != "." && name != ".." &&
           name.find_first_of("/%") == std::string_view::npos;
  }
  return t.plural == "namespaces" ? IsDns1123Label(name) : IsDns1123Subdomain(name);
}

std::string MemoryStore::NameRule(const ResourceType& t) {
  if (PathSegmentNamed(t)) return "may not be '.' or '..' and may not contain '/' or '%'";
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
std::optional<ApiError> MemoryStore::CheckEnvelope(const ResourceType& t, json::object& obj) {
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

const char* MemoryStore::KindName(const json::value& v) {
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  if (v.is_bool()) return "bool";
  if (v.is_null()) return "null";
  return "number";
}

std::optional<ApiError> MemoryStore::CheckUrlIdentity(const ResourceType& t, std::string_view ns,
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

void MemoryStore::PruneMetadata(json::object& meta, bool strict,
                                std::vector<std::string>* unknown) {
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

ApiError MemoryStore::StrictError(const std::vector<std::string>& unknown) {
  std::string msg = "strict decoding error: ";
  for (size_t i = 0; i < unknown.size(); ++i) {
    if (i > 0) msg += ", ";
    msg += "unknown field \"" + unknown[i] + "\"";
  }
  return BadRequest(msg);
}

void MemoryStore::CheckMetadata(const json::object& meta, std::vector<FieldCause>* causes) {
  if (const json::object* labels = GetObject(meta, "labels")) {
    for (const auto& [k, v] : *labels) {
      if (std::string why = CheckLabelKey(k); !why.empty()) {
        causes->push_back({"FieldValueInvalid", "Invalid value: \"" + std::string(k) + "\": " + why,
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
        causes->push_back({"FieldValueInvalid", "Invalid value: \"" + std::string(k) + "\": " + why,
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
std::optional<ApiError> MemoryStore::CheckNamespaceForCreate(const ResourceType& t,
                                                             const std::string& ns,
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

std::string MemoryStore::PodQosClass(const json::object& pod) {
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
void MemoryStore::InitStatus(const ResourceType& t, json::object& obj) {
  if (!t.status_subresource) return;
  if (t.group.empty() && t.plural == "pods") {
    obj["status"] = json::object{{"phase", "Pending"}, {"qosClass", PodQosClass(obj)}};
  } else if (t.group.empty() && t.plural == "namespaces") {
    obj["status"] = json::object{{"phase", "Active"}};
  } else {
    obj.erase("status");
  }
}

bool MemoryStore::SameIgnoring(const json::object& a, const json::object& b,
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

std::optional<ApiError> MemoryStore::CheckStoredSize(const json::object& obj) {
  if (json::serialize(obj).size() <= kEtcdRequestLimitBytes) return std::nullopt;
  return Error(500, "", "etcdserver: request is too large");
}

}  // namespace kubesim::store_internal
