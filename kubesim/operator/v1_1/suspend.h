#pragma once

// Operator 1.1's holds (spec.suspend and Kueue) as pure functions over the application, for the
// reconciler. Internal to kubesim/operator.
//
// Kueue in kubesim: an application labelled kueue.x-k8s.io/queue-name is held until the
// annotation kubesim.dev/kueue-admitted is "true" (what Kueue's admission of its Workload does
// on a cluster); setting it to anything else while the app runs is an eviction (Suspended with
// suspendReason KueueEviction), and "true" again requeues it as a new attempt. The real
// operator does this only with spark.kubernetes.operator.kueue.enabled; kubesim's 1.1 always.

#include <boost/json.hpp>
#include <cstdint>
#include <string>

#include "kubesim/sim/actions.h"

namespace kubesim::op::v1_1 {

inline constexpr const char* kKueueQueueLabel = "kueue.x-k8s.io/queue-name";
inline constexpr const char* kKueueAdmittedAnnotation = "kubesim.dev/kueue-admitted";
inline constexpr const char* kSpecSuspend = "SpecSuspend";
inline constexpr const char* kKueueEviction = "KueueEviction";
// A SuspendHeld event is published again this often (operator time) while an app is held.
inline constexpr int64_t kSuspendHeldRepublishMs = 30 * 60 * 1000;

// A KueueAdmissionPending event is republished this often (operator time: the reconciler's
// default interval) while a queued app waits for admission.
inline constexpr int64_t kKueuePendingRepublishMs = 120 * 1000;

// Why the operator must hold (or suspend) the application now: kSpecSuspend when spec.suspend is
// true, kKueueEviction when it waits for (or lost) Kueue admission, "" when it may run.
std::string HoldReason(const boost::json::object& app);

// The message of a Suspended state.
std::string SuspendedMessage(const std::string& reason);

// The SuspendHeld event of an application held without a status. The recorder aggregates its
// republications (one per period, `period` counting them from the app's creation at `first_ms`)
// into one event whose count is the number published.
boost::json::object SuspendHeldEvent(const boost::json::object& app, const std::string& reason,
                                     int64_t period, int64_t first_ms, int64_t now_ms);

// The KueueAdmissionPending event (Normal) of a queued application waiting for Kueue to admit
// its workload, since `first_ms`: one event per wait (`episode` tells the waits apart) whose
// count grows by one per republish `period`.
boost::json::object KueueAdmissionPendingEvent(const boost::json::object& app,
                                               const std::string& episode, int64_t period,
                                               int64_t first_ms, int64_t now_ms);

// The KueueAdmitted event when a held attempt (`attempt`) may run because Kueue admitted it.
boost::json::object KueueAdmittedEvent(const boost::json::object& app, int64_t attempt,
                                       int64_t now_ms);

// The Workload the operator requests admission with for a queued app (sim/kueue_workload.h):
// pod sets driver and, with simulated executors, executor; admitted or pending.
sim::ObjectWrite KueueWorkload(const boost::json::object& app, int64_t executors, bool admitted,
                               int64_t now_ms);

// Whether the application is queued through Kueue (carries the queue label).
bool IsQueued(const boost::json::object& app);

// The status a resume writes: the suspended attempt (its attemptInfo and history) moves to
// previousAttemptSummary, and a new attempt (id + 1, restart counters unchanged: a resume is
// not a restart) starts from Submitted under `next_key`.
boost::json::object ResumedStatus(const boost::json::object& status, int64_t next_key,
                                  const std::string& submitted_time, const char* submitted_msg);

}  // namespace kubesim::op::v1_1
