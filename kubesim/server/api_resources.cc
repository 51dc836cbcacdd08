// Resource requests: the verb of the request, injected faults, then the store.

#include <algorithm>

#include "kubesim/server/api.h"
#include "kubesim/server/api_request.h"
#include "kubesim/server/api_streams.h"
#include "kubesim/server/pod_proxy.h"
#include "kubesim/server/seed.h"
#include "kubesim/server/table.h"

namespace kubesim {

namespace json = boost::json;
using api_internal::BadRequest;
using api_internal::CheckBodyIdentity;
using api_internal::CountedStream;
using api_internal::EndedStream;
using api_internal::EventLine;
using api_internal::Get;
using api_internal::GoneEventLine;
using api_internal::IsTrue;
using api_internal::JsonResponse;
using api_internal::LogStream;
using api_internal::MediaType;
using api_internal::MetaString;
using api_internal::NotFoundPath;
using api_internal::ParseBody;
using api_internal::ParseDeleteOptions;
using api_internal::ParseInt;
using api_internal::ParseListOptions;
using api_internal::ParseWriteOptions;
using api_internal::TableMode;
using api_internal::WatchStream;

HttpResponse Api::HandleResource(const HttpRequest& request, const ApiPath& path,
                                 const Query& query, const rbac::UserInfo& user,
                                 const std::function<void()>& notify) {
  // Authorization comes before routing, as in the API server: a request RBAC denies gets 403
  // whether or not what it names exists.
  if (!user.superuser) {
    rbac::Attributes a = ResourceAttributes(request, path, query);
    if (!rbac::Allowed(store_, user, a)) {
      stats_.Record(a.verb, path.plural, 403);
      stats_.RecordForbidden(user.name, a.verb, a.api_group,
                             a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource);
      return ErrorResponse(rbac::Forbidden(user, a));
    }
  }
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
    } else if (path.subresource == "proxy" && type.group.empty() && type.plural == "pods" &&
               !path.name.empty()) {
      HttpResponse proxied = PodProxy(store_, request, path);
      stats_.Record("get", "pods/proxy", proxied.status);
      return proxied;
    } else if (path.subresource == "token" && type.group.empty() &&
               type.plural == "serviceaccounts" && !path.name.empty()) {
      if (request.method != "POST") {
        return ErrorResponse(MakeError(405, "MethodNotAllowed",
                                       "the server does not allow this method on the requested "
                                       "resource"));
      }
      return HandleTokenRequest(request, path, type);
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
    lo.timestamps = IsTrue(Get(query, "timestamps"));
    if (std::string v = Get(query, "sinceSeconds"); !v.empty()) {
      int64_t n = 0;
      if (!ParseInt(v, &n)) return fail(BadRequest("invalid sinceSeconds"));
      lo.since_seconds = n;
    }
    if (std::string v = Get(query, "sinceTime"); !v.empty()) {
      int64_t ms = 0;
      if (!ParseRfc3339(v, &ms)) {
        return fail(BadRequest("parsing time \"" + v + "\" as RFC 3339: cannot parse"));
      }
      lo.since_time_ms = ms;
    }
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
    if (!table) {
      auto text = store_.ListText(type, path.ns, lo);
      if (!text.ok()) return fail(text.error());
      HttpResponse resp;
      resp.status = 200;
      resp.body = std::move(text.value());
      return finish(std::move(resp));
    }
    auto r = store_.List(type, path.ns, lo);
    if (!r.ok()) return fail(r.error());
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

}  // namespace kubesim
