#include "kubesim/server/api.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <ctime>
#include <set>
#include <utility>

#include "kubesim/schema/schema.h"
#include "kubesim/server/protobuf.h"
#include "kubesim/server/seed.h"
#include "kubesim/server/table.h"

namespace kubesim {
namespace {

namespace json = boost::json;

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};

std::string Get(const std::map<std::string, std::string>& q, const std::string& key) {
  auto it = q.find(key);
  return it == q.end() ? std::string() : it->second;
}

bool IsTrue(const std::string& v) { return v == "true" || v == "1" || v == "True"; }

bool ParseInt(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

std::string MediaType(std::string_view content_type) {
  std::string_view t = content_type.substr(0, content_type.find(';'));
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  std::string out(t);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

HttpResponse JsonResponse(int status, const json::value& body) {
  HttpResponse r;
  r.status = status;
  r.body = json::serialize(body);
  return r;
}

ApiError NotFoundPath() {
  return MakeError(404, "NotFound", "the server could not find the requested resource");
}

ApiError BadRequest(std::string message) {
  return MakeError(400, "BadRequest", std::move(message));
}

// Objects nest deeper than Boost.JSON's default limit of 32 (CRDs with their schemas do).
json::value ParseJson(std::string_view text, json::error_code& ec) {
  json::parse_options options;
  options.max_depth = 1000;
  return json::parse(text, ec, {}, options);
}

// Parses a request body as JSON, or YAML when the client says so.
bool ParseBody(const HttpRequest& request, json::object* out, ApiError* error) {
  std::string media = MediaType(request.content_type);
  json::value v;
  if (media == "application/yaml" || media == "application/x-yaml") {
    try {
      v = YamlToJson(YAML::Load(request.body));
    } catch (const std::exception& e) {
      *error = BadRequest(std::string("error decoding YAML: ") + e.what());
      return false;
    }
  } else if (media == "application/vnd.kubernetes.protobuf") {
    std::string message;
    json::object obj;
    if (!DecodeKubernetesProtobuf(request.body, &obj, &message)) {
      *error = MakeError(415, "UnsupportedMediaType", message);
      return false;
    }
    v = std::move(obj);
  } else if (media.empty() || media == "application/json" || media == "*/*") {
    json::error_code ec;
    v = ParseJson(request.body, ec);
    if (ec) {
      *error = BadRequest("error decoding JSON: " + ec.message());
      return false;
    }
  } else {
    *error = MakeError(415, "UnsupportedMediaType",
                       "the body of the request was in an unknown format - accepted media types "
                       "include: application/json, application/yaml");
    return false;
  }
  if (!v.is_object()) {
    *error = BadRequest("the request body must be a JSON object");
    return false;
  }
  *out = std::move(v.as_object());
  return true;
}

std::string MetaString(const json::object& obj, std::string_view key) {
  const json::value* m = obj.if_contains("metadata");
  if (m == nullptr || !m->is_object()) return "";
  const json::value* v = m->as_object().if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

// The checks the API server's REST handler makes before the object reaches storage.
bool CheckBodyIdentity(const ResourceType& type, const std::string& ns, const std::string& name,
                       const json::object& obj, ApiError* error) {
  if (const auto* av = obj.if_contains("apiVersion");
      av != nullptr && av->is_string() && av->as_string() != type.api_version()) {
    *error = BadRequest("the API version in the data (" + std::string(av->as_string()) +
                        ") does not match the expected API version (" + type.api_version() + ")");
    return false;
  }
  if (const auto* k = obj.if_contains("kind");
      k != nullptr && k->is_string() && !k->as_string().empty() && k->as_string() != type.kind) {
    *error = BadRequest("the kind in the data (" + std::string(k->as_string()) +
                        ") does not match the expected kind (" + type.kind + ")");
    return false;
  }
  std::string body_ns = MetaString(obj, "namespace");
  if (type.namespaced && !body_ns.empty() && body_ns != ns) {
    *error = BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
    return false;
  }
  std::string body_name = MetaString(obj, "name");
  if (!name.empty() && !body_name.empty() && body_name != name) {
    *error = BadRequest("the name of the object (" + body_name +
                        ") does not match the name on the URL (" + name + ")");
    return false;
  }
  return true;
}

bool ParseWriteOptions(const std::map<std::string, std::string>& q, WriteOptions* wo,
                       ApiError* error) {
  std::string dry = Get(q, "dryRun");
  if (!dry.empty() && dry != "All") {
    *error = BadRequest("Invalid dryRun value: " + dry + " (only All is supported)");
    return false;
  }
  wo->dry_run = dry == "All";
  std::string fv = Get(q, "fieldValidation");
  if (!fv.empty() && fv != "Ignore" && fv != "Warn" && fv != "Strict") {
    *error = BadRequest("fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\"");
    return false;
  }
  wo->strict_fields = fv == "Strict";
  wo->field_manager = Get(q, "fieldManager");
  return true;
}

bool ParseListOptions(const std::map<std::string, std::string>& q, ListOptions* lo,
                      ApiError* error) {
  lo->label_selector = Get(q, "labelSelector");
  lo->field_selector = Get(q, "fieldSelector");
  lo->continue_token = Get(q, "continue");
  lo->resource_version = Get(q, "resourceVersion");
  lo->resource_version_match = Get(q, "resourceVersionMatch");
  std::string limit = Get(q, "limit");
  if (!limit.empty() && (!ParseInt(limit, &lo->limit) || lo->limit < 0)) {
    *error = BadRequest("invalid limit: " + limit);
    return false;
  }
  const std::string& m = lo->resource_version_match;
  if (!m.empty() && m != "NotOlderThan" && m != "Exact") {
    *error = BadRequest("resourceVersionMatch: Unsupported value: \"" + m + "\"");
    return false;
  }
  return true;
}

bool ParseDeleteOptions(const HttpRequest& request, const std::map<std::string, std::string>& q,
                        DeleteOptions* d, ApiError* error) {
  d->propagation_policy = Get(q, "propagationPolicy");
  std::string grace = Get(q, "gracePeriodSeconds");
  if (!grace.empty()) {
    int64_t g = 0;
    if (!ParseInt(grace, &g)) {
      *error = BadRequest("invalid gracePeriodSeconds: " + grace);
      return false;
    }
    d->grace_period_seconds = g;
  }
  std::string dry = Get(q, "dryRun");
  if (!dry.empty() && dry != "All") {
    *error = BadRequest("Invalid dryRun value: " + dry);
    return false;
  }
  d->dry_run = dry == "All";
  if (!request.body.empty()) {
    json::error_code ec;
    json::value v = ParseJson(request.body, ec);
    if (ec || !v.is_object()) {
      *error = BadRequest("error decoding DeleteOptions");
      return false;
    }
    const json::object& o = v.as_object();
    if (const auto* p = o.if_contains("propagationPolicy"); p != nullptr && p->is_string()) {
      d->propagation_policy = std::string(p->as_string());
    }
    if (const auto* od = o.if_contains("orphanDependents"); od != nullptr && od->is_bool()) {
      if (d->propagation_policy.empty()) {
        d->propagation_policy = od->as_bool() ? "Orphan" : "Background";
      }
    }
    if (const auto* g = o.if_contains("gracePeriodSeconds"); g != nullptr && g->is_int64()) {
      d->grace_period_seconds = g->as_int64();
    }
    if (const auto* pre = o.if_contains("preconditions"); pre != nullptr && pre->is_object()) {
      const auto& po = pre->as_object();
      if (const auto* u = po.if_contains("uid"); u != nullptr && u->is_string()) {
        d->precondition_uid = std::string(u->as_string());
      }
      if (const auto* rv = po.if_contains("resourceVersion"); rv != nullptr && rv->is_string()) {
        d->precondition_resource_version = std::string(rv->as_string());
      }
    }
    if (const auto* dr = o.if_contains("dryRun"); dr != nullptr && dr->is_array()) {
      for (const auto& x : dr->as_array()) {
        if (x.is_string() && x.as_string() == "All") {
          d->dry_run = true;
        } else {
          *error = BadRequest("Invalid dryRun value in DeleteOptions");
          return false;
        }
      }
    }
  }
  const std::string& p = d->propagation_policy;
  if (!p.empty() && p != "Background" && p != "Foreground" && p != "Orphan") {
    *error = MakeError(422, "Invalid",
                       "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported "
                       "value: \"" +
                           p +
                           "\": supported values: \"Foreground\", \"Background\", "
                           "\"Orphan\"");
    return false;
  }
  return true;
}

std::string EventLine(std::string_view type, json::value object) {
  std::string line = json::serialize(json::object{{"type", type}, {"object", std::move(object)}});
  line.push_back('\n');
  return line;
}

std::string GoneEventLine(const std::string& message) {
  return EventLine("ERROR", StatusObject(MakeError(410, "Expired", message)));
}

// A stream that has nothing more than its first chunk.
class EndedStream : public BodyStream {
 public:
  std::string Poll(int64_t, bool* done) override {
    *done = true;
    return "";
  }
  void Stop() override {}
};

struct TableMode {
  bool enabled = false;
  std::string group;
  std::string plural;
  std::vector<PrinterColumn> columns;
  std::string include_object;
};

class WatchStream : public BodyStream {
 public:
  WatchStream(std::shared_ptr<WatchHandle> handle, ResourceType type, TableMode table,
              bool bookmarks, int64_t bookmark_interval_ms, int64_t deadline_ms,
              int64_t drop_after_events, int64_t now_ms)
      : handle_(std::move(handle)),
        type_(std::move(type)),
        table_(std::move(table)),
        bookmarks_(bookmarks),
        bookmark_interval_ms_(bookmark_interval_ms),
        deadline_ms_(deadline_ms),
        drop_after_events_(drop_after_events),
        last_bookmark_ms_(now_ms) {}
  ~WatchStream() override { Stop(); }

  std::string Poll(int64_t now_ms, bool* done) override {
    *done = false;
    std::string out;
    if (stopped_) {
      *done = true;
      return out;
    }
    for (auto& ev : handle_->Drain()) {
      if (drop_after_events_ > 0 && sent_ >= drop_after_events_) break;
      if (ev.type == "BOOKMARK" && !bookmarks_) continue;
      bool error = ev.type == "ERROR";
      json::value object;
      if (table_.enabled && !error && ev.type != "BOOKMARK") {
        object = RenderTable(table_.group, table_.plural, table_.columns, {&ev.object},
                             table_.include_object, json::object{}, now_ms);
      } else {
        object = std::move(ev.object);
      }
      out += EventLine(ev.type, std::move(object));
      ++sent_;
      if (error) {
        Finish(done);
        return out;
      }
    }
    if (drop_after_events_ > 0 && sent_ >= drop_after_events_) {
      Finish(done);
      return out;
    }
    if (bookmarks_ && now_ms - last_bookmark_ms_ >= bookmark_interval_ms_) {
      last_bookmark_ms_ = now_ms;
      json::object bookmark{
          {"kind", type_.kind},
          {"apiVersion", type_.api_version()},
          {"metadata", json::object{{"resourceVersion", handle_->BookmarkResourceVersion()}}}};
      out += EventLine("BOOKMARK", std::move(bookmark));
    }
    if (now_ms >= deadline_ms_) Finish(done);
    return out;
  }

  void Stop() override {
    if (!stopped_) {
      stopped_ = true;
      handle_->Stop();
    }
  }

 private:
  void Finish(bool* done) {
    *done = true;
    Stop();
  }

  std::shared_ptr<WatchHandle> handle_;
  ResourceType type_;
  TableMode table_;
  bool bookmarks_;
  int64_t bookmark_interval_ms_;
  int64_t deadline_ms_;
  int64_t drop_after_events_;
  int64_t last_bookmark_ms_;
  int64_t sent_ = 0;
  bool stopped_ = false;
};

// Counts the streams alive (for /kubesim/stats): a stream dies when its connection ends.
class CountedStream : public BodyStream {
 public:
  CountedStream(std::shared_ptr<BodyStream> inner, std::shared_ptr<std::atomic<int64_t>> count)
      : inner_(std::move(inner)), count_(std::move(count)) {
    ++*count_;
  }
  ~CountedStream() override {
    inner_->Stop();
    --*count_;
  }
  std::string Poll(int64_t now_ms, bool* done) override { return inner_->Poll(now_ms, done); }
  void Stop() override { inner_->Stop(); }

 private:
  std::shared_ptr<BodyStream> inner_;
  std::shared_ptr<std::atomic<int64_t>> count_;
};

class LogStream : public BodyStream {
 public:
  LogStream(std::shared_ptr<LogFollower> follower, std::optional<int64_t> limit_bytes,
            int64_t already_sent)
      : follower_(std::move(follower)), limit_bytes_(limit_bytes), sent_(already_sent) {}
  ~LogStream() override { Stop(); }

  std::string Poll(int64_t, bool* done) override {
    *done = false;
    if (stopped_) {
      *done = true;
      return "";
    }
    std::string out = follower_->Drain();
    if (follower_->Finished()) {
      // Whatever the container wrote before it terminated still belongs to the log.
      out += follower_->Drain();
      *done = true;
    }
    if (limit_bytes_ && sent_ + static_cast<int64_t>(out.size()) >= *limit_bytes_) {
      out.resize(static_cast<size_t>(std::max<int64_t>(0, *limit_bytes_ - sent_)));
      *done = true;
    }
    sent_ += static_cast<int64_t>(out.size());
    if (*done) Stop();
    return out;
  }

  void Stop() override {
    if (!stopped_) {
      stopped_ = true;
      follower_->Stop();
    }
  }

 private:
  std::shared_ptr<LogFollower> follower_;
  std::optional<int64_t> limit_bytes_;
  int64_t sent_;
  bool stopped_ = false;
};

void PrettyTo(const json::value& v, int indent, std::string* out) {
  auto pad = [&](int n) { out->append(static_cast<size_t>(n) * 2, ' '); };
  if (v.is_object()) {
    const auto& o = v.as_object();
    if (o.empty()) {
      out->append("{}");
      return;
    }
    out->append("{\n");
    size_t i = 0;
    for (const auto& kv : o) {
      pad(indent + 1);
      out->append(json::serialize(json::value(kv.key())));
      out->append(": ");
      PrettyTo(kv.value(), indent + 1, out);
      out->append(++i < o.size() ? ",\n" : "\n");
    }
    pad(indent);
    out->push_back('}');
  } else if (v.is_array()) {
    const auto& a = v.as_array();
    if (a.empty()) {
      out->append("[]");
      return;
    }
    out->append("[\n");
    for (size_t i = 0; i < a.size(); ++i) {
      pad(indent + 1);
      PrettyTo(a[i], indent + 1, out);
      out->append(i + 1 < a.size() ? ",\n" : "\n");
    }
    pad(indent);
    out->push_back(']');
  } else {
    out->append(json::serialize(v));
  }
}

json::object ResourceEntry(const ResourceType& t, const std::string& name,
                           const std::vector<std::string>& verbs, bool with_names) {
  json::array jv;
  for (const auto& v : verbs) jv.push_back(json::value(v));
  json::object e{{"name", name},
                 {"singularName", with_names ? t.singular : std::string()},
                 {"namespaced", t.namespaced},
                 {"kind", t.kind},
                 {"verbs", std::move(jv)}};
  if (with_names && !t.short_names.empty()) {
    json::array sn;
    for (const auto& s : t.short_names) sn.push_back(json::value(s));
    e["shortNames"] = std::move(sn);
  }
  if (with_names && !t.categories.empty()) {
    json::array c;
    for (const auto& s : t.categories) c.push_back(json::value(s));
    e["categories"] = std::move(c);
  }
  return e;
}

// Version names in the order Kubernetes prefers them: GA > beta > alpha, newer first.
int VersionRank(const std::string& v) {
  int major = 0;
  size_t i = 1;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    major = major * 10 + (v[i++] - '0');
  }
  std::string rest = v.substr(i);
  int stability = rest.empty() ? 3 : rest.rfind("beta", 0) == 0 ? 2 : 1;
  int minor = 0;
  for (char c : rest) {
    if (std::isdigit(static_cast<unsigned char>(c))) minor = minor * 10 + (c - '0');
  }
  return stability * 1000000 + major * 1000 + minor;
}

json::object OpenApiOperation(const ResourceType& t, const std::string& action, bool with_body) {
  json::array params;
  auto param = [&](const char* name) {
    params.push_back(
        json::object{{"name", name},
                     {"in", "query"},
                     {"schema", json::object{{"type", "string"}, {"uniqueItems", true}}}});
  };
  if (action == "patch" || action == "put" || action == "post") {
    param("dryRun");
    param("fieldManager");
    param("fieldValidation");
  }
  if (action == "patch") param("force");
  json::object op{
      {"operationId", action + t.kind},
      {"x-kubernetes-action", action},
      {"x-kubernetes-group-version-kind",
       json::object{{"group", t.group}, {"version", t.version}, {"kind", t.kind}}},
      {"parameters", std::move(params)},
      {"responses", json::object{{"200", json::object{{"description", "OK"}}},
                                 {"401", json::object{{"description", "Unauthorized"}}}}}};
  if (with_body) {
    json::object schema{{"type", "object"}};
    json::object content;
    if (action == "patch") {
      // No strategic merge for anything here: kubectl then computes JSON merge patches for
      // custom resources, as it does against a real API server.
      for (const char* mt : {"application/json-patch+json", "application/merge-patch+json",
                             "application/apply-patch+yaml"}) {
        content[mt] = json::object{{"schema", schema}};
      }
    } else {
      content["application/json"] = json::object{{"schema", schema}};
    }
    op["requestBody"] = json::object{{"content", std::move(content)}, {"required", true}};
  }
  return op;
}

}  // namespace

ApiError MakeError(int code, std::string reason, std::string message) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

json::object StatusObject(const ApiError& error) {
  json::object s{{"kind", "Status"},    {"apiVersion", "v1"},       {"metadata", json::object{}},
                 {"status", "Failure"}, {"message", error.message}, {"reason", error.reason},
                 {"code", error.code}};
  if (!error.details.empty()) s["details"] = error.details;
  return s;
}

HttpResponse ErrorResponse(const ApiError& error) {
  HttpResponse r = JsonResponse(error.code, StatusObject(error));
  if (const auto* ra = error.details.if_contains("retryAfterSeconds");
      ra != nullptr && ra->is_int64()) {
    r.headers.emplace_back("Retry-After", std::to_string(ra->as_int64()));
  }
  return r;
}

std::string PrettyJson(const json::value& value) {
  std::string out;
  PrettyTo(value, 0, &out);
  out.push_back('\n');
  return out;
}

std::vector<ResourceType> CrdTypes(const Crd& crd) {
  std::vector<ResourceType> out;
  for (const CrdVersion& v : crd.versions) {
    if (!v.served) continue;
    ResourceType t;
    t.group = crd.group;
    t.version = v.name;
    t.plural = crd.plural;
    t.singular = crd.singular;
    t.kind = crd.kind;
    t.list_kind = crd.list_kind.empty() ? crd.kind + "List" : crd.list_kind;
    t.short_names = crd.short_names;
    t.categories = crd.categories;
    t.namespaced = crd.namespaced;
    t.status_subresource = v.status_subresource;
    if (std::shared_ptr<const Schema> schema = v.schema) {
      t.validator = [schema](json::object& obj, bool strict,
                             std::vector<std::string>* unknown_fields) {
        return schema->Validate(obj, strict, unknown_fields);
      };
    }
    out.push_back(std::move(t));
  }
  return out;
}

Api::Api(Store& store, TokenFile& tokens, ApiOptions options, std::function<int64_t()> now_ms)
    : store_(store), tokens_(tokens), options_(std::move(options)), now_ms_(std::move(now_ms)) {}

void Api::AddCrd(const Crd& crd) {
  for (const ResourceType& t : CrdTypes(crd)) store_.RegisterType(t);
  std::lock_guard<std::mutex> lock(crd_mu_);
  std::string preferred;
  for (const CrdVersion& v : crd.versions) {
    if (v.served && (v.storage || preferred.empty())) preferred = v.name;
    if (v.served) {
      printer_columns_[crd.group + "/" + v.name + "/" + crd.plural] =
          std::make_shared<const json::array>(v.additional_printer_columns);
    }
  }
  if (!preferred.empty()) preferred_versions_[crd.group] = preferred;
  json::object obj = crd.object;
  obj["apiVersion"] = "apiextensions.k8s.io/v1";
  obj["kind"] = "CustomResourceDefinition";
  json::object& meta =
      obj["metadata"].is_object() ? obj["metadata"].as_object() : obj["metadata"].emplace_object();
  meta["name"] = crd.name;
  if (!meta.contains("uid")) {
    meta["uid"] = "crd-" + std::to_string(std::hash<std::string>{}(crd.name));
  }
  meta["resourceVersion"] = "1";
  meta["generation"] = 1;
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = Rfc3339Seconds(now_ms_());
  json::array stored;
  if (!preferred.empty()) stored.push_back(json::value(preferred));
  json::array short_names;
  for (const auto& s : crd.short_names) short_names.push_back(json::value(s));
  std::string now = Rfc3339Seconds(now_ms_());
  obj["status"] = json::object{
      {"acceptedNames", json::object{{"plural", crd.plural},
                                     {"singular", crd.singular},
                                     {"kind", crd.kind},
                                     {"listKind", crd.list_kind},
                                     {"shortNames", short_names}}},
      {"conditions", json::array{json::object{{"type", "NamesAccepted"},
                                              {"status", "True"},
                                              {"reason", "NoConflicts"},
                                              {"message", "no conflicts found"},
                                              {"lastTransitionTime", now}},
                                 json::object{{"type", "Established"},
                                              {"status", "True"},
                                              {"reason", "InitialNamesAccepted"},
                                              {"message", "the initial names have been accepted"},
                                              {"lastTransitionTime", now}}}},
      {"storedVersions", stored}};
  crd_objects_[crd.name] = std::move(obj);
}

HttpResponse Api::Handle(const HttpRequest& request, const std::function<void()>& notify) {
  std::string_view path;
  std::string_view query_text;
  SplitTarget(request.target, &path, &query_text);
  Query query;
  if (!ParseQuery(query_text, &query)) {
    return ErrorResponse(BadRequest("malformed query string"));
  }
  HttpResponse r = Dispatch(request, ParseApiPath(path), query, notify);
  if (IsTrue(Get(query, "pretty")) && !r.stream &&
      MediaType(r.content_type) == "application/json") {
    json::error_code ec;
    json::value v = ParseJson(r.body, ec);
    if (!ec) r.body = PrettyJson(v);
  }
  return r;
}

HttpResponse Api::Dispatch(const HttpRequest& request, const ApiPath& path, const Query& query,
                           const std::function<void()>& notify) {
  using Kind = ApiPath::Kind;
  // Like the API server's system:public-info-viewer: version and health need no credentials.
  if (path.kind == Kind::kVersion || path.kind == Kind::kHealth) {
    if (request.method != "GET" && request.method != "HEAD") {
      return ErrorResponse(MakeError(405, "MethodNotAllowed", "method not allowed"));
    }
    if (path.kind == Kind::kHealth) {
      HttpResponse r;
      r.content_type = "text/plain; charset=utf-8";
      r.body = "ok";
      return r;
    }
    std::string minor = "32";
    if (size_t dot = options_.git_version.find('.'); dot != std::string::npos) {
      minor =
          options_.git_version.substr(dot + 1, options_.git_version.find('.', dot + 1) - dot - 1);
    }
    return JsonResponse(200, json::object{{"major", "1"},
                                          {"minor", minor},
                                          {"gitVersion", options_.git_version},
                                          {"gitCommit", "kubesim"},
                                          {"gitTreeState", "clean"},
                                          {"buildDate", "2026-01-01T00:00:00Z"},
                                          {"goVersion", "go1.23.0"},
                                          {"compiler", "gc"},
                                          {"platform", "linux/amd64"}});
  }
  if (!request.client_cert_verified && !tokens_.Check(request.authorization)) {
    return ErrorResponse(MakeError(401, "Unauthorized", "Unauthorized"));
  }
  bool is_get = request.method == "GET" || request.method == "HEAD";
  switch (path.kind) {
    case Kind::kCoreVersions:
    case Kind::kGroupList:
    case Kind::kGroup:
    case Kind::kResourceList:
    case Kind::kOpenApiV2:
    case Kind::kOpenApiV3Root:
    case Kind::kOpenApiV3Doc:
      if (!is_get) {
        return ErrorResponse(MakeError(405, "MethodNotAllowed",
                                       "the server does not allow this method on the requested "
                                       "resource"));
      }
      break;
    default:
      break;
  }
  switch (path.kind) {
    case Kind::kCoreVersions:
      return CoreVersions();
    case Kind::kGroupList:
      return GroupList();
    case Kind::kGroup:
      return Group(path.group);
    case Kind::kResourceList:
      return ResourceList(path.group, path.version);
    case Kind::kOpenApiV2:
      return OpenApiV2(request);
    case Kind::kOpenApiV3Root:
      return OpenApiV3Root();
    case Kind::kOpenApiV3Doc:
      return OpenApiV3Doc(path.group, path.version);
    case Kind::kKubesim:
      return HandleKubesim(request, path);
    case Kind::kResource:
      return HandleResource(request, path, query, notify);
    default:
      return ErrorResponse(NotFoundPath());
  }
}

const boost::json::array* Api::PrinterColumns(const ResourceType& type) const {
  std::lock_guard<std::mutex> lock(crd_mu_);
  auto it = printer_columns_.find(type.group + "/" + type.version + "/" + type.plural);
  return it == printer_columns_.end() ? nullptr : it->second.get();
}

HttpResponse Api::HandleResource(const HttpRequest& request, const ApiPath& path,
                                 const Query& query, const std::function<void()>& notify) {
  if (path.group == "apiextensions.k8s.io" && path.version == "v1" &&
      path.plural == "customresourcedefinitions") {
    return HandleCrds(request, path, query);
  }
  const ResourceType* found = store_.FindType(path.group, path.version, path.plural);
  if (found == nullptr) return ErrorResponse(NotFoundPath());
  const ResourceType type = *found;
  if ((!type.namespaced && !path.ns.empty()) ||
      (type.namespaced && path.ns.empty() && !path.name.empty())) {
    return ErrorResponse(NotFoundPath());
  }
  bool watch = path.legacy_watch || IsTrue(Get(query, "watch"));
  bool status_sub = false;
  bool log_sub = false;
  if (!path.subresource.empty()) {
    if (path.subresource == "status" && type.status_subresource) {
      status_sub = true;
    } else if (path.subresource == "log" && type.group.empty() && type.plural == "pods") {
      log_sub = true;
    } else {
      return ErrorResponse(NotFoundPath());
    }
  }
  const std::string& m = request.method;
  std::string verb;
  if (m == "GET" || m == "HEAD") {
    verb = log_sub ? "log" : watch ? "watch" : path.name.empty() ? "list" : "get";
  } else if (m == "POST" && path.name.empty()) {
    verb = "create";
  } else if (m == "PUT" && !path.name.empty() && !log_sub) {
    verb = "update";
  } else if (m == "PATCH" && !path.name.empty() && !log_sub) {
    verb = "patch";
  } else if (m == "DELETE" && !status_sub && !log_sub) {
    verb = path.name.empty() ? "deletecollection" : "delete";
  } else {
    return ErrorResponse(MakeError(405, "MethodNotAllowed",
                                   "the server does not allow this method on the requested "
                                   "resource"));
  }

  std::optional<Fault> fault = faults_.Match(verb, type.plural, path.ns);
  auto finish = [&](HttpResponse r) {
    if (fault) {
      r.latency_ms = fault->latency_ms;
      r.reset_mid_body = fault->reset_mid_body && !r.stream;
    }
    if (r.stream) r.stream = std::make_shared<CountedStream>(std::move(r.stream), active_streams_);
    stats_.Record(verb, type.plural, r.status);
    return r;
  };
  auto fail = [&](const ApiError& e) { return finish(ErrorResponse(e)); };
  if (fault) {
    if (fault->revoke_token) return fail(MakeError(401, "Unauthorized", "Unauthorized"));
    if (fault->status != 0) {
      ApiError e;
      e.code = fault->status;
      if (e.code == 429) {
        e.reason = "TooManyRequests";
        e.message = "Too many requests, please try again later.";
        e.details["retryAfterSeconds"] =
            fault->retry_after_seconds > 0 ? fault->retry_after_seconds : 1;
      } else if (e.code == 503) {
        e.reason = "ServiceUnavailable";
        e.message = "The server is currently unable to handle the request (injected fault)";
        if (fault->retry_after_seconds > 0) {
          e.details["retryAfterSeconds"] = fault->retry_after_seconds;
        }
      } else {
        e.reason = "InternalError";
        e.message = "Internal error occurred: injected fault";
      }
      return fail(e);
    }
    if (fault->force_gone && verb != "watch") {
      return fail(MakeError(410, "Expired", "too old resource version (injected fault)"));
    }
  }

  ApiError error;
  bool table = AcceptsTable(request.accept) && !log_sub;
  auto table_mode = [&]() {
    TableMode t;
    t.enabled = table;
    t.group = type.group;
    t.plural = type.plural;
    t.columns = TableColumns(type.group, type.plural, PrinterColumns(type));
    t.include_object = Get(query, "includeObject");
    return t;
  };

  if (verb == "log") {
    LogOptions lo;
    lo.container = Get(query, "container");
    for (const char* key : {"tailLines", "limitBytes"}) {
      std::string v = Get(query, key);
      if (v.empty()) continue;
      int64_t n = 0;
      if (!ParseInt(v, &n) || n < 0) return fail(BadRequest(std::string("invalid ") + key));
      (std::string(key) == "tailLines" ? lo.tail_lines : lo.limit_bytes) = n;
    }
    lo.previous = IsTrue(Get(query, "previous"));
    if (auto synthetic = SyntheticLogStream(store_, path.ns, path.name, lo, notify)) {
      // A benchmark's log of any size, generated as it is sent (see seed.h). Its container has
      // terminated, so following it ends with the log, as it does on a kubelet.
      HttpResponse resp;
      resp.content_type = "text/plain";
      bool done = false;
      resp.body = synthetic->Poll(now_ms_(), &done);
      if (!done) resp.stream = std::move(synthetic);
      return finish(std::move(resp));
    }
    if (IsTrue(Get(query, "follow"))) {
      auto r = store_.FollowLog(path.ns, path.name, lo, notify);
      if (!r.ok()) return fail(r.error());
      HttpResponse resp;
      resp.content_type = "text/plain";
      resp.stream = std::make_shared<LogStream>(r.value(), lo.limit_bytes, 0);
      return finish(std::move(resp));
    }
    auto r = store_.ReadLog(path.ns, path.name, lo);
    if (!r.ok()) return fail(r.error());
    HttpResponse resp;
    resp.content_type = "text/plain";
    resp.body = std::move(r.value());
    return finish(std::move(resp));
  }

  if (verb == "watch") {
    ListOptions lo;
    if (!ParseListOptions(query, &lo, &error)) return fail(error);
    if (!path.name.empty()) {
      std::string by_name = "metadata.name=" + path.name;
      lo.field_selector = lo.field_selector.empty() ? by_name : lo.field_selector + "," + by_name;
    }
    int64_t timeout_ms = options_.default_watch_timeout_ms;
    if (std::string ts = Get(query, "timeoutSeconds"); !ts.empty()) {
      int64_t s = 0;
      if (!ParseInt(ts, &s) || s < 0) return fail(BadRequest("invalid timeoutSeconds: " + ts));
      timeout_ms = s * 1000;
    }
    HttpResponse resp;
    if (fault && fault->force_gone) {
      resp.body = GoneEventLine("too old resource version (injected fault)");
      resp.stream = std::make_shared<EndedStream>();
      return finish(std::move(resp));
    }
    auto r = store_.Watch(type, path.ns, lo, notify);
    if (!r.ok()) {
      // The API server reports an expired resourceVersion inside the watch stream.
      if (r.error().code != 410) return fail(r.error());
      resp.body = EventLine("ERROR", StatusObject(r.error()));
      resp.stream = std::make_shared<EndedStream>();
      return finish(std::move(resp));
    }
    int64_t now = now_ms_();
    resp.stream = std::make_shared<WatchStream>(r.value(), type, table_mode(),
                                                IsTrue(Get(query, "allowWatchBookmarks")),
                                                options_.bookmark_interval_ms, now + timeout_ms,
                                                fault ? fault->drop_watch_after_events : 0, now);
    return finish(std::move(resp));
  }

  if (verb == "list") {
    ListOptions lo;
    if (!ParseListOptions(query, &lo, &error)) return fail(error);
    auto r = store_.List(type, path.ns, lo);
    if (!r.ok()) return fail(r.error());
    if (!table) return finish(JsonResponse(200, r.value()));
    std::vector<const json::object*> items;
    const json::object& list = r.value();
    if (const auto* it = list.if_contains("items"); it != nullptr && it->is_array()) {
      for (const auto& item : it->as_array()) {
        if (item.is_object()) items.push_back(&item.as_object());
      }
    }
    json::object meta;
    if (const auto* lm = list.if_contains("metadata"); lm != nullptr && lm->is_object()) {
      meta = lm->as_object();
    }
    TableMode t = table_mode();
    return finish(JsonResponse(
        200, RenderTable(t.group, t.plural, t.columns, items, t.include_object, meta, now_ms_())));
  }

  if (verb == "get") {
    auto r = store_.Get(type, path.ns, path.name);
    if (!r.ok()) return fail(r.error());
    if (!table || status_sub) return finish(JsonResponse(200, r.value()));
    TableMode t = table_mode();
    json::object meta{{"resourceVersion", MetaString(r.value(), "resourceVersion")}};
    return finish(JsonResponse(200, RenderTable(t.group, t.plural, t.columns, {&r.value()},
                                                t.include_object, meta, now_ms_())));
  }

  if (verb == "create" || verb == "update") {
    WriteOptions wo;
    if (!ParseWriteOptions(query, &wo, &error)) return fail(error);
    json::object obj;
    if (!ParseBody(request, &obj, &error)) return fail(error);
    if (!CheckBodyIdentity(type, path.ns, path.name, obj, &error)) return fail(error);
    auto r = verb == "create"
                 ? store_.Create(type, path.ns, std::move(obj), wo)
                 : store_.Update(type, path.ns, path.name, std::move(obj), status_sub, wo);
    if (!r.ok()) return fail(r.error());
    return finish(JsonResponse(verb == "create" ? 201 : 200, r.value()));
  }

  if (verb == "patch") {
    WriteOptions wo;
    if (!ParseWriteOptions(query, &wo, &error)) return fail(error);
    std::string media = MediaType(request.content_type);
    PatchType pt;
    if (media == "application/merge-patch+json") {
      pt = PatchType::kMerge;
    } else if (media == "application/json-patch+json") {
      pt = PatchType::kJson;
    } else if (media == "application/strategic-merge-patch+json") {
      pt = PatchType::kStrategicMerge;
    } else if (media == "application/apply-patch+yaml") {
      return fail(MakeError(415, "UnsupportedMediaType",
                            "server-side apply (application/apply-patch+yaml) is not supported "
                            "by kubesim; use client-side apply"));
    } else {
      return fail(MakeError(415, "UnsupportedMediaType",
                            "the body of the request was in an unknown format - accepted media "
                            "types include: application/json-patch+json, "
                            "application/merge-patch+json, "
                            "application/strategic-merge-patch+json"));
    }
    auto r = store_.Patch(type, path.ns, path.name, pt, request.body, status_sub, wo);
    if (!r.ok()) return fail(r.error());
    return finish(JsonResponse(200, r.value()));
  }

  // delete, deletecollection
  DeleteOptions d;
  if (!ParseDeleteOptions(request, query, &d, &error)) return fail(error);
  if (verb == "delete") {
    auto r = store_.Delete(type, path.ns, path.name, d);
    if (!r.ok()) return fail(r.error());
    return finish(JsonResponse(200, r.value()));
  }
  ListOptions lo;
  if (!ParseListOptions(query, &lo, &error)) return fail(error);
  auto r = store_.DeleteCollection(type, path.ns, lo, d);
  if (!r.ok()) return fail(r.error());
  return finish(JsonResponse(200, r.value()));
}

HttpResponse Api::HandleCrds(const HttpRequest& request, const ApiPath& path, const Query& query) {
  if (!path.ns.empty() || !path.subresource.empty()) return ErrorResponse(NotFoundPath());
  auto not_found = [&](const std::string& name) {
    ApiError e =
        MakeError(404, "NotFound",
                  "customresourcedefinitions.apiextensions.k8s.io \"" + name + "\" not found");
    e.details = json::object{
        {"name", name}, {"group", "apiextensions.k8s.io"}, {"kind", "customresourcedefinitions"}};
    return ErrorResponse(e);
  };
  bool table = AcceptsTable(request.accept);
  if (request.method == "GET" && path.name.empty()) {
    json::array items;
    {
      std::lock_guard<std::mutex> lock(crd_mu_);
      for (const auto& [name, obj] : crd_objects_) items.push_back(obj);
    }
    json::object meta{{"resourceVersion", "1"}};
    if (table) {
      std::vector<const json::object*> ptrs;
      for (const auto& i : items) ptrs.push_back(&i.as_object());
      return JsonResponse(200, RenderTable("apiextensions.k8s.io", "customresourcedefinitions",
                                           TableColumns("apiextensions.k8s.io",
                                                        "customresourcedefinitions", nullptr),
                                           ptrs, Get(query, "includeObject"), meta, now_ms_()));
    }
    return JsonResponse(200, json::object{{"kind", "CustomResourceDefinitionList"},
                                          {"apiVersion", "apiextensions.k8s.io/v1"},
                                          {"metadata", meta},
                                          {"items", std::move(items)}});
  }
  if (request.method == "GET") {
    std::lock_guard<std::mutex> lock(crd_mu_);
    auto it = crd_objects_.find(path.name);
    if (it == crd_objects_.end()) return not_found(path.name);
    return JsonResponse(200, it->second);
  }
  if (request.method == "POST" && path.name.empty()) {
    json::object obj;
    ApiError error;
    if (!ParseBody(request, &obj, &error)) return ErrorResponse(error);
    std::string message;
    std::unique_ptr<Crd> crd = CrdFromJson(obj, &message);
    if (!crd) {
      return ErrorResponse(MakeError(
          422, "Invalid", "CustomResourceDefinition.apiextensions.k8s.io is invalid: " + message));
    }
    {
      std::lock_guard<std::mutex> lock(crd_mu_);
      if (crd_objects_.count(crd->name) > 0) {
        ApiError e = MakeError(
            409, "AlreadyExists",
            "customresourcedefinitions.apiextensions.k8s.io \"" + crd->name + "\" already exists");
        e.details = json::object{{"name", crd->name},
                                 {"group", "apiextensions.k8s.io"},
                                 {"kind", "customresourcedefinitions"}};
        return ErrorResponse(e);
      }
    }
    AddCrd(*crd);
    std::lock_guard<std::mutex> lock(crd_mu_);
    return JsonResponse(201, crd_objects_[crd->name]);
  }
  return ErrorResponse(MakeError(405, "MethodNotAllowed",
                                 "kubesim serves CustomResourceDefinitions for get, list and "
                                 "create only"));
}

HttpResponse Api::HandleKubesim(const HttpRequest& request, const ApiPath& path) {
  const auto& rest = path.rest;
  const std::string& m = request.method;
  if (!rest.empty() && rest[0] == "faults") {
    if (rest.size() == 1 && m == "POST") {
      json::error_code ec;
      json::value v = ParseJson(request.body, ec);
      if (ec || !v.is_object()) return ErrorResponse(BadRequest("a fault is a JSON object"));
      Fault added;
      std::string message;
      if (!faults_.Add(v.as_object(), &added, &message)) {
        return ErrorResponse(BadRequest("invalid fault: " + message));
      }
      return JsonResponse(201, json::object{{"id", added.id}});
    }
    if (rest.size() == 1 && m == "GET") {
      return JsonResponse(200, json::object{{"items", faults_.List()}});
    }
    if (rest.size() == 1 && m == "DELETE") {
      faults_.Clear();
      return JsonResponse(200, json::object{});
    }
    if (rest.size() == 2 && m == "DELETE") {
      if (!faults_.Remove(rest[1])) {
        return ErrorResponse(MakeError(404, "NotFound", "fault \"" + rest[1] + "\" not found"));
      }
      return JsonResponse(200, json::object{});
    }
  } else if (rest.size() == 1 && rest[0] == "stats") {
    if (m == "GET") {
      json::object s = stats_.ToJson();
      s["activeStreams"] = active_streams_->load();
      return JsonResponse(200, s);
    }
    if (m == "DELETE") {
      stats_.Reset();
      return JsonResponse(200, json::object{});
    }
  } else if (rest.size() == 1 && rest[0] == "compact" && m == "POST") {
    store_.Compact();
    return JsonResponse(200, json::object{{"resourceVersion", store_.CurrentResourceVersion()}});
  } else {
    return ErrorResponse(NotFoundPath());
  }
  return ErrorResponse(MakeError(405, "MethodNotAllowed", "method not allowed"));
}

std::map<std::string, std::vector<std::string>> Api::GroupVersions() const {
  std::map<std::string, std::vector<std::string>> out;
  for (const ResourceType& t : store_.Types()) {
    auto& versions = out[t.group];
    if (std::find(versions.begin(), versions.end(), t.version) == versions.end()) {
      versions.push_back(t.version);
    }
  }
  out["apiextensions.k8s.io"] = {"v1"};
  std::lock_guard<std::mutex> lock(crd_mu_);
  for (auto& [group, versions] : out) {
    std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
      return VersionRank(a) > VersionRank(b);
    });
    auto it = preferred_versions_.find(group);
    if (it != preferred_versions_.end()) {
      auto pos = std::find(versions.begin(), versions.end(), it->second);
      if (pos != versions.end()) std::rotate(versions.begin(), pos, pos + 1);
    }
  }
  return out;
}

