#include "kubesim/server/protobuf.h"

#include <cstdint>
#include <functional>

#include "kubesim/server/tls.h"

namespace kubesim {
namespace {

namespace json = boost::json;

// A protobuf wire-format reader over one message.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }
  // A known field with the wrong wire type makes the message invalid.
  bool Invalid() { return Fail(); }
  bool ok() const { return ok_; }

  // Reads the next field's number and wire type; false at the end or on malformed input.
  bool Next(int* field, int* wire_type) {
    if (done() || !ok_) return false;
    uint64_t key = 0;
    if (!Varint(&key)) return false;
    *field = static_cast<int>(key >> 3);
    *wire_type = static_cast<int>(key & 7);
    return *field > 0;
  }

  bool Varint(uint64_t* out) {
    *out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Fail();
      auto b = static_cast<uint8_t>(data_[pos_++]);
      *out |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return Fail();
  }

  bool Bytes(std::string_view* out) {
    uint64_t len = 0;
    if (!Varint(&len) || len > data_.size() - pos_) return Fail();
    *out = data_.substr(pos_, len);
    pos_ += len;
    return true;
  }

  bool Skip(int wire_type) {
    uint64_t v = 0;
    std::string_view s;
    switch (wire_type) {
      case 0:
        return Varint(&v);
      case 1:
        return Advance(8);
      case 2:
        return Bytes(&s);
      case 5:
        return Advance(4);
      default:
        return Fail();
    }
  }

