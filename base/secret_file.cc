#include "base/secret_file.h"

#include <openssl/crypto.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace kje {

absl::StatusOr<std::unique_ptr<SecretFile>> SecretFile::Open(std::string path, std::string what,
                                                             const Clock& clock,
                                                             absl::Duration recheck) {
  std::unique_ptr<SecretFile> file(
      new SecretFile(std::move(path), std::move(what), clock, recheck));
  absl::MutexLock lock(&file->look_mu_);
  if (absl::Status loaded = file->Reload(); !loaded.ok()) return loaded;
  file->next_look_ns_.store(absl::ToUnixNanos(clock.Now() + recheck), std::memory_order_release);
  return file;
}

absl::Status SecretFile::Reload() {
  Version version;
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0) {
    version.exists = true;
    version.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    version.size = st.st_size;
    version.inode = st.st_ino;
  }
  if (read_ == version || warned_ == version) return absl::OkStatus();
  std::string value;
  if (version.exists) {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    value = std::string(absl::StripAsciiWhitespace(buffer.str()));
  }
  if (value.empty()) {
    if (!read_) {
      return version.exists
                 ? absl::FailedPreconditionError(absl::StrCat(what_, " ", path_, " is empty"))
                 : absl::NotFoundError(absl::StrCat(what_, " ", path_, " does not exist"));
    }
    // Looked at again once its version changes: it may be half written.
    log::Warn(absl::StrCat(what_, " is empty or missing; keeping the last token"))
        .Kv("path", path_)
        .Kv("exists", version.exists);
    warned_ = version;
    return absl::OkStatus();
  }
  bool changed = false;
  {
    absl::MutexLock lock(&value_mu_);
    changed = !value_.empty() && value != value_;
    value_ = std::move(value);
  }
  if (changed) log::Info(absl::StrCat(what_, " changed")).Kv("path", path_);
  read_ = version;
  warned_.reset();
  return absl::OkStatus();
}

void SecretFile::MaybeReload(absl::Duration interval) {
  const absl::Time now = clock_.Now();
  const int64_t due = next_look_ns_.load(std::memory_order_acquire);
  // `interval` shorter than the regular recheck brings the look forward by the difference.
  if (absl::ToUnixNanos(now + recheck_ - interval) < due) return;
  if (!look_mu_.TryLock()) return;  // someone else is looking right now
  next_look_ns_.store(absl::ToUnixNanos(now + recheck_), std::memory_order_release);
  (void)Reload();  // after the first value, never an error
  look_mu_.Unlock();
}

void SecretFile::Invalidate() {
  absl::MutexLock lock(&look_mu_);
  read_.reset();
  warned_.reset();
  next_look_ns_.store(0, std::memory_order_release);
}

std::string SecretFile::Value() const {
  absl::ReaderMutexLock lock(&value_mu_);
  return value_;
}

bool SecretFile::Equals(std::string_view candidate) const {
  absl::ReaderMutexLock lock(&value_mu_);
  return candidate.size() == value_.size() &&
         CRYPTO_memcmp(candidate.data(), value_.data(), value_.size()) == 0;
}

}  // namespace kje
