#include "k8s/resource.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/strings.h"
#include "k8s/errors.h"

namespace kje::k8s {
namespace {

// A path segment must not change the path's structure.
absl::Status CheckSegment(std::string_view what, std::string_view value) {
  if (value == "." || value == "..") {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid ", ToAbsl(what), ": ", QuoteBounded(value)));
  }
  for (char c : value) {
    if (c == '/' || c == '?' || c == '#' || c == '%' || static_cast<unsigned char>(c) < 0x21) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid ", ToAbsl(what), ": ", QuoteBounded(value)));
    }
  }
  return absl::OkStatus();
}

std::string Serialize(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

const rapidjson::Value* Member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string StringMember(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* v = Member(object, name);
  return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
}

std::string MetadataResourceVersion(const rapidjson::Value& object) {
  return std::string(MetadataField(object, "resourceVersion"));
}

}  // namespace

std::string_view MetadataField(const rapidjson::Value& object, const char* field) {
  const rapidjson::Value* metadata = Member(object, "metadata");
  const rapidjson::Value* v = metadata ? Member(*metadata, field) : nullptr;
  return v && v->IsString() ? std::string_view(v->GetString(), v->GetStringLength())
                            : std::string_view();
}

ResourceRef CollectionRef(std::string_view group, std::string_view version, std::string_view plural,
                          std::string_view ns) {
  return ResourceRef{
      std::string(group), std::string(version), std::string(plural), std::string(ns), "", ""};
}

ResourceRef CoreRef(std::string_view plural, std::string_view ns, std::string_view name) {
  return ResourceRef{"", "v1", std::string(plural), std::string(ns), std::string(name), ""};
}

absl::StatusOr<std::string> ResourcePath(const ResourceRef& ref) {
  if (ref.version.empty()) return absl::InvalidArgumentError("resource reference without version");
  if (ref.plural.empty()) return absl::InvalidArgumentError("resource reference without plural");
  if (!ref.subresource.empty() && ref.name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("subresource ", ref.subresource, " needs a resource name"));
  }
  for (auto [what, value] : {std::pair<std::string_view, std::string_view>{"group", ref.group},
                             {"version", ref.version},
                             {"plural", ref.plural},
                             {"namespace", ref.namespace_},
                             {"name", ref.name},
                             {"subresource", ref.subresource}}) {
    if (absl::Status s = CheckSegment(what, value); !s.ok()) return s;
  }
  std::string path = ref.group.empty() ? absl::StrCat("/api/", ref.version)
                                       : absl::StrCat("/apis/", ref.group, "/", ref.version);
  if (!ref.namespace_.empty()) absl::StrAppend(&path, "/namespaces/", UrlEncode(ref.namespace_));
  absl::StrAppend(&path, "/", ref.plural);
  if (!ref.name.empty()) absl::StrAppend(&path, "/", UrlEncode(ref.name));
  if (!ref.subresource.empty()) absl::StrAppend(&path, "/", ref.subresource);
  return path;
}

std::string ResourceLabel(const ResourceRef& ref) {
  return ref.subresource.empty() ? ref.plural : absl::StrCat(ref.plural, "/", ref.subresource);
}

std::string_view WatchEventTypeName(WatchEvent::Type type) {
  switch (type) {
    case WatchEvent::Type::kAdded:
      return "ADDED";
    case WatchEvent::Type::kModified:
      return "MODIFIED";
    case WatchEvent::Type::kDeleted:
      return "DELETED";
    case WatchEvent::Type::kBookmark:
      return "BOOKMARK";
  }
  return "UNKNOWN";
}

std::string UrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    absl::StrAppend(&out, out.empty() ? "?" : "&", UrlEncode(key), "=", UrlEncode(value));
  }
  return out;
}

std::string ListQuery(const ListOptions& options) {
  std::vector<std::pair<std::string, std::string>> params;
  if (!options.label_selector.empty()) params.emplace_back("labelSelector", options.label_selector);
  if (!options.field_selector.empty()) params.emplace_back("fieldSelector", options.field_selector);
  if (options.limit > 0) params.emplace_back("limit", absl::StrCat(options.limit));
  if (!options.continue_token.empty()) params.emplace_back("continue", options.continue_token);
  if (!options.resource_version.empty()) {
    params.emplace_back("resourceVersion", options.resource_version);
  }
  return QueryString(params);
}

std::string WatchQuery(const WatchOptions& options, std::string_view resource_version) {
  std::vector<std::pair<std::string, std::string>> params;
  params.emplace_back("watch", "true");
  if (!options.label_selector.empty()) params.emplace_back("labelSelector", options.label_selector);
  if (!options.field_selector.empty()) params.emplace_back("fieldSelector", options.field_selector);
  if (!resource_version.empty()) {
    params.emplace_back("resourceVersion", std::string(resource_version));
  }
  if (options.allow_bookmarks) params.emplace_back("allowWatchBookmarks", "true");
  if (options.timeout_seconds > 0) {
    params.emplace_back("timeoutSeconds", absl::StrCat(options.timeout_seconds));
  }
  return QueryString(params);
}

std::string LogQuery(const LogOptions& options) {
  std::vector<std::pair<std::string, std::string>> params;
  if (!options.container.empty()) params.emplace_back("container", options.container);
  if (options.tail_lines) params.emplace_back("tailLines", absl::StrCat(*options.tail_lines));
  if (options.limit_bytes) params.emplace_back("limitBytes", absl::StrCat(*options.limit_bytes));
  if (options.follow) params.emplace_back("follow", "true");
  if (options.timestamps) params.emplace_back("timestamps", "true");
  if (!options.since_time.empty()) params.emplace_back("sinceTime", options.since_time);
  if (options.since_seconds) {
    params.emplace_back("sinceSeconds", absl::StrCat(*options.since_seconds));
  }
  if (options.previous) params.emplace_back("previous", "true");
  return QueryString(params);
}

