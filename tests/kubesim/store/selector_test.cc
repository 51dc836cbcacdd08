#include "kubesim/store/selector.h"

#include <catch2/catch.hpp>

namespace kubesim {
namespace {

namespace json = boost::json;

bool Sel(const char* selector, const json::object& labels) {
  auto parsed = LabelSelector::Parse(selector);
  REQUIRE(parsed.ok());
  return parsed.value().Matches(&labels);
}

TEST_CASE("label selector operators", "[selector]") {
  json::object l{{"app", "pi"}, {"tier", "batch"}, {"empty", ""}};
  CHECK(Sel("", l));
  CHECK(Sel("app=pi", l));
  CHECK(Sel("app==pi", l));
  CHECK_FALSE(Sel("app=other", l));
  CHECK(Sel("app!=other", l));
  CHECK_FALSE(Sel("app!=pi", l));
  CHECK(Sel("missing!=x", l));  // != matches objects without the label
  CHECK_FALSE(Sel("missing=", l));
  CHECK(Sel("empty=", l));
  CHECK(Sel("app in (pi, other)", l));
  CHECK_FALSE(Sel("app in (x,y)", l));
  CHECK(Sel("app notin (x,y)", l));
  CHECK_FALSE(Sel("app notin (pi)", l));
  CHECK(Sel("missing notin (pi)", l));
  CHECK(Sel("app", l));
  CHECK_FALSE(Sel("missing", l));
  CHECK(Sel("!missing", l));
  CHECK_FALSE(Sel("!app", l));
  CHECK(Sel("app=pi,tier in (batch),!missing", l));
  CHECK_FALSE(Sel("app=pi,tier=web", l));
  CHECK(Sel("spark.apache.org/app-name!=x", l));
  CHECK(Sel("  app = pi , tier ", l));
}

TEST_CASE("label selector matches an object without labels", "[selector]") {
  auto parsed = LabelSelector::Parse("!a,b!=c");
  REQUIRE(parsed.ok());
  CHECK(parsed.value().Matches(nullptr));
  auto eq = LabelSelector::Parse("a=b");
  REQUIRE(eq.ok());
  CHECK_FALSE(eq.value().Matches(nullptr));
}

TEST_CASE("malformed label selectors are 400 with the API server's wording", "[selector]") {
  for (const char* bad : {"a=b,", "=b", "a in b", "a in (b", "a in ()", "a b", "!a=b", "a=(b)",
                          "a<3", "-a=b", "a=b c", "a=-b-", ",a"}) {
    INFO(bad);
    auto parsed = LabelSelector::Parse(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().code == 400);
    CHECK(parsed.error().reason == "BadRequest");
    CHECK(parsed.error().message.find("unable to parse requirement") != std::string::npos);
  }
  auto too_long = LabelSelector::Parse("a=" + std::string(64, 'x'));
  REQUIRE_FALSE(too_long.ok());
  CHECK(too_long.error().message.find("63") != std::string::npos);
}

TEST_CASE("field selectors", "[selector]") {
  ResourceType pods;
  pods.plural = "pods";
  json::object pod{{"metadata", {{"name", "p1"}, {"namespace", "ns"}}},
                   {"status", {{"phase", "Running"}}},
                   {"spec", {{"hostNetwork", true}}}};
  auto fields = SupportedFieldSelectors(pods);
  auto match = [&](const char* text) {
    auto parsed = FieldSelector::Parse(text, fields);
    REQUIRE(parsed.ok());
    return parsed.value().Matches(pod);
  };
  CHECK(match(""));
  CHECK(match("metadata.name=p1"));
  CHECK(match("metadata.name==p1,metadata.namespace=ns"));
  CHECK_FALSE(match("metadata.name!=p1"));
  CHECK(match("status.phase!=Pending"));
  CHECK(match("spec.hostNetwork=true"));
  CHECK_FALSE(match("spec.nodeName=n1"));
  CHECK(match("spec.nodeName="));

  ResourceType custom;
  custom.group = "spark.apache.org";
  custom.plural = "sparkapplications";
  auto unsupported = FieldSelector::Parse("status.phase=Running", SupportedFieldSelectors(custom));
  REQUIRE_FALSE(unsupported.ok());
  CHECK(unsupported.error().code == 400);
  CHECK(unsupported.error().message == "field label not supported: status.phase");
  auto no_op = FieldSelector::Parse("metadata.name", fields);
  REQUIRE_FALSE(no_op.ok());
  CHECK(no_op.error().code == 400);
}

TEST_CASE("label key and value syntax", "[selector]") {
  CHECK(CheckLabelKey("app").empty());
  CHECK(CheckLabelKey("spark.apache.org/app-name").empty());
  CHECK_FALSE(CheckLabelKey("Bad_Prefix/x").empty());
  CHECK_FALSE(CheckLabelKey("a/").empty());
  CHECK_FALSE(CheckLabelKey("-a").empty());
  CHECK(CheckLabelValue("").empty());
  CHECK(CheckLabelValue("A_b.c-1").empty());
  CHECK_FALSE(CheckLabelValue("a b").empty());
  CHECK_FALSE(CheckLabelValue(std::string(64, 'a')).empty());
}

}  // namespace
}  // namespace kubesim
