// `submit`: a job from its job file and flags, its local files staged first.

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <ostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "cli/dry_run.h"
#include "cli/job_file.h"
#include "cli/upload.h"
#include "cli/verbs.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;

namespace {

// "k=v" → (k, v); the key must not be empty.
absl::StatusOr<std::pair<std::string, std::string>> KeyValue(const std::string& flag,
                                                             const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " needs KEY=VALUE, got ", QuoteBounded(text)));
  }
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

}  // namespace

std::vector<FlagSpec> TemplateFlags() {
  return {
      {"job-file", 'f', "FILE", false, "the job file (YAML; - reads stdin)"},
      {"metalake", 0, "NAME", false, "recorded as the metalake annotation"},
      {"name", 0, "NAME", false, "the template name"},
      {"comment", 0, "TEXT", false, "the template comment"},
      {"executable", 0, "URI", false, "main jar or .py file, e.g. local:///opt/app.jar"},
      {"class", 0, "CLASS", false, "main class (none for Python)"},
      {"arg", 0, "ARG", true, "an application argument"},
      {"conf", 0, "KEY=VALUE", true, "a Spark configuration value"},
      {"jar", 0, "URI", true, "an extra jar"},
      {"file", 0, "URI", true, "an extra file"},
      {"archive", 0, "URI", true, "an extra archive"},
      {"namespace", 'n', "NS", false, "the job's namespace (spark.kubernetes.namespace)"},
  };
}

// A scalar flag replaces the file's value, a list flag replaces the file's list, --conf adds or
// replaces one key. The file's own completeness is checked only after, so that a file may leave
// the job id (or anything else) to the flags.
absl::StatusOr<pb::SubmitRequest> BuildJobRequest(const ParsedFlags& flags) {
  pb::SubmitRequest request;
  if (auto file = flags.Get("job-file")) {
    auto loaded = LoadJobFile(*file, JobFileChecks::kShapeOnly);
    if (!loaded.ok()) return loaded.status();
    request = *std::move(loaded);
  }
  pb::JobTemplate& t = *request.mutable_template_();
  if (!t.has_shell()) t.mutable_spark();
  if (auto v = flags.Get("job-id")) request.set_job_id(*v);
  if (auto v = flags.Get("metalake")) request.set_metalake(*v);
  if (auto v = flags.Get("name")) t.set_name(*v);
  if (auto v = flags.Get("comment")) t.set_comment(*v);
  if (auto v = flags.Get("executable")) t.set_executable(*v);
  if (flags.Has("arg")) {
    t.clear_arguments();
    for (const auto& a : flags.GetAll("arg")) t.add_arguments(a);
  }
  bool spark_flags = flags.Has("class") || flags.Has("jar") || flags.Has("file") ||
                     flags.Has("archive") || flags.Has("conf") || flags.Has("namespace");
  if (spark_flags && t.has_shell()) {
    return absl::InvalidArgumentError("Spark flags given for a shell job");
  }
  pb::SparkJob& spark = *t.mutable_spark();
  if (auto v = flags.Get("class")) spark.set_class_name(*v);
  auto replace = [&](const char* flag, google::protobuf::RepeatedPtrField<std::string>* list) {
    if (!flags.Has(flag)) return;
    list->Clear();
    for (const auto& v : flags.GetAll(flag)) list->Add(std::string(v));
  };
  replace("jar", spark.mutable_jars());
  replace("file", spark.mutable_files());
  replace("archive", spark.mutable_archives());
  for (const auto& kv : flags.GetAll("conf")) {
    auto parsed = KeyValue("conf", kv);
    if (!parsed.ok()) return parsed.status();
    (*spark.mutable_configs())[parsed->first] = parsed->second;
  }
  if (auto ns = flags.Get("namespace")) {
    (*spark.mutable_configs())["spark.kubernetes.namespace"] = *ns;
  }
  return request;
}

namespace {

// The job's local files uploaded and named by their references (cli/upload.h); kExitOk when
// there were none or all went.
int StageLocalFiles(Context& c, pb::JobTemplate* t) {
  std::string base_dir;
  if (auto file = c.flags.Get("job-file"); file && *file != "-") {
    base_dir = std::filesystem::path(*file).parent_path().string();
  }
  auto plan = PlanUpload(*t, base_dir);
  if (!plan.ok()) return UsageError(c.io, "submit", std::string(plan.status().message()));
  if (plan->files.empty()) return kExitOk;
  // A progress line only where someone watches it redrawn.
  std::ostream* progress =
      (&c.io.err == &std::cerr && ::isatty(STDERR_FILENO)) ? &c.io.err : nullptr;
  auto ctx = c.conn.NewContext(true);
  grpc::Status status =
      UploadAndRewrite(c.conn.stub(), ctx.get(), *plan, base_dir, t, progress, c.io.err);
  if (!status.ok()) return RpcError(c.io, "submit (uploading local files)", status);
  return kExitOk;
}

int Submit(Context& c) {
  auto request = BuildJobRequest(c.flags);
  if (!request.ok()) return UsageError(c.io, "submit", std::string(request.status().message()));
  if (absl::Status s = ValidateSubmitRequest(*request); !s.ok()) {
    return UsageError(c.io, "submit",
                      absl::StrCat(s.message(), " (give it in the job file or as a flag)"));
  }
  if (c.flags.Has("dry-run")) return SubmitDryRun(c, *std::move(request));
  if (int staged = StageLocalFiles(c, request->mutable_template_()); staged != kExitOk) {
    return staged;
  }
  pb::SubmitResponse response;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().Submit(ctx.get(), *request, &response);
  if (!status.ok()) return RpcError(c.io, "submit", status);
  if (!PrintStructured(c, response)) {
    // The bare id on stdout, so `id=$(k8s-job-executor submit ...)` works.
    c.io.out << response.execution_id() << "\n";
    if (response.adopted()) {
      c.io.err << "job " << request->job_id() << " already had an application; adopted it\n";
    }
  }
  return kExitOk;
}

std::vector<FlagSpec> SubmitFlags() {
  std::vector<FlagSpec> flags = TemplateFlags();
  flags.insert(flags.begin() + 1,
               FlagSpec{"job-id", 0, "ID", false, "the job id (names the application)"});
  flags.push_back({"dry-run", 0, "", false,
                   "print the application the server would create (YAML; -o json: JSON), "
                   "checked by the server and the API server; nothing is created"});
  return flags;
}

}  // namespace

Command SubmitCommand() {
  return Command{
      "submit",
      "(-f JOB_FILE | --job-id ID --metalake NAME --name NAME --executable URI ...) [flags]",
      "submit a job; prints its execution id",
      "The job comes from a YAML job file (see cli/README.md), from flags, or from both: flags\n"
      "override the file. Submitting the same job id again adopts the existing application.\n",
      SubmitFlags(),
      "",
      0,
      0,
      Submit,
      NamingFormats()};
}

}  // namespace kje::cli