std::string DeleteBody(const DeleteOptions& options) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& alloc = doc.GetAllocator();
  doc.AddMember("kind", "DeleteOptions", alloc);
  doc.AddMember("apiVersion", "v1", alloc);
  if (!options.propagation_policy.empty()) {
    doc.AddMember("propagationPolicy", rapidjson::Value(options.propagation_policy.c_str(), alloc),
                  alloc);
  }
  if (options.grace_period_seconds) {
    doc.AddMember("gracePeriodSeconds", rapidjson::Value(*options.grace_period_seconds), alloc);
  }
  if (!options.precondition_uid.empty() || !options.precondition_resource_version.empty()) {
    rapidjson::Value pre(rapidjson::kObjectType);
    if (!options.precondition_uid.empty()) {
      pre.AddMember("uid", rapidjson::Value(options.precondition_uid.c_str(), alloc), alloc);
    }
    if (!options.precondition_resource_version.empty()) {
      pre.AddMember("resourceVersion",
                    rapidjson::Value(options.precondition_resource_version.c_str(), alloc), alloc);
    }
    doc.AddMember("preconditions", pre, alloc);
  }
  return Serialize(doc);
}

absl::StatusOr<ParsedJson> ParsedJson::Parse(std::string_view json) {
  auto doc = std::make_shared<rapidjson::Document>();
  doc->Parse(json.data(), json.size());
  if (doc->HasParseError()) return absl::InvalidArgumentError("not JSON");
  const rapidjson::Value* root = doc.get();
  return ParsedJson(std::move(doc), root);
}

const rapidjson::Value& ParsedJson::value() const {
  static const rapidjson::Value kNull;
  return value_ != nullptr ? *value_ : kNull;
}

std::string ParsedJson::ToString() const { return Serialize(value()); }

absl::StatusOr<ListPage> ParseListPage(std::string body) {
  // Parsed in place: the items' strings stay in the body instead of being copied out of it,
  // and the page (body and document) lives as long as any of its items is held. A NUL would
  // end an in-place parse early where a parse of the whole body refuses it.
  struct InPlace {
    std::string text;
    rapidjson::Document doc;
  };
  auto owner = std::make_shared<InPlace>();
  owner->text = std::move(body);
  rapidjson::Document& doc = owner->doc;
  const bool has_nul = owner->text.find('\0') != std::string::npos;
  if (!has_nul) doc.ParseInsitu(owner->text.data());
  std::shared_ptr<const rapidjson::Document> shared(owner, &owner->doc);
  if (has_nul || doc.HasParseError() || !doc.IsObject()) {
    return absl::InternalError("kubernetes: a list response that is not a JSON object");
  }
  ListPage page;
  if (const rapidjson::Value* metadata = Member(doc, "metadata")) {
    page.resource_version = StringMember(*metadata, "resourceVersion");
    page.continue_token = StringMember(*metadata, "continue");
    const rapidjson::Value* remaining = Member(*metadata, "remainingItemCount");
    if (remaining && remaining->IsInt64()) page.remaining_item_count = remaining->GetInt64();
  }
  const rapidjson::Value* items = Member(doc, "items");
  if (items == nullptr || items->IsNull()) return page;  // an empty list may omit or null items
  if (!items->IsArray()) return absl::InternalError("kubernetes: list items is not an array");
  page.items.reserve(items->Size());
  for (const rapidjson::Value& item : items->GetArray()) page.items.emplace_back(shared, &item);
  return page;
}

absl::StatusOr<WatchEvent> ParseWatchEvent(std::string_view line) {
  auto shared = std::make_shared<rapidjson::Document>();
  rapidjson::Document& doc = *shared;
  doc.Parse(line.data(), line.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::InternalError("kubernetes: a watch event that is not a JSON object");
  }
  std::string type = StringMember(doc, "type");
  const rapidjson::Value* object = Member(doc, "object");
  if (object == nullptr || !object->IsObject()) {
    return absl::InternalError(
        absl::StrCat("kubernetes: watch event ", QuoteBounded(type), " without object"));
  }
  if (type == "ERROR") {
    ApiError error;
    const rapidjson::Value* code = Member(*object, "code");
    error.http_code = code && code->IsInt() ? code->GetInt() : 500;
    error.reason = StringMember(*object, "reason");
    error.message = StringMember(*object, "message");
    return MakeApiStatus(error);
  }
  WatchEvent event;
  if (type == "ADDED") {
    event.type = WatchEvent::Type::kAdded;
  } else if (type == "MODIFIED") {
    event.type = WatchEvent::Type::kModified;
  } else if (type == "DELETED") {
    event.type = WatchEvent::Type::kDeleted;
  } else if (type == "BOOKMARK") {
    event.type = WatchEvent::Type::kBookmark;
  } else {
    return absl::InternalError(
        absl::StrCat("kubernetes: unknown watch event type ", QuoteBounded(type)));
  }
  event.resource_version = MetadataResourceVersion(*object);
  event.object = ParsedJson(std::move(shared), object);
  return event;
}

std::string ResourceVersionOf(std::string_view object_json) {
  rapidjson::Document doc;
  doc.Parse(object_json.data(), object_json.size());
  if (doc.HasParseError()) return "";
  return MetadataResourceVersion(doc);
}

}  // namespace kje::k8s
