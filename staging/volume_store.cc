#include "staging/volume_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/strings.h"

namespace kje::staging {
namespace {

namespace fs = std::filesystem;

absl::Status Unavailable(std::string_view what, const std::string& path, int error) {
  return absl::UnavailableError(
      absl::StrCat("staging volume: ", ToAbsl(what), " ", path, ": ", std::strerror(error)));
}

// A write in progress: a hidden temporary file beside the object, renamed onto it at Commit (so
// two replicas writing the same content both succeed, and a reader sees a whole file or none).
class VolumeWriter final : public ArtifactWriter {
 public:
  VolumeWriter(int fd, std::string temp, std::string final_path)
      : fd_(fd), temp_(std::move(temp)), final_(std::move(final_path)) {}
  ~VolumeWriter() override {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_.c_str());
  }

  absl::Status Append(std::string_view bytes) override {
    while (!bytes.empty()) {
      ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return Unavailable("can't write", temp_, errno);
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return absl::OkStatus();
  }

  absl::Status Commit() override {
    if (::fsync(fd_) != 0) return Unavailable("can't sync", temp_, errno);
    int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) return Unavailable("can't close", temp_, errno);
    if (::rename(temp_.c_str(), final_.c_str()) != 0) {
      return Unavailable("can't rename onto", final_, errno);
    }
    committed_ = true;
    return absl::OkStatus();
  }

 private:
  int fd_;
  const std::string temp_;
  const std::string final_;
  bool committed_ = false;
};

std::string RandomSuffix() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return absl::StrCat(absl::Hex(rng(), absl::kZeroPad16));
}

// Whether `path` is one the store may have written: sha256/<hex>/<name or temp>, nothing that
// climbs out of the root.
bool IsStorePath(std::string_view path) {
  if (path.substr(0, 7) != "sha256/") return false;
  std::string_view rest = path.substr(7);
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos || !spark::IsSha256Hex(rest.substr(0, slash))) return false;
  std::string_view name = rest.substr(slash + 1);
  if (name.empty() || name.find('/') != std::string_view::npos) return false;
  if (name.front() == '.') name.remove_prefix(1);  // a temporary file
  return !name.empty() && name.find("..") == std::string_view::npos;
}

}  // namespace

VolumeStore::VolumeStore(VolumeStoreOptions options) : options_(std::move(options)) {}

absl::StatusOr<bool> VolumeStore::Exists(const spark::StagedKey& key, absl::Time) {
  std::string path = absl::StrCat(options_.root, "/", key.ObjectPath());
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return S_ISREG(st.st_mode);
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return Unavailable("can't stat", path, errno);
}

absl::StatusOr<bool> VolumeStore::Refresh(const spark::StagedKey& key, absl::Time deadline) {
  auto exists = Exists(key, deadline);
  if (!exists.ok() || !*exists) return exists;
  std::string path = absl::StrCat(options_.root, "/", key.ObjectPath());
  if (::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) == 0) return true;
  if (errno == ENOENT) return false;  // swept since the stat
  return Unavailable("can't set the modified time of", path, errno);
}

absl::StatusOr<std::unique_ptr<ArtifactWriter>> VolumeStore::StartWrite(const spark::StagedKey& key,
                                                                        int64_t, absl::Time) {
  std::string dir = absl::StrCat(options_.root, "/sha256/", key.sha256);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("staging volume: can't create ", dir, ": ", ec.message()));
  }
  std::string temp = absl::StrCat(dir, "/.", key.name, ".", RandomSuffix(), ".part");
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Unavailable("can't create", temp, errno);
  return std::make_unique<VolumeWriter>(fd, std::move(temp), absl::StrCat(dir, "/", key.name));
}

absl::StatusOr<std::string> VolumeStore::ClusterUri(const spark::StagedKey& key, absl::Time) {
  return absl::StrCat("local://", options_.mount_path, "/", key.ObjectPath());
}

std::vector<std::pair<std::string, std::string>> VolumeStore::JobConf() const {
  std::vector<std::pair<std::string, std::string>> conf;
  for (const char* role : {"driver", "executor"}) {
    std::string prefix =
        absl::StrCat("spark.kubernetes.", role, ".volumes.persistentVolumeClaim.kje-staging.");
    conf.emplace_back(absl::StrCat(prefix, "options.claimName"), options_.claim_name);
    conf.emplace_back(absl::StrCat(prefix, "mount.path"), options_.mount_path);
    conf.emplace_back(absl::StrCat(prefix, "mount.readOnly"), "true");
  }
  return conf;
}

absl::StatusOr<std::vector<StoredObject>> VolumeStore::List(absl::Time) {
  std::vector<StoredObject> out;
  fs::path base = fs::path(options_.root) / "sha256";
  std::error_code ec;
  if (!fs::exists(base, ec)) return out;
  for (fs::directory_iterator dirs(base, ec), end; !ec && dirs != end; dirs.increment(ec)) {
    if (!dirs->is_directory(ec)) continue;
    std::string hex = dirs->path().filename().string();
    if (!spark::IsSha256Hex(hex)) continue;
    bool any = false;
    for (fs::directory_iterator files(dirs->path(), ec); !ec && files != end; files.increment(ec)) {
      any = true;
      struct stat st;
      if (::stat(files->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      out.push_back({absl::StrCat("sha256/", hex, "/", files->path().filename().string()),
                     absl::FromTimeT(st.st_mtime)});
    }
    // An emptied directory goes with the sweep that emptied it, or the next.
    if (!any) fs::remove(dirs->path(), ec);
    ec.clear();
  }
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("staging volume: can't list ", base.string(), ": ", ec.message()));
  }
  return out;
}

absl::Status VolumeStore::Delete(std::string_view path, absl::Time) {
  if (!IsStorePath(path)) {
    return absl::InvalidArgumentError(absl::StrCat("not a staged object: ", ToAbsl(path)));
  }
  std::string full = absl::StrCat(options_.root, "/", ToAbsl(path));
  if (::unlink(full.c_str()) != 0 && errno != ENOENT) {
    return Unavailable("can't delete", full, errno);
  }
  return absl::OkStatus();
}

}  // namespace kje::staging
