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

// Bytes of the input quoted at most.
inline constexpr size_t kMaxQuotedBytes = 128;

// "text" or, when cut, "first 128 bytes..." (9000 bytes). Never longer than
// 4 * max_bytes + 32 bytes (every byte escaped as \xNN, plus the length note).
std::string QuoteBounded(std::string_view text, size_t max_bytes = kMaxQuotedBytes);

}  // namespace kje
