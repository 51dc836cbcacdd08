#include "cli/upload.h"

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;
namespace fs = std::filesystem;

namespace {

// A chunk per message: well under gRPC's default 4 MiB message bound.
constexpr size_t kChunkBytes = 1 << 20;

bool HasScheme(const std::string& uri) {
  size_t colon = uri.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    char c = uri[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
    if (!ok) return false;
  }
  return true;
}

absl::StatusOr<std::string> HashFile(const std::string& path, int64_t* size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(path, ": can't read the file"));
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(md.get(), EVP_sha256(), nullptr);
  std::string buf(kChunkBytes, '\0');
  *size = 0;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    std::streamsize n = in.gcount();
    if (n <= 0) break;
    EVP_DigestUpdate(md.get(), buf.data(), static_cast<size_t>(n));
    *size += n;
  }
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": read error"));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(md.get(), digest, &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) absl::StrAppendFormat(&hex, "%02x", digest[i]);
  return hex;
}

std::string Human(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  if (bytes < (1 << 20)) return absl::StrFormat("%.1f KiB", bytes / 1024.0);
  return absl::StrFormat("%.1f MiB", bytes / 1048576.0);
}

}  // namespace

bool IsLocalPath(const std::string& uri) {
  if (uri.empty()) return false;
  return !HasScheme(uri) || absl::StartsWith(uri, "file:");
}

std::string LocalFileOf(const std::string& uri, const std::string& base_dir) {
  std::string path = uri;
  if (absl::StartsWith(path, "file://")) {
    path = path.substr(7);
  } else if (absl::StartsWith(path, "file:")) {
    path = path.substr(5);
  }
  if (!path.empty() && path.front() != '/' && !base_dir.empty()) {
    path = (fs::path(base_dir) / path).string();
  }
  return path;
}

absl::StatusOr<UploadPlan> PlanUpload(const pb::JobTemplate& t, const std::string& base_dir) {
  UploadPlan plan;
  std::map<std::string, bool> seen;
  auto add = [&](const std::string& uri) -> absl::Status {
    if (!IsLocalPath(uri)) return absl::OkStatus();
    std::string path = LocalFileOf(uri, base_dir);
    if (!seen.emplace(path, true).second) return absl::OkStatus();
    // A path that isn't a file here goes to the server as written, which refuses it in its own
    // words (a server-local path): nothing to upload.
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return absl::OkStatus();
    UploadPlan::File f;
    f.path = path;
    f.name = fs::path(path).filename().string();
    auto hash = HashFile(path, &f.size);
    if (!hash.ok()) return hash.status();
    f.sha256 = *std::move(hash);
    plan.files.push_back(std::move(f));
    return absl::OkStatus();
  };
  if (absl::Status s = add(t.executable()); !s.ok()) return s;
  if (t.has_spark()) {
    for (const auto* list : {&t.spark().jars(), &t.spark().files(), &t.spark().archives()}) {
      for (const std::string& uri : *list) {
        if (absl::Status s = add(uri); !s.ok()) return s;
      }
    }
  }
  return plan;
}

grpc::Status UploadAndRewrite(pb::JobExecutor::Stub& stub, grpc::ClientContext* ctx,
                              const UploadPlan& plan, const std::string& base_dir,
                              pb::JobTemplate* t, std::ostream* progress, std::ostream& log) {
  pb::UploadArtifactsResponse response;
  std::unique_ptr<grpc::ClientWriter<pb::UploadArtifactsRequest>> writer =
      stub.UploadArtifacts(ctx, &response);
  int64_t total = 0;
  for (const auto& f : plan.files) total += f.size;
  int64_t sent = 0;
  bool broken = false;
  std::string buf(kChunkBytes, '\0');
  for (const auto& f : plan.files) {
    pb::UploadArtifactsRequest header;
    header.mutable_header()->set_name(f.name);
    header.mutable_header()->set_size(f.size);
    header.mutable_header()->set_sha256(f.sha256);
    if (!writer->Write(header)) {
      broken = true;
      break;
    }
    std::ifstream in(f.path, std::ios::binary);
    int64_t left = f.size;
    while (left > 0 && in) {
      in.read(buf.data(), static_cast<std::streamsize>(std::min<int64_t>(left, buf.size())));
      std::streamsize n = in.gcount();
      if (n <= 0) break;
      pb::UploadArtifactsRequest data;
      data.set_data(buf.data(), static_cast<size_t>(n));
      if (!writer->Write(data)) {
        broken = true;
        break;
      }
      left -= n;
      sent += n;
      if (progress != nullptr) {
        *progress << absl::StrFormat("\ruploading %s: %3d%% (%s of %s)", f.name,
                                     total > 0 ? static_cast<int>(sent * 100 / total) : 100,
                                     Human(sent), Human(total))
                  << std::flush;
      }
    }
    // A file that changed since it was hashed: the server refuses the short or wrong bytes.
    if (broken) break;
  }
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  if (progress != nullptr) *progress << "\n";
  if (!status.ok()) return status;
  std::map<std::string, std::string> reference_of;  // local path → reference
  for (int i = 0; i < response.artifacts_size() && i < static_cast<int>(plan.files.size()); ++i) {
    const pb::UploadedArtifact& a = response.artifacts(i);
    reference_of[plan.files[static_cast<size_t>(i)].path] = a.reference();
    log << "staged " << plan.files[static_cast<size_t>(i)].path << " (" << Human(a.size())
        << (a.already_stored() ? ", already stored" : "") << ")\n";
  }
  auto rewrite = [&](std::string* uri) {
    if (!IsLocalPath(*uri)) return;
    auto it = reference_of.find(LocalFileOf(*uri, base_dir));
    if (it != reference_of.end()) *uri = it->second;
  };
  rewrite(t->mutable_executable());
  if (t->has_spark()) {
    for (auto* list : {t->mutable_spark()->mutable_jars(), t->mutable_spark()->mutable_files(),
                       t->mutable_spark()->mutable_archives()}) {
      for (std::string& uri : *list) rewrite(&uri);
    }
  }
  return grpc::Status::OK;
}

}  // namespace kje::cli
