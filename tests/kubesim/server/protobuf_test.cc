#include "kubesim/server/protobuf.h"

#include <catch2/catch.hpp>

namespace kubesim {
namespace {

namespace json = boost::json;

// Protobuf wire encoding, enough to build the messages kubectl sends.
std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string Field(int number, const std::string& bytes) {
  return Varint(static_cast<uint64_t>(number) << 3 | 2) + Varint(bytes.size()) + bytes;
}
std::string VarintField(int number, uint64_t v) {
  return Varint(static_cast<uint64_t>(number) << 3) + Varint(v);
}
std::string Entry(int number, const std::string& key, const std::string& value) {
  return Field(number, Field(1, key) + Field(2, value));
}
std::string Envelope(const std::string& api_version, const std::string& kind,
                     const std::string& raw) {
  return std::string("k8s\0", 4) + Field(1, Field(1, api_version) + Field(2, kind)) +
         Field(2, raw) + Field(3, "") + Field(4, "");
}

TEST_CASE("A protobuf ConfigMap decodes to its JSON form", "[protobuf]") {
  std::string meta = Field(1, "settings") + Field(3, "team-a") + Entry(11, "app", "demo") +
                     Entry(12, "note", "x y") + Field(14, "example.com/hold") + VarintField(7, 3);
  std::string raw = Field(1, meta) + Entry(2, "k1", "v1") + Entry(2, "k2", "v2") +
                    Entry(3, "bin", std::string("\x00\x01", 2)) + VarintField(4, 1);
  json::object obj;
  std::string error;
  REQUIRE(DecodeKubernetesProtobuf(Envelope("v1", "ConfigMap", raw), &obj, &error));
  CHECK(obj["apiVersion"] == "v1");
  CHECK(obj["kind"] == "ConfigMap");
  json::object& m = obj["metadata"].as_object();
  CHECK(m["name"] == "settings");
  CHECK(m["namespace"] == "team-a");
  CHECK(m["labels"].as_object()["app"] == "demo");
  CHECK(m["annotations"].as_object()["note"] == "x y");
  CHECK(m["finalizers"].as_array()[0] == "example.com/hold");
  CHECK_FALSE(m.contains("generation"));
  CHECK(obj["data"].as_object()["k1"] == "v1");
  CHECK(obj["data"].as_object()["k2"] == "v2");
  CHECK(obj["binaryData"].as_object()["bin"] == "AAE=");
  CHECK(obj["immutable"] == true);
}

TEST_CASE("A protobuf Secret has base64 data, stringData and type", "[protobuf]") {
  std::string raw = Field(1, Field(1, "creds")) + Entry(2, "password", "hunter2") +
                    Field(3, "Opaque") + Entry(4, "user", "alice");
  json::object obj;
  std::string error;
  REQUIRE(DecodeKubernetesProtobuf(Envelope("v1", "Secret", raw), &obj, &error));
  CHECK(obj["data"].as_object()["password"] == "aHVudGVyMg==");
  CHECK(obj["stringData"].as_object()["user"] == "alice");
  CHECK(obj["type"] == "Opaque");
}

TEST_CASE("A protobuf Namespace keeps its spec finalizers", "[protobuf]") {
  std::string raw = Field(1, Field(1, "jobs")) + Field(2, Field(1, "kubernetes"));
  json::object obj;
  std::string error;
  REQUIRE(DecodeKubernetesProtobuf(Envelope("v1", "Namespace", raw), &obj, &error));
  CHECK(obj["metadata"].as_object()["name"] == "jobs");
  CHECK(obj["spec"].as_object()["finalizers"].as_array()[0] == "kubernetes");
}

TEST_CASE("A protobuf TokenRequest (kubectl create token) keeps audiences and expiry",
          "[protobuf]") {
  std::string spec = Field(1, "https://a.example") + Field(1, "b") + VarintField(4, 900);
  std::string raw = Field(1, Field(1, "")) + Field(2, spec);
  json::object obj;
  std::string error;
  REQUIRE(DecodeKubernetesProtobuf(Envelope("authentication.k8s.io/v1", "TokenRequest", raw), &obj,
                                   &error));
  CHECK(obj["kind"] == "TokenRequest");
  json::object& spec_json = obj["spec"].as_object();
  CHECK(json::serialize(spec_json["audiences"]) == R"(["https://a.example","b"])");
  CHECK(spec_json["expirationSeconds"] == 900);
  // Only in its own group.
  CHECK_FALSE(DecodeKubernetesProtobuf(Envelope("v1", "TokenRequest", raw), &obj, &error));
}

TEST_CASE("Unsupported kinds and malformed messages are refused", "[protobuf]") {
  json::object obj;
  std::string error;
  CHECK_FALSE(
      DecodeKubernetesProtobuf(Envelope("v1", "Pod", Field(1, Field(1, "p"))), &obj, &error));
  CHECK(error.find("Pod") != std::string::npos);
  CHECK_FALSE(DecodeKubernetesProtobuf(Envelope("apps/v1", "ConfigMap", ""), &obj, &error));
  CHECK_FALSE(DecodeKubernetesProtobuf("{\"kind\":\"ConfigMap\"}", &obj, &error));
  std::string good = Envelope("v1", "ConfigMap", Field(1, Field(1, "x")));
  CHECK_FALSE(DecodeKubernetesProtobuf(good.substr(0, good.size() - 3), &obj, &error));
  // A length that runs past the end of the message.
  CHECK_FALSE(DecodeKubernetesProtobuf(std::string("k8s\0", 4) + "\x12\x7f" + "ab", &obj, &error));
  // A string field sent with the varint wire type.
  std::string bad_meta = Field(1, VarintField(1, 5));
  CHECK_FALSE(DecodeKubernetesProtobuf(Envelope("v1", "ConfigMap", bad_meta), &obj, &error));
  // A malformed map entry fails the message rather than desynchronising the fields after it.
  std::string bad_entry =
      Field(1, Field(1, "x")) + Field(2, VarintField(1, 5)) + Entry(2, "k", "v");
  CHECK_FALSE(DecodeKubernetesProtobuf(Envelope("v1", "ConfigMap", bad_entry), &obj, &error));
}

}  // namespace
}  // namespace kubesim
