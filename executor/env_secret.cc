// The Secret a job's environment variables go into: created before its application, adopted by
// a retry of the same job, then owned by the application so that both go together.

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/quote.h"
#include "base/strings.h"
#include "executor/error_table.h"
#include "executor/internal.h"
#include "k8s/errors.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "spark/json_util.h"
#include "spark/names.h"

namespace kje::executor::coroutines {
namespace {

k8s::ResourceRef SecretRef(std::string_view ns, std::string_view name) {
  return k8s::CoreRef("secrets", ns, name);
}

// The job-id label of a Secret as the API server returned it ("" when it has none). Only the
// metadata is read: the values are never looked at.
std::string JobIdOf(const std::string& secret) {
  rapidjson::Document doc;
  doc.Parse(secret.data(), secret.size());
  if (doc.HasParseError()) return "";
  const rapidjson::Value* labels =
      spark::json::Member(spark::json::Member(doc, "metadata"), "labels");
  return std::string(spark::json::String(labels, spark::kLabelJobId).value_or(""));
}

}  // namespace

asio::awaitable<absl::StatusOr<bool>> CreateEnvironmentSecret(ExecutorContext& ex,
                                                              const spark::BuiltApplication& app,
                                                              std::string_view job_id,
                                                              absl::Time rpc_deadline) {
  const std::string where = Where(app.namespace_, app.env_secret_name);
  auto create = ex.client->Create(SecretRef(app.namespace_, ""), app.env_secret_json,
                                  ex.Deadline(rpc_deadline));
  auto created = co_await std::move(create);
  if (created.ok()) co_return true;
  if (!k8s::IsK8sConflict(created.status())) {
    co_return FromKubernetes(
        created.status(), Rpc::kSubmit,
        absl::StrCat("creating the Secret ", where, " of the job's environment variables"),
        rpc_deadline, absl::Now());
  }
  // 409: a previous attempt of this job made it, or it is someone else's.
  auto get =
      ex.client->Get(SecretRef(app.namespace_, app.env_secret_name), ex.Deadline(rpc_deadline));
  auto got = co_await std::move(get);
  if (k8s::IsK8sNotFound(got.status())) {
    co_return absl::UnavailableError(absl::StrCat(
        "Secret ", where, " existed a moment ago and is gone now; retry the submission"));
  }
  if (!got.ok()) {
    co_return FromKubernetes(got.status(), Rpc::kSubmit, absl::StrCat("reading the Secret ", where),
                             rpc_deadline, absl::Now());
  }
  if (JobIdOf(*got) != job_id) {
    co_return absl::AlreadyExistsError(absl::StrCat(
        "Secret ", where, " exists and isn't job ", QuoteBounded(job_id),
        "'s: the job's environment variables can't go there (delete it, or use another job id)"));
  }
  co_return false;
}

asio::awaitable<absl::Status> OwnEnvironmentSecret(ExecutorContext& ex,
                                                   const spark::BuiltApplication& app,
                                                   std::string uid, absl::Time rpc_deadline) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("metadata");
  w.StartObject();
  w.Key("ownerReferences");
  w.StartArray();
  w.StartObject();
  for (auto [key, value] :
       {std::pair{"apiVersion", std::string_view(app.api_version)},
        std::pair{"kind", std::string_view(app.kind)},
        std::pair{"name", std::string_view(app.name)}, std::pair{"uid", std::string_view(uid)}}) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  }
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.EndObject();
  auto patch = ex.client->Patch(
      SecretRef(app.namespace_, app.env_secret_name), k8s::PatchType::kMerge,
      std::string(buffer.GetString(), buffer.GetSize()), ex.Deadline(rpc_deadline));
  auto patched = co_await std::move(patch);
  if (patched.ok()) co_return absl::OkStatus();
  // The application runs either way; a retried Submit adopts both and sets the owner again.
  co_return FromKubernetes(patched.status(), Rpc::kSubmit,
                           absl::StrCat("making SparkApplication ", Where(app.namespace_, app.name),
                                        " the owner of the Secret of its environment variables"),
                           rpc_deadline, absl::Now());
}

asio::awaitable<void> DeleteEnvironmentSecret(ExecutorContext& ex,
                                              const spark::BuiltApplication& app,
                                              absl::Time rpc_deadline) {
  auto del = ex.client->Delete(SecretRef(app.namespace_, app.env_secret_name), k8s::DeleteOptions{},
                               ex.Deadline(rpc_deadline));
  auto deleted = co_await std::move(del);
  if (!deleted.ok() && !k8s::IsK8sNotFound(deleted.status())) {
    log::Warn("couldn't delete the environment Secret of a refused application")
        .Kv("secret", Where(app.namespace_, app.env_secret_name))
        .Kv("error", ToStd(deleted.status().message()));
  }
}

}  // namespace kje::executor::coroutines