 private:
  bool Advance(size_t n) {
    if (n > data_.size() - pos_) return Fail();
    pos_ += n;
    return true;
  }
  bool Fail() {
    ok_ = false;
    return false;
  }

  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

using FieldHandler = std::function<bool(int field, int wire_type, Reader& r)>;

// Walks a message, giving each field to `handler`, which returns false for fields it does not
// consume (they are skipped).
bool Walk(std::string_view message, const FieldHandler& handler) {
  Reader r(message);
  int field = 0;
  int wire = 0;
  while (r.Next(&field, &wire)) {
    bool consumed = handler(field, wire, r);
    if (!r.ok()) return false;
    if (!consumed && !r.Skip(wire)) return false;
  }
  return r.ok() && r.done();
}

bool BytesOf(int wire, Reader& r, std::string_view* out) {
  if (wire != 2) return r.Invalid();
  return r.Bytes(out);
}

bool VarintOf(int wire, Reader& r, uint64_t* out) {
  if (wire != 0) return r.Invalid();
  return r.Varint(out);
}

bool String(int wire, Reader& r, std::string* out) {
  std::string_view s;
  if (!BytesOf(wire, r, &s)) return false;
  *out = std::string(s);
  return true;
}

// A map<string, string|bytes> entry: key = 1, value = 2.
bool MapEntry(Reader& r, json::object* map, bool bytes_value) {
  std::string_view entry;
  if (!r.Bytes(&entry)) return false;
  std::string key;
  std::string value;
  bool ok = Walk(entry, [&](int f, int w, Reader& er) {
    if (f == 1) return String(w, er, &key);
    if (f == 2) return String(w, er, &value);
    return false;
  });
  if (!ok) return r.Invalid();  // consumed: the outer walk must not skip it again
  (*map)[key] = bytes_value ? Base64Encode(value) : value;
  return true;
}

bool ObjectMeta(std::string_view data, json::object* meta) {
  json::object labels;
  json::object annotations;
  json::array finalizers;
  json::array owners;
  bool ok = Walk(data, [&](int f, int w, Reader& r) {
    std::string s;
    uint64_t v = 0;
    switch (f) {
      case 1:
        if (!String(w, r, &s)) return false;
        (*meta)["name"] = s;
        return true;
      case 2:
        if (!String(w, r, &s)) return false;
        (*meta)["generateName"] = s;
        return true;
      case 3:
        if (!String(w, r, &s)) return false;
        (*meta)["namespace"] = s;
        return true;
      case 6:
        if (!String(w, r, &s)) return false;
        if (!s.empty()) (*meta)["resourceVersion"] = s;
        return true;
      case 7:
        if (!VarintOf(w, r, &v)) return false;
        return true;  // generation is the server's
      case 11:
        return w == 2 ? MapEntry(r, &labels, false) : r.Invalid();
      case 12:
        return w == 2 ? MapEntry(r, &annotations, false) : r.Invalid();
      case 13: {
        std::string_view owner;
        if (!BytesOf(w, r, &owner)) return false;
        json::object o;
        bool owner_ok = Walk(owner, [&](int of, int ow, Reader& orr) {
          std::string os;
          uint64_t ov = 0;
          const char* names[] = {nullptr, "kind", nullptr, "name", "uid", "apiVersion"};
          if (of == 1 || (of >= 3 && of <= 5)) {
            if (!String(ow, orr, &os)) return false;
            o[names[of]] = os;
            return true;
          }
          if (of == 6 || of == 7) {
            if (!VarintOf(ow, orr, &ov)) return false;
            o[of == 6 ? "controller" : "blockOwnerDeletion"] = ov != 0;
            return true;
          }
          return false;
        });
        if (!owner_ok) return r.Invalid();
        owners.push_back(std::move(o));
        return true;
      }
      case 14:
        if (!String(w, r, &s)) return false;
        finalizers.push_back(json::value(s));
        return true;
      default:
        return false;
    }
  });
  if (!labels.empty()) (*meta)["labels"] = std::move(labels);
  if (!annotations.empty()) (*meta)["annotations"] = std::move(annotations);
  if (!finalizers.empty()) (*meta)["finalizers"] = std::move(finalizers);
  if (!owners.empty()) (*meta)["ownerReferences"] = std::move(owners);
  return ok;
}

bool Metadata(int w, Reader& r, json::object* obj) {
  std::string_view data;
  if (!BytesOf(w, r, &data)) return false;
  json::object meta;
  if (!ObjectMeta(data, &meta)) return r.Invalid();
  (*obj)["metadata"] = std::move(meta);
  return true;
}

bool DecodeObject(const std::string& kind, std::string_view raw, json::object* obj) {
  if (kind == "Namespace") {
    return Walk(raw, [&](int f, int w, Reader& r) {
      if (f == 1) return Metadata(w, r, obj);
      if (f == 2) {
        std::string_view spec;
        if (!BytesOf(w, r, &spec)) return false;
        json::array finalizers;
        bool ok = Walk(spec, [&](int sf, int sw, Reader& sr) {
          std::string s;
          if (sf != 1 || !String(sw, sr, &s)) return false;
          finalizers.push_back(json::value(s));
          return true;
        });
        if (!finalizers.empty()) (*obj)["spec"] = json::object{{"finalizers", finalizers}};
        return ok ? true : r.Invalid();
      }
      return false;
    });
  }
  if (kind == "ConfigMap" || kind == "Secret") {
    bool secret = kind == "Secret";
    json::object data;
    json::object binary_or_string;
    bool ok = Walk(raw, [&](int f, int w, Reader& r) {
      uint64_t v = 0;
      std::string s;
      if (f == 1) return Metadata(w, r, obj);
      if (f == 2) return w == 2 ? MapEntry(r, &data, secret) : r.Invalid();
      if (secret && f == 3) {
        if (!String(w, r, &s)) return false;
        (*obj)["type"] = s;
        return true;
      }
      if ((!secret && f == 3) || (secret && f == 4)) {
        return w == 2 ? MapEntry(r, &binary_or_string, !secret) : r.Invalid();
      }
      if ((!secret && f == 4) || (secret && f == 5)) {
        if (!VarintOf(w, r, &v)) return false;
        (*obj)["immutable"] = v != 0;
        return true;
      }
      return false;
    });
    if (!data.empty()) (*obj)["data"] = std::move(data);
    if (!binary_or_string.empty()) {
      (*obj)[secret ? "stringData" : "binaryData"] = std::move(binary_or_string);
    }
    return ok;
  }
  if (kind == "ServiceAccount") {
    return Walk(raw, [&](int f, int w, Reader& r) {
      uint64_t v = 0;
      if (f == 1) return Metadata(w, r, obj);
      if (f == 4) {
        if (!VarintOf(w, r, &v)) return false;
        (*obj)["automountServiceAccountToken"] = v != 0;
        return true;
      }
      return false;
    });
  }
  if (kind == "TokenRequest") {
    // What `kubectl create token` sends: spec.audiences (1), spec.expirationSeconds (4).
    return Walk(raw, [&](int f, int w, Reader& r) {
      if (f == 1) return Metadata(w, r, obj);
      if (f != 2) return false;
      std::string_view spec_bytes;
      if (!BytesOf(w, r, &spec_bytes)) return false;
      json::object spec;
      json::array audiences;
      bool ok = Walk(spec_bytes, [&](int sf, int sw, Reader& sr) {
        std::string s;
        uint64_t v = 0;
        if (sf == 1) {
          if (!String(sw, sr, &s)) return false;
          audiences.push_back(json::value(s));
          return true;
        }
        if (sf == 4) {
          if (!VarintOf(sw, sr, &v)) return false;
          spec["expirationSeconds"] = static_cast<int64_t>(v);
          return true;
        }
        return false;
      });
      if (!audiences.empty()) spec["audiences"] = std::move(audiences);
      (*obj)["spec"] = std::move(spec);
      return ok ? true : r.Invalid();
    });
  }
  return false;
}

}  // namespace

bool DecodeKubernetesProtobuf(std::string_view body, json::object* out, std::string* error) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) {
    *error = "not a Kubernetes protobuf message (no k8s\\0 prefix)";
    return false;
  }
  std::string api_version;
  std::string kind;
  std::string_view raw;
  std::string content_encoding;
  bool ok = Walk(body.substr(4), [&](int f, int w, Reader& r) {
    if (f == 1) {
      std::string_view tm;
      if (!BytesOf(w, r, &tm)) return false;
      bool tm_ok = Walk(tm, [&](int tf, int tw, Reader& tr) {
        if (tf == 1) return String(tw, tr, &api_version);
        if (tf == 2) return String(tw, tr, &kind);
        return false;
      });
      return tm_ok ? true : r.Invalid();
    }
    if (f == 2) return BytesOf(w, r, &raw);
    if (f == 3) return String(w, r, &content_encoding);
    return false;
  });
  if (!ok) {
    *error = "malformed protobuf envelope";
    return false;
  }
  if (!content_encoding.empty()) {
    *error = "unsupported protobuf contentEncoding " + content_encoding;
    return false;
  }
  json::object obj{{"apiVersion", api_version}, {"kind", kind}};
  bool token_request = kind == "TokenRequest";
  bool known = token_request ? api_version == "authentication.k8s.io/v1" : api_version == "v1";
  if (!known || !DecodeObject(kind, raw, &obj)) {
    *error =
        "kubesim decodes protobuf only for v1 Namespace, ConfigMap, Secret and "
        "ServiceAccount, and authentication.k8s.io/v1 TokenRequest (got " +
        api_version + " " + kind + "); send JSON";
    return false;
  }
  *out = std::move(obj);
  return true;
}

}  // namespace kubesim
