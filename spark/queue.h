#pragma once

// Batch-scheduler queues: the scheduler a deployment's jobs go through (Kueue, YuniKorn,
// Volcano), the queue one job resolves to, and what a queue name must look like to each
// scheduler. Operator-neutral: each operator's builder writes a resolved queue in its own shape,
// and reads it back into RunDetails.

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/status.h"

namespace kje::spark {

enum class QueueScheduler : uint8_t { kNone, kKueue, kYuniKorn, kVolcano };

// "none", "kueue", "yunikorn", "volcano".
std::string_view QueueSchedulerName(QueueScheduler scheduler);
// The scheduler of that exact (lower-case) name; nullopt for any other text.
std::optional<QueueScheduler> ParseQueueScheduler(std::string_view name);
// The names ParseQueueScheduler takes, for errors.
inline constexpr std::string_view kQueueSchedulerNames = "none, kueue, yunikorn or volcano";

// The job template's custom field that names its queue, over the deployment's default.
inline constexpr std::string_view kCustomFieldQueue = "queue";

// YuniKorn's parent of every queue path.
inline constexpr std::string_view kYuniKornRootQueue = "root";

// Whether `name` is a queue `scheduler` can take; otherwise INVALID_ARGUMENT with the rule,
// which ends with the quoted name:
// - Kueue: a LocalQueue name, which also goes into a label value: a DNS-1123 subdomain of at
//   most 63 characters (what Kueue's own webhook accepts in kueue.x-k8s.io/queue-name).
// - YuniKorn: a full queue path root.<queue>[.<queue>...], each queue letters, digits, '_' and
//   '-', ending in a letter or digit, at most 63 characters (it goes into the pods' queue label).
// - Volcano: a Queue object's name, a DNS-1123 subdomain.
// Never OK for kNone or an empty name.
absl::Status CheckQueueName(QueueScheduler scheduler, std::string_view name);

}  // namespace kje::spark
