#include "spark/run_details.h"

#include <algorithm>

namespace kje::spark {

void RunDetailsRef::HoldSparkAppId(std::string_view id) {
  composed_size_ = std::min(id.size(), kMaxComposedIdLength);
  std::copy_n(id.data(), composed_size_, composed_.data());
}

RunDetails RunDetailsRef::ToDetails() const {
  RunDetails details;
  details.spark_app_id = spark_app_id();
  details.attempts = attempts();
  details.driver_ui_address = driver_ui_address();
  details.driver_pod_name = driver_pod_name();
  details.queue = queue();
  return details;
}

}  // namespace kje::spark
