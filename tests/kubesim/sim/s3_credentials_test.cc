#include "kubesim/sim/s3_credentials.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

namespace kubesim::sim {
namespace {

namespace json = boost::json;

json::object Pod(json::array env, json::array env_from = {}) {
  json::object container{{"name", "driver"}, {"env", std::move(env)}};
  if (!env_from.empty()) container["envFrom"] = std::move(env_from);
  return json::object{
      {"spec", json::object{{"containers", json::array{json::object{{"name", "sidecar"}},
                                                       std::move(container)}}}}};
}

json::object SecretRef(const char* env, const char* secret, const char* key) {
  return json::object{
      {"name", env},
      {"valueFrom", json::object{{"secretKeyRef", json::object{{"name", secret}, {"key", key}}}}}};
}

// Secrets by name; `data` base64 as the API holds it.
ObjectLookup Secrets(std::map<std::string, json::object> secrets) {
  return
      [secrets](std::string_view resource, std::string_view name) -> std::optional<json::object> {
        if (resource != "secrets") return std::nullopt;
        auto it = secrets.find(std::string(name));
        if (it == secrets.end()) return std::nullopt;
        return it->second;
      };
}

TEST_CASE("base64 as a Secret's data holds it") {
  CHECK(DecodeBase64("a2plLWtleQ==") == std::optional<std::string>("kje-key"));
  CHECK(DecodeBase64("") == std::optional<std::string>(""));
  CHECK_FALSE(DecodeBase64("a2p!").has_value());
}

TEST_CASE("the driver's S3 credentials come from its container's environment and Secrets") {
  const json::object creds{
      {"data", json::object{{"AWS_ACCESS_KEY_ID", "S0VZSUQ="},         // KEYID
                            {"AWS_SECRET_ACCESS_KEY", "c2VjcmV0"}}}};  // secret
  const ObjectLookup lookup = Secrets({{"s3-creds", creds}});

  SECTION("secretKeyRef env entries") {
    json::object pod =
        Pod({SecretRef("AWS_ACCESS_KEY_ID", "s3-creds", "AWS_ACCESS_KEY_ID"),
             SecretRef("AWS_SECRET_ACCESS_KEY", "s3-creds", "AWS_SECRET_ACCESS_KEY")});
    auto c = PodS3Credentials(pod, "driver", lookup);
    REQUIRE(c.has_value());
    CHECK(c->access_key_id == "KEYID");
    CHECK(c->secret_access_key == "secret");
    CHECK(c->session_token.empty());
    // Another container's environment is not the driver's.
    CHECK_FALSE(PodS3Credentials(pod, "sidecar", lookup).has_value());
  }
  SECTION("envFrom with a prefix, a plain value winning over it") {
    json::object prefixed{{"stringData", json::object{{"ACCESS_KEY_ID", "FROMENVFROM"},
                                                      {"SECRET_ACCESS_KEY", "s2"}}}};
    json::object pod =
        Pod({json::object{{"name", "AWS_ACCESS_KEY_ID"}, {"value", "PLAIN"}}},
            {json::object{{"prefix", "AWS_"}, {"secretRef", json::object{{"name", "p"}}}}});
    auto c = PodS3Credentials(pod, "driver", Secrets({{"p", prefixed}}));
    REQUIRE(c.has_value());
    CHECK(c->access_key_id == "PLAIN");
    CHECK(c->secret_access_key == "s2");
  }
  SECTION("none: a missing Secret, a missing key, half a pair, no lookup") {
    json::object pod =
        Pod({SecretRef("AWS_ACCESS_KEY_ID", "gone", "AWS_ACCESS_KEY_ID"),
             SecretRef("AWS_SECRET_ACCESS_KEY", "s3-creds", "AWS_SECRET_ACCESS_KEY")});
    CHECK_FALSE(PodS3Credentials(pod, "driver", lookup).has_value());
    json::object half = Pod({SecretRef("AWS_ACCESS_KEY_ID", "s3-creds", "AWS_ACCESS_KEY_ID")});
    CHECK_FALSE(PodS3Credentials(half, "driver", lookup).has_value());
    json::object wrong_key =
        Pod({SecretRef("AWS_ACCESS_KEY_ID", "s3-creds", "nope"),
             SecretRef("AWS_SECRET_ACCESS_KEY", "s3-creds", "AWS_SECRET_ACCESS_KEY")});
    CHECK_FALSE(PodS3Credentials(wrong_key, "driver", lookup).has_value());
    json::object full =
        Pod({SecretRef("AWS_ACCESS_KEY_ID", "s3-creds", "AWS_ACCESS_KEY_ID"),
             SecretRef("AWS_SECRET_ACCESS_KEY", "s3-creds", "AWS_SECRET_ACCESS_KEY")});
    CHECK_FALSE(PodS3Credentials(full, "driver", ObjectLookup{}).has_value());
  }
}

}  // namespace
}  // namespace kubesim::sim
