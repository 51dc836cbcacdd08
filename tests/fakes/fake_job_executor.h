#pragma once

// A scripted executor::JobExecutor for unit tests of the gRPC edge: every call is recorded and
// left pending until the test answers it (from any thread, as the real executor answers from its
// io threads), or answered inline when the test asks for that. Each call's handle records its
// Cancel(), so a test sees what the edge cancels and when.

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "executor/job_executor.h"

namespace kje::testing {

class FakeJobExecutor final : public executor::JobExecutor {
 public:
  // Records Cancel(); Notify once however often it is called.
  class Handle final : public executor::RpcHandle {
   public:
    void Cancel() override {
      absl::MutexLock lock(&mu_);
      if (!cancelled_.HasBeenNotified()) cancelled_.Notify();
    }
    bool WaitCancelled(absl::Duration timeout = absl::Seconds(20)) {
      return cancelled_.WaitForNotificationWithTimeout(timeout);
    }
    bool cancelled() const { return cancelled_.HasBeenNotified(); }

   private:
    absl::Mutex mu_;
    absl::Notification cancelled_;
  };

  // One recorded call: what the RPC asked, and how to answer it. For a unary call, `finish` takes
  // the status (OK answers with the canned result); a stream writes through `writer` and ends with
  // `finish`.
  struct Call {
    std::string rpc;
    std::string id;  // the execution id, job id or namespace the call was about
    absl::Time deadline;
    std::shared_ptr<Handle> handle = std::make_shared<Handle>();
    std::function<void(absl::Status)> finish;
    executor::StreamWriter<executor::JobResult>* status_writer = nullptr;
    executor::StreamWriter<executor::OutputBatch>* output_writer = nullptr;
  };

  // The result every OK answer carries.
  executor::JobResult canned_job;
  // What an OK SubmitDryRun answers as the application.
  std::string dry_run_application;
  // The filter of the last ListJobs call.
  executor::ListFilter last_list_filter;
  // When set, every call is answered inline with this status, before it returns.
  std::optional<absl::Status> answer_inline;
  // When set, StatusNow answers with it; otherwise it hands back a parsed id.
  std::optional<absl::StatusOr<executor::JobResult>> status_now;
  // What an OK Cancel answers: true, cancellation requested; false, the job had already stopped.
  bool cancel_requested = true;
  executor::CancelOptions last_cancel;  // what the last Cancel asked
  // What an OK DeleteSchedule answers: whether there was a schedule to delete.
  bool schedule_existed = true;

  // Waits for the next call (in the order they came) and takes it.
  std::shared_ptr<Call> Next(absl::Duration timeout = absl::Seconds(20)) {
    absl::MutexLock lock(&mu_);
    auto ready = [this] { return !calls_.empty(); };
    if (!mu_.AwaitWithTimeout(absl::Condition(&ready), timeout)) return nullptr;
    std::shared_ptr<Call> call = calls_.front();
    calls_.pop_front();
    return call;
  }

  // Ends every call not yet ended with CANCELLED: a test that failed half-way still lets the
  // server shut down.
  void FinishAll() {
    std::vector<std::shared_ptr<Call>> all;
    {
      absl::MutexLock lock(&mu_);
      all = all_;
    }
    for (const auto& call : all) call->finish(absl::CancelledError("the test ended"));
  }

  int calls_made() const {
    absl::MutexLock lock(&mu_);
    return made_;
  }

  std::shared_ptr<executor::RpcHandle> Submit(std::string job_id, const std::string&,
                                              const spark::SparkTemplate&, absl::Time deadline,
                                              Done<executor::SubmitResult> done) override {
    return Record("Submit", job_id, deadline, [this, done](absl::Status s) {
      if (!s.ok()) return done(s);
      done(executor::SubmitResult{canned_job.execution_id, true, ""});
    });
  }
  std::shared_ptr<executor::RpcHandle> SubmitDryRun(std::string job_id, const std::string&,
                                                    const spark::SparkTemplate&,
                                                    absl::Time deadline,
                                                    Done<executor::SubmitResult> done) override {
    return Record("SubmitDryRun", job_id, deadline, [this, done](absl::Status s) {
      if (!s.ok()) return done(s);
      done(executor::SubmitResult{canned_job.execution_id, false, dry_run_application});
    });
  }

  executor::StatusLookup StatusNow(
      std::string_view execution_id,
      absl::FunctionRef<void(const executor::JobView&)> answer) const override {
    if (!status_now) return spark::ExecutionId{"c", "sparkapp", "ns", std::string(execution_id)};
    if (!status_now->ok()) return status_now->status();
    answer(executor::ViewOf(**status_now));
    return executor::StatusAnswered{};
  }

