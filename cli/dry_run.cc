#include "cli/dry_run.h"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/strings.h"
#include "cli/upload.h"
#include "cli/yaml.h"

namespace kje::cli {
namespace {

namespace pb = jobexecutor::v1;

constexpr char kCommand[] = "submit --dry-run";

std::string PrettyJson(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return json + "\n";
  rapidjson::StringBuffer out;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(out);
  writer.SetIndent(' ', 2);
  doc.Accept(writer);
  return std::string(out.GetString(), out.GetSize()) + "\n";
}

}  // namespace

int SubmitDryRun(Context& c, pb::SubmitRequest request) {
  // Staging local files would store them: refused rather than uploaded for a look.
  std::string base_dir;
  if (auto file = c.flags.Get("job-file"); file && *file != "-") {
    base_dir = std::filesystem::path(*file).parent_path().string();
  }
  auto plan = PlanUpload(request.template_(), base_dir);
  if (!plan.ok()) return UsageError(c.io, "submit", std::string(plan.status().message()));
  if (!plan->files.empty()) {
    std::vector<std::string> names;
    for (const auto& f : plan->files) names.push_back(QuoteBounded(f.path));
    return UsageError(
        c.io, "submit",
        absl::StrCat("--dry-run uploads nothing, and the job names local files (",
                     absl::StrJoin(names, ", "),
                     "): give them as cluster URIs (local://, s3a://, https://), or submit "
                     "without --dry-run to upload them"));
  }
  request.set_dry_run(true);
  pb::SubmitResponse response;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().Submit(ctx.get(), request, &response);
  if (!status.ok()) return RpcError(c.io, kCommand, status);
  if (response.application().empty()) {
    // A server from before dry runs ignores the field and submits the job.
    c.io.err << kProgram << ": " << kCommand << ": the server answered without an application: it "
             << "doesn't know dry runs, and may have submitted the job as "
             << response.execution_id() << "\n";
    return kExitError;
  }
  if (c.format == OutputFormat::kJson) {
    c.io.out << PrettyJson(response.application());
  } else {
    auto yaml = JsonToYaml(response.application());
    if (!yaml.ok()) {
      c.io.err << kProgram << ": " << kCommand
               << ": the server's application: " << yaml.status().message() << "\n";
      return kExitError;
    }
    c.io.out << *yaml;
  }
  if (response.adopted()) {
    c.io.err << "job " << request.job_id() << " already has this application (the same template): "
             << "a submit would adopt it; shown as it is now\n";
  } else {
    c.io.err << "nothing created (server dry run): " << response.execution_id() << "\n";
  }
  return kExitOk;
}

}  // namespace kje::cli