HttpResponse Api::CoreVersions() const {
  return JsonResponse(200, json::object{{"kind", "APIVersions"},
                                        {"versions", json::array{"v1"}},
                                        {"serverAddressByClientCIDRs", json::array{}}});
}

HttpResponse Api::GroupList() const {
  json::array groups;
  for (const auto& [group, versions] : GroupVersions()) {
    if (group.empty()) continue;
    json::array vs;
    for (const auto& v : versions) {
      vs.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
    }
    groups.push_back(
        json::object{{"name", group}, {"versions", vs}, {"preferredVersion", vs.front()}});
  }
  return JsonResponse(
      200,
      json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}});
}

HttpResponse Api::Group(const std::string& group) const {
  auto all = GroupVersions();
  auto it = all.find(group);
  if (group.empty() || it == all.end()) return ErrorResponse(NotFoundPath());
  json::array vs;
  for (const auto& v : it->second) {
    vs.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
  }
  return JsonResponse(200, json::object{{"kind", "APIGroup"},
                                        {"apiVersion", "v1"},
                                        {"name", group},
                                        {"versions", vs},
                                        {"preferredVersion", vs.front()}});
}

HttpResponse Api::ResourceList(const std::string& group, const std::string& version) const {
  json::array resources;
  if (group == "apiextensions.k8s.io" && version == "v1") {
    ResourceType crd;
    crd.singular = "customresourcedefinition";
    crd.kind = "CustomResourceDefinition";
    crd.short_names = {"crd", "crds"};
    crd.categories = {"api-extensions"};
    crd.namespaced = false;
    resources.push_back(ResourceEntry(crd, "customresourcedefinitions", kAllVerbs, true));
    resources.push_back(
        ResourceEntry(crd, "customresourcedefinitions/status", {"get", "patch", "update"}, false));
  } else {
    std::vector<ResourceType> types;
    for (const ResourceType& t : store_.Types()) {
      if (t.group == group && t.version == version) types.push_back(t);
    }
    if (types.empty()) return ErrorResponse(NotFoundPath());
    std::sort(types.begin(), types.end(),
              [](const ResourceType& a, const ResourceType& b) { return a.plural < b.plural; });
    for (const ResourceType& t : types) {
      std::vector<std::string> verbs = kAllVerbs;
      if (group.empty() && t.plural == "namespaces") {
        verbs.erase(std::find(verbs.begin(), verbs.end(), "deletecollection"));
      }
      resources.push_back(ResourceEntry(t, t.plural, verbs, true));
      if (group.empty() && t.plural == "pods") {
        resources.push_back(ResourceEntry(t, "pods/log", {"get"}, false));
      }
      if (t.status_subresource) {
        resources.push_back(
            ResourceEntry(t, t.plural + "/status", {"get", "patch", "update"}, false));
      }
    }
  }
  return JsonResponse(
      200, json::object{{"kind", "APIResourceList"},
                        {"apiVersion", "v1"},
                        {"groupVersion", group.empty() ? version : group + "/" + version},
                        {"resources", std::move(resources)}});
}

