// The kept record: when a job ends, whichever replica sees it first reads the tail of its driver
// log (with the kubelet's stamps), how the driver ended and the job's last Events, and writes
// them once into an object the application owns; the others get 409 and stop. The operators
// delete drivers early (at the end of a retain duration, on suspend, with the application at its
// TTL, a schedule's pruning or Replace), so the capture runs as soon as the informer shows the
// job terminal, before any of them.

#include "executor/output_keep.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "async/wakeup.h"
#include "base/log.h"
#include "base/mask.h"
#include "base/strings.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "executor/kept_record.h"
#include "k8s/errors.h"
#include "spark/json_writer.h"
#include "spark/last_words.h"
#include "spark/log_cursor.h"
#include "spark/log_tail.h"
#include "spark/names.h"

namespace kje::executor {

namespace asio = boost::asio;

namespace {

// Changes of a namespace's applications that may pile up unread while a capture runs; beyond,
// the loop starts over with a pass over the cache.
constexpr size_t kKeepChanges = 4096;

k8s::ResourceRef RecordRef(const ExecutorContext& ex, std::string_view ns, std::string_view name) {
  return k8s::CoreRef(ex.options.keep_as_secret ? "secrets" : "configmaps", ns, name);
}

std::string OutputLabelValue(const KeptRecord& record) {
  if (record.not_kept == NotKept::kNo) return std::string(kOutputKept);
  return absl::StrCat(ToAbsl(kNotKeptPrefix), ToAbsl(NotKeptCode(record.not_kept)));
}

// The merge patch that tells the application's readers what became of its output, and the
// driver's last words (the record's termination message is masked already).
std::string LabelPatch(const KeptRecord& record) {
  rapidjson::StringBuffer buffer;
  spark::json::Writer w(buffer);
  w.StartObject();
  spark::json::Key(w, "metadata");
  w.StartObject();
  spark::json::Key(w, "labels");
  w.StartObject();
  spark::json::KeyStr(w, kLabelOutput, OutputLabelValue(record));
  if (record.exit_code) spark::json::KeyStr(w, kLabelExitCode, absl::StrCat(*record.exit_code));
  w.EndObject();
  // So that a failed job's message keeps them once the pod is gone, without a request.
  if (const std::string words = spark::LastWords(record.termination_message); !words.empty()) {
    spark::json::Key(w, "annotations");
    w.StartObject();
    spark::json::KeyStr(w, spark::kAnnotationLastWords, words);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

namespace coroutines {

asio::awaitable<absl::StatusOr<std::optional<KeptRecord>>> ReadKeptRecord(ExecutorContext& ex,
                                                                          std::string ns,
                                                                          std::string name,
                                                                          absl::Time rpc_deadline) {
  auto get = ex.client->Get(RecordRef(ex, ns, KeptRecordName(name)), ex.Deadline(rpc_deadline));
  auto got = co_await std::move(get);
  if (!got.ok()) {
    if (k8s::IsK8sNotFound(got.status())) co_return std::optional<KeptRecord>();
    co_return got.status();
  }
  rapidjson::Document doc;
  doc.Parse(got->data(), got->size());
  if (doc.HasParseError()) co_return absl::InternalError("the API server returned unreadable JSON");
  auto record = ParseKeptRecord(doc);
  if (!record.ok()) co_return record.status();
  co_return std::optional<KeptRecord>(*std::move(record));
}

spark::LogTailResult KeptOutputOf(const absl::StatusOr<std::optional<KeptRecord>>& record,
                                  int64_t max_lines, int64_t max_bytes) {
  if (!record.ok() || !record->has_value()) return spark::LogTailResult{};
  const KeptRecord& kept = **record;
  if (kept.not_kept != NotKept::kNo) {
    spark::LogTailResult out;
    out.source = spark::OutputSource::kNotKept;
    return out;
  }
  spark::LogTailResult out = KeptTail(kept, max_lines, max_bytes);
  out.source = spark::OutputSource::kKept;
  return out;
}

namespace {

// The tail of the driver's log, stamped, masked and capped; the record says why when it can't.
asio::awaitable<void> ReadDriverLog(ExecutorContext& ex, const spark::DriverPod& pod,
                                    std::string ns, absl::Time deadline, KeptRecord& record) {
  auto tail = spark::LogTail::Create(ex.options.keep_max_lines, ex.options.keep_max_bytes);
  if (!tail.ok()) {
    record.not_kept = NotKept::kLogUnreadable;
    co_return;
  }
  k8s::LogOptions options;
  options.timestamps = true;
  // One line more than kept: if it comes, older lines exist and the record says so.
  options.tail_lines = ex.options.keep_max_lines + 1;
  if (auto container = spark::LogContainer(pod)) options.container = *container;
  auto shared_tail = std::make_shared<spark::LogTail>(*std::move(tail));
  k8s::Client::ChunkCallback feed = [shared_tail](std::string_view chunk) {
    shared_tail->Feed(chunk);
  };
  auto stream = ex.client->StreamLog(k8s::CoreRef("pods", ns, pod.name), options,
                                     ex.Deadline(deadline), std::move(feed));
  absl::Status streamed = co_await std::move(stream);
  if (!streamed.ok()) {
    // 404: deleted meanwhile; 400: its container never ran, so there is no log to keep.
    record.not_kept = k8s::IsK8sNotFound(streamed)     ? NotKept::kPodGone
                      : k8s::HttpCode(streamed) == 400 ? NotKept::kNoDriver
                                                       : NotKept::kLogUnreadable;
    if (record.not_kept == NotKept::kLogUnreadable) {
      log::Warn("can't read the driver log to keep it")
          .Kv("pod", Where(ns, pod.name))
          .Kv("error", std::string(streamed.message()));
    }
    co_return;
  }
  spark::LogTailResult result = shared_tail->Finish();
  record.truncated = result.truncated;
  // As Output does: a job's own log may quote its sensitive conf or arguments.
  for (std::string& line : result.lines) record.stamped_lines.push_back(MaskText(line));
}

}  // namespace

asio::awaitable<absl::StatusOr<KeptRecord>> CaptureRecord(ExecutorContext& ex, cache::AppPtr app,
                                                          absl::Time deadline) {
  const std::string ns(app->namespace_());
  const std::string name(app->name());
  KeptRecord record;
  auto find = FindDriver(ex, ns, name, app, deadline);
  auto driver = co_await std::move(find);
  if (!driver.ok()) co_return driver.status();
  const spark::JobStatusInfo info = ex.MapStatus(*app, nullptr);
  if (!driver->has_value()) {
    record.not_kept = info.started_at ? NotKept::kPodGone : NotKept::kNoDriver;
  } else {
    const spark::DriverPod& pod = **driver;
    record.pod_name = pod.name;
    record.pod_uid = pod.uid;
    if (const spark::ContainerStatus* status = pod.DriverStatus("")) {
      record.exit_code = status->exit_code;
      record.termination_message = MaskText(CapTerminationMessage(status->termination_message));
    }
    auto read = ReadDriverLog(ex, pod, ns, deadline, record);
    co_await std::move(read);
  }
  JobEvents events;
  auto app_events = ListObjectEvents(ex, ns, "SparkApplication", name, deadline, events);
  absl::Status listed = co_await std::move(app_events);
  if (listed.ok() && !record.pod_name.empty()) {
    auto pod_events = ListObjectEvents(ex, ns, "Pod", record.pod_name, deadline, events);
    listed = co_await std::move(pod_events);
  }
  if (!listed.ok()) co_return listed;
  record.events =
      LastEvents(std::move(events.events), ex.options.keep_max_events, &record.events_truncated);
  record.events_truncated = record.events_truncated || events.truncated;
  co_return record;
}

asio::awaitable<absl::Status> WriteRecord(ExecutorContext& ex, cache::AppPtr app,
                                          const KeptRecord& record, bool create,
                                          absl::Time deadline) {
  const std::string ns(app->namespace_());
  const std::string name(app->name());
  if (create) {
    RecordOwner owner;
    owner.namespace_ = ns;
    owner.app_name = name;
    owner.app_uid = std::string(app->uid());
    const spark::ResourceKind kind = ex.backend->Applications();
    owner.api_version = absl::StrCat(ToAbsl(kind.group), "/", ToAbsl(kind.version));
    owner.kind = "SparkApplication";
    owner.job_id = std::string(app->job_id());
    owner.as_secret = ex.options.keep_as_secret;
    auto make = ex.client->Create(RecordRef(ex, ns, ""), KeptRecordJson(owner, record),
                                  ex.Deadline(deadline));
    auto made = co_await std::move(make);
    if (!made.ok()) {
      // Another replica wrote it first: it labels the application too.
      if (k8s::IsK8sConflict(made.status())) {
        ex.record_outcomes.Add(RecordOutcome::kLostRace);
        co_return absl::OkStatus();
      }
      co_return made.status();
    }
    ex.record_outcomes.Add(record.not_kept == NotKept::kNo ? RecordOutcome::kKept
                                                           : RecordOutcome::kNotKept);
  }
  auto patch = ex.client->Patch(AppRef(ex, ns, name), k8s::PatchType::kMerge, LabelPatch(record),
                                ex.Deadline(deadline));
  auto patched = co_await std::move(patch);
  if (!patched.ok()) {
    // Gone meanwhile: its record went with it.
    if (k8s::IsK8sNotFound(patched.status())) co_return absl::OkStatus();
    co_return patched.status();
  }
  ex.ObserveReturned(*patched);
  if (create) {
    log::Info("kept the record of a job")
        .Kv("app", Where(ns, name))
        .Kv("lines", static_cast<int64_t>(record.stamped_lines.size()))
        .Kv("output", OutputLabelValue(record));
  }
  co_return absl::OkStatus();
}

// Captures and writes the record of `app`'s job unless someone has; labels the application.
asio::awaitable<absl::Status> KeepRecord(ExecutorContext& ex, cache::AppPtr app,
                                         absl::Time deadline) {
  // Someone may have written it already (another replica, or this one before a restart): only
  // the label may be missing then.
  auto existing_read =
      ReadKeptRecord(ex, std::string(app->namespace_()), std::string(app->name()), deadline);
  auto existing = co_await std::move(existing_read);
  if (!existing.ok()) co_return existing.status();
  if (existing->has_value()) {
    auto label = WriteRecord(ex, app, **existing, /*create=*/false, deadline);
    co_return co_await std::move(label);
  }
  auto capture = CaptureRecord(ex, app, deadline);
  auto record = co_await std::move(capture);
  if (!record.ok()) co_return record.status();
  auto write = WriteRecord(ex, app, *record, /*create=*/true, deadline);
  co_return co_await std::move(write);
}

namespace {

// Waits for a capture's turn under the replica's limiter; false when cancelled.
asio::awaitable<bool> AwaitTurn(ExecutorContext& ex,
                                const std::shared_ptr<k8s::RequestLimiter::Ticket>& ticket,
                                const std::shared_ptr<async::Wakeup>& wakeup) {
  for (;;) {
    auto decision = ex.keep_limiter->Ask(ticket, false);
    if (decision.ok() && decision->go) co_return true;
    const absl::Time retry = decision.ok() ? decision->retry_at : absl::Now() + absl::Seconds(1);
    co_await wakeup->Wait(retry);
    if (co_await internal::Cancelled()) co_return false;
  }
}

// Queues the jobs of `ns` the cache holds that owe a record.
void PassOverCache(ExecutorContext& ex, const std::string& ns, KeepQueue& queue) {
  constexpr size_t kPage = 500;
  std::string after;
  auto owes = [&ex](const spark::AppProjection& app) {
    return app.managed_by_us() && !app.labels().Find(kLabelOutput).has_value() &&
           OwesKeptRecord(app, ex.MapStatus(app, nullptr), ex.options.builder.name_prefix);
  };
  for (;;) {
    auto page = ex.cache.ListAfter(ns, after, kPage, owes);
    if (!page || page->empty()) return;
    after = std::string(page->back()->name());
    for (cache::AppPtr& app : *page) queue.Add(std::move(app));
    if (page->size() < kPage) return;
  }
}

asio::awaitable<absl::Status> KeepLoop(ExecutorContext& ex, std::string ns) {
  KeepQueue queue(ex.options.keep_max_pending);
  auto wakeup = std::make_shared<async::Wakeup>();
  std::shared_ptr<cache::Mailbox<cache::AppEvent>> mailbox;
  std::optional<cache::AppCache::Subscribed> subscribed;
  absl::Cleanup unsubscribe = [&] {
    if (subscribed) ex.cache.Unsubscribe(ns, *subscribed);
  };
  absl::Time next_pass = absl::InfinitePast();
  for (;;) {
    if (co_await internal::Cancelled()) co_return absl::CancelledError("the keeper was stopped");
    if (!subscribed || mailbox->state() != cache::Mailbox<cache::AppEvent>::State::kOpen) {
      if (subscribed && mailbox->state() == cache::Mailbox<cache::AppEvent>::State::kClosed) {
        co_return absl::UnavailableError("the informer cache is shutting down");
      }
      if (subscribed) ex.cache.Unsubscribe(ns, *subscribed);
      subscribed.reset();
      mailbox = std::make_shared<cache::Mailbox<cache::AppEvent>>(kKeepChanges);
      auto sub = ex.cache.Subscribe(ns, {}, mailbox);
      if (!sub.ok()) co_return sub.status();
      subscribed = *std::move(sub);
      next_pass = absl::InfinitePast();  // what changed while unsubscribed is found by a pass
    }
    if (absl::Now() >= next_pass && ex.cache.Follows(ns)) {
      PassOverCache(ex, ns, queue);
      next_pass = absl::Now() + ex.options.keep_sweep;
    }
    for (const cache::AppEvent& event : mailbox->Drain()) {
      if (event.type != cache::AppEvent::Type::kUpserted) continue;
      if (OwesKeptRecord(*event.app, ex.MapStatus(*event.app, nullptr),
                         ex.options.builder.name_prefix)) {
        queue.Add(event.app);
      }
    }
    if (cache::AppPtr app = queue.Take()) {
      auto ticket = std::make_shared<k8s::RequestLimiter::Ticket>(wakeup->Waker());
      absl::Cleanup release = [&ex, ticket] { ex.keep_limiter->Release(ticket); };
      if (!co_await AwaitTurn(ex, ticket, wakeup)) {
        co_return absl::CancelledError("the keeper was stopped");
      }
      // The newest version: the job may have owed nothing by now (another replica's label).
      cache::AppPtr current = ex.cache.Find(ns, app->name());
      if (current != nullptr && current->uid() == app->uid() &&
          OwesKeptRecord(*current, ex.MapStatus(*current, nullptr),
                         ex.options.builder.name_prefix)) {
        const absl::Time now = ex.clock.Now();
        if (const std::optional<absl::Time> left_until = LeftToStopperUntil(*current, now)) {
          // Its labelled app wakes the loop; a pass finds it again if the stopper never wrote it.
          next_pass = std::min(next_pass, absl::Now() + (*left_until - now));
        } else {
          auto keep = KeepRecord(ex, current, absl::Now() + ex.options.request_timeout * 4);
          absl::Status kept = co_await std::move(keep);
          if (!kept.ok() && !absl::IsCancelled(kept)) {
            ex.record_outcomes.Add(RecordOutcome::kFailed);
            log::Warn("can't keep the record of a job; the next pass tries again")
                .Kv("app", Where(ns, app->name()))
                .Kv("error", std::string(kept.message()));
          }
        }
      }
      queue.Done(std::string(app->uid()));
      continue;
    }
    mailbox->OnReady(wakeup->Waker());
    co_await wakeup->Wait(next_pass);
    mailbox->ForgetWakes();
  }
}

}  // namespace
}  // namespace coroutines

std::shared_ptr<RpcHandle> Executor::KeepRecords(const std::string& ns,
                                                 std::function<void(absl::Status)> done) {
  if (!ctx_.cache.enabled() || !ctx_.options.keep_output) {
    done(absl::OkStatus());
    return internal::FinishedHandle();
  }
  return internal::Spawn(
      ctx_.io, [this, ns] { return coroutines::KeepLoop(ctx_, ns); }, std::move(done));
}

}  // namespace kje::executor
