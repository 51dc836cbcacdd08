#include "tests/k8s/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace kje::k8s::testing {

Subprocess::~Subprocess() { Stop(); }

absl::Status Subprocess::Start(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError(std::strerror(errno));
  std::vector<char*> args;
  std::vector<std::string> copy = argv;
  for (std::string& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    // Dies with the test: a crashed test must not leave a server behind holding ctest's output
    // pipe (ctest then waits for its timeout).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(fds[1], STDOUT_FILENO);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int err = errno;
  ::close(fds[1]);
  if (pid_ < 0) {
    ::close(fds[0]);
    pid_ = -1;
    return absl::InternalError(absl::StrCat("spawn ", argv[0], ": ", std::strerror(err)));
  }
  out_fd_ = fds[0];
  return absl::OkStatus();
}

absl::StatusOr<std::string> Subprocess::ReadLine(absl::Time deadline) {
  while (true) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    int64_t left = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left <= 0) return absl::DeadlineExceededError("no line from the child process in time");
    pollfd pfd{out_fd_, POLLIN, 0};
    int n = ::poll(&pfd, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    char buf[4096];
    ssize_t got = ::read(out_fd_, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return absl::UnavailableError("the child process closed its stdout");
    buffer_.append(buf, static_cast<size_t>(got));
  }
}

void Subprocess::Stop(absl::Duration grace) {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    absl::Time deadline = absl::Now() + grace;
    int status = 0;
    while (true) {
      pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_ || (done < 0 && errno != EINTR)) break;
      if (absl::Now() >= deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      absl::SleepFor(absl::Milliseconds(5));  // reaping, not synchronising a test
    }
    pid_ = -1;
  }
  if (out_fd_ >= 0) {
    ::close(out_fd_);
    out_fd_ = -1;
  }
}

}  // namespace kje::k8s::testing
