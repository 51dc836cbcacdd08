#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "executor/kept_record.h"
#include "executor/output_keep.h"
#include "spark/cancel_keep.h"

namespace kje::executor {

bool OwesKeptRecord(const spark::AppProjection& app, const spark::JobStatusInfo& info,
                    std::string_view name_prefix) {
  if (!app.managed_by_us() || app.deleting() || info.deleting) return false;
  const std::string_view name = app.name();
  if (name.size() <= name_prefix.size() || !name.starts_with(name_prefix) ||
      name[name_prefix.size()] != '-') {
    return false;
  }
  if (!spark::IsTerminal(info.status)) return false;
  return !app.labels().Find(kLabelOutput).has_value();
}

std::optional<absl::Time> LeftToStopperUntil(const spark::AppProjection& app, absl::Time now) {
  const std::optional<absl::Time> marked = spark::StopKeptAt(app);
  if (!marked || now >= *marked + kKeptRecordGrace) return std::nullopt;
  return *marked + kKeptRecordGrace;
}

OutputState OutputStateOf(const spark::AppProjection& app, const spark::JobStatusInfo& info) {
  OutputState out;
  const bool has_driver = info.started_at.has_value() || info.status != spark::JobStatus::kQueued;
  // A queued or running job's output is its live driver's: the record and its labels are
  // written once a job stops (or is being stopped), and one a restarted attempt still carries
  // is of the attempt before. This is also every cached Status of a running job: no label walk.
  if (info.status == spark::JobStatus::kQueued || info.status == spark::JobStatus::kStarted) {
    out.source = has_driver ? spark::OutputSource::kLive : spark::OutputSource::kNone;
    return out;
  }
  const spark::LabelsView labels = app.labels();
  if (auto code = labels.Find(kLabelExitCode)) {
    int32_t value = 0;
    if (absl::SimpleAtoi(ToAbsl(*code), &value)) out.exit_code = value;
  }
  if (auto kept = labels.Find(kLabelOutput)) {
    if (*kept == kOutputKept) {
      out.source = spark::OutputSource::kKept;
      return out;
    }
    if (absl::StartsWith(ToAbsl(*kept), ToAbsl(kNotKeptPrefix))) {
      out.source = spark::OutputSource::kNotKept;
      out.note = NotKeptNote(NotKeptFromCode(kept->substr(kNotKeptPrefix.size())));
      return out;
    }
  }
  out.source = has_driver ? spark::OutputSource::kLive : spark::OutputSource::kNone;
  return out;
}

bool KeepQueue::Add(cache::AppPtr app) {
  if (app == nullptr) return false;
  std::string uid(app->uid());
  if (known_.contains(uid)) return false;
  if (pending_.size() >= max_pending_) {
    ++refused_;
    return false;
  }
  known_.insert(std::move(uid));
  pending_.push_back(std::move(app));
  return true;
}

cache::AppPtr KeepQueue::Take() {
  if (pending_.empty()) return nullptr;
  cache::AppPtr app = std::move(pending_.front());
  pending_.pop_front();
  return app;
}

void KeepQueue::Done(const std::string& uid) { known_.erase(uid); }

}  // namespace kje::executor
