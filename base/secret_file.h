#pragma once

// A secret kept in a file that is rotated in place: a mounted Secret, a kubelet-projected token,
// the callers' token. One rule for every such file, so that the service and its client to the
// API server rotate alike:
// - the value is the file's content without surrounding whitespace;
// - the file is looked at on a timer (at most once per interval, by whichever caller comes first;
//   the others take the value as it is and never wait for the file), and re-read only when its
//   version (modification time, size, inode) changed, or after Invalidate;
// - a file emptied or removed after a good read keeps the last value in force (a rotation may
//   truncate or replace the file first), with one warning per version of the file;
// - the value never reaches a log or an error.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"

namespace kje {

class SecretFile {
 public:
  // Reads the file once: NOT_FOUND when it doesn't exist, FAILED_PRECONDITION when it is empty.
  // `what` names the file in logs and errors ("token file").
  static absl::StatusOr<std::unique_ptr<SecretFile>> Open(
      std::string path, std::string what, const Clock& clock = RealClock::Get(),
      absl::Duration recheck = absl::Seconds(1));

  // Looks at the file when `interval` has passed since the last look (the regular recheck by
  // default) and nobody else is looking.
  void MaybeReload() { MaybeReload(recheck_); }
  void MaybeReload(absl::Duration interval);
  // The next look comes at once and reads the file even if its version looks unchanged (a
  // rewrite within one tick of the clock the file system keeps).
  void Invalidate();

  std::string Value() const;
  // Whether `candidate` is the value, in time that doesn't depend on where they differ.
  bool Equals(std::string_view candidate) const;
  const std::string& path() const { return path_; }

 private:
  struct Version {
    bool exists = false;
    int64_t mtime_ns = 0;
    int64_t size = 0;
    uint64_t inode = 0;
    bool operator==(const Version&) const = default;
  };

  SecretFile(std::string path, std::string what, const Clock& clock, absl::Duration recheck)
      : path_(std::move(path)), what_(std::move(what)), clock_(clock), recheck_(recheck) {}
  // Looks at the file: re-reads it if its version changed. An error only when there has never
  // been a value.
  absl::Status Reload() ABSL_EXCLUSIVE_LOCKS_REQUIRED(look_mu_);

  const std::string path_;
  const std::string what_;
  const Clock& clock_;
  const absl::Duration recheck_;

  mutable absl::Mutex value_mu_;
  std::string value_ ABSL_GUARDED_BY(value_mu_);

  // Held only by the one caller that looks at the file; the others don't wait for it.
  absl::Mutex look_mu_;
  std::atomic<int64_t> next_look_ns_{0};
  std::optional<Version> read_ ABSL_GUARDED_BY(look_mu_);    // the version the value came from
  std::optional<Version> warned_ ABSL_GUARDED_BY(look_mu_);  // the empty version warned about
};

}  // namespace kje
