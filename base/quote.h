#pragma once

// One way to quote outside input (a caller's field, a file's text, an API server's answer) in an
// error message, a log field or an event: at most a fixed prefix, in double quotes, with control,
// quote, backslash and non-UTF-8 bytes escaped, and the full length named when it was cut. An
// answer's message then stays small whatever the input (gRPC carries it in metadata, which every
// client caps at 8 KiB), and no quoted byte can forge a log line.

#include <cstddef>
#include <string>
#include <string_view>

namespace kje {

// Bytes of quoted output at most, escapes included (128 plain bytes, or 32 escaped ones).
inline constexpr size_t kMaxQuotedBytes = 128;

// "text" or, when cut, "first bytes..." (9000 bytes): the part between the quotes is at most
// max_bytes long after escaping, so the whole is never longer than max_bytes + 32 bytes.
std::string QuoteBounded(std::string_view text, size_t max_bytes = kMaxQuotedBytes);

// A name from input (a YAML key, a context's name) as one step of a dotted path in a message:
// as it is when plain (1 to 64 bytes of printable ASCII other than space, quote and backslash),
// so that `template.sparkConf.spark.executor.instances` reads as the user wrote it; quoted by
// QuoteBounded otherwise.
std::string NameInPath(std::string_view name);

// Bytes of a library's message (yaml-cpp's) kept at most, escapes included.
inline constexpr size_t kMaxForeignMessageBytes = 256;

// A library's own message that may carry the input's bytes (yaml-cpp names the character it
// could not read): escaped as QuoteBounded does, without quotes, and cut with the length named.
std::string EscapeBounded(std::string_view text, size_t max_bytes = kMaxForeignMessageBytes);

// The most bytes of an answer's message a caller ever receives.
inline constexpr size_t kMaxMessageBytes = 1024;

// The edge's backstop behind QuoteBounded: `message` as it is when it fits in max_bytes,
// else cut at a character boundary and ended with "... (N bytes)" so that the whole stays within
// max_bytes. A message is our own text around bounded quotes, so a cut means a quote was missed
// somewhere; the caller still gets its code and a useful prefix instead of an answer every gRPC
// client refuses.
std::string BoundMessage(std::string_view message, size_t max_bytes = kMaxMessageBytes);

// Whether `text` holds an ASCII control byte (below 0x20, or DEL): one that could end a log line
// early or drive a terminal. A bounded quote never leaves one.
bool HasControlByte(std::string_view text);

}  // namespace kje
