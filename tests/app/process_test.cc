#include "app/process.h"

#include <boost/asio/post.hpp>
#include <catch2/catch.hpp>
#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "server/config.h"

namespace kje::app {
namespace {

// What happened to the parts, in order.
struct Journal {
  absl::Mutex mu;
  std::vector<std::string> entries;

  void Add(std::string entry) {
    absl::MutexLock lock(&mu);
    entries.push_back(std::move(entry));
  }
};

// A part that writes its destruction into the journal, and whose stop proves the io threads
// still run: it waits for a handler it posts.
struct Part {
  Part(std::string name, Journal& journal) : name(std::move(name)), journal(journal) {}
  ~Part() { journal.Add("destroyed " + name); }

  void Stop(boost::asio::io_context& io) {
    absl::Notification ran;
    boost::asio::post(io, [&] { ran.Notify(); });
    journal.Add(ran.WaitForNotificationWithTimeout(absl::Seconds(60)) ? "stopped " + name
                                                                      : "io gone at " + name);
  }

  std::string name;
  Journal& journal;
};

TEST_CASE(
    "process: stops its parts while the io threads run, the last kept first, then "
    "destroys them",
    "[process]") {
  Journal journal;
  {
    Process process(ProcessOptions{.io_threads = 2});
    boost::asio::io_context& io = process.io();
    process.Keep(std::make_unique<Part>("first", journal), [&io](Part& p) { p.Stop(io); });
    process.Keep(std::make_unique<Part>("no stop", journal));
    Part& last =
        process.Keep(std::make_unique<Part>("last", journal), [&io](Part& p) { p.Stop(io); });
    CHECK(last.name == "last");
    // Its io threads run handlers from the start.
    absl::Notification ran;
    boost::asio::post(io, [&] { ran.Notify(); });
    REQUIRE(ran.WaitForNotificationWithTimeout(absl::Seconds(60)));
  }
  CHECK(journal.entries == std::vector<std::string>{"stopped last", "stopped first",
                                                    "destroyed last", "destroyed no stop",
                                                    "destroyed first"});
}

TEST_CASE("process: SIGTERM ends the wait", "[process]") {
  Process process(ProcessOptions{.io_threads = 1});
  REQUIRE(std::raise(SIGTERM) == 0);
  process.WaitForShutdownSignal();  // returns: the signal was the process's, not fatal
}

TEST_CASE("process: options from the configuration", "[process]") {
  server::Config config;
  config.server.io_threads = 7;
  CHECK(ProcessOptionsFrom(config).io_threads == 7);
}

}  // namespace
}  // namespace kje::app
