#pragma once

// What a job's run looks like from outside the status: the Spark application id, the attempts
// and where the driver's UI answers, as sparkctl showed them. Each operator's folder derives them
// from its projection alone.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kje::spark {

struct RunDetails {
  std::string spark_app_id;       // "" until the operator has one
  int64_t attempts = 0;           // 0 before the first
  std::string driver_ui_address;  // "" when the operator reports none
  // The driver pod the operator names in its status, whatever the state; "" when it names none
  // (the executor then knows the driver only from the pod it found).
  std::string driver_pod_name;
  // The batch-scheduler queue the app names (as its operator and scheduler read it); "" for none.
  std::string queue;

  bool operator==(const RunDetails&) const = default;
};

// RunDetails read in place, for a Status answered from the cache: the strings are the app's,
// which must outlive this, except an id the operator composes rather than reports, which is held
// here (a copy holds its own).
class RunDetailsRef {
 public:
  // The longest id an operator's rules compose (ids of other lengths are reported, not composed).
  static constexpr size_t kMaxComposedIdLength = 46;

  RunDetailsRef() = default;
  RunDetailsRef(std::string_view spark_app_id, int64_t attempts, std::string_view driver_ui_address,
                std::string_view driver_pod_name = {})
      : spark_app_id_(spark_app_id),
        attempts_(attempts),
        driver_ui_address_(driver_ui_address),
        driver_pod_name_(driver_pod_name) {}

  // Holds a composed id (its first kMaxComposedIdLength characters), which spark_app_id() then
  // answers.
  void HoldSparkAppId(std::string_view id);
  void SetQueue(std::string_view queue) { queue_ = queue; }

  std::string_view spark_app_id() const {
    return composed_size_ > 0 ? std::string_view(composed_.data(), composed_size_) : spark_app_id_;
  }
  int64_t attempts() const { return attempts_; }
  std::string_view driver_ui_address() const { return driver_ui_address_; }
  std::string_view driver_pod_name() const { return driver_pod_name_; }
  std::string_view queue() const { return queue_; }
  RunDetails ToDetails() const;

 private:
  std::array<char, kMaxComposedIdLength> composed_{};
  size_t composed_size_ = 0;
  std::string_view spark_app_id_;
  int64_t attempts_ = 0;
  std::string_view driver_ui_address_;
  std::string_view driver_pod_name_;
  std::string_view queue_;
};

}  // namespace kje::spark
