#pragma once

// Structured logging: one line per event, to stderr, as logfmt (`ts=… level=info msg="…" k=v`)
// or as one JSON object per line. Values are the caller's to choose: tokens, secrets and
// environment values must never be passed in.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kje::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };
enum class Format { kText, kJson };

absl::StatusOr<Level> ParseLevel(std::string_view name);
absl::StatusOr<Format> ParseFormat(std::string_view name);

void Configure(Level min_level, Format format);
bool Enabled(Level level);

// Replaces the destination of finished lines (default: stderr). For tests; pass nullptr to
// restore stderr.
void SetSinkForTesting(std::function<void(std::string_view line)> sink);

// One event, written when it goes out of scope: `log::Info("listening").Kv("port", port);`
class Event {
 public:
  // A string value longer than this is cut at a character boundary, its full length named.
  static constexpr size_t kMaxValueBytes = 1024;

  Event(Level level, std::string_view msg);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  // A line can be built in one place and let go in another (after an answer is sent, so its
  // write isn't between the answer and the caller); the moved-from event writes nothing.
  Event(Event&& other) noexcept;
  Event& operator=(Event&&) = delete;

  // Whether the line will be written (its level was enabled when it was made).
  bool enabled() const { return enabled_; }

  Event& Kv(std::string_view key, std::string_view value);
  Event& Kv(std::string_view key, const std::string& value) {
    return Kv(key, std::string_view(value));
  }
  Event& Kv(std::string_view key, const char* value) { return Kv(key, std::string_view(value)); }
  Event& Kv(std::string_view key, int64_t value);
  Event& Kv(std::string_view key, int value) { return Kv(key, static_cast<int64_t>(value)); }
  Event& Kv(std::string_view key, uint64_t value);
  Event& Kv(std::string_view key, double value);
  Event& Kv(std::string_view key, bool value);

 private:
  void AppendKey(std::string_view key);
  void AppendRaw(std::string_view key, std::string_view literal);

  bool enabled_;
  Format format_;
  std::string line_;
};

inline Event Debug(std::string_view msg) { return Event(Level::kDebug, msg); }
inline Event Info(std::string_view msg) { return Event(Level::kInfo, msg); }
inline Event Warn(std::string_view msg) { return Event(Level::kWarn, msg); }
inline Event Error(std::string_view msg) { return Event(Level::kError, msg); }

}  // namespace kje::log