HttpResponse Api::OpenApiV2(const HttpRequest& request) const {
  HttpResponse r;
  if (request.accept.find("protobuf") != std::string::npos) {
    // An empty protobuf message is a valid, empty openapi_v2.Document: clients that load it
    // find no schemas and fall back to their generic behaviour (JSON merge patches for custom
    // resources), which is also what they do for CRDs without published schemas.
    // The API server labels it application/octet-stream: the media type clients ask for has an
    // '@', which Go's mime parser rejects, so kubectl up to 1.2x fails on a response carrying it
    // ("mime: unexpected content after media subtype").
    r.content_type = "application/octet-stream";
    return r;
  }
  r.body = json::serialize(json::object{
      {"swagger", "2.0"},
      {"info", json::object{{"title", "Kubernetes"}, {"version", options_.git_version}}},
      {"paths", json::object{}}});
  return r;
}

HttpResponse Api::OpenApiV3Root() const {
  json::object paths;
  for (const auto& [group, versions] : GroupVersions()) {
    for (const auto& v : versions) {
      std::string key = group.empty() ? "api/" + v : "apis/" + group + "/" + v;
      // The hash lets clients cache documents; it changes with the set of served types.
      std::string doc = OpenApiV3Doc(group, v).body;
      paths[key] = json::object{
          {"serverRelativeURL",
           "/openapi/v3/" + key + "?hash=" + std::to_string(std::hash<std::string>{}(doc))}};
    }
  }
  return JsonResponse(200, json::object{{"paths", std::move(paths)}});
}

