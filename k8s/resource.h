#pragma once

// Requests to the Kubernetes API as plain data: which resource, which options, and the parsing
// of what comes back. No I/O here: the transport (client.cc) uses these, tests check them directly.

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace kje::k8s {

// A resource or collection of the API, keyed the generic way: core resources have an empty group
// (/api/v1/...), everything else /apis/<group>/<version>/.... An empty namespace_ means cluster
// scope, or all namespaces for a list/watch; an empty name means the collection.
struct ResourceRef {
  std::string group;
  std::string version;
  std::string plural;
  std::string namespace_;
  std::string name;
  std::string subresource;  // "status", "log", ...; needs a name
};

// Every object of `group/version/plural` in `ns` ("" for all namespaces).
ResourceRef CollectionRef(std::string_view group, std::string_view version, std::string_view plural,
                          std::string_view ns);
// A core-v1 object ("pods", "events") in `ns`; a collection when `name` is "".
ResourceRef CoreRef(std::string_view plural, std::string_view ns, std::string_view name = "");

// The URL path of `ref`, with every segment checked and escaped.
absl::StatusOr<std::string> ResourcePath(const ResourceRef& ref);

// "pods", "pods/log", "sparkapplications/status": the resource label for metrics and logs.
std::string ResourceLabel(const ResourceRef& ref);

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;  // 0: no limit (prefer a limit: a page is what gets held in memory)
  std::string continue_token;
  std::string resource_version;  // "" = most recent (quorum read); "0" = any cached
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // start after this version; "" = from now (with synthetic ADDs)
  bool allow_bookmarks = true;
  int64_t timeout_seconds = 0;  // server-side timeout of one watch request; 0 = server default
  // A dropped or server-closed watch is resumed from the last resourceVersion seen, until the
  // caller's deadline; 410 Gone always ends it.
  bool resume = true;
};

enum class PatchType { kMerge, kJson };

struct DeleteOptions {
  std::string propagation_policy;  // "", "Background", "Foreground", "Orphan"
  std::string precondition_uid;
  std::string precondition_resource_version;
  std::optional<int64_t> grace_period_seconds;
};

struct LogOptions {
  std::string container;
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> limit_bytes;
  bool follow = false;
  bool timestamps = false;
  // RFC 3339: only the lines written at or after it (the API server keeps whole seconds of it).
  std::string since_time;
  // Only the lines written in the last this many seconds (> 0); not with since_time.
  std::optional<int64_t> since_seconds;
  // The log of the container's previous run; the API server answers 400 when there was none.
  bool previous = false;
};

// One JSON value of an answer, parsed once: it shares the document of the page or watch line it
// came from, which lives as long as any of its values. Readers project it straight from the
// parsed form; a list of 100k objects is never parsed, serialized and parsed again.
class ParsedJson {
 public:
  ParsedJson() = default;
  // `value` lies inside `*doc`.
  ParsedJson(std::shared_ptr<const rapidjson::Document> doc, const rapidjson::Value* value)
      : doc_(std::move(doc)), value_(value) {}
  // A document of its own (tests, fakes); INVALID_ARGUMENT when `json` isn't JSON.
  static absl::StatusOr<ParsedJson> Parse(std::string_view json);

  bool empty() const { return value_ == nullptr; }
  // Null when empty().
  const rapidjson::Value& value() const;
  // The value as JSON text, for a caller that keeps or forwards it.
  std::string ToString() const;

 private:
  std::shared_ptr<const rapidjson::Document> doc_;
  const rapidjson::Value* value_ = nullptr;
};

// One page of a list: each item, in order.
struct ListPage {
  std::string resource_version;
  std::string continue_token;  // empty on the last page
  std::optional<int64_t> remaining_item_count;
  std::vector<ParsedJson> items;
};

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark };
  Type type = Type::kAdded;
  std::string resource_version;  // of the object (for bookmarks, the only field that matters)
  ParsedJson object;
};

std::string_view WatchEventTypeName(WatchEvent::Type type);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string UrlEncode(std::string_view s);
// "?k=v&k2=v2" with encoded values, or "" when `params` is empty.
std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params);

std::string ListQuery(const ListOptions& options);
// The query for one watch request; `resource_version` overrides options.resource_version (resume).
std::string WatchQuery(const WatchOptions& options, std::string_view resource_version);
std::string LogQuery(const LogOptions& options);
std::string DeleteBody(const DeleteOptions& options);

// Parses a List object; the items share its document.
absl::StatusOr<ListPage> ParseListPage(std::string body);

// Parses one line of a watch stream. An ERROR event becomes the error status it carries (410 Gone
// stays recognizable with IsK8sGone()).
absl::StatusOr<WatchEvent> ParseWatchEvent(std::string_view line);

// metadata.<field> of a parsed object (name, resourceVersion, ...); "" when absent or not a string.
std::string_view MetadataField(const rapidjson::Value& object, const char* field);

// metadata.resourceVersion of an object's JSON, or "" when absent.
std::string ResourceVersionOf(std::string_view object_json);

}  // namespace kje::k8s
