// A watch stream is the API server's (or whatever answers in its place) response body: chunked
// HTTP framing around one JSON event per line, cut anywhere by the network. Input: a mode byte,
// a chunk-size byte, a line-limit byte, then either the body itself or a whole HTTP response
// parsed by Beast as the client parses it (buffer_body, header limit 64 KiB).

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "k8s/watch_stream.h"

namespace http = boost::beast::http;
using kje::k8s::WatchEvent;
using kje::k8s::WatchStreamDecoder;

namespace {

struct Run {
  std::vector<std::string> versions;
  absl::Status status;
};

// Feeds the body in pieces of `step` bytes.
Run FeedBody(std::string_view body, size_t step, size_t limit) {
  WatchStreamDecoder decoder("fuzz", limit);
  Run run;
  auto on_event = [&run](const WatchEvent& e) {
    FUZZ_CHECK(!e.object.empty() && e.object.value().IsObject());
    run.versions.push_back(e.resource_version);
  };
  for (size_t i = 0; i < body.size() && run.status.ok(); i += step) {
    run.status = decoder.Feed(body.substr(i, step), on_event);
    FUZZ_CHECK(!run.status.ok() || decoder.pending_bytes() <= limit);
  }
  return run;
}

// The response through Beast's parser, its body pieces into the decoder, as the client does.
void FeedResponse(std::string_view response, size_t step, size_t limit) {
  http::response_parser<http::buffer_body> parser;
  parser.header_limit(64 * 1024);
  parser.body_limit(boost::none);
  WatchStreamDecoder decoder("fuzz", limit);
  auto on_event = [](const WatchEvent& e) { FUZZ_CHECK(!e.object.empty()); };
  char chunk[512];
  size_t offset = 0, window = step;
  for (int rounds = 0; !parser.is_done() && rounds < (1 << 20); ++rounds) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof chunk;
    boost::beast::error_code ec;
    if (offset == response.size()) {  // the connection closed
      parser.put_eof(ec);
      return;
    }
    size_t end = std::min(response.size(), offset + window);
    size_t used = parser.put(boost::asio::buffer(response.data() + offset, end - offset), ec);
    offset += used;
    FUZZ_CHECK(offset <= response.size());
    size_t got = sizeof chunk - parser.get().body().size;
    if (got > 0 && !decoder.Feed(std::string_view(chunk, got), on_event).ok()) return;
    if (ec == http::error::need_more) {
      if (end < response.size()) {
        window *= 2;
      } else if (used == 0) {
        parser.put_eof(ec);
        return;
      }
      continue;
    }
    if (ec == http::error::need_buffer) ec = {};
    if (ec) return;
    window = step;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  bool http_mode = data[0] & 1;
  size_t step = 1 + data[1];
  size_t limit = 16 + static_cast<size_t>(data[2]) * 64;  // up to ~16 KiB: huge lines are cheap
  std::string_view rest = kje::fuzz::AsText(data + 3, size - 3);
  if (http_mode) {
    FeedResponse(rest, step, limit);
    return 0;
  }
  Run chunked = FeedBody(rest, step, limit);
  // The cut doesn't matter: a stream that decodes in pieces decodes the same in one piece.
  if (chunked.status.ok()) {
    Run whole = FeedBody(rest, rest.size() + 1, limit);
    FUZZ_CHECK(whole.status.ok());
    FUZZ_CHECK(whole.versions == chunked.versions);
  }
  return 0;
}
