#pragma once

// The long-running bodies of watches and followed logs.

#include <atomic>
#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kubesim/server/http_types.h"
#include "kubesim/server/table.h"
#include "kubesim/store/store.h"

namespace kubesim::api_internal {

namespace json = boost::json;

std::string EventLine(std::string_view type, json::value object);
std::string GoneEventLine(const std::string& message);

// A stream that has nothing more than its first chunk.
class EndedStream : public BodyStream {
 public:
  std::string Poll(int64_t, bool* done) override {
    *done = true;
    return "";
  }
  void Stop() override {}
};

struct TableMode {
  bool enabled = false;
  std::string group;
  std::string plural;
  std::vector<PrinterColumn> columns;
  std::string include_object;
};

class WatchStream : public BodyStream {
 public:
  WatchStream(std::shared_ptr<WatchHandle> handle, ResourceType type, TableMode table,
              bool bookmarks, int64_t bookmark_interval_ms, int64_t deadline_ms,
              int64_t drop_after_events, int64_t now_ms)
      : handle_(std::move(handle)),
        type_(std::move(type)),
        table_(std::move(table)),
        bookmarks_(bookmarks),
        bookmark_interval_ms_(bookmark_interval_ms),
        deadline_ms_(deadline_ms),
        drop_after_events_(drop_after_events),
        last_bookmark_ms_(now_ms) {}
  ~WatchStream() override { Stop(); }

  std::string Poll(int64_t now_ms, bool* done) override {
    *done = false;
    std::string out;
    if (stopped_) {
      *done = true;
      return out;
    }
    for (auto& ev : handle_->Drain()) {
      if (drop_after_events_ > 0 && sent_ >= drop_after_events_) break;
      if (ev.type == "BOOKMARK" && !bookmarks_) continue;
      bool error = ev.type == "ERROR";
      json::value object;
      if (table_.enabled && !error && ev.type != "BOOKMARK") {
        object = RenderTable(table_.group, table_.plural, table_.columns, {&ev.object},
                             table_.include_object, json::object{}, now_ms);
      } else {
        object = std::move(ev.object);
      }
      out += EventLine(ev.type, std::move(object));
      ++sent_;
      if (error) {
        Finish(done);
        return out;
      }
    }
    if (drop_after_events_ > 0 && sent_ >= drop_after_events_) {
      Finish(done);
      return out;
    }
    if (bookmarks_ && now_ms - last_bookmark_ms_ >= bookmark_interval_ms_) {
      last_bookmark_ms_ = now_ms;
      json::object bookmark{
          {"kind", type_.kind},
          {"apiVersion", type_.api_version()},
          {"metadata", json::object{{"resourceVersion", handle_->BookmarkResourceVersion()}}}};
      out += EventLine("BOOKMARK", std::move(bookmark));
    }
    if (now_ms >= deadline_ms_) Finish(done);
    return out;
  }

  void Stop() override {
    if (!stopped_) {
      stopped_ = true;
      handle_->Stop();
    }
  }

 private:
  void Finish(bool* done) {
    *done = true;
    Stop();
  }

  std::shared_ptr<WatchHandle> handle_;
  ResourceType type_;
  TableMode table_;
  bool bookmarks_;
  int64_t bookmark_interval_ms_;
  int64_t deadline_ms_;
  int64_t drop_after_events_;
  int64_t last_bookmark_ms_;
  int64_t sent_ = 0;
  bool stopped_ = false;
};

// Counts the streams alive (for /kubesim/stats): a stream dies when its connection ends.
class CountedStream : public BodyStream {
 public:
  CountedStream(std::shared_ptr<BodyStream> inner, std::shared_ptr<std::atomic<int64_t>> count)
      : inner_(std::move(inner)), count_(std::move(count)) {
    ++*count_;
  }
  ~CountedStream() override {
    inner_->Stop();
    --*count_;
  }
  std::string Poll(int64_t now_ms, bool* done) override { return inner_->Poll(now_ms, done); }
  void Stop() override { inner_->Stop(); }

 private:
  std::shared_ptr<BodyStream> inner_;
  std::shared_ptr<std::atomic<int64_t>> count_;
};

class LogStream : public BodyStream {
 public:
  LogStream(std::shared_ptr<LogFollower> follower, std::optional<int64_t> limit_bytes,
            int64_t already_sent)
      : follower_(std::move(follower)), limit_bytes_(limit_bytes), sent_(already_sent) {}
  ~LogStream() override { Stop(); }

  std::string Poll(int64_t, bool* done) override {
    *done = false;
    if (stopped_) {
      *done = true;
      return "";
    }
    std::string out = follower_->Drain();
    if (follower_->Finished()) {
      // Whatever the container wrote before it terminated still belongs to the log.
      out += follower_->Drain();
      *done = true;
    }
    if (limit_bytes_ && sent_ + static_cast<int64_t>(out.size()) >= *limit_bytes_) {
      out.resize(static_cast<size_t>(std::max<int64_t>(0, *limit_bytes_ - sent_)));
      *done = true;
    }
    sent_ += static_cast<int64_t>(out.size());
    if (*done) Stop();
    return out;
  }

  void Stop() override {
    if (!stopped_) {
      stopped_ = true;
      follower_->Stop();
    }
  }

 private:
  std::shared_ptr<LogFollower> follower_;
  std::optional<int64_t> limit_bytes_;
  int64_t sent_;
  bool stopped_ = false;
};

}  // namespace kubesim::api_internal
