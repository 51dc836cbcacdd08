#include "server/job_executor_service.h"

#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "server/job_info.h"
#include "server/metrics.h"
#include "server/proto_convert.h"
#include "server/reactors.h"
#include "server/status_mapping.h"
#include "server/status_wire.h"
#include "spark/log_tail.h"

namespace kje::server {

namespace pb = jobexecutor::v1;

int64_t JobExecutorService::LiveReactors() { return RpcLifetime::Live(); }

namespace {

grpc::ServerUnaryReactor* NotConfigured(grpc::CallbackServerContext* ctx, const char* method) {
  return FinishNow(ctx, method, NotConfiguredStatus(method));
}

std::string ResultLabel(const absl::Status& status) {
  return GrpcCodeResult(ToGrpcStatus(status).error_code());
}

void ToJobInfoMessage(const JobResult& result, pb::JobInfo* info) { ToJobInfo(result, info); }

// OutputRequest's and FollowOutputRequest's fields beyond the lines' count (FollowOutput has no
// previous run to read).
template <typename Request>
executor::LogRequest LogRequestOf(const Request& request) {
  executor::LogRequest log;
  log.executor = request.executor();
  log.since_seconds = request.since_seconds();
  log.timestamps = request.timestamps();
  if constexpr (std::is_same_v<Request, pb::OutputRequest>) log.previous = request.previous();
  return log;
}

}  // namespace

absl::Status JobExecutorService::Authenticate(grpc::CallbackServerContext* ctx) const {
  if (auth_ == nullptr) return absl::OkStatus();
  std::string_view authorization;
  const auto& md = ctx->client_metadata();
  if (auto it = md.find("authorization"); it != md.end()) {
    authorization = std::string_view(it->second.data(), it->second.size());
  }
  return auth_->Check(authorization);
}

absl::Status JobExecutorService::AdmitStream(grpc::CallbackServerContext* ctx, const char* method,
                                             RpcLifetime& reactor) {
  RETURN_IF_ERROR(Authenticate(ctx));
  if (executor_ == nullptr) return NotConfiguredStatus(method);
  ASSIGN_OR_RETURN(Admission::Ticket ticket, Admit(Admission::Kind::kStream));
  reactor.Hold(std::move(ticket));
  return absl::OkStatus();
}

absl::StatusOr<Admission::Ticket> JobExecutorService::Admit(Admission::Kind kind) {
  if (admission_ == nullptr) return Admission::Ticket();
  return admission_->Admit(kind);
}

grpc::ServerUnaryReactor* JobExecutorService::Unauthenticated(grpc::CallbackServerContext* ctx,
                                                              const char* method) {
  absl::Status status = Authenticate(ctx);
  if (status.ok()) return nullptr;
  return FinishNow(ctx, method, status);
}

JobExecutorService::UnaryStart JobExecutorService::StartUnary(
    grpc::CallbackServerContext* ctx, const char* method, absl::FunctionRef<absl::Status()> check) {
  if (auto* denied = Unauthenticated(ctx, method)) return {nullptr, denied};
  if (executor_ == nullptr) return {nullptr, NotConfigured(ctx, method)};
  if (absl::Status valid = check(); !valid.ok()) return {nullptr, FinishNow(ctx, method, valid)};
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return {nullptr, FinishNow(ctx, method, ticket.status())};
  auto* reactor = new CallReactor(ctx, method);
  reactor->Hold(*std::move(ticket));
  return {reactor, nullptr};
}

grpc::ServerUnaryReactor* JobExecutorService::Submit(grpc::CallbackServerContext* ctx,
                                                     const pb::SubmitRequest* request,
                                                     pb::SubmitResponse* response) {
  UnaryStart start = StartUnary(ctx, "Submit", [request] {
    if (!request->has_template_()) return absl::InvalidArgumentError("template is required");
    if (!request->template_().has_spark() && !request->template_().has_shell()) {
      return absl::InvalidArgumentError(
          "template must be a Spark job (template.spark) or a shell job (template.shell)");
    }
    return absl::OkStatus();
  });
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  // The call's line says which job it was for, and what it became: one line per Submit.
  reactor->Note("job_id", request->job_id());
  const bool dry_run = request->dry_run();
  if (dry_run) reactor->Note("dry_run", "true");
  auto submit = dry_run ? &executor::JobExecutor::SubmitDryRun : &executor::JobExecutor::Submit;
  reactor->Attach((executor_->*submit)(
      request->job_id(), request->metalake(), ToSparkTemplate(request->template_()),
      reactor->Deadline(), [this, reactor, response, dry_run](absl::StatusOr<SubmitResult> r) {
        if (r.ok()) {
          response->set_execution_id(r->execution_id);
          response->set_adopted(r->adopted);
          response->set_application(std::move(r->application));
          reactor->Note("execution_id", r->execution_id);
          reactor->Note("adopted", r->adopted ? "true" : "false");
        }
        // A dry run created nothing: it is no submission to count.
        if (metrics_ != nullptr && !dry_run) {
          metrics_->RecordSubmit(r.ok() ? (r->adopted ? "adopted" : "created")
                                        : ResultLabel(r.status()));
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Status(grpc::CallbackServerContext* ctx,
                                                     const grpc::ByteBuffer* request,
                                                     grpc::ByteBuffer* response) {
  if (auto* denied = Unauthenticated(ctx, "Status")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Status");
  grpc::Slice slice;
  std::string parsed;
  absl::StatusOr<std::string_view> id = StatusRequestId(*request, &slice, &parsed);
  if (!id.ok()) return FinishNow(ctx, "Status", id.status());
  executor::StatusLookup lookup = executor_->StatusNow(
      *id, [response](const executor::JobView& job) { WriteJobInfoWire(job, response); });
  if (std::holds_alternative<executor::StatusAnswered>(lookup)) {
    return FinishNow(ctx, "Status", absl::OkStatus());
  }
  if (auto* refused = std::get_if<absl::Status>(&lookup)) return FinishNow(ctx, "Status", *refused);
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "Status", ticket.status());
  auto* reactor = new CallReactor(ctx, "Status");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->Status(std::get<spark::ExecutionId>(std::move(lookup)),
                                    reactor->Deadline(),
                                    [reactor, response](absl::StatusOr<JobResult> r) {
                                      if (!r.ok()) return reactor->Complete(r.status());
                                      WriteJobInfoWire(executor::ViewOf(*r), response);
                                      reactor->Complete(absl::OkStatus());
                                    }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Cancel(grpc::CallbackServerContext* ctx,
                                                     const pb::CancelRequest* request,
                                                     pb::CancelResponse* response) {
  UnaryStart start = StartUnary(ctx, "Cancel");
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(
      executor_->Cancel(request->execution_id(), CancelOptionsOf(*request), reactor->Deadline(),
                        [this, reactor, response](const absl::StatusOr<bool>& r) {
                          // true: requested; false: the job had already stopped.
                          if (r.ok()) response->set_already_stopped(!*r);
                          if (metrics_ != nullptr) {
                            metrics_->RecordCancel(r.ok() ? (*r ? "requested" : "already_stopped")
                                                          : ResultLabel(r.status()));
                          }
                          reactor->Complete(r.status());
                        }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Output(grpc::CallbackServerContext* ctx,
                                                     const pb::OutputRequest* request,
                                                     pb::OutputResponse* response) {
  UnaryStart start = StartUnary(ctx, "Output");
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(executor_->Output(
      request->execution_id(), request->max_lines(), request->max_bytes(), LogRequestOf(*request),
      reactor->Deadline(), [reactor, response](absl::StatusOr<spark::LogTailResult> r) {
        if (r.ok()) {
          for (auto& line : r->lines) {
            response->add_lines(std::move(line));
          }
          response->set_truncated(r->truncated);
          response->set_source(ToOutputSource(r->source));
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

grpc::ServerWriteReactor<pb::JobInfo>* JobExecutorService::WatchStatus(
    grpc::CallbackServerContext* ctx, const pb::WatchStatusRequest* request) {
  auto* reactor = new StreamReactor<pb::JobInfo, JobResult>(ctx, "WatchStatus", ToJobInfoMessage);
  if (absl::Status admitted = AdmitStream(ctx, "WatchStatus", *reactor); !admitted.ok()) {
    reactor->End(admitted);
    reactor->Attach(nullptr);
    return reactor;
  }
  std::vector<std::string> ids(request->execution_ids().begin(), request->execution_ids().end());
  reactor->Attach(executor_->WatchStatus(ids, reactor->Deadline(), reactor,
                                         [reactor](const absl::Status& s) { reactor->End(s); }));
  return reactor;
}

grpc::ServerWriteReactor<pb::OutputChunk>* JobExecutorService::FollowOutput(
    grpc::CallbackServerContext* ctx, const pb::FollowOutputRequest* request) {
  auto* reactor =
      new StreamReactor<pb::OutputChunk, executor::OutputBatch>(ctx, "FollowOutput", ToOutputChunk);
  if (absl::Status admitted = AdmitStream(ctx, "FollowOutput", *reactor); !admitted.ok()) {
    reactor->End(admitted);
    reactor->Attach(nullptr);
    return reactor;
  }
  reactor->Attach(executor_->FollowOutput(
      request->execution_id(), request->tail_lines(), request->resume(), LogRequestOf(*request),
      reactor->Deadline(), reactor, [reactor](const absl::Status& s) { reactor->End(s); }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::ListJobs(grpc::CallbackServerContext* ctx,
                                                       const pb::ListJobsRequest* request,
                                                       pb::ListJobsResponse* response) {
  absl::StatusOr<executor::ListFilter> filter = ToListFilter(*request);
  UnaryStart start = StartUnary(ctx, "ListJobs", [&filter, request]() -> absl::Status {
    if (request->all_namespaces() && !request->namespace_().empty()) {
      return absl::InvalidArgumentError(
          "namespace and all_namespaces were both set: name one namespace, or ask for all");
    }
    return filter.status();
  });
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  auto answer = [reactor, response](absl::StatusOr<JobPage> r) {
    if (r.ok()) {
      for (JobResult& job : r->jobs) ToJobInfo(std::move(job), response->add_jobs());
      response->set_next_page_token(r->next_page_token);
    }
    reactor->Complete(r.status());
  };
  reactor->Attach(request->all_namespaces()
                      ? executor_->ListAllNamespaces(request->label_selector(),
                                                     request->page_size(), request->page_token(),
                                                     *filter, reactor->Deadline(), answer)
                      : executor_->ListJobs(request->namespace_(), request->label_selector(),
                                            request->page_size(), request->page_token(), *filter,
                                            reactor->Deadline(), answer));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Events(grpc::CallbackServerContext* ctx,
                                                     const pb::EventsRequest* request,
                                                     pb::EventsResponse* response) {
  UnaryStart start = StartUnary(ctx, "Events");
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(executor_->Events(request->execution_id(), reactor->Deadline(),
                                    [reactor, response](absl::StatusOr<executor::JobEvents> r) {
                                      if (r.ok()) {
                                        for (k8s::Event& e : r->events) {
                                          ToJobEvent(std::move(e), response->add_events());
                                        }
                                        response->set_truncated(r->truncated);
                                      }
                                      reactor->Complete(r.status());
                                    }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::ProxyUi(grpc::CallbackServerContext* ctx,
                                                      const pb::ProxyUiRequest* request,
                                                      pb::ProxyUiResponse* response) {
  UnaryStart start = StartUnary(ctx, "ProxyUi");
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(executor_->ProxyUi(request->execution_id(), request->path(), reactor->Deadline(),
                                     [reactor, response](absl::StatusOr<executor::UiPage> r) {
                                       if (r.ok()) {
                                         response->set_status_code(r->status_code);
                                         response->set_content_type(std::move(r->content_type));
                                         response->set_body(std::move(r->body));
                                         response->set_location(std::move(r->location));
                                       }
                                       reactor->Complete(r.status());
                                     }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::ListSchedules(grpc::CallbackServerContext* ctx,
                                                            const pb::ListSchedulesRequest* request,
                                                            pb::ListSchedulesResponse* response) {
  UnaryStart start = StartUnary(ctx, "ListSchedules");
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(executor_->ListSchedules(
      request->namespace_(), request->label_selector(), request->page_size(), request->page_token(),
      reactor->Deadline(), [reactor, response](absl::StatusOr<executor::SchedulePage> r) {
        if (r.ok()) {
          for (executor::ScheduleResult& s : r->schedules) {
            ToScheduleInfo(std::move(s), response->add_schedules());
          }
          response->set_next_page_token(r->next_page_token);
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::UpdateSchedule(
    grpc::CallbackServerContext* ctx, const pb::UpdateScheduleRequest* request,
    pb::ScheduleInfo* response) {
  absl::StatusOr<spark::ScheduleUpdate> update = UpdateFromProto(*request);
  UnaryStart start = StartUnary(ctx, "UpdateSchedule", [&update] { return update.status(); });
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(executor_->UpdateSchedule(
      request->namespace_(), request->schedule_id(), *update, reactor->Deadline(),
      [reactor, response](absl::StatusOr<executor::ScheduleResult> r) {
        if (!r.ok()) return reactor->Complete(r.status());
        ToScheduleInfo(*std::move(r), response);
        reactor->Complete(absl::OkStatus());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::CreateSchedule(
    grpc::CallbackServerContext* ctx, const pb::CreateScheduleRequest* request,
    pb::ScheduleInfo* response) {
  UnaryStart start = StartUnary(ctx, "CreateSchedule", [request] {
    if (!request->has_template_() || !request->template_().has_spark()) {
      return absl::InvalidArgumentError("template must be a Spark job (template.spark)");
    }
    if (!request->has_spec() || request->spec().schedule().empty()) {
      return absl::InvalidArgumentError("spec.schedule is required (a cron line)");
    }
    return absl::OkStatus();
  });
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(executor_->CreateSchedule(
      request->schedule_id(), request->metalake(), ToSparkTemplate(request->template_()),
      FromProto(request->spec()), reactor->Deadline(),
      [reactor, response](absl::StatusOr<executor::ScheduleResult> r) {
        if (!r.ok()) return reactor->Complete(r.status());
        ToScheduleInfo(*std::move(r), response);
        reactor->Complete(absl::OkStatus());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::GetSchedule(grpc::CallbackServerContext* ctx,
                                                          const pb::GetScheduleRequest* request,
                                                          pb::ScheduleInfo* response) {
  UnaryStart start = StartUnary(ctx, "GetSchedule");
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(
      executor_->GetSchedule(request->namespace_(), request->schedule_id(), reactor->Deadline(),
                             [reactor, response](absl::StatusOr<executor::ScheduleResult> r) {
                               if (!r.ok()) return reactor->Complete(r.status());
                               ToScheduleInfo(*std::move(r), response);
                               reactor->Complete(absl::OkStatus());
                             }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::DeleteSchedule(
    grpc::CallbackServerContext* ctx, const pb::DeleteScheduleRequest* request,
    pb::DeleteScheduleResponse* response) {
  UnaryStart start = StartUnary(ctx, "DeleteSchedule");
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  // true: deleted; false: there was none, which is no error (a retry finds it gone), and the
  // answer says so for a caller that must tell a typo from a deletion.
  reactor->Attach(executor_->DeleteSchedule(request->namespace_(), request->schedule_id(),
                                            request->keep_runs(), reactor->Deadline(),
                                            [reactor, response](const absl::StatusOr<bool>& r) {
                                              if (r.ok()) response->set_existed(*r);
                                              reactor->Complete(r.status());
                                            }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::RunScheduleNow(
    grpc::CallbackServerContext* ctx, const pb::RunScheduleNowRequest* request,
    pb::RunScheduleNowResponse* response) {
  UnaryStart start = StartUnary(ctx, "RunScheduleNow");
  if (start.answered != nullptr) return start.answered;
  CallReactor* reactor = start.reactor;
  reactor->Attach(executor_->RunScheduleNow(
      request->namespace_(), request->schedule_id(), request->run_id(), reactor->Deadline(),
      [reactor, response](absl::StatusOr<executor::RunNowResult> r) {
        if (r.ok()) {
          response->set_execution_id(r->execution_id);
          response->set_adopted(r->adopted);
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

}  // namespace kje::server
