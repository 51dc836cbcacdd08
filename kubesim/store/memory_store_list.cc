// Lists: selection, paging with continue tokens, and consistent lists at an older snapshot.

#include <algorithm>
#include <cstring>

#include "kubesim/store/memory_store.h"

namespace kubesim::store_internal {

namespace json = boost::json;

namespace {

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
}  // namespace

Result<MemoryStore::Selection> MemoryStore::Select(const ResourceType& type_in,
                                                   std::string_view ns_in,
                                                   const ListOptions& options) const {
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
    // As the real API server, name what is wrong, never echo the token.
    if (!token) return BadRequest("continue key is not valid: not a continue token of this server");
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

  Selection selection;
  selection.type = type;
  std::vector<const Stored*>& items = selection.items;
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
    items.push_back(obj);
    last_key = key;
  }
  json::object& meta = selection.meta;
  meta["resourceVersion"] = std::to_string(snapshot);
  if (more) {
    std::optional<int64_t> remaining;
    if (!filtering) {
      remaining = total ? *total - static_cast<int64_t>(items.size()) : uncounted;
      meta["remainingItemCount"] = *remaining;
    }
    meta["continue"] = EncodeContinue(ContinueToken{snapshot, last_key, remaining});
  }
  return selection;
}

Result<json::object> MemoryStore::List(const ResourceType& type_in, std::string_view ns_in,
                                       const ListOptions& options) const {
  std::shared_lock lock(mu_);
  auto selection = Select(type_in, ns_in, options);
  if (!selection.ok()) return selection.error();
  const ResourceType& type = *selection.value().type;
  json::storage_ptr sp = Arena();
  json::array items(sp);
  items.reserve(selection.value().items.size());
  for (const Stored* obj : selection.value().items) {
    items.push_back(OutputItem(type, obj->Object(sp)));
  }
  json::object out(sp);
  out["apiVersion"] = type.api_version();
  out["kind"] = type.list_kind;
  out["metadata"] = std::move(selection.value().meta);
  out["items"] = std::move(items);
  return out;
}

Result<std::string> MemoryStore::ListText(const ResourceType& type_in, std::string_view ns_in,
                                          const ListOptions& options) const {
  std::shared_lock lock(mu_);
  auto selection = Select(type_in, ns_in, options);
  if (!selection.ok()) return selection.error();
  const ResourceType& type = *selection.value().type;
  // The text List's object serializes to, key for key. A custom resource is output as stored
  // when its text already begins with its apiVersion and kind (what OutputItem would set in
  // place): then the item is its stored text, spliced without a parse and a serialization.
  const std::string opening = "{\"apiVersion\":" + json::serialize(json::value(type.api_version()));
  std::string head;
  if (IsCustom(type)) {
    head = opening + ",\"kind\":" + json::serialize(json::value(type.kind)) + ",";
  }
  std::string out = opening + ",\"kind\":" + json::serialize(json::value(type.list_kind)) +
                    ",\"metadata\":" + json::serialize(selection.value().meta) + ",\"items\":[";
  size_t bytes = out.size() + 2;
  for (const Stored* obj : selection.value().items) bytes += obj->text.size() + 1;
  out.reserve(bytes);
  bool first = true;
  for (const Stored* obj : selection.value().items) {
    if (!first) out += ',';
    first = false;
    if (!head.empty() && obj->text.starts_with(head)) {
      out += obj->text;
    } else {
      out += json::serialize(OutputItem(type, obj->Object()));
    }
  }
  out += "]}";
  return out;
}

std::string MemoryStore::EncodeContinue(const ContinueToken& t) {
  json::object token{{"v", "meta.k8s.io/v1"}, {"rv", t.rv}, {"start", t.start}};
  if (t.remaining) token["rem"] = *t.remaining;
  return Base64UrlEncode(json::serialize(token));
}

std::optional<MemoryStore::ContinueToken> MemoryStore::DecodeContinue(std::string_view text) {
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

}  // namespace kubesim::store_internal
