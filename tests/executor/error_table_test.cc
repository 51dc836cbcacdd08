#include "executor/error_table.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/strings.h"
#include "k8s/errors.h"
#include "spark/build_error.h"

namespace kje::executor {
namespace {

using Row = std::tuple<std::string, std::string, std::string>;  // outcome, RPC, code

std::string CodeName(absl::StatusCode code) { return absl::StatusCodeToString(code); }

// The rows of the proto's table: between its header line and the next empty comment line, each
// line's columns separated by two spaces or more; an outcome cell may name several outcomes.
std::set<Row> ProtoRows() {
  std::ifstream in(std::string(KJE_SOURCE_DIR) + "/proto/jobexecutor/v1/job_executor.proto");
  REQUIRE(in.good());
  std::set<Row> rows;
  std::string line;
  bool in_table = false;
  const std::regex row_re(R"(^//   (\S.*?)\s{2,}(\S+)\s{2,}([A-Z_]+)\s{2,}\S.*$)");
  while (std::getline(in, line)) {
    if (!in_table) {
      in_table = line.find("Kubernetes outcome") != std::string::npos &&
                 line.find("gRPC code") != std::string::npos;
      continue;
    }
    if (line == "//") break;
    std::smatch m;
    INFO(line);
    REQUIRE(std::regex_match(line, m, row_re));
    for (absl::string_view outcome : absl::StrSplit(m[1].str(), ',')) {
      rows.emplace(std::string(absl::StripAsciiWhitespace(outcome)), m[2].str(), m[3].str());
    }
  }
  return rows;
}

std::set<Row> CodeRows() {
  std::set<Row> rows;
  for (const ErrorRow& row : ErrorTable()) {
    rows.emplace(std::string(row.outcome), std::string(RpcName(row.rpc)), CodeName(row.code));
  }
  return rows;
}

// A Kubernetes status with the outcome a row names, and the deadline and time that make it so.
struct Made {
  absl::Status status;
  absl::Time deadline;
  absl::Time now;
};

Made StatusWithOutcome(std::string_view outcome) {
  const absl::Time now = absl::FromUnixSeconds(1000);
  const absl::Time later = now + absl::Seconds(5);
  if (outcome == "cancelled") return {absl::CancelledError("call cancelled"), later, now};
  if (outcome == "deadline") return {absl::DeadlineExceededError("deadline"), now, now};
  if (outcome == "timeout") return {absl::DeadlineExceededError("request timeout"), later, now};
  if (outcome == "unreachable") return {absl::UnavailableError("connection reset"), later, now};
  if (outcome == "refused locally") return {absl::InvalidArgumentError("bad segment"), later, now};
  if (outcome == "throttled") {
    return {k8s::MakeThrottledStatus("kubernetes: queue full (kubernetes.maxInFlight)"), later,
            now};
  }
  if (outcome == "too large") {
    return {absl::ResourceExhaustedError("kubernetes: the response is larger than 64 bytes"), later,
            now};
  }
  if (outcome == "other") return {k8s::MakeApiStatus({418, "Teapot", "m"}), later, now};
  if (outcome == "other 5xx") return {k8s::MakeApiStatus({507, "", "m"}), later, now};
  if (outcome == "409 AlreadyExists") {
    return {k8s::MakeApiStatus({409, "AlreadyExists", "m"}), later, now};
  }
  int code = 0;
  REQUIRE(absl::SimpleAtoi(ToAbsl(outcome), &code));
  return {k8s::MakeApiStatus({code, code == 409 ? "Conflict" : "", "m"}), later, now};
}

TEST_CASE("The proto's error table and the code's rows are the same") {
  std::set<Row> proto = ProtoRows();
  std::set<Row> code = CodeRows();
  for (const Row& row : code) {
    INFO(std::get<0>(row) << " | " << std::get<1>(row) << " | " << std::get<2>(row));
    CHECK(proto.count(row) == 1);  // a row of the code the proto doesn't document
  }
  for (const Row& row : proto) {
    INFO(std::get<0>(row) << " | " << std::get<1>(row) << " | " << std::get<2>(row));
    CHECK(code.count(row) == 1);  // a row the proto documents that the code doesn't have
  }
  CHECK(proto.size() == ErrorTable().size());
}

TEST_CASE("Every row is what FromKubernetes answers for its outcome and RPC") {
  for (const ErrorRow& row : ErrorTable()) {
    INFO(row.outcome << " | " << RpcName(row.rpc));
    Made made = StatusWithOutcome(row.outcome);
    CHECK(OutcomeOf(made.status, made.deadline, made.now) == row.outcome);
    absl::Status mapped =
        FromKubernetes(made.status, row.rpc, "reading something", made.deadline, made.now);
    CHECK(mapped.code() == row.code);
    std::string message(ToStd(mapped.message()));
    CHECK(message.rfind("reading something: ", 0) == 0);
    if (!row.hint.empty()) CHECK(message.find(std::string(row.hint)) != std::string::npos);
  }
}

TEST_CASE("Each outcome has an any row, and an RPC's row differs from it") {
  std::map<std::string_view, absl::StatusCode> any;
  for (const ErrorRow& row : ErrorTable()) {
    if (row.rpc == Rpc::kAny) CHECK(any.emplace(row.outcome, row.code).second);  // one each
  }
  for (const ErrorRow& row : ErrorTable()) {
    INFO(row.outcome << " | " << RpcName(row.rpc));
    REQUIRE(any.count(row.outcome) == 1);
    if (row.rpc != Rpc::kAny) CHECK(any[row.outcome] != row.code);
  }
  // An RPC without a row of its own answers as any.
  Made not_found = StatusWithOutcome("404");
  CHECK(FromKubernetes(not_found.status, Rpc::kStatus, "x", not_found.deadline, not_found.now)
            .code() == absl::StatusCode::kNotFound);
  CHECK(FromKubernetes(not_found.status, Rpc::kSubmit, "x", not_found.deadline, not_found.now)
            .code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Only the service's own queue is throttled; an answer too large is no reason to wait") {
  const absl::Time t = absl::FromUnixSeconds(1000);
  CHECK(OutcomeOf(k8s::MakeThrottledStatus("queue full"), t, t) == "throttled");
  CHECK(k8s::IsThrottled(k8s::MakeThrottledStatus("queue full")));
  CHECK_FALSE(k8s::IsThrottled(absl::ResourceExhaustedError("response too large")));
  CHECK(OutcomeOf(absl::ResourceExhaustedError("response too large"), t + absl::Seconds(1), t) ==
        "too large");
}

TEST_CASE("A success passes through untouched") {
  CHECK(FromKubernetes(absl::OkStatus(), Rpc::kAny, "x", absl::Now(), absl::Now()).ok());
}

TEST_CASE("A builder's refusal: the executor's configuration is INTERNAL, an id names its field") {
  const absl::Status config = spark::TagBuildError(spark::BuildInput::kServerConfig,
                                                   absl::FailedPreconditionError("no Spark image"));
  for (Rpc rpc : {Rpc::kSubmit, Rpc::kCreateSchedule}) {
    CHECK(FromBuild(config, rpc) == absl::InternalError("no Spark image"));
  }
  const absl::Status id =
      spark::TagBuildError(spark::BuildInput::kJobId, absl::InvalidArgumentError("too long"));
  CHECK(FromBuild(id, Rpc::kSubmit) == absl::InvalidArgumentError("too long"));
  CHECK(FromBuild(id, Rpc::kCreateSchedule) == absl::InvalidArgumentError("schedule_id: too long"));
  // The template's and a run id's errors are the builder's, words about ids notwithstanding.
  const absl::Status words = absl::InvalidArgumentError("the job id in spark.app.id");
  CHECK(FromBuild(words, Rpc::kCreateSchedule) == words);
  const absl::Status run =
      spark::TagBuildError(spark::BuildInput::kRunId, absl::InvalidArgumentError("run_id x"));
  CHECK(FromBuild(run, Rpc::kRunScheduleNow) == run);
  CHECK(FromBuild(absl::OkStatus(), Rpc::kSubmit).ok());
}

}  // namespace
}  // namespace kje::executor
