#include "server/status_wire.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/stubs/logging.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "server/job_info.h"

namespace kje::server {
namespace {

namespace pb = jobexecutor::v1;
using executor::JobResult;

std::string Bytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  REQUIRE(buffer.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices)
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

std::string Wire(const executor::JobView& job) {
  grpc::ByteBuffer buffer;
  WriteJobInfoWire(job, &buffer);
  return Bytes(buffer);
}

std::string Serialized(const JobResult& result) {
  pb::JobInfo info;
  ToJobInfo(result, &info);
  return info.SerializeAsString();
}

// Templates whose links all render for Full(), and one that never does (no finish time).
const spark::LinkTemplates& Templates() {
  static const spark::LinkTemplates kTemplates = *spark::LinkTemplates::Parse({
      {"spark-ui", "https://spark.example/{namespace}/{name}"},
      {"history", "https://history.example/history/{sparkAppId}/jobs/"},
      {"logs", "https://logs.example/?ns={namespace}&from={createdAtMillis}&at={startedAt}"},
  });
  return kTemplates;
}

JobResult Full() {
  JobResult r;
  r.created_at = absl::FromUnixSeconds(1767225590);
  r.links = &Templates();
  r.execution_id = "default/sparkapp/team-a/gravitino-job-42";
  r.namespace_ = "team-a";
  r.name = "gravitino-job-42";
  r.job_id = "42";
  r.driver_pod = "gravitino-job-42-0-driver";
  r.info.status = spark::JobStatus::kStarted;
  r.info.started_at = absl::FromUnixSeconds(1767225600);
  r.info.operator_state = "RunningHealthy";
  r.info.message = "Application is running healthy.";
  r.details.spark_app_id = "spark-3f1c";
  r.details.attempts = 2;
  r.details.driver_ui_address = "gravitino-job-42-0-driver-svc.team-a.svc:4040";
  r.details.queue = "root.analytics";
  r.info.cancel_reason = "wrong input table";
  r.info.deadline_at = absl::FromUnixSeconds(1767229200);
  r.info.deadline_exceeded = spark::DeadlineKind::kRun;
  r.waiting.reason = spark::WaitingReason::kExecutorsPending;
  r.waiting.message = "0/3 nodes are available: 3 Insufficient cpu.";
  r.output_source = spark::OutputSource::kNotKept;
  r.output_note = "the driver pod was deleted before any replica could read its log";
  r.exit_code = 0;  // present though 0: the field has presence
  return r;
}

TEST_CASE("status wire: a JobInfo is byte for byte what protobuf writes for the message",
          "[server]") {
  std::vector<JobResult> cases;
  cases.push_back(JobResult{});  // every field at its default: no bytes at all
  cases.push_back(Full());
  for (spark::JobStatus s :
       {spark::JobStatus::kQueued, spark::JobStatus::kSucceeded, spark::JobStatus::kFailed,
        spark::JobStatus::kCancelling, spark::JobStatus::kCancelled}) {
    JobResult r = Full();
    r.info.status = s;
    r.info.finished_at = absl::FromUnixMillis(1767225700123);  // nanos too
    cases.push_back(r);
  }
  {
    JobResult r = Full();
    r.info.started_at = absl::UnixEpoch();                  // present, but an empty message
    r.info.finished_at = absl::FromUnixNanos(-1500000001);  // before 1970: negative seconds
    r.details.attempts = int64_t{1} << 40;                  // capped at the int32's maximum
    cases.push_back(r);
  }
  {
    JobResult r = Full();
    r.details.attempts = -3;  // an int32 below zero takes ten bytes
    r.info.started_at = absl::FromUnixNanos(7);
    r.info.message = std::string(200, 'm');           // a two-byte length
    r.info.operator_state = std::string(20000, 's');  // a three-byte length
    r.name = "n\xc3\xa4me \xe2\x9c\x93";              // UTF-8 beyond ASCII
    cases.push_back(r);
  }
  {
    JobResult r = Full();
    r.details.spark_app_id.clear();  // the history link is left out
    cases.push_back(r);
  }
  for (const JobResult& r : cases) {
    CHECK(Wire(executor::ViewOf(r)) == Serialized(r));
  }
}

TEST_CASE("status wire: links go out as protobuf writes them, each once its values are known",
          "[server]") {
  JobResult r = Full();
  pb::JobInfo parsed;
  REQUIRE(parsed.ParseFromString(Wire(executor::ViewOf(r))));
  REQUIRE(parsed.links_size() == 3);
  CHECK(parsed.links(0).name() == "spark-ui");
  CHECK(parsed.links(0).url() == "https://spark.example/team-a/gravitino-job-42");
  CHECK(parsed.links(1).url() == "https://history.example/history/spark-3f1c/jobs/");
  CHECK(parsed.links(2).url() ==
        "https://logs.example/?ns=team-a&from=1767225590000&at=2026-01-01T00%3A00%3A00Z");
  r.details.spark_app_id.clear();
  REQUIRE(parsed.ParseFromString(Wire(executor::ViewOf(r))));
  REQUIRE(parsed.links_size() == 2);
  CHECK(parsed.links(1).name() == "logs");
  r.links = nullptr;  // no templates: no links, and not a byte more
  REQUIRE(parsed.ParseFromString(Wire(executor::ViewOf(r))));
  CHECK(parsed.links_size() == 0);
  // A copy of the view that owns its strings keeps what the links need.
  CHECK(executor::LinksOf(executor::ViewOf(executor::ToResult(executor::ViewOf(Full())))).size() ==
        3);
}

TEST_CASE("status wire: the queue goes out as protobuf writes it and reads back", "[server]") {
  for (const std::string& queue : {std::string(), std::string("team-a"), std::string(300, 'q')}) {
    JobResult r = Full();
    r.details.queue = queue;
    const std::string wire = Wire(executor::ViewOf(r));
    CHECK(wire == Serialized(r));
    pb::JobInfo parsed;
    REQUIRE(parsed.ParseFromString(wire));
    CHECK(parsed.queue() == queue);
    // A copy of the view that owns its strings keeps it too.
    CHECK(executor::ToResult(executor::ViewOf(r)).details.queue == queue);
  }
}

TEST_CASE("status wire: every field of JobInfo is written", "[server]") {
  // A field added to the proto but not to the writer fails here: parsed back, each field of a
  // result with all of them set must be present.
  JobResult r = Full();
  r.info.finished_at = absl::FromUnixSeconds(1767225700);
  pb::JobInfo parsed;
  REQUIRE(parsed.ParseFromString(Wire(executor::ViewOf(r))));
  const google::protobuf::Descriptor* d = pb::JobInfo::descriptor();
  const google::protobuf::Reflection* reflection = parsed.GetReflection();
  CHECK(d->field_count() == 23);
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = d->field(i);
    INFO(field->name());
    if (field->is_repeated()) {
      CHECK(reflection->FieldSize(parsed, field) > 0);
    } else {
      CHECK(reflection->HasField(parsed, field));
    }
  }
}

grpc::ByteBuffer Buffer(const std::string& bytes, size_t split = std::string::npos) {
  if (split >= bytes.size()) {
    grpc::Slice slice(bytes);
    return grpc::ByteBuffer(&slice, 1);
  }
  grpc::Slice parts[2] = {grpc::Slice(bytes.substr(0, split)), grpc::Slice(bytes.substr(split))};
  return grpc::ByteBuffer(parts, 2);
}

// What protobuf's parser makes of `bytes`: the id, or nullopt when it can't parse them.
std::optional<std::string> ProtobufId(const std::string& bytes) {
  pb::StatusRequest request;
  if (!request.ParseFromString(bytes)) return std::nullopt;
  return request.execution_id();
}

std::optional<std::string> OurId(const grpc::ByteBuffer& buffer) {
  grpc::Slice slice;
  std::string parsed;
  absl::StatusOr<std::string_view> id = StatusRequestId(buffer, &slice, &parsed);
  if (!id.ok()) {
    CHECK(absl::IsInvalidArgument(id.status()));
    return std::nullopt;
  }
  return std::string(*id);
}

std::string Request(const std::string& id) {
  pb::StatusRequest r;
  r.set_execution_id(id);
  return r.SerializeAsString();
}

TEST_CASE("status wire: a request's id is read as protobuf reads it", "[server]") {
  google::protobuf::LogSilencer quiet;  // protobuf logs each id that isn't UTF-8
  const std::string id = "default/sparkapp/team-a/gravitino-job-42";
  CHECK(OurId(Buffer(Request(id))) == id);
  CHECK(OurId(Buffer(Request(id), 7)) == id);  // split across two slices
  CHECK(OurId(Buffer("")) == "");
  CHECK(OurId(grpc::ByteBuffer()) == "");  // no bytes at all
  CHECK(OurId(Buffer(Request(std::string(300, 'x')))) == std::string(300, 'x'));

  // The encodings the usual one doesn't cover, beside malformed ones.
  const std::string unknown_varint = "\x10\x05";  // field 2, a varint
  const std::string unknown_bytes = std::string("\x1a\x02", 2) + "ab";
  std::vector<std::string> others = {
      unknown_varint + Request(id),
      Request(id) + unknown_bytes,
      Request("first") + Request(id),                                   // the last one wins
      Request("caf\xc3\xa9/sparkapp/ns/n"),                             // UTF-8 beyond ASCII
      Request("bad\xff/sparkapp/ns/n"),                                 // not UTF-8
      Request(id).substr(0, 10),                                        // cut short
      std::string("\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", 11),  // an over-long varint
      std::string("\x0a\x85\x00", 3) + "abcde",                         // a non-minimal length
      std::string("\x08\x01", 2),                                       // field 1 as a varint
      std::string("\x00", 1),                                           // field 0
  };
  for (const std::string& bytes : others) {
    CHECK(OurId(Buffer(bytes)) == ProtobufId(bytes));
  }

  // And whatever a byte changed, cut or added does to a request.
  std::mt19937 random(20261205);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = Request(id.substr(0, 1 + random() % id.size()));  // never empty
    switch (random() % 3) {
      case 0:
        bytes[random() % bytes.size()] = static_cast<char>(random());
        break;
      case 1:
        bytes.resize(random() % (bytes.size() + 1));
        break;
      default:
        bytes.insert(random() % (bytes.size() + 1), 1, static_cast<char>(random()));
    }
    CHECK(OurId(Buffer(bytes)) == ProtobufId(bytes));
  }
}