  std::shared_ptr<executor::RpcHandle> Status(spark::ExecutionId id, absl::Time deadline,
                                              Done<executor::JobResult> done) override {
    return Record("Status", id.name, deadline, [this, done](absl::Status s) {
      if (!s.ok()) return done(s);
      done(canned_job);
    });
  }

  // What the last Output or FollowOutput asked besides the lines' count.
  executor::LogRequest last_log;

  std::shared_ptr<executor::RpcHandle> Cancel(std::string_view execution_id,
                                              const executor::CancelOptions& options,
                                              absl::Time deadline, Done<bool> done) override {
    last_cancel = options;
    return Record("Cancel", std::string(execution_id), deadline, [this, done](absl::Status s) {
      if (!s.ok()) return done(s);
      done(cancel_requested);
    });
  }

  std::shared_ptr<executor::RpcHandle> Output(std::string_view execution_id, int64_t, int64_t,
                                              const executor::LogRequest& log, absl::Time deadline,
                                              Done<spark::LogTailResult> done) override {
    last_log = log;
    return Record("Output", std::string(execution_id), deadline, [done](absl::Status s) {
      if (!s.ok()) return done(s);
      spark::LogTailResult tail;
      tail.lines = {"line 1", "line 2"};
      done(tail);
    });
  }

  std::shared_ptr<executor::RpcHandle> ListJobs(const std::string& namespace_, const std::string&,
                                                int64_t, const std::string&,
                                                const executor::ListFilter& filter,
                                                absl::Time deadline,
                                                Done<executor::JobPage> done) override {
    last_list_filter = filter;
    return Record("ListJobs", namespace_, deadline, [this, done](absl::Status s) {
      if (!s.ok()) return done(s);
      executor::JobPage page;
      page.jobs = {canned_job};
      page.next_page_token = "m:next";
      done(page);
    });
  }

  std::shared_ptr<executor::RpcHandle> ListAllNamespaces(const std::string&, int64_t,
                                                         const std::string&,
                                                         const executor::ListFilter& filter,
                                                         absl::Time deadline,
                                                         Done<executor::JobPage> done) override {
    last_list_filter = filter;
    return Record("ListAllNamespaces", "", deadline, [this, done](absl::Status s) {
      if (!s.ok()) return done(s);
      executor::JobPage page;
      page.jobs = {canned_job};
      done(page);
    });
  }

  // What an OK ProxyUi answers, and the path the last one asked for.
  executor::UiPage ui_page{200, "text/html", "<html>ui</html>", ""};
  std::string last_ui_path;

  std::shared_ptr<executor::RpcHandle> ProxyUi(std::string_view execution_id, std::string path,
                                               absl::Time deadline,
                                               Done<executor::UiPage> done) override {
    {
      absl::MutexLock lock(&mu_);
      last_ui_path = path;
    }
    return Record("ProxyUi", std::string(execution_id), deadline, [this, done](absl::Status s) {
      if (!s.ok()) return done(s);
      done(ui_page);
    });
  }

  std::shared_ptr<executor::RpcHandle> Events(std::string_view execution_id, absl::Time deadline,
                                              Done<executor::JobEvents> done) override {
    return Record("Events", std::string(execution_id), deadline, [done](absl::Status s) {
      if (!s.ok()) return done(s);
      executor::JobEvents events;
      k8s::Event pulled;
      pulled.name = "d.1";
      pulled.object_kind = "Pod";
      pulled.object_name = "d";
      pulled.reason = "Pulled";
      pulled.type = "Normal";
      pulled.message = "pulled";
      pulled.count = 2;
      pulled.source = "kubelet, node-1";
      pulled.first_seen = absl::FromUnixSeconds(100);
      pulled.last_seen = absl::FromUnixSeconds(160);
      events.events = {pulled};
      done(events);
    });
  }

