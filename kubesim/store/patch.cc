#include "kubesim/store/patch.h"

#include <algorithm>
#include <string>
#include <vector>

namespace kubesim {
namespace {

ApiError BadRequest(std::string message) {
  return ApiError{400, "BadRequest", std::move(message), {}};
}

ApiError NotApplicable(std::string message) {
  return ApiError{422, "Invalid", std::move(message), {}};
}

// RFC 6901: "/a/b~1c" -> {"a", "b/c"}; "" is the whole document.
bool ParsePointer(std::string_view ptr, std::vector<std::string>* out) {
  out->clear();
  if (ptr.empty()) return true;
  if (ptr.front() != '/') return false;
  size_t pos = 1;
  while (true) {
    size_t next = ptr.find('/', pos);
    std::string_view raw = ptr.substr(pos, next == std::string_view::npos ? ptr.npos : next - pos);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~') {
        if (i + 1 >= raw.size()) return false;
        if (raw[i + 1] == '0') {
          token.push_back('~');
        } else if (raw[i + 1] == '1') {
          token.push_back('/');
        } else {
          return false;
        }
        ++i;
      } else {
        token.push_back(raw[i]);
      }
    }
    out->push_back(std::move(token));
    if (next == std::string_view::npos) return true;
    pos = next + 1;
  }
}

bool ParseIndex(const std::string& token, size_t size, bool allow_end, size_t* index) {
  if (token == "-" && allow_end) {
    *index = size;
    return true;
  }
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return false;
  size_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<size_t>(c - '0');
    if (value > size + 1) return false;
  }
  if (value > size || (!allow_end && value == size)) return false;
  *index = value;
  return true;
}

// Resolves all but the last token: the container the operation acts on.
boost::json::value* Parent(boost::json::value& doc, const std::vector<std::string>& tokens) {
  boost::json::value* cur = &doc;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (cur->is_object()) {
      auto it = cur->get_object().find(tokens[i]);
      if (it == cur->get_object().end()) return nullptr;
      cur = &it->value();
    } else if (cur->is_array()) {
      size_t index = 0;
      if (!ParseIndex(tokens[i], cur->get_array().size(), false, &index)) return nullptr;
      cur = &cur->get_array()[index];
    } else {
      return nullptr;
    }
  }
  return cur;
}

boost::json::value* Resolve(boost::json::value& doc, const std::vector<std::string>& tokens) {
  if (tokens.empty()) return &doc;
  boost::json::value* parent = Parent(doc, tokens);
  if (parent == nullptr) return nullptr;
  if (parent->is_object()) {
    auto it = parent->get_object().find(tokens.back());
    return it == parent->get_object().end() ? nullptr : &it->value();
  }
  if (parent->is_array()) {
    size_t index = 0;
    if (!ParseIndex(tokens.back(), parent->get_array().size(), false, &index)) return nullptr;
    return &parent->get_array()[index];
  }
  return nullptr;
}

bool Add(boost::json::value& doc, const std::vector<std::string>& tokens, boost::json::value v) {
  if (tokens.empty()) {
    doc = std::move(v);
    return true;
  }
  boost::json::value* parent = Parent(doc, tokens);
  if (parent == nullptr) return false;
  if (parent->is_object()) {
    parent->get_object()[tokens.back()] = std::move(v);
    return true;
  }
  if (parent->is_array()) {
    boost::json::array& arr = parent->get_array();
    size_t index = 0;
    if (!ParseIndex(tokens.back(), arr.size(), true, &index)) return false;
    arr.insert(arr.begin() + static_cast<std::ptrdiff_t>(index), std::move(v));
    return true;
  }
  return false;
}

