#include "k8s/credentials.h"

#include <fcntl.h>
#include <poll.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/log.h"
#include "base/quote.h"
#include "base/strings.h"

extern char** environ;

namespace kje::k8s {
namespace {

// Refresh an exec credential this long before it expires, so a request never carries a token
// that expires on the way.
constexpr absl::Duration kExpiryMargin = absl::Seconds(10);

std::string JsonString(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return "";
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

absl::StatusOr<std::unique_ptr<TokenFileCredentialProvider>> TokenFileCredentialProvider::Create(
    std::string path, std::string client_cert_pem, std::string client_key_pem, const Clock& clock,
    absl::Duration recheck) {
  absl::StatusOr<std::unique_ptr<SecretFile>> token =
      SecretFile::Open(std::move(path), "token file", clock, recheck);
  if (!token.ok()) return token.status();
  return std::unique_ptr<TokenFileCredentialProvider>(new TokenFileCredentialProvider(
      *std::move(token), std::move(client_cert_pem), std::move(client_key_pem)));
}

absl::StatusOr<Credentials> TokenFileCredentialProvider::Get() {
  token_->MaybeReload();
  return Credentials{token_->Value(), cert_, key_};
}

void TokenFileCredentialProvider::Invalidate() { token_->Invalidate(); }

absl::StatusOr<ExecCredentialResult> ParseExecCredential(std::string_view json,
                                                         std::string_view expected_api_version) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::InvalidArgumentError("exec plugin output is not a JSON object");
  }
  if (JsonString(doc, "kind") != "ExecCredential") {
    return absl::InvalidArgumentError("exec plugin output is not an ExecCredential");
  }
  std::string api_version = JsonString(doc, "apiVersion");
  if (api_version != expected_api_version) {
    return absl::InvalidArgumentError(absl::StrCat("exec plugin returned apiVersion ",
                                                   QuoteBounded(api_version), ", expected ",
                                                   QuoteBounded(expected_api_version)));
  }
  auto status_it = doc.FindMember("status");
  if (status_it == doc.MemberEnd() || !status_it->value.IsObject()) {
    return absl::InvalidArgumentError("exec plugin returned an ExecCredential without status");
  }
  const rapidjson::Value& status = status_it->value;
  ExecCredentialResult result;
  result.credentials.bearer_token = JsonString(status, "token");
  result.credentials.client_cert_pem = JsonString(status, "clientCertificateData");
  result.credentials.client_key_pem = JsonString(status, "clientKeyData");
  if (result.credentials.client_cert_pem.empty() != result.credentials.client_key_pem.empty()) {
    return absl::InvalidArgumentError(
        "exec plugin returned only one of clientCertificateData and clientKeyData");
  }
  if (result.credentials.bearer_token.empty() && result.credentials.client_cert_pem.empty()) {
    return absl::InvalidArgumentError(
        "exec plugin returned neither a token nor a client certificate");
  }
  std::string expiration = JsonString(status, "expirationTimestamp");
  if (!expiration.empty()) {
    absl::Time t;
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, expiration, &t, &err)) {
      return absl::InvalidArgumentError(
          absl::StrCat("exec plugin returned a bad expirationTimestamp: ", err));
    }
    result.expiration = t;
  }
  return result;
}

absl::StatusOr<Credentials> ExecCredentialProvider::RunAndCache() {
  {
    absl::MutexLock lock(&mu_);
    ++runs_;
  }
  absl::StatusOr<std::string> output = Run();
  if (!output.ok()) return output.status();
  absl::StatusOr<ExecCredentialResult> result = ParseExecCredential(*output, config_.api_version);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat(config_.command, ": ", result.status().message()));
  }
  absl::MutexLock lock(&mu_);
  cached_ = result->credentials;
  expires_ = result->expiration.value_or(absl::InfiniteFuture());
  return *cached_;
}

absl::StatusOr<Credentials> ExecCredentialProvider::Get() {
  {
    absl::MutexLock lock(&mu_);
    if (cached_ && clock_.Now() + kExpiryMargin < expires_) return *cached_;
  }
  return RunAndCache();
}

ExecCredentialProvider::~ExecCredentialProvider() {
  {
    absl::MutexLock lock(&worker_mu_);
    stopping_ = true;
  }
  if (worker_.joinable()) worker_.join();
}

void ExecCredentialProvider::GetAsync(std::function<void(absl::StatusOr<Credentials>)> done) {
  std::optional<Credentials> cached;
  {
    absl::MutexLock lock(&mu_);
    if (cached_ && clock_.Now() + kExpiryMargin < expires_) cached = cached_;
  }
  if (cached) {
    done(*std::move(cached));
    return;
  }
  absl::MutexLock lock(&worker_mu_);
  waiters_.push_back(std::move(done));
  if (!worker_.joinable()) worker_ = std::thread([this] { WorkerLoop(); });
}