TEST_CASE("JobInfo's waiting reasons and deadlines are the proto's, value for value and by name",
          "[server]") {
  const google::protobuf::EnumDescriptor* reasons = pb::JobInfo::WaitingReason_descriptor();
  for (int i = 0; i < reasons->value_count(); ++i) {
    const auto* value = reasons->value(i);
    INFO(value->name());
    if (value->number() == 0) {
      CHECK(spark::WaitingReasonName(spark::WaitingReason::kNone).empty());
      continue;
    }
    // The service's spelling (the CLI's `--waiting` filter, logs) is the proto's.
    auto parsed = spark::ParseWaitingReason(value->name());
    REQUIRE(parsed.has_value());
    CHECK(static_cast<int>(*parsed) == value->number());
    CHECK(spark::WaitingReasonName(*parsed) == value->name());
  }
  const google::protobuf::EnumDescriptor* deadlines = pb::JobInfo::Deadline_descriptor();
  CHECK(deadlines->FindValueByNumber(static_cast<int>(spark::DeadlineKind::kQueued))->name() ==
        "QUEUED_DEADLINE");
  CHECK(deadlines->FindValueByNumber(static_cast<int>(spark::DeadlineKind::kRun))->name() ==
        "RUN_DEADLINE");
  CHECK(deadlines->value_count() == 3);
}

}  // namespace
}  // namespace kje::server