bool Remove(boost::json::value& doc, const std::vector<std::string>& tokens,
            boost::json::value* removed) {
  if (tokens.empty()) return false;
  boost::json::value* parent = Parent(doc, tokens);
  if (parent == nullptr) return false;
  if (parent->is_object()) {
    auto it = parent->get_object().find(tokens.back());
    if (it == parent->get_object().end()) return false;
    if (removed != nullptr) *removed = it->value();
    parent->get_object().erase(it);
    return true;
  }
  if (parent->is_array()) {
    boost::json::array& arr = parent->get_array();
    size_t index = 0;
    if (!ParseIndex(tokens.back(), arr.size(), false, &index)) return false;
    if (removed != nullptr) *removed = arr[index];
    arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(index));
    return true;
  }
  return false;
}

const char* MergeKeyFor(std::string_view field) {
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" ||
      field == "volumes" || field == "env" || field == "volumeMounts" ||
      field == "imagePullSecrets") {
    return "name";
  }
  if (field == "ports") return "containerPort";
  if (field == "ownerReferences") return "uid";
  if (field == "conditions") return "type";
  return nullptr;
}

void StrategicMergeValue(boost::json::value& target, const boost::json::value& patch);

void StrategicMergeList(boost::json::value& target, const boost::json::array& patch,
                        const char* key) {
  if (!target.is_array()) target = boost::json::array();
  boost::json::array& arr = target.get_array();
  for (const boost::json::value& item : patch) {
    if (!item.is_object() || !item.get_object().contains(key)) {
      arr.push_back(item);
      continue;
    }
    const boost::json::object& patch_item = item.get_object();
    const boost::json::value& id = patch_item.at(key);
    auto match = std::find_if(arr.begin(), arr.end(), [&](const boost::json::value& v) {
      return v.is_object() && v.get_object().contains(key) && v.get_object().at(key) == id;
    });
    auto directive = patch_item.find("$patch");
    if (directive != patch_item.end() && directive->value() == "delete") {
      if (match != arr.end()) arr.erase(match);
      continue;
    }
    if (match == arr.end()) {
      boost::json::value fresh = boost::json::object();
      StrategicMergeValue(fresh, item);
      arr.push_back(std::move(fresh));
    } else {
      StrategicMergeValue(*match, item);
    }
  }
}

void StrategicMergeValue(boost::json::value& target, const boost::json::value& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  const boost::json::object& p = patch.get_object();
  auto directive = p.find("$patch");
  if (directive != p.end() && directive->value() == "replace") {
    boost::json::object replaced = p;
    replaced.erase("$patch");
    target = std::move(replaced);
    return;
  }
  if (!target.is_object()) target = boost::json::object();
  boost::json::object& t = target.get_object();
  for (const auto& [k, v] : p) {
    if (k.starts_with("$deleteFromPrimitiveList/")) {
      std::string field(k.substr(std::string_view("$deleteFromPrimitiveList/").size()));
      auto it = t.find(field);
      if (it == t.end() || !it->value().is_array() || !v.is_array()) continue;
      boost::json::array& arr = it->value().get_array();
      for (const boost::json::value& gone : v.get_array()) {
        for (auto a = arr.begin(); a != arr.end();) a = (*a == gone) ? arr.erase(a) : a + 1;
      }
      continue;
    }
    if (k.starts_with("$")) continue;
    if (v.is_null()) {
      t.erase(k);
      continue;
    }
    if (v.is_object()) {
      auto d = v.get_object().find("$patch");
      if (d != v.get_object().end() && d->value() == "delete") {
        t.erase(k);
        continue;
      }
    }
    if (v.is_array()) {
      if (const char* key = MergeKeyFor(k)) {
        StrategicMergeList(t[k], v.get_array(), key);
        continue;
      }
      if (k == "finalizers") {
        boost::json::value& cur = t[k];
        if (!cur.is_array()) cur = boost::json::array();
        for (const boost::json::value& f : v.get_array()) {
          auto& arr = cur.get_array();
          if (std::find(arr.begin(), arr.end(), f) == arr.end()) arr.push_back(f);
        }
        continue;
      }
      t[k] = v;
      continue;
    }
    StrategicMergeValue(t[k], v);
  }
}

}  // namespace

