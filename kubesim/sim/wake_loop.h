#pragma once

// The thread a simulated controller runs on: a pass, then a wait until the earliest time the
// pass says something is due (at most max_idle_ms, so the loop looks around at least that
// often), a watch's notification, or Stop. The controllers share it and keep only their pass.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace kubesim::sim {

class WakeLoop {
 public:
  // `pass` runs one pass and returns the earliest due time on `now_ms`'s clock, if any. It runs
  // on the loop's thread only.
  WakeLoop(std::function<std::optional<int64_t>()> pass, std::function<int64_t()> now_ms,
           int64_t max_idle_ms)
      : pass_(std::move(pass)),
        now_ms_(std::move(now_ms)),
        max_idle_ms_(max_idle_ms),
        wake_(std::make_shared<Wake>()) {}
  ~WakeLoop() { Stop(); }
  WakeLoop(const WakeLoop&) = delete;
  WakeLoop& operator=(const WakeLoop&) = delete;

  void Start() {
    std::lock_guard<std::mutex> lock(thread_mu_);
    if (thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> w(wake_->mu);
      wake_->stop = false;
    }
    thread_ = std::thread([this] { Loop(); });
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(thread_mu_);
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> w(wake_->mu);
      wake_->stop = true;
    }
    wake_->cv.notify_all();
    thread_.join();
  }

  // For a watch: wakes the loop for another pass. The store calls it after releasing its lock,
  // possibly a moment after the loop is gone, which it outlives harmlessly.
  std::function<void()> Notifier() const {
    std::weak_ptr<Wake> weak = wake_;
    return [weak] {
      if (auto wake = weak.lock()) {
        {
          std::lock_guard<std::mutex> lock(wake->mu);
          wake->pending = true;
        }
        wake->cv.notify_all();
      }
    };
  }

 private:
  struct Wake {
    std::mutex mu;
    std::condition_variable cv;
    bool pending = false;
    bool stop = false;
  };

  void Loop() {
    while (true) {
      std::optional<int64_t> next = pass_();
      std::unique_lock<std::mutex> w(wake_->mu);
      if (wake_->stop) return;
      if (!wake_->pending) {
        int64_t wait_ms = max_idle_ms_;
        if (next) wait_ms = std::clamp<int64_t>(*next - now_ms_(), 0, max_idle_ms_);
        if (wait_ms > 0) {
          wake_->cv.wait_for(w, std::chrono::milliseconds(wait_ms),
                             [this] { return wake_->pending || wake_->stop; });
        }
      }
      if (wake_->stop) return;
      wake_->pending = false;
    }
  }

  const std::function<std::optional<int64_t>()> pass_;
  const std::function<int64_t()> now_ms_;
  const int64_t max_idle_ms_;
  const std::shared_ptr<Wake> wake_;
  std::mutex thread_mu_;
  std::thread thread_;
};

}  // namespace kubesim::sim
