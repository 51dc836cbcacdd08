#pragma once

// What keeps a bound pod's containers from starting, as the kubelet finds it, and how the kubelet
// reports it: Secret and ConfigMap volumes it can't mount (the pod stays ContainerCreating,
// FailedMount events), images it can't pull (ErrImagePull / ImagePullBackOff on the kubelet's
// image back-off), and env it can't resolve (CreateContainerConfigError). Both simulated
// operators' pods go through it.
//
// It keeps no state: whether and until when a pod is held follows from the pod, the objects it
// refers to (their creationTimestamp) and the time. The kubelet retries on its own schedules, so
// a Secret created later lets the pod proceed at the first retry after its creation.

#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kubesim/sim/actions.h"

namespace kubesim::sim {

// The kubelet's retry schedules, operator time.
inline constexpr int64_t kImageBackoffInitialMs = 10'000;  // doubling ...
inline constexpr int64_t kImageBackoffMaxMs = 300'000;     // ... to this
inline constexpr int64_t kMountRetryInitialMs = 500;       // doubling ...
inline constexpr int64_t kMountRetryMaxMs = 122'000;       // ... to 2m2s
inline constexpr int64_t kConfigRetryMs = 10'000;          // the pod worker's error back-off
inline constexpr int64_t kErrImagePullShownMs = 1'000;     // ErrImagePull until the next sync
inline constexpr int64_t kKubeletPullMs = 1'500;           // a pull that succeeds

// Whether pulling `image` fails for the DNS lookup of its registry host: a host under the
// reserved `.invalid` top-level domain never resolves.
bool ImageUnpullable(std::string_view image);

// The pull error the runtime returns for such an image, as the kubelet reports it.
std::string ImagePullError(std::string_view image);

enum class HoldKind { kNone, kMount, kImagePull, kConfig };

struct KubeletHold {
  HoldKind kind = HoldKind::kNone;
  std::string container;  // kImagePull, kConfig: the container that can't start
  std::string image;
  std::string reason;   // the container's waiting reason (kImagePull, kConfig)
  std::string message;  // its waiting message
  // kMount: each volume that can't be set up, with the FailedMount message.
  std::vector<std::pair<std::string, std::string>> volumes;
  int64_t since_ms = 0;  // when this hold began (the stage's first attempt)
  int64_t attempts = 0;  // the kubelet's attempts so far (pulls, mounts, container creations)
  int64_t backoffs = 0;  // kImagePull: the back-off periods entered so far
  int64_t last_attempt_ms = 0;
  int64_t last_backoff_ms = 0;
  int64_t first_backoff_ms = 0;  // kImagePull: when the first back-off began
  int64_t pull_from_ms = 0;      // kConfig: when its image pull began ...
  int64_t pulled_ms = 0;         // ... and ended
};

struct KubeletVerdict {
  // What holds the pod now (kNone: nothing, or nothing any more).
  KubeletHold hold;
  // When nothing holds it now: how long it was held before its containers could start (0 when
  // never). Its containers start that much later than they would have.
  int64_t delay_ms = 0;
  // When the kubelet looks again (while held).
  std::optional<int64_t> next_ms;
};

// The kubelet's view of a pod it got at `start_ms`, at `now_ms`. An empty lookup finds every
// object. The Secret and ConfigMap volumes Spark creates with the pod (spark-conf-volume-*) are
// taken to exist: kubesim doesn't create them.
// `pull_ms` is how long a pull that succeeds takes (operator time): the containers' env is
// resolved after it.
KubeletVerdict KubeletCheck(const boost::json::object& pod, int64_t start_ms, int64_t now_ms,
                            const ObjectLookup& lookup, double time_scale,
                            int64_t pull_ms = kKubeletPullMs);

// A pending status as the hold shows it: the held container waiting with its reason and message,
// the pod's sandbox ready (the hold is past the mounts), Ready and ContainersReady naming the
// containers not ready. kMount (and kNone) change nothing: the containers stay ContainerCreating.
void ApplyHold(const KubeletHold& hold, boost::json::object* status);

// The kubelet's events for the hold so far: FailedMount per volume; Pulling, Failed (the pull
// error), Failed (Error: ErrImagePull), BackOff, Failed (Error: ImagePullBackOff); Pulling, Pulled,
// Failed (Error: <message>). Recurrences are one event each, with the count of attempts.
void AppendHoldEvents(const boost::json::object& pod, const KubeletHold& hold,
                      std::vector<boost::json::object>* out);

}  // namespace kubesim::sim