void ApplyMergePatch(boost::json::value& target, const boost::json::value& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = boost::json::object();
  boost::json::object& t = target.get_object();
  for (const auto& [k, v] : patch.get_object()) {
    if (v.is_null()) {
      t.erase(k);
    } else {
      ApplyMergePatch(t[k], v);
    }
  }
}

Result<bool> ApplyJsonPatch(boost::json::value& doc, const boost::json::value& patch) {
  if (!patch.is_array()) {
    return BadRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  }
  boost::json::value work = doc;
  std::vector<std::string> path;
  std::vector<std::string> from;
  for (const boost::json::value& op_value : patch.get_array()) {
    if (!op_value.is_object()) return BadRequest("invalid JSON patch operation: not an object");
    const boost::json::object& op = op_value.get_object();
    auto op_it = op.find("op");
    auto path_it = op.find("path");
    if (op_it == op.end() || !op_it->value().is_string()) {
      return BadRequest("Unable to unmarshal patch: missing or invalid \"op\"");
    }
    std::string name(op_it->value().get_string());
    if (path_it == op.end() || !path_it->value().is_string()) {
      return BadRequest(name + " operation is missing path");
    }
    std::string path_text(path_it->value().get_string());
    if (!ParsePointer(path_text, &path)) {
      return NotApplicable(name + " operation has an invalid path: \"" + path_text + "\"");
    }
    auto value_it = op.find("value");
    auto need_value = [&]() -> bool { return value_it != op.end(); };
    auto from_it = op.find("from");
    if (name == "add") {
      if (!need_value()) return BadRequest("add operation is missing value");
      if (!Add(work, path, value_it->value())) {
        return NotApplicable("add operation does not apply: doc is missing path: \"" + path_text +
                             "\": missing value");
      }
    } else if (name == "remove") {
      if (!Remove(work, path, nullptr)) {
        return NotApplicable("remove operation does not apply: doc is missing path: \"" +
                             path_text + "\": missing value");
      }
    } else if (name == "replace") {
      if (!need_value()) return BadRequest("replace operation is missing value");
      boost::json::value* target = Resolve(work, path);
      if (target == nullptr) {
        return NotApplicable("replace operation does not apply: doc is missing key: " + path_text +
                             ": missing value");
      }
      *target = value_it->value();
    } else if (name == "test") {
      if (!need_value()) return BadRequest("test operation is missing value");
      boost::json::value* target = Resolve(work, path);
      if (target == nullptr || *target != value_it->value()) {
        return NotApplicable("testing value " + path_text + " failed: test failed");
      }
    } else if (name == "move" || name == "copy") {
      if (from_it == op.end() || !from_it->value().is_string()) {
        return BadRequest(name + " operation is missing from");
      }
      std::string from_text(from_it->value().get_string());
      if (!ParsePointer(from_text, &from)) {
        return NotApplicable(name + " operation has an invalid from: \"" + from_text + "\"");
      }
      boost::json::value moved;
      if (name == "move") {
        if (!Remove(work, from, &moved)) {
          return NotApplicable("move operation does not apply: doc is missing from path: " +
                               from_text);
        }
      } else {
        boost::json::value* source = Resolve(work, from);
        if (source == nullptr) {
          return NotApplicable("copy operation does not apply: doc is missing from path: " +
                               from_text);
        }
        moved = *source;
      }
      if (!Add(work, path, std::move(moved))) {
        return NotApplicable(
            name + " operation does not apply: doc is missing destination path: " + path_text);
      }
    } else {
      return BadRequest("Unexpected kind: " + name);
    }
  }
  doc = std::move(work);
  return true;
}

void ApplyStrategicMergePatch(boost::json::value& target, const boost::json::value& patch) {
  StrategicMergeValue(target, patch);
}

}  // namespace kubesim
