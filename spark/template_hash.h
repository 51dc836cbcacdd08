#pragma once

// The fingerprint of what a job runs, so that a retried Submit (or CreateSchedule, or a run of a
// schedule) adopts an existing resource only when it was made from the same job: a hash of each
// field of the operator-neutral resolved job (spark/resolved_job.h), written on the resource as
// one compact, bounded annotation. Canonical: maps (the Spark conf, pod templates' objects)
// hash the same whatever their keys' order; nothing that differs between attempts of one job is
// in it. Per field, so that a refusal names what differs without storing any value. Pure.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "spark/resolved_job.h"
#include "spark/schedule.h"

namespace kje::spark {

inline constexpr std::string_view kAnnotationTemplateHash = "gravitino.apache.org/template-hash";
// The annotation is read up to this many bytes (a foreign value is not trusted to be small).
inline constexpr size_t kMaxTemplateHashBytes = 1024;

// (field, hash) in a fixed order.
using FieldHashes = std::vector<std::pair<std::string, std::string>>;

// The hashes of `job`'s fields, named as the JobTemplate names them.
FieldHashes HashResolvedJob(const ResolvedJob& job);
// Extra fields (a schedule's spec) in the same form: each (name, canonical text).
FieldHashes HashFields(const std::vector<std::pair<std::string, std::string>>& fields);
// "v1;field:hash;..." (the annotation's value), and back; an unreadable value reads as empty.
std::string EncodeHashes(const FieldHashes& hashes);
FieldHashes DecodeHashes(std::string_view text);

// The fields whose hashes differ between `existing` (as read from a resource) and `wanted`; a
// field only one of them has (another version's) is not compared. Empty: the same job, or an
// existing resource without hashes (made before them, or by the Java executor).
std::vector<std::string> DifferingFields(std::string_view existing, std::string_view wanted);

// ALREADY_EXISTS naming `what` and the differing fields (`also`, then the template's), when there
// are any; OK otherwise.
absl::Status CheckSameTemplate(std::string_view what, std::string_view existing,
                               std::string_view wanted, std::vector<std::string> also = {});

// The fields of a schedule's spec that differ, named as ScheduleSpec's proto names them.
std::vector<std::string> DifferingSpecFields(const ScheduleSpec& existing,
                                             const ScheduleSpec& wanted);

}  // namespace kje::spark
