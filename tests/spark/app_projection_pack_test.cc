// The packed projection reads back exactly what it was made from, whatever the sizes, and
// falls back to its own copies when the interner is full.

#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "base/interner.h"
#include "spark/app_projection.h"
#include "spark/names.h"

namespace kje::spark {
namespace {

AppFields Everything() {
  AppFields f;
  f.namespace_ = "spark-jobs";
  f.name = "gravitino-job-688822913391439376";
  f.uid = "0b7c0d6e-1f5c-4a57-9f0e-2d3c4b5a6978";
  f.resource_version = "123456789";
  f.metalake = "ml";
  f.creation_time = 1778580000000;
  f.deletion_time = 1778580099000;
  f.deleting = true;
  f.managed_by_us = true;
  f.cancel_requested = true;
  f.unknown_current_state = "SomethingNew";
  f.current_message = "Application is running healthy. ✓";
  f.labels = {{"app.kubernetes.io/managed-by", "gravitino"},
              {"gravitino.apache.org/job-id", "688822913391439376"},
              {"empty", ""},
              {"gravitino.apache.org/job-id", "a second value, never the one read"}};
  f.has_status = true;
  f.suspend_requested = true;
  f.kueue_queued = true;
  f.driver_container = "main";
  f.spark_app_id = "spark-0123456789abcdef";
  f.last_words = "Caused by: java.lang.RuntimeException: boom";
  f.operator_state = 7;
  f.status_started = 1778580000500;
  // Opaque here: only the operator's folder reads it, whatever bytes it holds.
  f.operator_status = std::string("\0\x01\xff\x80 the operator's own part", 28);
  return f;
}

void CheckSame(const AppFields& a, const AppFields& b) {
  CHECK(a.namespace_ == b.namespace_);
  CHECK(a.name == b.name);
  CHECK(a.uid == b.uid);
  CHECK(a.resource_version == b.resource_version);
  CHECK(a.metalake == b.metalake);
  CHECK(a.creation_time == b.creation_time);
  CHECK(a.deletion_time == b.deletion_time);
  CHECK(a.deleting == b.deleting);
  CHECK(a.managed_by_us == b.managed_by_us);
  CHECK(a.cancel_requested == b.cancel_requested);
  CHECK(a.unknown_current_state == b.unknown_current_state);
  CHECK(a.current_message == b.current_message);
  CHECK(a.labels == b.labels);
  CHECK(a.has_status == b.has_status);
  CHECK(a.suspend_requested == b.suspend_requested);
  CHECK(a.kueue_queued == b.kueue_queued);
  CHECK(a.driver_container == b.driver_container);
  CHECK(a.spark_app_id == b.spark_app_id);
  CHECK(a.last_words == b.last_words);
  CHECK(a.operator_state == b.operator_state);
  CHECK(a.status_started == b.status_started);
  CHECK(a.operator_status == b.operator_status);
}

TEST_CASE("Packed: every field reads back as it was given, extreme ids and times included") {
  AppFields fields = Everything();
  AppProjection app(fields);
  CheckSame(app.ToFields(), fields);
  CHECK(app.job_id() == "688822913391439376");  // the first of two values, as JSON reads it
  CHECK(app.labels().size() == 4);
  CHECK(app.operator_status().size() == 28);
  CHECK(app.operator_state() == 7);
  CHECK(app.status_started() == 1778580000500);
}

TEST_CASE("Packed: an empty projection and one of empty fields read as empty") {
  AppProjection none;
  CHECK(none.name().empty());
  CHECK(none.operator_status().empty());
  CHECK(none.labels().empty());
  CHECK(none.job_id().empty());
  AppFields empty;
  AppProjection app(empty);
  CheckSame(app.ToFields(), empty);
  CHECK(app.operator_status().empty());
  CHECK(app.status_started() == kNoTime);
}

TEST_CASE("Packed: past 64 KiB of strings the offsets widen and nothing is cut") {
  AppFields fields = Everything();
  fields.labels.emplace_back("big", std::string(70000, 'v'));
  fields.current_message = std::string(1000, 'm');
  AppProjection app(fields);
  CheckSame(app.ToFields(), fields);
  CHECK(app.labels().Find("big")->size() == 70000);
  CHECK(app.operator_status() == fields.operator_status);
  CHECK(app.ApproximateBytes() > 71000);
}

TEST_CASE("Packed: a copy is its own, and equal") {
  AppFields fields = Everything();
  auto original = std::make_unique<AppProjection>(fields);
  AppProjection copy(*original);
  AppProjection assigned;
  assigned = *original;
  original.reset();
  CheckSame(copy.ToFields(), fields);
  CheckSame(assigned.ToFields(), fields);
  AppProjection moved(std::move(copy));
  CheckSame(moved.ToFields(), fields);
  CHECK(assigned.status_started() == 1778580000500);
  CHECK(moved.status_started() == 1778580000500);
}

TEST_CASE("Packed: job_id reads the first job-id label wherever it lies") {
  // Read in place when it lies within the first 64 KiB, by walking the labels past them; both
  // answer as LabelsView::Find does.
  auto check = [](const AppFields& fields) {
    AppProjection app(fields);
    CHECK(app.job_id() == app.labels().Find(kLabelJobId).value_or(std::string_view()));
    AppProjection copy(app);
    CHECK(copy.job_id() == app.job_id());
    AppProjection assigned;
    assigned = app;
    CHECK(assigned.job_id() == app.job_id());
    AppProjection moved(std::move(copy));
    CHECK(moved.job_id() == app.job_id());
    return std::string(app.job_id());
  };
  AppFields fields = Everything();
  CHECK(check(fields) == "688822913391439376");
  fields.labels.insert(fields.labels.begin(), {"big", std::string(300, 'v')});
  CHECK(check(fields) == "688822913391439376");     // a two-byte varint before it
  fields.labels[2].second = std::string(200, 'j');  // and a two-byte length of its own
  CHECK(check(fields) == std::string(200, 'j'));
  fields.labels[0].second = std::string(70000, 'v');  // past 64 KiB: found by walking
  CHECK(check(fields) == std::string(200, 'j'));
  fields.labels = {{"app.kubernetes.io/managed-by", "gravitino"}};
  CHECK(check(fields).empty());
  fields.labels = {{std::string(kLabelJobId), ""}};
  CHECK(check(fields).empty());
}

TEST_CASE("Packed: the namespace, label keys and container name are shared between apps") {
  AppFields a = Everything();
  AppFields b = Everything();
  b.name = "another";
  AppProjection first(a);
  AppProjection second(b);
  CHECK(first.namespace_().data() == second.namespace_().data());
  CHECK(first.driver_container().data() == second.driver_container().data());
  CHECK(first.labels().begin()->first.data() == second.labels().begin()->first.data());
  // Values are each app's own.
  CHECK(first.labels().begin()->second.data() != second.labels().begin()->second.data());
}

TEST_CASE("Interner: past its bound it answers nullptr, and a projection keeps its own copies") {
  Interner small(200);
  const std::string* a = small.Intern("spark-jobs");
  REQUIRE(a != nullptr);
  CHECK(small.Intern("spark-jobs") == a);
  CHECK(small.Intern(std::string(Interner::kMaxTextBytes + 1, 'k')) == nullptr);
  int pooled = 1;
  while (small.Intern("key-" + std::to_string(pooled)) != nullptr) ++pooled;
  CHECK(small.bytes() <= 200);
  CHECK(small.size() == static_cast<size_t>(pooled));
  CHECK(small.Intern("spark-jobs") == a);  // what is pooled stays found

  // The process's pool, full: new texts are packed with the app instead.
  Interner& global = Interner::Global();
  global.set_max_bytes(global.bytes());
  AppFields fields = Everything();
  fields.namespace_ = "a-namespace-never-seen-before";
  fields.driver_container = "a-container-never-seen-before";
  fields.labels.emplace_back("a-key-never-seen-before", "v");
  AppProjection app(fields);
  global.set_max_bytes(Interner::kDefaultMaxBytes);
  CheckSame(app.ToFields(), fields);
  CHECK(app.labels().Find("a-key-never-seen-before") == "v");
}

}  // namespace
}  // namespace kje::spark
