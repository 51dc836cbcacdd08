#pragma once

// Runs the CLI in-process, capturing what it prints, for the tests of its commands.

#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/clock.h"
#include "cli/cli.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli::testing {

struct Result {
  int code;
  std::string out;
  std::string err;
};

// What a run may replace of the process around it.
struct Around {
  const Clock& clock = RealClock::Get();
  std::map<std::string, std::string> env;
  // Called instead of waiting, e.g. to move the fake server's answers on between two calls of
  // `events -f`.
  std::function<void(absl::Duration)> sleep = [](absl::Duration d) { absl::SleepFor(d); };
};

inline Result RunCli(const std::vector<std::string>& args, const Around& around) {
  std::ostringstream out, err;
  Io io{out, err, around.env, around.clock, around.sleep};
  int code = Run(args, io);
  return {code, out.str(), err.str()};
}

inline Result RunCli(const std::vector<std::string>& args, const Clock& clock = RealClock::Get(),
                     std::map<std::string, std::string> env = {}) {
  Around around{clock, std::move(env), [](absl::Duration d) { absl::SleepFor(d); }};
  return RunCli(args, around);
}

inline std::string WriteFile(const std::string& name, const std::string& content) {
  std::ofstream f(name);
  f << content;
  return name;
}

inline jobexecutor::v1::JobInfo Job(const std::string& id, jobexecutor::v1::JobInfo::Status status,
                                    const std::string& op = "") {
  jobexecutor::v1::JobInfo info;
  info.set_execution_id(id);
  info.set_status(status);
  info.set_operator_state(op);
  return info;
}

// The lines of a command's output, without their newlines.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace kje::cli::testing
