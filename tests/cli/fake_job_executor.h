#pragma once

// An in-process JobExecutor on 127.0.0.1:<free port> that answers from canned data and records
// what it was asked, so the CLI's commands can be tested against a real gRPC server.

#include <grpcpp/grpcpp.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "base/clock.h"
#include "google/protobuf/util/message_differencer.h"
#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace kje::cli::testing {

namespace pb = jobexecutor::v1;

class FakeJobExecutor final : public pb::JobExecutor::Service {
 public:
  // Canned answers; set before the CLI runs.
  grpc::Status submit_status = grpc::Status::OK;
  pb::SubmitResponse submit_response;
  std::map<std::string, pb::JobInfo> jobs;  // by execution id: Status, Cancel, ListJobs
  std::vector<std::string> output_lines;
  bool output_truncated = false;
  std::vector<pb::OutputChunk> follow_chunks;
  std::vector<pb::JobInfo> watch_events;
  std::map<std::string, pb::EventsResponse> events;  // by execution id
  grpc::Status watch_end = grpc::Status::OK;
  grpc::Status list_status = grpc::Status::OK;  // when not OK, ListJobs answers it
  std::string required_token;                   // when set, every call needs "Bearer <token>"
  // Schedules by id: what CreateSchedule adds, GetSchedule, ListSchedules (in id order, paged
  // like ListJobs), UpdateSchedule and DeleteSchedule read and change, RunScheduleNow needs.
  std::map<std::string, pb::ScheduleInfo> schedules;
  // When not OK, every schedule RPC answers it (e.g. the Apache backend's FAILED_PRECONDITION).
  grpc::Status schedule_status = grpc::Status::OK;
  // false: DeleteSchedule leaves `existed` unset, as a server older than the field does.
  bool delete_says_existed = true;

  // What it was asked.
  struct Recorded {
    std::vector<pb::SubmitRequest> submits;
    std::vector<std::string> cancels;
    std::vector<pb::OutputRequest> outputs;
    std::vector<pb::FollowOutputRequest> follows;
    std::vector<pb::ListJobsRequest> lists;
    std::vector<pb::WatchStatusRequest> watches;
    std::vector<std::string> statuses;  // the execution id of every Status call
    std::vector<std::string> events;    // the execution id of every Events call
    std::vector<pb::ProxyUiRequest> ui_requests;
    std::vector<pb::CreateScheduleRequest> creates;
    std::vector<pb::GetScheduleRequest> gets;
    std::vector<pb::ListSchedulesRequest> schedule_lists;
    std::vector<pb::UpdateScheduleRequest> updates;
    std::vector<pb::DeleteScheduleRequest> deletes;
    std::vector<pb::RunScheduleNowRequest> runs;
    std::vector<std::string> authorizations;  // the header of every call ("" when absent)
    bool had_deadline = false;                // of the last call
  };
  Recorded recorded() {
    absl::MutexLock lock(&mu_);
    return recorded_;
  }

