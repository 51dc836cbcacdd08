#pragma once

// The staging store on a volume shared with the drivers: a ReadWriteMany PersistentVolumeClaim
// the service mounts at `root` and the driver and executor pods mount at `mount_path` (through
// Spark's spark.kubernetes.{driver,executor}.volumes.persistentVolumeClaim.* conf), so a staged
// file is `local://<mount_path>/sha256/<hex>/<name>` to a job.

#include <string>

#include "staging/store.h"

namespace kje::staging {

struct VolumeStoreOptions {
  std::string root;        // the service's mount of the volume
  std::string claim_name;  // the PVC the pods mount
  std::string mount_path;  // where the pods mount it
};

class VolumeStore final : public ArtifactStore {
 public:
  explicit VolumeStore(VolumeStoreOptions options);

  std::string_view Kind() const override { return "volume"; }
  absl::StatusOr<bool> Exists(const spark::StagedKey& key, absl::Time deadline) override;
  absl::StatusOr<bool> Refresh(const spark::StagedKey& key, absl::Time deadline) override;
  absl::StatusOr<std::unique_ptr<ArtifactWriter>> StartWrite(const spark::StagedKey& key,
                                                             int64_t size,
                                                             absl::Time deadline) override;
  absl::StatusOr<std::string> ClusterUri(const spark::StagedKey& key, absl::Time now) override;
  std::vector<std::pair<std::string, std::string>> JobConf() const override;
  absl::StatusOr<std::vector<StoredObject>> List(absl::Time deadline) override;
  absl::Status Delete(std::string_view path, absl::Time deadline) override;

 private:
  const VolumeStoreOptions options_;
};

}  // namespace kje::staging
