#include "executor/job_executor.h"

namespace kje::executor {

JobView ViewOf(const JobResult& result) {
  JobView view;
  view.execution_id = result.execution_id;
  view.status = result.info.status;
  view.started_at = result.info.started_at;
  view.finished_at = result.info.finished_at;
  view.operator_state = result.info.operator_state;
  view.message = result.info.message;
  view.namespace_ = result.namespace_;
  view.name = result.name;
  view.driver_pod = result.driver_pod;
  view.job_id = result.job_id;
  view.spark_app_id = result.details.spark_app_id;
  view.attempts = result.details.attempts;
  view.driver_ui_address = result.details.driver_ui_address;
  view.deadline_at = result.info.deadline_at;
  view.deadline_exceeded = result.info.deadline_exceeded;
  view.waiting_reason = result.waiting.reason;
  view.waiting_message = result.waiting.message;
  view.queue = result.details.queue;
  view.created_at = result.created_at;
  view.links = result.links;
  view.cancel_reason = result.info.cancel_reason;
  view.output_source = result.output_source;
  view.output_note = result.output_note;
  view.exit_code = result.exit_code;
  return view;
}

spark::LinkValues LinkValuesOf(const JobView& view) {
  spark::LinkValues values;
  values.namespace_ = view.namespace_;
  values.name = view.name;
  values.execution_id = view.execution_id;
  values.job_id = view.job_id;
  values.spark_app_id = view.spark_app_id;
  values.driver_pod = view.driver_pod;
  values.created_at = view.created_at;
  values.started_at = view.started_at;
  values.finished_at = view.finished_at;
  return values;
}

std::vector<spark::JobLink> LinksOf(const JobView& view) {
  if (view.links == nullptr) return {};
  return view.links->Render(LinkValuesOf(view));
}

JobResult ToResult(const JobView& view) {
  JobResult result;
  result.execution_id = view.execution_id;
  result.info.status = view.status;
  result.info.started_at = view.started_at;
  result.info.finished_at = view.finished_at;
  result.info.operator_state = view.operator_state;
  result.info.message = view.message;
  result.namespace_ = view.namespace_;
  result.name = view.name;
  result.driver_pod = view.driver_pod;
  result.job_id = view.job_id;
  result.details.spark_app_id = view.spark_app_id;
  result.details.attempts = view.attempts;
  result.details.driver_ui_address = view.driver_ui_address;
  result.info.deadline_at = view.deadline_at;
  result.info.deadline_exceeded = view.deadline_exceeded;
  result.waiting.reason = view.waiting_reason;
  result.waiting.message = view.waiting_message;
  result.details.queue = view.queue;
  result.created_at = view.created_at;
  result.links = view.links;
  result.info.cancel_reason = view.cancel_reason;
  result.output_source = view.output_source;
  result.output_note = view.output_note;
  result.exit_code = view.exit_code;
  return result;
}

}  // namespace kje::executor
