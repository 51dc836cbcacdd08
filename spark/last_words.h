#pragma once

// The driver's last words: how its pod is asked to leave them, and how they join a failed job's
// message. The driver's Spark container gets terminationMessagePolicy FallbackToLogsOnError, so
// that when it exits non-zero without writing a termination-message file the kubelet puts the
// tail of its log into the container's terminated state; the line of that tail that says why
// (the exception, not the shutdown hook's farewell) and the exit code then end a FAILED job's
// message. Once the pod is gone the service keeps them on the application (an annotation), so
// the message still says it. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spark/job_status.h"

namespace kje::spark {

// On the application: the driver's last words, as LastWords picks them (masked by the writer).
inline constexpr std::string_view kAnnotationLastWords = "gravitino.apache.org/last-words";
inline constexpr size_t kMaxLastWordsBytes = 512;

inline constexpr std::string_view kFallbackToLogsOnError = "FallbackToLogsOnError";

// The driver's pod template (`driver_template`: a PodTemplateSpec as ResolvePodTemplates makes
// it, its first container Spark's; "" for none) with terminationMessagePolicy
// FallbackToLogsOnError on Spark's container, unless the template sets a policy of its own.
// An empty template becomes one that sets only that.
std::string WithTerminationFallback(std::string_view driver_template);

// The line of a termination message that says why the driver ended: from the end, the first
// line that isn't blank, a stack frame ("\tat ...", "... N more", a Python traceback's
// "File ..." and source lines) or an INFO/DEBUG/TRACE log line; else the last line that isn't
// blank. Trimmed, at most kMaxLastWordsBytes (its end, on a UTF-8 boundary); "" when there is
// nothing.
std::string LastWords(std::string_view termination_message);

// A FAILED job's message with the driver's exit code and last words appended (`last_words` as
// LastWords makes them), unless the message says them already; others unchanged.
std::string WithLastWords(std::string message, JobStatus status, std::string_view last_words,
                          std::optional<int32_t> exit_code);

}  // namespace kje::spark
