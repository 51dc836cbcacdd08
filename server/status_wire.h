#pragma once

// The Status RPC in protobuf's wire form, for its raw handler: a cached Status costs a couple of
// thousand instructions of our own, and the messages around it (a request and a JobInfo on an
// arena, their strings' copies and UTF-8 checks, the serialization and the clean-up) cost several
// times that. What a client sees doesn't change: the request is read as protobuf reads it, and the
// answer is byte for byte what JobInfo::SerializeAsString() writes for ToJobInfo's message
// (tests/server/status_wire_test.cc checks both, and that every field of JobInfo is written).

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "executor/job_executor.h"

namespace kje::server {

// The execution_id of a StatusRequest. Its usual encoding (the one field, an ASCII id) is read in
// place from the request's slice, which `*slice` then holds; anything else is parsed by protobuf,
// the id kept in `*parsed`. INVALID_ARGUMENT for bytes protobuf can't parse.
absl::StatusOr<std::string_view> StatusRequestId(const grpc::ByteBuffer& request,
                                                 grpc::Slice* slice, std::string* parsed);

// The JobInfo of `job` in wire form, in one slice, into `*out`: fields in field-number order,
// empty ones left out, as protobuf's serializer writes them.
void WriteJobInfoWire(const executor::JobView& job, grpc::ByteBuffer* out);

}  // namespace kje::server
