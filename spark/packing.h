#pragma once

// The byte encodings a projection packs its strings and records with, for the neutral
// projection and each operator's own part of it: varints, zigzag deltas, length-prefixed bytes,
// and an iterator over records packed back to back. Readers trust their input: every packed
// block was written by these functions in this process.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace kje::spark::packing {

inline void PutVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

inline uint64_t GetVarint(const char*& at) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    auto byte = static_cast<uint8_t>(*at++);
    value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

// A signed value as a zigzag varint, so that small negatives stay short.
inline void PutSigned(std::string& out, int64_t value) {
  PutVarint(out, (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
}

inline int64_t GetSigned(const char*& at) {
  uint64_t zigzag = GetVarint(at);
  return static_cast<int64_t>((zigzag >> 1) ^ (~(zigzag & 1) + 1));
}

// The difference from `previous`, taken modulo 2^64 so that any two int64 values have one.
inline void PutDelta(std::string& out, uint64_t& previous, int64_t value) {
  PutSigned(out, static_cast<int64_t>(static_cast<uint64_t>(value) - previous));
  previous = static_cast<uint64_t>(value);
}

inline int64_t GetDelta(const char*& at, uint64_t& previous) {
  previous += static_cast<uint64_t>(GetSigned(at));
  return static_cast<int64_t>(previous);
}

inline void PutBytes(std::string& out, std::string_view bytes) {
  PutVarint(out, bytes.size());
  out.append(bytes);
}

inline std::string_view GetBytes(const char*& at) {
  size_t size = GetVarint(at);
  std::string_view bytes(at, size);
  at += size;
  return bytes;
}

// An input iterator over records packed back to back, each decoded as the iterator reaches it;
// Decoder reads one record at `at` and moves `at` past it, keeping what the next one needs.
template <typename Record, typename Decoder>
class PackedIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Record;
  using difference_type = std::ptrdiff_t;
  using pointer = const Record*;
  using reference = const Record&;

  PackedIterator() = default;
  // At `next`, or the end when next == end.
  PackedIterator(const char* next, const char* end) : next_(next), end_(end) { Advance(); }
  reference operator*() const { return record_; }
  pointer operator->() const { return &record_; }
  PackedIterator& operator++() {
    Advance();
    return *this;
  }
  PackedIterator operator++(int) {
    PackedIterator before = *this;
    Advance();
    return before;
  }
  bool operator==(const PackedIterator& other) const { return at_ == other.at_; }
  bool operator!=(const PackedIterator& other) const { return at_ != other.at_; }

 private:
  void Advance() {
    at_ = next_;
    if (next_ != end_) decoder_(next_, record_);
  }

  const char* at_ = nullptr;  // the current record; the end once past the last
  const char* next_ = nullptr;
  const char* end_ = nullptr;
  Decoder decoder_;
  Record record_{};
};

// Records packed back to back in `packed`, read through PackedIterator.
template <typename Record, typename Decoder>
class PackedRange {
 public:
  using Iterator = PackedIterator<Record, Decoder>;
  explicit PackedRange(std::string_view packed) : packed_(packed) {}
  Iterator begin() const { return Iterator(packed_.data(), packed_.data() + packed_.size()); }
  Iterator end() const {
    return Iterator(packed_.data() + packed_.size(), packed_.data() + packed_.size());
  }
  bool empty() const { return packed_.empty(); }
  size_t size() const { return static_cast<size_t>(std::distance(begin(), end())); }

 private:
  std::string_view packed_;
};

}  // namespace kje::spark::packing
