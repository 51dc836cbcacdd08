#include "kubesim/rbac/tokens.h"

#include <catch2/catch.hpp>

#include "tests/kubesim/rbac/world.h"

namespace kubesim::rbac {
namespace {

std::string CreateSa(World& w, const std::string& name) {
  auto sa = w.store->Create(w.Type("!serviceaccounts"), "jobs",
                            World::Obj(R"({"metadata":{"name":")" + name + R"("}})"), {});
  REQUIRE(sa.ok());
  return std::string(sa.value().at("metadata").at("uid").as_string());
}

TEST_CASE("A token is its ServiceAccount until it expires or the ServiceAccount goes", "[tokens]") {
  World w;
  ServiceAccountTokens tokens([&w] { return w.now_ms; });
  std::string uid = CreateSa(w, "executor");
  std::string token = tokens.Issue("jobs", "executor", uid, w.now_ms + 600'000);
  REQUIRE(token.size() > 40);
  CHECK(tokens.Issue("jobs", "executor", uid, w.now_ms + 600'000) != token);

  auto user = tokens.Authenticate(token, *w.store);
  REQUIRE(user.has_value());
  CHECK(user->name == "system:serviceaccount:jobs:executor");
  CHECK(user->groups == std::vector<std::string>{"system:serviceaccounts",
                                                 "system:serviceaccounts:jobs",
                                                 "system:authenticated"});
  CHECK_FALSE(user->superuser);
  CHECK_FALSE(tokens.Authenticate(token + "x", *w.store).has_value());
  CHECK_FALSE(tokens.Authenticate("", *w.store).has_value());

  w.now_ms += 600'000;
  CHECK_FALSE(tokens.Authenticate(token, *w.store).has_value());

  // Bound to the uid: a ServiceAccount deleted and created again under the same name is not the
  // one the token was issued for.
  std::string fresh = tokens.Issue("jobs", "executor", uid, w.now_ms + 600'000);
  REQUIRE(tokens.Authenticate(fresh, *w.store).has_value());
  REQUIRE(w.store->Delete(w.Type("!serviceaccounts"), "jobs", "executor", {}).ok());
  CHECK_FALSE(tokens.Authenticate(fresh, *w.store).has_value());
  CreateSa(w, "executor");
  CHECK_FALSE(tokens.Authenticate(fresh, *w.store).has_value());
}

}  // namespace
}  // namespace kubesim::rbac
