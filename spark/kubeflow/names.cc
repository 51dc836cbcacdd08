#include "spark/kubeflow/names.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "spark/names.h"

namespace kje::spark::kubeflow {

std::string DriverPodName(std::string_view app_name) {
  return absl::StrCat(ToAbsl(app_name), "-driver");
}

std::string DriverPodSelector(std::string_view app_name) {
  return absl::StrCat(ToAbsl(kLabelAppName), "=", ToAbsl(app_name), ",",
                      ToAbsl(spark::kLabelSparkRole), "=", ToAbsl(spark::kSparkRoleDriver));
}

std::string ExecutorPodSelector(std::string_view app_name) {
  return absl::StrCat(ToAbsl(kLabelAppName), "=", ToAbsl(app_name), ",",
                      ToAbsl(spark::kLabelSparkRole), "=", ToAbsl(spark::kSparkRoleExecutor));
}

}  // namespace kje::spark::kubeflow