HttpResponse Api::OpenApiV3Doc(const std::string& group, const std::string& version) const {
  std::vector<ResourceType> types;
  if (group == "apiextensions.k8s.io" && version == "v1") {
    ResourceType crd;
    crd.group = group;
    crd.version = version;
    crd.plural = "customresourcedefinitions";
    crd.kind = "CustomResourceDefinition";
    crd.namespaced = false;
    types.push_back(crd);
  } else {
    for (const ResourceType& t : store_.Types()) {
      if (t.group == group && t.version == version) types.push_back(t);
    }
  }
  if (types.empty()) return ErrorResponse(NotFoundPath());
  std::string prefix = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  json::object paths;
  for (const ResourceType& t : types) {
    std::string collection = prefix + (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.plural;
    paths[collection] = json::object{{"get", OpenApiOperation(t, "list", false)},
                                     {"post", OpenApiOperation(t, "post", true)},
                                     {"delete", OpenApiOperation(t, "deletecollection", false)}};
    paths[collection + "/{name}"] = json::object{{"get", OpenApiOperation(t, "get", false)},
                                                 {"put", OpenApiOperation(t, "put", true)},
                                                 {"patch", OpenApiOperation(t, "patch", true)},
                                                 {"delete", OpenApiOperation(t, "delete", false)}};
  }
  return JsonResponse(200, json::object{{"openapi", "3.0.0"},
                                        {"info", json::object{{"title", "Kubernetes"},
                                                              {"version", options_.git_version}}},
                                        {"paths", std::move(paths)},
                                        {"components", json::object{{"schemas", json::object{}}}}});
}

}  // namespace kubesim
