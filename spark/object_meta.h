#pragma once

// The metadata of every resource the executor creates: its name and namespace, the labels that
// mark it as ours and name its job, the metalake annotation. Written once here for every builder,
// so that an application, a schedule and a schedule's runs carry the same identity.

#include <map>
#include <string>
#include <string_view>

#include "spark/json_writer.h"

namespace kje::spark {

struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

// A job's resource: labels managed-by=gravitino and the job id; the metalake annotation when
// there is one.
ObjectMeta JobObjectMeta(std::string_view name, std::string_view namespace_,
                         std::string_view job_id, std::string_view metalake);

// `"metadata": {...}` (labels and annotations only when there are any).
void WriteObjectMeta(json::Writer& w, const ObjectMeta& meta);

}  // namespace kje::spark