void ExecCredentialProvider::WorkerLoop() {
  for (;;) {
    std::vector<std::function<void(absl::StatusOr<Credentials>)>> waiters;
    {
      absl::MutexLock lock(&worker_mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_mu_) {
        return stopping_ || !waiters_.empty();
      };
      worker_mu_.Await(absl::Condition(&ready));
      if (stopping_ && waiters_.empty()) return;
      waiters.swap(waiters_);
    }
    // Everyone who asked while the plugin was stale gets this one run's answer (or the cached
    // credentials, if a synchronous Get() refreshed them meanwhile).
    absl::StatusOr<Credentials> credentials = [&]() -> absl::StatusOr<Credentials> {
      {
        absl::MutexLock lock(&mu_);
        if (cached_ && clock_.Now() + kExpiryMargin < expires_) return *cached_;
      }
      return RunAndCache();
    }();
    for (auto& waiter : waiters) waiter(credentials);
  }
}

void ExecCredentialProvider::Invalidate() {
  absl::MutexLock lock(&mu_);
  cached_.reset();
}

int ExecCredentialProvider::runs() const {
  absl::MutexLock lock(&mu_);
  return runs_;
}

absl::StatusOr<std::string> ExecCredentialProvider::Run() const {
  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  absl::Cleanup close_read = [&] { ::close(out_pipe[0]); };
  bool write_closed = false;
  absl::Cleanup close_write = [&] {
    if (!write_closed) ::close(out_pipe[1]);
  };

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool overridden = entry.starts_with("KUBERNETES_EXEC_INFO=");
    for (const auto& [name, value] : config_.env) {
      if (entry.starts_with(name + "=")) overridden = true;
    }
    if (!overridden) env_strings.emplace_back(entry);
  }
  for (const auto& [name, value] : config_.env) env_strings.push_back(name + "=" + value);
  env_strings.push_back(
      absl::StrCat("KUBERNETES_EXEC_INFO={\"apiVersion\":\"", config_.api_version,
                   "\",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false}}"));
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = {config_.command};
  arg_strings.insert(arg_strings.end(), config_.args.begin(), config_.args.end());
  std::vector<char*> argv;
  for (std::string& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  absl::Cleanup destroy_actions = [&] { posix_spawn_file_actions_destroy(&actions); };
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  pid_t pid;
  int rc =
      ::posix_spawnp(&pid, config_.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  if (rc != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("exec plugin ", config_.command, " could not be started: ", std::strerror(rc),
                     config_.install_hint.empty() ? "" : ". ", config_.install_hint));
  }
  ::close(out_pipe[1]);
  write_closed = true;

  std::string output;
  absl::Status failure;
  absl::Time deadline = absl::Now() + config_.timeout;
  char buf[8192];
  while (true) {
    int64_t left_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left_ms <= 0) {
      failure = absl::DeadlineExceededError(absl::StrCat("exec plugin ", config_.command,
                                                         " did not finish within ",
                                                         absl::FormatDuration(config_.timeout)));
      break;
    }
    pollfd pfd{out_pipe[0], POLLIN, 0};
    int n = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left_ms, 1000)));
    if (n < 0 && errno != EINTR) {
      failure = absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
      break;
    }
    if (n <= 0) continue;
    ssize_t got = ::read(out_pipe[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the plugin closed its stdout
    output.append(buf, static_cast<size_t>(got));
    if (output.size() > config_.max_output_bytes) {
      failure = absl::ResourceExhaustedError(absl::StrCat("exec plugin ", config_.command,
                                                          " printed more than ",
                                                          config_.max_output_bytes, " bytes"));
      break;
    }
  }
  int wstatus = 0;
  // The plugin closed its stdout and should exit now; a broken one that lingers is killed at the
  // deadline all the same.
  while (failure.ok()) {
    pid_t done = ::waitpid(pid, &wstatus, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      failure = absl::InternalError(absl::StrCat("waitpid: ", std::strerror(errno)));
    } else if (absl::Now() >= deadline) {
      failure = absl::DeadlineExceededError(absl::StrCat("exec plugin ", config_.command,
                                                         " did not exit within ",
                                                         absl::FormatDuration(config_.timeout)));
    } else {
      absl::SleepFor(absl::Milliseconds(2));
    }
  }
  if (!failure.ok()) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    return failure;
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return absl::UnavailableError(
        absl::StrCat("exec plugin ", config_.command, " failed (",
                     WIFEXITED(wstatus) ? absl::StrCat("exit code ", WEXITSTATUS(wstatus))
                                        : absl::StrCat("signal ", WTERMSIG(wstatus)),
                     ")", config_.install_hint.empty() ? "" : ". ", config_.install_hint));
  }
  return output;
}

}  // namespace kje::k8s
