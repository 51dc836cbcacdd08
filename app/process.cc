#include "app/process.h"

#include <csignal>

#include "base/log.h"

namespace kje::app {

ProcessOptions ProcessOptionsFrom(const server::Config& config) {
  ProcessOptions options;
  options.io_threads = config.server.io_threads;
  return options;
}

Process::Process(ProcessOptions options)
    : finish_timeout_(options.finish_timeout),
      work_(boost::asio::make_work_guard(io_)),
      signals_(io_, SIGTERM, SIGINT) {
  threads_.reserve(options.io_threads);
  for (int i = 0; i < options.io_threads; ++i) {
    threads_.emplace_back([this] {
      io_.run();
      if (!returned_.exchange(true)) ran_out_.Notify();
    });
  }
  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    log::Info("shutdown requested").Kv("signal", signo == SIGTERM ? "SIGTERM" : "SIGINT");
    shutdown_requested_.Notify();
  });
}

Process::~Process() {
  for (auto stop = stops_.rbegin(); stop != stops_.rend(); ++stop) (*stop)();
  // The signal wait is work too; nothing waits for a signal any more.
  boost::system::error_code ignored;
  signals_.cancel(ignored);
  work_.reset();
  if (!ran_out_.WaitForNotificationWithTimeout(finish_timeout_)) {
    log::Warn("work still pending at exit; stopping it")
        .Kv("waited_ms", absl::ToInt64Milliseconds(finish_timeout_));
  }
  io_.stop();
  for (std::thread& t : threads_) t.join();
  while (!parts_.empty()) parts_.pop_back();
}

}  // namespace kje::app
