#include "base/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mask.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::log {
namespace {

std::atomic<int> g_min_level{static_cast<int>(Level::kInfo)};
std::atomic<int> g_format{static_cast<int>(Format::kText)};

absl::Mutex g_sink_mu;
std::atomic<bool> g_has_sink = false;
std::function<void(std::string_view)>* g_sink ABSL_GUARDED_BY(g_sink_mu) = nullptr;

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
  }
  return "info";
}

void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

// logfmt: bare when the value has no space, quote, '=' or control character; otherwise quoted
// with JSON escapes, which keeps every event on one line.
void AppendLogfmtValue(std::string& out, std::string_view s) {
  bool bare = !s.empty();
  for (unsigned char c : s) {
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f) {
      bare = false;
      break;
    }
  }
  if (bare) {
    out.append(s);
  } else {
    AppendJsonString(out, s);
  }
}

void Emit(std::string_view line) {
  // Production has no sink: its lines take no process-wide lock, only their one write.
  if (g_has_sink.load(std::memory_order_acquire)) {
    absl::MutexLock lock(&g_sink_mu);
    if (g_sink != nullptr) {
      (*g_sink)(line);
      return;
    }
  }
  // One write per line, so lines from concurrent threads never interleave.
  std::string with_newline = absl::StrCat(ToAbsl(line), "\n");
  const char* p = with_newline.data();
  size_t left = with_newline.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

absl::StatusOr<Level> ParseLevel(std::string_view name) {
  std::string lower = absl::AsciiStrToLower(ToAbsl(name));
  if (lower == "debug") return Level::kDebug;
  if (lower == "info") return Level::kInfo;
  if (lower == "warn" || lower == "warning") return Level::kWarn;
  if (lower == "error") return Level::kError;
  return absl::InvalidArgumentError(
      absl::StrCat("must be one of debug, info, warn, error, got ", QuoteBounded(name)));
}

absl::StatusOr<Format> ParseFormat(std::string_view name) {
  std::string lower = absl::AsciiStrToLower(ToAbsl(name));
  if (lower == "text" || lower == "logfmt") return Format::kText;
  if (lower == "json") return Format::kJson;
  return absl::InvalidArgumentError(absl::StrCat("must be text or json, got ", QuoteBounded(name)));
}

void Configure(Level min_level, Format format) {
  g_min_level.store(static_cast<int>(min_level));
  g_format.store(static_cast<int>(format));
}

bool Enabled(Level level) { return static_cast<int>(level) >= g_min_level.load(); }

void SetSinkForTesting(std::function<void(std::string_view line)> sink) {
  absl::MutexLock lock(&g_sink_mu);
  delete g_sink;
  g_sink = sink ? new std::function<void(std::string_view)>(std::move(sink)) : nullptr;
  g_has_sink.store(g_sink != nullptr, std::memory_order_release);
}

Event::Event(Level level, std::string_view msg)
    : enabled_(Enabled(level)), format_(static_cast<Format>(g_format.load())) {
  if (!enabled_) return;
  std::string ts = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  if (format_ == Format::kJson) {
    line_ = absl::StrCat("{\"ts\":\"", ts, "\",\"level\":\"", LevelName(level), "\",\"msg\":");
    AppendJsonString(line_, msg);
  } else {
    line_ = absl::StrCat("ts=", ts, " level=", LevelName(level), " msg=");
    AppendLogfmtValue(line_, msg);
  }
}

Event::Event(Event&& other) noexcept
    : enabled_(std::exchange(other.enabled_, false)),
      format_(other.format_),
      line_(std::move(other.line_)) {}

Event::~Event() {
  if (!enabled_) return;
  if (format_ == Format::kJson) line_.push_back('}');
  Emit(line_);
}

void Event::AppendKey(std::string_view key) {
  if (format_ == Format::kJson) {
    line_.push_back(',');
    AppendJsonString(line_, key);
    line_.push_back(':');
  } else {
    line_.push_back(' ');
    line_.append(key);
    line_.push_back('=');
  }
}

void Event::AppendRaw(std::string_view key, std::string_view literal) {
  if (!enabled_) return;
  AppendKey(key);
  line_.append(literal);
}

Event& Event::Kv(std::string_view key, std::string_view value) {
  if (!enabled_) return *this;
  AppendKey(key);
  // A value may be a caller's field or an error quoting a job's conf: sensitive values are
  // masked (base/mask.h), and a line stays readable (and a log pipeline's line limit unreached)
  // whatever was sent.
  std::string masked = MaskText(value);
  value = masked;
  std::string bounded;
  if (value.size() > kMaxValueBytes) {
    bounded = BoundMessage(value, kMaxValueBytes);
    value = bounded;
  }
  if (format_ == Format::kJson) {
    AppendJsonString(line_, value);
  } else {
    AppendLogfmtValue(line_, value);
  }
  return *this;
}

Event& Event::Kv(std::string_view key, int64_t value) {
  AppendRaw(key, absl::StrCat(value));
  return *this;
}

Event& Event::Kv(std::string_view key, uint64_t value) {
  AppendRaw(key, absl::StrCat(value));
  return *this;
}

Event& Event::Kv(std::string_view key, double value) {
  AppendRaw(key, absl::StrFormat("%.6g", value));
  return *this;
}

Event& Event::Kv(std::string_view key, bool value) {
  AppendRaw(key, value ? "true" : "false");
  return *this;
}

}  // namespace kje::log
