#include "base/mask.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kje {
namespace {

const SensitiveWords kDefaults;

TEST_CASE("a key is sensitive when its normalised name holds a word", "[mask]") {
  for (std::string key : {"password", "spark.ssl.keyStorePassword", "fs.s3a.secret.key",
                          "client_secret", "oauth.clientSecret", "--auth-token", "API_KEY",
                          "spark.hadoop.fs.azure.account.oauth2.client.secret", "db.passwd",
                          "aws.credentials.provider.private-key"}) {
    INFO(key);
    CHECK(kDefaults.IsSensitive(key));
  }
  for (std::string key : {"spark.executor.memory", "spark.master", "--", "", "user", "tokn"}) {
    INFO(key);
    CHECK_FALSE(kDefaults.IsSensitive(key));
  }
}

TEST_CASE("the deployment's words replace the defaults", "[mask]") {
  const SensitiveWords words({"Sas-Key", " ", ""});
  CHECK(words.words() == std::vector<std::string>{"saskey"});
  CHECK(words.IsSensitive("azure.sas_key"));
  CHECK_FALSE(words.IsSensitive("password"));
}

TEST_CASE("a conf value is masked by its key", "[mask]") {
  CHECK(MaskValue("spark.hadoop.fs.s3a.secret.key", "abc", kDefaults) == "******");
  CHECK(MaskValue("spark.hadoop.fs.s3a.secret.key", "", kDefaults).empty());
  CHECK(MaskValue("spark.executor.memory", "2g", kDefaults) == "2g");
}

TEST_CASE("free text masks each form of a sensitive value", "[mask]") {
  using Case = std::pair<std::string, std::string>;
  auto [in, want] = GENERATE(values<Case>({
      {"--conf spark.ssl.keyPassword=hunter2 --conf spark.x=1",
       "--conf spark.ssl.keyPassword=****** --conf spark.x=1"},
      {"--password=hunter2", "--password=******"},
      {"--password hunter2 next", "--password ****** next"},
      {"--password --verbose", "--password --verbose"},
      {"https://h/p?token=abc&x=1", "https://h/p?token=******&x=1"},
      {R"({"client_secret": "s3cr\"et", "n": 1})", R"({"client_secret": "******", "n": 1})"},
      {R"({"apiToken":42,"ok":true})", R"({"apiToken":******,"ok":true})"},
      {R"({"secret": {"user": "u", "password": "p"}})",
       R"({"secret": {"user": "u", "password": "******"}})"},
      {R"(error: "spark.db.password=abc" refused)", R"(error: "spark.db.password=******" refused)"},
      {"password='two words' x", "password='******' x"},
      {"password=\"unterminated", "password=\"******"},
      {"token=", "token="},
      {"spark.executor.memory=2g", "spark.executor.memory=2g"},
      {"no secrets here", "no secrets here"},
  }));
  INFO(in);
  CHECK(MaskText(in, kDefaults) == want);
}

TEST_CASE("masked text keeps no byte of a masked value and stays bounded", "[mask]") {
  const std::string value = "Zq9-unique-value";
  for (std::string text :
       {"password=" + value, "\"password\":\"" + value + "\"", "--secret " + value,
        "\"a\":\"token=" + value + "\"", "x\"password\" : '" + value + "'"}) {
    INFO(text);
    std::string masked = MaskText(text, kDefaults);
    CHECK(masked.find("Zq9") == std::string::npos);
    CHECK(masked.size() <= text.size() + kMask.size());
  }
}

TEST_CASE("arguments mask the value after a lone sensitive option", "[mask]") {
  std::vector<std::string> in = {"--token",
                                 "abc",
                                 "--user",
                                 "bob",
                                 "--db-password=x",
                                 "--spark-conf",
                                 R"({"spark.x.secret": "y"})",
                                 "--secret"};
  CHECK(MaskArguments(in, kDefaults) ==
        std::vector<std::string>{"--token", "******", "--user", "bob", "--db-password=******",
                                 "--spark-conf", R"({"spark.x.secret": "******"})", "--secret"});
}

TEST_CASE("masking is total on arbitrary bytes", "[mask]") {
  std::string text;
  for (int i = 0; i < 512; ++i) text.push_back(static_cast<char>((i * 37) % 256));
  for (std::string extra : {"", "\"", "\\", "password=", "\"token\":", "--secret "}) {
    std::string masked = MaskText(text + extra, kDefaults);
    CHECK(masked.size() <= text.size() + extra.size() + kMask.size() * (text.size() + 1));
  }
}

}  // namespace
}  // namespace kje
