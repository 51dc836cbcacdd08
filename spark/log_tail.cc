#include "spark/log_tail.h"

#include <algorithm>

#include "base/utf8.h"

namespace kje::spark {

absl::StatusOr<LogTail> LogTail::Create(int64_t max_lines, int64_t max_bytes) {
  if (max_lines <= 0 || max_bytes <= 0) {
    return absl::InvalidArgumentError("max_lines and max_bytes of a log tail must be > 0");
  }
  // A window larger than memory can never be filled anyway; the clamp only keeps +1 in range.
  constexpr int64_t kMaxBytes = int64_t{1} << 40;
  return LogTail(max_lines, std::min(max_bytes, kMaxBytes));
}

LogTail::LogTail(int64_t max_lines, int64_t max_bytes)
    : max_lines_(static_cast<size_t>(max_lines)),
      max_bytes_(static_cast<size_t>(max_bytes)),
      capacity_(max_bytes_ + 1) {}

void LogTail::Feed(std::string_view chunk) {
  bytes_seen_ += chunk.size();
  if (chunk.size() >= capacity_) {
    ring_.assign(chunk.substr(chunk.size() - capacity_));
    head_ = 0;
    return;
  }
  if (ring_.size() < capacity_) {
    size_t room = capacity_ - ring_.size();
    size_t take = std::min(room, chunk.size());
    ring_.append(chunk.substr(0, take));
    chunk.remove_prefix(take);
    head_ = 0;
  }
  // Full: overwrite the oldest bytes, wrapping around.
  while (!chunk.empty()) {
    size_t take = std::min(chunk.size(), capacity_ - head_);
    ring_.replace(head_, take, chunk.substr(0, take));
    head_ = (head_ + take) % capacity_;
    chunk.remove_prefix(take);
  }
}

std::string LogTail::Window() const {
  if (ring_.size() < capacity_ || head_ == 0) return ring_;
  std::string window;
  window.reserve(ring_.size());
  window.append(ring_, head_, std::string::npos);
  window.append(ring_, 0, head_);
  return window;
}

LogTailResult LogTail::Finish() const {
  LogTailResult result;
  std::string window = Window();
  std::string_view content = window;
  bool mid_line = false;
  if (bytes_seen_ > max_bytes_) {
    // The first byte only tells whether the rest starts a line.
    mid_line = content.front() != '\n';
    content.remove_prefix(1);
    result.truncated = true;
    // Don't start inside a UTF-8 character; a '\n' is never part of one.
    while (!content.empty() && (static_cast<unsigned char>(content.front()) & 0xC0) == 0x80) {
      content.remove_prefix(1);
    }
  }
  if (mid_line) {
    size_t newline = content.find('\n');
    if (newline != std::string_view::npos && newline + 1 < content.size()) {
      // Complete lines follow the partial one.
      content.remove_prefix(newline + 1);
    } else if (newline != std::string_view::npos) {
      // The partial line is the only line and ends here: keep its tail, unless nothing of it
      // but its line terminator is left.
      std::string_view only_line = content.substr(0, newline);
      if (only_line.empty() || only_line == "\r") return result;
    }
  }
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (true) {
    size_t newline = content.find('\n', start);
    if (newline == std::string_view::npos) {
      pieces.push_back(content.substr(start));
      break;
    }
    std::string_view piece = content.substr(start, newline - start);
    if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
    pieces.push_back(piece);
    start = newline + 1;
  }
  if (pieces.back().empty()) pieces.pop_back();
  size_t first = pieces.size() > max_lines_ ? pieces.size() - max_lines_ : 0;
  if (first > 0) result.truncated = true;
  result.lines.reserve(pieces.size() - first);
  for (size_t i = first; i < pieces.size(); ++i) result.lines.push_back(ToValidUtf8(pieces[i]));
  return result;
}

LogLines::LogLines(size_t max_line_bytes) : max_line_bytes_(std::max<size_t>(max_line_bytes, 4)) {}

std::vector<std::string> LogLines::Feed(std::string_view chunk) {
  std::vector<std::string> out;
  while (!chunk.empty()) {
    size_t nl = chunk.find('\n');
    if (nl == std::string_view::npos) {
      partial_.append(chunk);
      // An endless line is still delivered, in pieces, and never held whole. A trailing '\r'
      // may be half of the "\r\n" to come, so it doesn't count: cut off now, it would make an
      // empty line of its own that the same line in one chunk doesn't have.
      while (partial_.size() - (partial_.back() == '\r' ? 1 : 0) > max_line_bytes_) {
        size_t cut = max_line_bytes_;
        // Back off to a character boundary (never more than 3 continuation bytes).
        for (int i = 0;
             i < 3 && cut > 1 && (static_cast<unsigned char>(partial_[cut]) & 0xC0) == 0x80; ++i) {
          --cut;
        }
        out.push_back(ToValidUtf8(std::string_view(partial_).substr(0, cut)));
        partial_.erase(0, cut);
      }
      break;
    }
    partial_.append(chunk.substr(0, nl));
    chunk.remove_prefix(nl + 1);
    if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
    Emit(partial_, out);
    partial_.clear();
  }
  return out;
}

std::vector<std::string> LogLines::Flush() {
  std::vector<std::string> out;
  if (!partial_.empty()) Emit(partial_, out);
  partial_.clear();
  return out;
}

void LogLines::Emit(std::string_view line, std::vector<std::string>& out) const {
  while (line.size() > max_line_bytes_) {
    size_t cut = max_line_bytes_;
    for (int i = 0; i < 3 && cut > 1 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80;
         ++i) {
      --cut;
    }
    out.push_back(ToValidUtf8(line.substr(0, cut)));
    line.remove_prefix(cut);
  }
  out.push_back(ToValidUtf8(line));
}

}  // namespace kje::spark
