#pragma once

// The Spark UI a running driver serves on its spark-ui port, as far as a browser or a client of
// Spark's REST API through the API server's pod proxy needs it: `/` redirects to `/jobs/` (as
// Spark's does), `/jobs/` is a page naming the application and its Spark app id,
// `/api/v1/applications` (and `/api/v1/applications/{id}`) answer as Spark's REST API does,
// anything else is Spark's 404. What a pod serves is read from the pod alone.

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubesim::sim {

struct UiAnswer {
  int status = 200;
  std::string content_type;
  std::string location;  // a redirect's target, a path of the UI
  std::string body;
};

// The port the pod's UI listens on: the containerPort named spark-ui of a container whose state
// is running; nullopt when no such container runs (nothing listens).
std::optional<int> RunningUiPort(const boost::json::object& pod);

// The UI's answer to GET `path` (without its query) of `pod`, whose UI runs.
UiAnswer SparkUiGet(const boost::json::object& pod, std::string_view path);

}  // namespace kubesim::sim
