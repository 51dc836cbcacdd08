#include "executor/dry_run.h"

#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "k8s/errors.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"

namespace kje::executor {
namespace {

absl::Status Api(int code, const std::string& reason, const std::string& message) {
  return k8s::MakeApiStatus({code, reason, message});
}

// A template with secrets in each place a caller can put one.
spark::SparkTemplate SecretTemplate() {
  spark::SparkTemplate t = Template();
  t.environments = {{"DB_PASSWORD", "env-value-hunter2"}};
  t.configs = {{"spark.hadoop.fs.s3a.secret.key", "conf-value-s3cr3t"}};
  t.arguments = {"--token", "arg-value-abc", "--rows=10"};
  return t;
}

void RequireNoMoreCalls(Fixture& f) {
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("dry run: one dryRun=All create, no Secret, and no secret in the answer", "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  // The deployment puts environment variables into a Secret per job (else they are refused).
  ExecutorOptions options = f.executor->options();
  options.builder.environment_secrets = true;
  Executor executor(f.io, f.client, *f.cache, NamespacePolicy({}), options, f.clock, op.backend);
  Result<SubmitResult> r;
  executor.SubmitDryRun("7", "ml", SecretTemplate(), absl::Now() + absl::Seconds(5), r.Callback());
  // The environment's Secret is a Submit's first request; a dry run makes none.
  auto create = f.Next("create_dry_run");
  CHECK(create->ref.namespace_ == kNs);
  CHECK(create->ref.plural == op.backend->Applications().plural);
  CHECK(create->ref.name.empty());
  // The very application a Submit builds: its labels, its template hash, the Secret named.
  CHECK(absl::StrContains(create->body, R"("gravitino.apache.org/job-id":"7")"));
  CHECK(absl::StrContains(create->body, "template-hash"));
  CHECK(absl::StrContains(create->body, "gravitino-job-7-env"));
  CHECK_FALSE(absl::StrContains(create->body, "env-value-hunter2"));
  f.client->Complete(create, create->body);
  REQUIRE(r.Get().ok());
  CHECK_FALSE(r.Get()->adopted);
  CHECK(r.Get()->execution_id == "default/sparkapp/jobs/gravitino-job-7");
  const std::string& shown = r.Get()->application;
  CHECK(absl::StrContains(shown, R"("gravitino.apache.org/job-id":"7")"));
  CHECK(absl::StrContains(shown, "--rows=10"));
  for (const char* secret : {"env-value-hunter2", "conf-value-s3cr3t", "arg-value-abc"}) {
    CHECK_FALSE(absl::StrContains(shown, secret));
  }
  CHECK(absl::StrContains(shown, std::string(kMask)));
  RequireNoMoreCalls(f);
}

TEST_CASE("dry run: a taken name answers what Submit would, creating nothing", "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  // The application this job's template makes, as the API server stores it.
  std::string stored;
  {
    Result<SubmitResult> r;
    f.executor->SubmitDryRun("7", "ml", Template(), deadline, r.Callback());
    auto create = f.Next("create_dry_run");
    stored = create->body;
    f.client->Complete(create, create->body);
    REQUIRE(r.Get().ok());
  }
  SECTION("the same job and template: it would adopt, and shows the application it has") {
    Result<SubmitResult> r;
    f.executor->SubmitDryRun("7", "ml", Template(), deadline, r.Callback());
    f.client->Complete(f.Next("create_dry_run"), Api(409, "AlreadyExists", "exists"));
    auto get = f.Next("get");
    CHECK(get->ref.name == "gravitino-job-7");
    std::string existing = stored;
    existing.insert(existing.rfind('}'), R"(,"status":{"marker":"the existing one"})");
    f.client->Complete(get, existing);
    REQUIRE(r.Get().ok());
    CHECK(r.Get()->adopted);
    CHECK(absl::StrContains(r.Get()->application, "the existing one"));
  }
  SECTION("the same job with another template: ALREADY_EXISTS naming what differs") {
    spark::SparkTemplate other = Template();
    other.class_name = "org.example.Other";
    Result<SubmitResult> r;
    f.executor->SubmitDryRun("7", "ml", other, deadline, r.Callback());
    f.client->Complete(f.Next("create_dry_run"), Api(409, "AlreadyExists", "exists"));
    f.client->Complete(f.Next("get"), stored);
    REQUIRE(absl::IsAlreadyExists(r.Get().status()));
    CHECK(absl::StrContains(r.Get().status().message(), "differs in"));
  }
  SECTION("another job's application: ALREADY_EXISTS") {
    Result<SubmitResult> r;
    f.executor->SubmitDryRun("7", "ml", Template(), deadline, r.Callback());
    f.client->Complete(f.Next("create_dry_run"), Api(409, "AlreadyExists", "exists"));
    f.client->Complete(f.Next("get"),
                       op.AppJson("gravitino-job-7", "2", Situation::kRunning, "other"));
    CHECK(absl::IsAlreadyExists(r.Get().status()));
  }
  SECTION("gone since the 409: UNAVAILABLE, to retry") {
    Result<SubmitResult> r;
    f.executor->SubmitDryRun("7", "ml", Template(), deadline, r.Callback());
    f.client->Complete(f.Next("create_dry_run"), Api(409, "AlreadyExists", "exists"));
    f.client->Complete(f.Next("get"), Api(404, "NotFound", "gone"));
    CHECK(absl::IsUnavailable(r.Get().status()));
  }
  RequireNoMoreCalls(f);
}

TEST_CASE("dry run: the API server's refusal is Submit's code; bad input sends nothing",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  SECTION("422 from validation") {
    Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
    Result<SubmitResult> r;
    f.executor->SubmitDryRun("7", "ml", Template(), absl::Now() + absl::Seconds(5), r.Callback());
    f.client->Complete(f.Next("create_dry_run"),
                       Api(422, "Invalid", "spec.x: Invalid value: \"y\""));
    REQUIRE(absl::IsInvalidArgument(r.Get().status()));
    CHECK(absl::StrContains(r.Get().status().message(), "dry run"));
    RequireNoMoreCalls(f);
  }
  SECTION("a namespace outside the allow-list") {
    Fixture f(/*cache_on=*/false, {"elsewhere"}, 1024, op.backend);
    Result<SubmitResult> r;
    f.executor->SubmitDryRun("7", "ml", Template(), absl::Now() + absl::Seconds(5), r.Callback());
    CHECK(absl::IsPermissionDenied(r.Get().status()));
    RequireNoMoreCalls(f);
  }
  SECTION("a template that can't run") {
    Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
    spark::SparkTemplate bad = Template();
    bad.executable = "";
    Result<SubmitResult> r;
    f.executor->SubmitDryRun("7", "ml", bad, absl::Now() + absl::Seconds(5), r.Callback());
    CHECK(absl::IsInvalidArgument(r.Get().status()));
    RequireNoMoreCalls(f);
  }
}

TEST_CASE("dry run: masking an object's JSON", "[executor]") {
  const SensitiveWords words;
  const std::string shown = MaskedObjectJson(
      R"({"spec":{"sparkConf":{"spark.x.password":"p1","spark.x.token":7,"spark.x.rows":"3",)"
      R"("spark.x.secret":""},"args":["--password","p2","--key=v","--api-token=p3"],)"
      R"("env":[{"name":"DB_PASSWORD","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}],)"
      R"("note":"spark.y.password=p4 and more"}})",
      words);
  for (const char* secret : {"p1", "\"spark.x.token\":7", "p2", "p3", "p4"}) {
    INFO(secret);
    CHECK_FALSE(absl::StrContains(shown, secret));
  }
  CHECK(absl::StrContains(shown, R"("spark.x.rows":"3")"));
  CHECK(absl::StrContains(shown, R"("spark.x.secret":"")"));  // nothing to hide
  CHECK(absl::StrContains(shown, R"("--key=v")"));
  // A reference to a Secret is no secret: its object's members are shown.
  CHECK(absl::StrContains(shown, R"("secretKeyRef":{"name":"s","key":"k"})"));
  CHECK(absl::StrContains(shown, R"("name":"DB_PASSWORD")"));
  CHECK(MaskedObjectJson("{not json", words).empty());
}

}  // namespace
}  // namespace kje::executor
