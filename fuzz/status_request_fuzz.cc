// Differential: the Status RPC's hand-written request reader (server/status_wire.cc, a fast path
// for the usual encoding, then protobuf) against protobuf's own parser of a StatusRequest. Any
// caller can send the raw handler any bytes; for every input both must give the same
// execution_id, or both refuse. The bytes arrive in one slice or split in two, as gRPC may hand
// them over.

#include <google/protobuf/stubs/logging.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "jobexecutor/v1/job_executor.pb.h"
#include "server/status_wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Protobuf logs every string that isn't UTF-8 it refuses: a line per input, not a finding.
  static const bool kQuiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)kQuiet;
  const std::string_view bytes = kje::fuzz::AsText(data, size);

  jobexecutor::v1::StatusRequest reference;
  const bool reference_ok = reference.ParseFromArray(data, static_cast<int>(size));

  // One slice; then two, cut where the first byte says.
  for (int slices = 1; slices <= 2; ++slices) {
    grpc::ByteBuffer request;
    if (slices == 1) {
      grpc::Slice whole(bytes.data(), bytes.size());
      grpc::ByteBuffer one(&whole, 1);
      request.Swap(&one);
    } else {
      const size_t cut = size == 0 ? 0 : data[0] % (size + 1);
      grpc::Slice parts[2] = {grpc::Slice(bytes.data(), cut),
                              grpc::Slice(bytes.data() + cut, size - cut)};
      grpc::ByteBuffer two(parts, 2);
      request.Swap(&two);
    }
    grpc::Slice slice;
    std::string parsed;
    absl::StatusOr<std::string_view> id = kje::server::StatusRequestId(request, &slice, &parsed);
    FUZZ_CHECK(id.ok() == reference_ok);
    if (id.ok()) {
      FUZZ_CHECK(*id == reference.execution_id());
    } else {
      // A refusal names no byte of the input.
      FUZZ_CHECK(id.status().message().size() < 200);
      FUZZ_CHECK(absl::IsInvalidArgument(id.status()));
    }
  }
  return 0;
}
