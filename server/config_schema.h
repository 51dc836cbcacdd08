#pragma once

// The JSON Schema of the Helm chart's `config` value, made from the configuration's one key
// table (config_keys.h): every key nested at its dots, `spark.conf` a map of Spark conf
// values, and nothing else, so that `helm install --set config.spark.imag=…` is refused at once
// instead of starting a server that refuses it. deploy/helm/k8s-job-executor/values.schema.json
// carries it; a test keeps the two equal.

#include <string>

namespace kje::server {

// The schema, as JSON (indented, keys sorted).
std::string ConfigValuesSchema();

}  // namespace kje::server