  grpc::Status Submit(grpc::ServerContext* ctx, const pb::SubmitRequest* request,
                      pb::SubmitResponse* response) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.submits.push_back(*request); });
    *response = submit_response;
    return submit_status;
  }

  grpc::Status Status(grpc::ServerContext* ctx, const pb::StatusRequest* request,
                      pb::JobInfo* response) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.statuses.push_back(request->execution_id()); });
    auto it = jobs.find(request->execution_id());
    if (it == jobs.end()) return {grpc::StatusCode::NOT_FOUND, "no such application"};
    *response = it->second;
    return grpc::Status::OK;
  }

  // A job that has stopped is left as it is, as the server leaves it.
  grpc::Status Cancel(grpc::ServerContext* ctx, const pb::CancelRequest* request,
                      pb::CancelResponse* response) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    auto it = jobs.find(request->execution_id());
    if (it == jobs.end()) return {grpc::StatusCode::NOT_FOUND, "no such application"};
    Record([&](Recorded& r) { r.cancels.push_back(request->execution_id()); });
    pb::JobInfo::Status status = it->second.status();
    response->set_already_stopped(status == pb::JobInfo::SUCCEEDED ||
                                  status == pb::JobInfo::FAILED ||
                                  status == pb::JobInfo::CANCELLED);
    return grpc::Status::OK;
  }

  grpc::Status Output(grpc::ServerContext* ctx, const pb::OutputRequest* request,
                      pb::OutputResponse* response) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.outputs.push_back(*request); });
    for (const auto& l : output_lines) response->add_lines(l);
    response->set_truncated(output_truncated);
    return grpc::Status::OK;
  }

  grpc::Status FollowOutput(grpc::ServerContext* ctx, const pb::FollowOutputRequest* request,
                            grpc::ServerWriter<pb::OutputChunk>* writer) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.follows.push_back(*request); });
    for (const auto& chunk : follow_chunks) writer->Write(chunk);
    return grpc::Status::OK;
  }

  // Pages over `jobs` in id order; the page token is the index of the page's first job.
  grpc::Status ListJobs(grpc::ServerContext* ctx, const pb::ListJobsRequest* request,
                        pb::ListJobsResponse* response) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.lists.push_back(*request); });
    if (!list_status.ok()) return list_status;
    size_t start = 0;
    if (!request->page_token().empty() && !absl::SimpleAtoi(request->page_token(), &start)) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "bad page token"};
    }
    size_t size = request->page_size() > 0 ? static_cast<size_t>(request->page_size()) : 100;
    size_t i = 0;
    for (const auto& [id, info] : jobs) {
      if (i >= start && i < start + size) *response->add_jobs() = info;
      ++i;
    }
    if (start + size < jobs.size()) response->set_next_page_token(absl::StrCat(start + size));
    return grpc::Status::OK;
  }

  // A job of `jobs` that hasn't stopped serves a one-page UI naming the path; a stopped one
  // has no UI, as the server says.
  grpc::Status ProxyUi(grpc::ServerContext* ctx, const pb::ProxyUiRequest* request,
                       pb::ProxyUiResponse* response) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.ui_requests.push_back(*request); });
    auto it = jobs.find(request->execution_id());
    if (it == jobs.end()) return {grpc::StatusCode::NOT_FOUND, "no such application"};
    const pb::JobInfo::Status status = it->second.status();
    if (status == pb::JobInfo::SUCCEEDED || status == pb::JobInfo::FAILED ||
        status == pb::JobInfo::CANCELLED || status == pb::JobInfo::QUEUED) {
      return {grpc::StatusCode::FAILED_PRECONDITION,
              absl::StrCat("job ", request->execution_id(), " has no running driver")};
    }
    response->set_status_code(200);
    response->set_content_type("text/html");
    response->set_body(absl::StrCat("<html>", request->path(), "</html>"));
    return grpc::Status::OK;
  }

  grpc::Status Events(grpc::ServerContext* ctx, const pb::EventsRequest* request,
                      pb::EventsResponse* response) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.events.push_back(request->execution_id()); });
    auto it = events.find(request->execution_id());
    if (it == events.end()) return {grpc::StatusCode::NOT_FOUND, "no such application"};
    *response = it->second;
    return grpc::Status::OK;
  }

  grpc::Status WatchStatus(grpc::ServerContext* ctx, const pb::WatchStatusRequest* request,
                           grpc::ServerWriter<pb::JobInfo>* writer) override {
    if (auto s = Begin(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.watches.push_back(*request); });
    for (const auto& info : watch_events) writer->Write(info);
    return watch_end;
  }

  grpc::Status CreateSchedule(grpc::ServerContext* ctx, const pb::CreateScheduleRequest* request,
                              pb::ScheduleInfo* response) override {
    if (auto s = BeginSchedule(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.creates.push_back(*request); });
    absl::MutexLock lock(&mu_);
    auto [it, added] = schedules.try_emplace(request->schedule_id());
    if (!added) {
      // As the server: only the same request is adopted (a schedule put here by a test, whose
      // template isn't known, by its spec only).
      std::vector<std::string> differ = DifferingSpec(it->second.spec(), request->spec());
      auto made = schedule_templates_.find(request->schedule_id());
      if (made != schedule_templates_.end() &&
          !google::protobuf::util::MessageDifferencer::Equals(made->second, request->template_())) {
        differ.push_back("template");
      }
      if (!differ.empty()) {
        return {grpc::StatusCode::ALREADY_EXISTS,
                absl::StrCat("ScheduledSparkApplication ", it->second.namespace_(), "/",
                             it->second.name(), " exists, made from a different request (it ",
                             "differs in ", absl::StrJoin(differ, ", "),
                             "): a retry must send the same one; use a new id for a different "
                             "job")};
      }
    } else {
      schedule_templates_[request->schedule_id()] = request->template_();
      pb::ScheduleInfo& info = it->second;
      info.set_schedule_id(request->schedule_id());
      auto ns = request->template_().spark().configs().find("spark.kubernetes.namespace");
      info.set_namespace_(ns == request->template_().spark().configs().end() ? "default"
                                                                             : ns->second);
      info.set_name("gravitino-job-" + request->schedule_id());
      *info.mutable_spec() = request->spec();
    }
    *response = it->second;
    response->set_adopted(!added);
    return grpc::Status::OK;
  }

  grpc::Status GetSchedule(grpc::ServerContext* ctx, const pb::GetScheduleRequest* request,
                           pb::ScheduleInfo* response) override {
    if (auto s = BeginSchedule(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.gets.push_back(*request); });
    absl::MutexLock lock(&mu_);
    auto it = schedules.find(request->schedule_id());
    if (it == schedules.end()) return {grpc::StatusCode::NOT_FOUND, "no such schedule"};
    *response = it->second;
    return grpc::Status::OK;
  }

  grpc::Status ListSchedules(grpc::ServerContext* ctx, const pb::ListSchedulesRequest* request,
                             pb::ListSchedulesResponse* response) override {
    if (auto s = BeginSchedule(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.schedule_lists.push_back(*request); });
    size_t start = 0;
    if (!request->page_token().empty() && !absl::SimpleAtoi(request->page_token(), &start)) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "bad page token"};
    }
    size_t size = request->page_size() > 0 ? static_cast<size_t>(request->page_size()) : 100;
    absl::MutexLock lock(&mu_);
    size_t i = 0;
    for (const auto& [id, info] : schedules) {
      if (i >= start && i < start + size) *response->add_schedules() = info;
      ++i;
    }
    if (start + size < schedules.size()) {
      response->set_next_page_token(absl::StrCat(start + size));
    }
    return grpc::Status::OK;
  }

  // Applies the mask's paths to the stored spec, as the server does.
  grpc::Status UpdateSchedule(grpc::ServerContext* ctx, const pb::UpdateScheduleRequest* request,
                              pb::ScheduleInfo* response) override {
    if (auto s = BeginSchedule(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.updates.push_back(*request); });
    absl::MutexLock lock(&mu_);
    auto it = schedules.find(request->schedule_id());
    if (it == schedules.end()) return {grpc::StatusCode::NOT_FOUND, "no such schedule"};
    pb::ScheduleSpec& spec = *it->second.mutable_spec();
    const pb::ScheduleSpec& given = request->spec();
    for (const std::string& path : request->update_mask().paths()) {
      if (path == "schedule") {
        spec.set_schedule(given.schedule());
      } else if (path == "time_zone") {
        spec.set_time_zone(given.time_zone());
      } else if (path == "concurrency_policy") {
        spec.set_concurrency_policy(given.concurrency_policy());
      } else if (path == "successful_run_history_limit") {
        spec.set_successful_run_history_limit(given.successful_run_history_limit());
      } else if (path == "failed_run_history_limit") {
        spec.set_failed_run_history_limit(given.failed_run_history_limit());
      } else if (path == "suspend") {
        spec.set_suspend(given.suspend());
      } else {
        return {grpc::StatusCode::INVALID_ARGUMENT, "update_mask: unknown path " + path};
      }
    }
    *response = it->second;
    return grpc::Status::OK;
  }

  // OK whether or not the schedule existed, as the server answers.
  grpc::Status DeleteSchedule(grpc::ServerContext* ctx, const pb::DeleteScheduleRequest* request,
                              pb::DeleteScheduleResponse* response) override {
    if (auto s = BeginSchedule(ctx); !s.ok()) return s;
    Record([&](Recorded& r) { r.deletes.push_back(*request); });
    absl::MutexLock lock(&mu_);
    bool existed = schedules.erase(request->schedule_id()) > 0;
    if (delete_says_existed) response->set_existed(existed);
    return grpc::Status::OK;
  }

  // The run `<name>-r<run_id>`, adopted when the run id was seen before.
  grpc::Status RunScheduleNow(grpc::ServerContext* ctx, const pb::RunScheduleNowRequest* request,
                              pb::RunScheduleNowResponse* response) override {
    if (auto s = BeginSchedule(ctx); !s.ok()) return s;
    bool seen = false;
    Record([&](Recorded& r) {
      for (const auto& earlier : r.runs) {
        seen = seen || (earlier.schedule_id() == request->schedule_id() &&
                        earlier.run_id() == request->run_id());
      }
      r.runs.push_back(*request);
    });
    absl::MutexLock lock(&mu_);
    auto it = schedules.find(request->schedule_id());
    if (it == schedules.end()) return {grpc::StatusCode::NOT_FOUND, "no such schedule"};
    response->set_execution_id(absl::StrCat("default/sparkapp/", it->second.namespace_(), "/",
                                            it->second.name(), "-r", request->run_id()));
    response->set_adopted(seen);
    return grpc::Status::OK;
  }

  // The spec fields that differ, unset values read as the server reads them.
  static std::vector<std::string> DifferingSpec(const pb::ScheduleSpec& a,
                                                const pb::ScheduleSpec& b) {
    auto policy = [](const pb::ScheduleSpec& s) {
      return s.concurrency_policy() == pb::ScheduleSpec::CONCURRENCY_POLICY_UNSPECIFIED
                 ? pb::ScheduleSpec::ALLOW
                 : s.concurrency_policy();
    };
    auto successful = [](const pb::ScheduleSpec& s) {
      return s.has_successful_run_history_limit() ? s.successful_run_history_limit() : 1;
    };
    auto failed = [](const pb::ScheduleSpec& s) {
      return s.has_failed_run_history_limit() ? s.failed_run_history_limit() : 1;
    };
    std::vector<std::string> out;
    if (a.schedule() != b.schedule()) out.push_back("schedule");
    if (a.time_zone() != b.time_zone()) out.push_back("time_zone");
    if (policy(a) != policy(b)) out.push_back("concurrency_policy");
    if (successful(a) != successful(b)) out.push_back("successful_run_history_limit");
    if (failed(a) != failed(b)) out.push_back("failed_run_history_limit");
    if (a.suspend() != b.suspend()) out.push_back("suspend");
    return out;
  }

 private:
  grpc::Status BeginSchedule(grpc::ServerContext* ctx) {
    if (auto s = Begin(ctx); !s.ok()) return s;
    return schedule_status;
  }

  template <typename F>
  void Record(F f) {
    absl::MutexLock lock(&mu_);
    f(recorded_);
  }

  grpc::Status Begin(grpc::ServerContext* ctx) {
    std::string auth;
    auto it = ctx->client_metadata().find("authorization");
    if (it != ctx->client_metadata().end()) auth.assign(it->second.data(), it->second.size());
    bool deadline = ctx->deadline() != std::chrono::system_clock::time_point::max();
    Record([&](Recorded& r) {
      r.authorizations.push_back(auth);
      r.had_deadline = deadline;
    });
    if (!required_token.empty() && auth != "Bearer " + required_token) {
      return {grpc::StatusCode::UNAUTHENTICATED, "missing or invalid bearer token"};
    }
    return grpc::Status::OK;
  }

  absl::Mutex mu_;
  Recorded recorded_ ABSL_GUARDED_BY(mu_);
  // The template each schedule CreateSchedule made was made from.
  std::map<std::string, pb::JobTemplate> schedule_templates_ ABSL_GUARDED_BY(mu_);
};

// Serves a FakeJobExecutor until destroyed.
class FakeServer {
 public:
  FakeServer() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }
  ~FakeServer() { server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5)); }

  FakeJobExecutor& service() { return service_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  FakeJobExecutor service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

// A clock that moves by `step` each time it is read: `watch` reads it once when it starts and
// once per printed transition, so the printed elapsed times are multiples of `step`.
class SteppingClock final : public Clock {
 public:
  explicit SteppingClock(absl::Duration step) : step_(step) {}
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    absl::Time t = now_;
    now_ += step_;
    return t;
  }

 private:
  const absl::Duration step_;
  mutable absl::Mutex mu_;
  mutable absl::Time now_ ABSL_GUARDED_BY(mu_) = absl::FromUnixSeconds(1767225600);
};

}  // namespace kje::cli::testing
