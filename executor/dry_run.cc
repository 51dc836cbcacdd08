// Submit's dry run: the application a Submit would create, built by the same builder with the
// same checks (executor.cc, before the two part), sent to the API server as a dryRun=All create,
// so that its own validation, admission and defaulting judge it, and answered as it would be
// stored. Nothing is created: no application, and no Secret of the environment, whose values
// stay out of the answer (the application only names the Secret).

#include "executor/dry_run.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "executor/error_table.h"
#include "executor/internal.h"
#include "k8s/errors.h"
#include "spark/job_status.h"
#include "spark/template_hash.h"

namespace kje::executor {

namespace {

void SetString(rapidjson::Value& value, const std::string& text,
               rapidjson::Document::AllocatorType& alloc) {
  value.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

void MaskJsonValue(rapidjson::Value& value, const SensitiveWords& words,
                   rapidjson::Document::AllocatorType& alloc) {
  if (value.IsString()) {
    std::string masked =
        MaskText(std::string_view(value.GetString(), value.GetStringLength()), words);
    SetString(value, masked, alloc);
    return;
  }
  if (value.IsArray()) {
    bool strings = !value.Empty();
    for (const auto& item : value.GetArray()) strings = strings && item.IsString();
    if (strings) {
      std::vector<std::string> arguments;
      for (const auto& item : value.GetArray()) {
        arguments.emplace_back(item.GetString(), item.GetStringLength());
      }
      std::vector<std::string> masked = MaskArguments(arguments, words);
      rapidjson::SizeType i = 0;
      for (auto& item : value.GetArray()) SetString(item, masked[i++], alloc);
      return;
    }
    for (auto& item : value.GetArray()) MaskJsonValue(item, words, alloc);
    return;
  }
  if (!value.IsObject()) return;
  for (auto& member : value.GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    rapidjson::Value& v = member.value;
    const bool scalar = v.IsString() || v.IsNumber() || v.IsBool();
    const bool blank = v.IsString() && v.GetStringLength() == 0;
    if (scalar && !blank && words.IsSensitive(key)) {
      SetString(v, std::string(kMask), alloc);
    } else {
      MaskJsonValue(v, words, alloc);
    }
  }
}

}  // namespace

std::string MaskedObjectJson(std::string_view json, const SensitiveWords& words) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return "";
  MaskJsonValue(doc, words, doc.GetAllocator());
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  doc.Accept(writer);
  return std::string(out.GetString(), out.GetSize());
}

namespace coroutines {

asio::awaitable<absl::StatusOr<SubmitResult>> SubmitDryRun(ExecutorContext& ex,
                                                           spark::BuiltApplication app,
                                                           std::string job_id,
                                                           std::string template_name,
                                                           absl::Time rpc_deadline) {
  const std::string where = Where(app.namespace_, app.name);
  SubmitResult result{app.execution_id.ToString(), false, ""};
  auto create = ex.client->CreateDryRun(AppRef(ex, app.namespace_, ""), std::move(app.json),
                                        ex.Deadline(rpc_deadline));
  auto answered = co_await std::move(create);
  if (answered.ok()) {
    result.application = MaskedObjectJson(*answered, ConfiguredSensitiveWords());
    co_return result;
  }
  if (!k8s::IsK8sConflict(answered.status())) {
    co_return FromKubernetes(answered.status(), Rpc::kSubmit,
                             absl::StrCat("dry run of creating SparkApplication ", where,
                                          " of job template ", template_name),
                             rpc_deadline, absl::Now());
  }
  // The name is taken: answer what the Submit would, adoption or refusal, with what it would
  // adopt.
  auto get = ex.client->Get(AppRef(ex, app.namespace_, app.name), ex.Deadline(rpc_deadline));
  auto got = co_await std::move(get);
  if (!got.ok()) {
    if (k8s::IsK8sNotFound(got.status())) {
      co_return absl::UnavailableError(absl::StrCat(
          "SparkApplication ", where, " existed a moment ago and is gone now; retry the dry run"));
    }
    co_return FromKubernetes(got.status(), Rpc::kAny,
                             absl::StrCat("reading SparkApplication ", where), rpc_deadline,
                             absl::Now());
  }
  auto existing = ex.backend->ProjectJson(*got);
  if (!existing.ok()) {
    co_return absl::InternalError(absl::StrCat(
        "the API server returned an unreadable SparkApplication: ", existing.status().message()));
  }
  if (absl::Status adoption = spark::CheckAdoption(*existing, job_id); !adoption.ok()) {
    co_return adoption;
  }
  if (absl::Status same = spark::CheckSameTemplate(absl::StrCat("SparkApplication ", where),
                                                   existing->template_hash(), app.template_hash);
      !same.ok()) {
    co_return same;
  }
  result.adopted = true;
  result.application = MaskedObjectJson(*got, ConfiguredSensitiveWords());
  co_return result;
}

}  // namespace coroutines

std::shared_ptr<RpcHandle> Executor::SubmitDryRun(std::string job_id, const std::string& metalake,
                                                  const spark::SparkTemplate& job,
                                                  absl::Time deadline, Done<SubmitResult> done) {
  return SubmitOrDryRun(true, std::move(job_id), metalake, job, deadline, std::move(done));
}

}  // namespace kje::executor
