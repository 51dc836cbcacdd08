#pragma once

// An io_context run by two threads, as the service runs it: a strand's work may resume on either.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <thread>
#include <vector>

namespace kje::async::testing {

struct IoThreads {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::vector<std::thread> threads;

  IoThreads() {
    for (int i = 0; i < 2; ++i) threads.emplace_back([this] { io.run(); });
  }
  ~IoThreads() {
    work.reset();
    for (std::thread& t : threads) t.join();
  }
  boost::asio::strand<boost::asio::io_context::executor_type> Strand() {
    return boost::asio::make_strand(io);
  }
};

}  // namespace kje::async::testing
