#include "app/process.h"

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
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

// A stop posts its cancellations and returns (an informer's stop does): what they start must
// run to its end before the io threads stop, or a coroutine they would have ended stays parked
// and is never freed. A chain of handlers, each posting the next, stands for that work.
TEST_CASE("process: the work a stop leaves behind runs to its end before the io threads stop",
          "[process]") {
  constexpr int kLinks = 1000;
  std::atomic<int> ran{0};
  {
    Process process(ProcessOptions{.io_threads = 2});
    boost::asio::io_context& io = process.io();
    struct Chain {
      boost::asio::io_context& io;
      std::atomic<int>& ran;
      void Post() {
        boost::asio::post(io, [this] {
          if (++ran < kLinks) Post();
        });
      }
    };
    process.Keep(std::make_unique<Chain>(Chain{io, ran}), [](Chain& c) { c.Post(); });
  }
  CHECK(ran.load() == kLinks);
}

// Work that no stop ends (a timer an hour away) doesn't hold the exit past finish_timeout: the
// io threads are then stopped, and the timer's handler never runs.
TEST_CASE("process: work no stop ends doesn't hold the exit", "[process]") {
  std::atomic<bool> fired{false};
  {
    Process process(ProcessOptions{.io_threads = 1, .finish_timeout = absl::Milliseconds(50)});
    auto& timer = process.Keep(std::make_unique<boost::asio::steady_timer>(process.io()));
    timer.expires_after(std::chrono::hours(1));
    timer.async_wait([&fired](const boost::system::error_code&) { fired = true; });
  }
  CHECK_FALSE(fired.load());
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
