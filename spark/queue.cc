#include "spark/queue.h"

#include <cstddef>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

// A label value holds at most this many characters.
constexpr size_t kMaxLabelValue = 63;

bool IsYuniKornQueuePart(std::string_view part) {
  if (part.empty()) return false;
  for (char c : part) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsYuniKornQueuePath(std::string_view name) {
  if (name.size() > kMaxLabelValue) return false;
  std::vector<absl::string_view> parts = absl::StrSplit(ToAbsl(name), '.');
  if (parts.size() < 2 || parts.front() != ToAbsl(kYuniKornRootQueue)) return false;
  for (absl::string_view part : parts) {
    if (!IsYuniKornQueuePart(ToStd(part))) return false;
  }
  const char last = name.back();  // a label value ends in a letter or digit
  return last != '_' && last != '-';
}

}  // namespace

std::string_view QueueSchedulerName(QueueScheduler scheduler) {
  switch (scheduler) {
    case QueueScheduler::kNone:
      return "none";
    case QueueScheduler::kKueue:
      return "kueue";
    case QueueScheduler::kYuniKorn:
      return "yunikorn";
    case QueueScheduler::kVolcano:
      return "volcano";
  }
  return "none";
}

std::optional<QueueScheduler> ParseQueueScheduler(std::string_view name) {
  for (QueueScheduler s : {QueueScheduler::kNone, QueueScheduler::kKueue, QueueScheduler::kYuniKorn,
                           QueueScheduler::kVolcano}) {
    if (name == QueueSchedulerName(s)) return s;
  }
  return std::nullopt;
}

absl::Status CheckQueueName(QueueScheduler scheduler, std::string_view name) {
  std::string_view rule;
  bool ok = false;
  switch (scheduler) {
    case QueueScheduler::kNone:
      rule = "no queue can be named without a batch scheduler (queue.scheduler is none)";
      break;
    case QueueScheduler::kKueue:
      ok = name.size() <= kMaxLabelValue && IsDns1123Subdomain(name);
      rule =
          "must be a Kueue LocalQueue name usable as the label kueue.x-k8s.io/queue-name: "
          "lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, "
          "at most 63 characters";
      break;
    case QueueScheduler::kYuniKorn:
      ok = IsYuniKornQueuePath(name);
      rule =
          "must be a full YuniKorn queue path root.<queue>[.<queue>...]: each queue letters, "
          "digits, '_' and '-', ending in a letter or digit, at most 63 characters in all (it "
          "goes into the pods' queue label)";
      break;
    case QueueScheduler::kVolcano:
      ok = IsDns1123Subdomain(name);
      rule =
          "must be a Volcano Queue name: lower-case letters, digits, '-' and '.', starting and "
          "ending with a letter or digit, at most 253 characters";
      break;
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(rule), ", not ", QuoteBounded(name)));
}

}  // namespace kje::spark
