#pragma once

// What a job's run looks like from outside the status: the Spark application id, the attempts
// and where the driver's UI answers, as sparkctl showed them. Derived from the projection alone.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "spark/app_projection.h"

namespace kje::spark {

struct RunDetails {
  std::string spark_app_id;       // "" until the operator has one
  int64_t attempts = 0;           // 0 before the first
  std::string driver_ui_address;  // "" when the operator reports none

  bool operator==(const RunDetails&) const = default;
};

RunDetails RunDetailsOf(const AppProjection& app);

// The most characters an Apache application id of ours has (see ApacheSparkAppId).
inline constexpr size_t kMaxApacheAppIdLength = 46;

// RunDetailsOf read in place, for a Status answered from the cache: the strings are the app's,
// which must outlive this, except an Apache id the operator didn't report, which is composed and
// held here (a copy holds its own).
class RunDetailsRef {
 public:
  explicit RunDetailsRef(const AppProjection& app);

  std::string_view spark_app_id() const {
    return composed_size_ > 0 ? std::string_view(composed_.data(), composed_size_) : spark_app_id_;
  }
  int64_t attempts() const { return attempts_; }
  std::string_view driver_ui_address() const { return driver_ui_address_; }

 private:
  std::array<char, kMaxApacheAppIdLength> composed_;
  size_t composed_size_ = 0;
  std::string_view spark_app_id_;
  int64_t attempts_ = 0;
  std::string_view driver_ui_address_;
};

// apache/spark-kubernetes-operator's id for an attempt of an application that doesn't set
// spark.app.id: `<name>-<attempt>` when that is at most 46 characters (so that Spark's resource
// names built on it stay within Kubernetes' limits), else its first 9 characters, a dash and the
// first 36 base-36 digits of SHA-256("<namespace>/<name>/<attempt>").
std::string ApacheSparkAppId(std::string_view namespace_, std::string_view name, int64_t attempt);

}  // namespace kje::spark