  std::shared_ptr<executor::RpcHandle> CreateSchedule(
      std::string schedule_id, const std::string&, const spark::SparkTemplate&,
      const spark::ScheduleSpec& spec, absl::Time deadline,
      Done<executor::ScheduleResult> done) override {
    return Record("CreateSchedule", schedule_id, deadline,
                  [done, schedule_id, spec](absl::Status s) {
                    if (!s.ok()) return done(s);
                    done(CannedSchedule(schedule_id, spec));
                  });
  }
  std::shared_ptr<executor::RpcHandle> GetSchedule(const std::string&,
                                                   const std::string& schedule_id,
                                                   absl::Time deadline,
                                                   Done<executor::ScheduleResult> done) override {
    return Record("GetSchedule", schedule_id, deadline, [this, done, schedule_id](absl::Status s) {
      if (!s.ok()) return done(s);
      executor::ScheduleResult r = CannedSchedule(schedule_id, {});
      r.runs = {canned_job};
      done(r);
    });
  }
  std::shared_ptr<executor::RpcHandle> ListSchedules(const std::string& ns, const std::string&,
                                                     int64_t, const std::string&,
                                                     absl::Time deadline,
                                                     Done<executor::SchedulePage> done) override {
    return Record("ListSchedules", ns, deadline, [done](absl::Status s) {
      if (!s.ok()) return done(s);
      executor::SchedulePage page;
      page.schedules = {CannedSchedule("s", {})};
      page.next_page_token = "k:next";
      done(page);
    });
  }
  std::shared_ptr<executor::RpcHandle> UpdateSchedule(
      const std::string&, const std::string& schedule_id, const spark::ScheduleUpdate& update,
      absl::Time deadline, Done<executor::ScheduleResult> done) override {
    return Record("UpdateSchedule", schedule_id, deadline,
                  [done, schedule_id, update](absl::Status s) {
                    if (!s.ok()) return done(s);
                    spark::ScheduleSpec spec;
                    spec.cron = update.cron.value_or("unchanged");
                    spec.suspended = update.suspended.value_or(false);
                    done(CannedSchedule(schedule_id, spec));
                  });
  }
  std::shared_ptr<executor::RpcHandle> DeleteSchedule(const std::string&,
                                                      const std::string& schedule_id, bool,
                                                      absl::Time deadline,
                                                      Done<bool> done) override {
    return Record("DeleteSchedule", schedule_id, deadline, [this, done](absl::Status s) {
      if (!s.ok()) return done(s);
      done(schedule_existed);
    });
  }
  std::shared_ptr<executor::RpcHandle> RunScheduleNow(const std::string&,
                                                      const std::string& schedule_id,
                                                      const std::string& run_id,
                                                      absl::Time deadline,
                                                      Done<executor::RunNowResult> done) override {
    return Record("RunScheduleNow", schedule_id, deadline, [done, run_id](absl::Status s) {
      if (!s.ok()) return done(s);
      done(executor::RunNowResult{"c/sparkapp/ns/app-r" + run_id, false});
    });
  }

  static executor::ScheduleResult CannedSchedule(const std::string& schedule_id,
                                                 const spark::ScheduleSpec& spec) {
    executor::ScheduleResult r;
    r.schedule_id = schedule_id;
    r.schedule.namespace_ = "ns";
    r.schedule.name = "gravitino-job-" + schedule_id;
    r.schedule.spec = spec;
    r.schedule.state = "Scheduled";
    r.schedule.next_run = 1796378400000;
    return r;
  }

  std::shared_ptr<executor::RpcHandle> WatchStatus(
      const std::vector<std::string>& execution_ids, absl::Time deadline,
      executor::StreamWriter<executor::JobResult>* writer,
      std::function<void(absl::Status)> done) override {
    auto call = NewCall("WatchStatus", execution_ids.empty() ? "" : execution_ids[0], deadline,
                        std::move(done));
    call->status_writer = writer;
    return Publish(call);
  }

  std::shared_ptr<executor::RpcHandle> FollowOutput(
      std::string_view execution_id, int64_t, std::string_view, const executor::LogRequest& log,
      absl::Time deadline, executor::StreamWriter<executor::OutputBatch>* writer,
      std::function<void(absl::Status)> done) override {
    last_log = log;
    auto call = NewCall("FollowOutput", std::string(execution_id), deadline, std::move(done));
    call->output_writer = writer;
    return Publish(call);
  }

 private:
  std::shared_ptr<Call> NewCall(std::string rpc, std::string id, absl::Time deadline,
                                std::function<void(absl::Status)> finish) {
    auto call = std::make_shared<Call>();
    call->rpc = std::move(rpc);
    call->id = std::move(id);
    call->deadline = deadline;
    // Once only, whoever ends it first (the test, or FinishAll).
    auto once = std::make_shared<std::atomic<bool>>(false);
    call->finish = [once, finish = std::move(finish)](absl::Status s) {
      if (!once->exchange(true)) finish(std::move(s));
    };
    return call;
  }

  std::shared_ptr<executor::RpcHandle> Record(std::string rpc, std::string id, absl::Time deadline,
                                              std::function<void(absl::Status)> finish) {
    return Publish(NewCall(std::move(rpc), std::move(id), deadline, std::move(finish)));
  }

  std::shared_ptr<executor::RpcHandle> Publish(const std::shared_ptr<Call>& call) {
    {
      absl::MutexLock lock(&mu_);
      ++made_;
      all_.push_back(call);
    }
    if (answer_inline) {
      call->finish(*answer_inline);
      return call->handle;
    }
    absl::MutexLock lock(&mu_);
    calls_.push_back(call);
    return call->handle;
  }

  mutable absl::Mutex mu_;
  std::deque<std::shared_ptr<Call>> calls_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Call>> all_ ABSL_GUARDED_BY(mu_);
  int made_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace kje::testing
