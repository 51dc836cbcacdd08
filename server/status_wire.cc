#include "server/status_wire.h"

#include <grpc/slice.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "jobexecutor/v1/job_executor.pb.h"
#include "server/job_info.h"

namespace kje::server {
namespace pb = jobexecutor::v1;
namespace {

enum WireType : uint8_t { kVarint = 0, kLengthDelimited = 2 };

// A tag as a varint: fields from 16 on (JobInfo's newer ones) take two bytes.
constexpr uint32_t Tag(int field, WireType type) {
  return (static_cast<uint32_t>(field) << 3) | type;
}

// StatusRequest's one field is below 16: its tag is one byte.
constexpr uint8_t kExecutionIdTag =
    static_cast<uint8_t>(Tag(pb::StatusRequest::kExecutionIdFieldNumber, kLengthDelimited));
static_assert(Tag(pb::StatusRequest::kExecutionIdFieldNumber, kLengthDelimited) < 0x80);

size_t VarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

// The id of a request that is exactly the one field with an ASCII id (its length a varint of at
// most two bytes), or nullopt for anything else.
std::optional<std::string_view> UsualEncodingId(std::string_view bytes) {
  if (bytes.empty()) return std::string_view();  // every field at its default: ""
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != kExecutionIdTag) return std::nullopt;
  size_t length = static_cast<uint8_t>(bytes[1]);
  size_t header = 2;
  if (length >= 0x80) {
    if (bytes.size() < 3 || static_cast<uint8_t>(bytes[2]) >= 0x80) return std::nullopt;
    length = (length & 0x7f) | (static_cast<size_t>(static_cast<uint8_t>(bytes[2])) << 7);
    header = 3;
  }
  if (bytes.size() - header != length) return std::nullopt;
  std::string_view id = bytes.substr(header);
  if (std::any_of(id.begin(), id.end(), [](char c) { return static_cast<uint8_t>(c) >= 0x80; })) {
    return std::nullopt;  // protobuf's UTF-8 check decides
  }
  return id;
}

// The most bytes the links take: each a message of two strings.
size_t MaxLinksSize(const std::vector<spark::JobLink>& links) {
  constexpr size_t kMaxVarint = 10;
  constexpr size_t kMaxTag = 2;
  size_t size = 0;
  for (const spark::JobLink& link : links) {
    size += kMaxTag + kMaxVarint + link.name.size() + link.url.size() + 2 * (1 + kMaxVarint);
  }
  return size;
}

// The most bytes WriteJobInfo writes for `job`: its strings, and for each field its tag, length
// and number at their longest (a varint of 64 bits takes ten bytes; a tag, two).
size_t MaxJobInfoSize(const executor::JobView& job, const std::vector<spark::JobLink>& links) {
  constexpr size_t kMaxVarint = 10;
  constexpr size_t kMaxTag = 2;
  constexpr size_t kStringFields = 13;
  constexpr size_t kIntFields = 6;
  constexpr size_t kTimestamp = kMaxTag + 1 + 2 * (1 + kMaxVarint);
  return job.execution_id.size() + job.operator_state.size() + job.message.size() +
         job.namespace_.size() + job.name.size() + job.driver_pod.size() + job.job_id.size() +
         job.spark_app_id.size() + job.driver_ui_address.size() + job.waiting_message.size() +
         job.queue.size() + job.cancel_reason.size() + job.output_note.size() +
         kStringFields * (kMaxTag + kMaxVarint) + kIntFields * (kMaxTag + kMaxVarint) +
         3 * kTimestamp + MaxLinksSize(links);
}

// Writes fields in place, the buffer sized by MaxJobInfoSize: one pass, one allocation.
class Writer {
 public:
  explicit Writer(char* out) : start_(out), out_(out) {}

  void String(int field, std::string_view value) {
    if (value.empty()) return;
    Varint(Tag(field, kLengthDelimited));
    Varint(value.size());
    out_ = std::copy(value.begin(), value.end(), out_);
  }

  // An int32, int64 or enum: a negative one as its 64-bit two's complement, as protobuf does.
  void Int(int field, int64_t value) {
    if (value == 0) return;
    IntAlways(field, value);
  }

  // A field with presence (proto3 `optional`): written whenever set, 0 included.
  void IntAlways(int field, int64_t value) {
    Varint(Tag(field, kVarint));
    Varint(static_cast<uint64_t>(value));
  }

  // A google.protobuf.Timestamp, present (empty for the epoch itself) whenever `t` is.
  void Timestamp(int field, const std::optional<absl::Time>& t) {
    if (!t) return;
    const timespec spec = absl::ToTimespec(*t);
    const int64_t seconds = spec.tv_sec;
    const int64_t nanos = static_cast<int32_t>(spec.tv_nsec);
    size_t body = 0;
    if (seconds != 0) body += 1 + VarintSize(static_cast<uint64_t>(seconds));
    if (nanos != 0) body += 1 + VarintSize(static_cast<uint64_t>(nanos));
    Varint(Tag(field, kLengthDelimited));
    Varint(body);
    Int(google::protobuf::Timestamp::kSecondsFieldNumber, seconds);
    Int(google::protobuf::Timestamp::kNanosFieldNumber, nanos);
  }

  // A JobLink: its name and url, each left out when empty.
  void Link(int field, const spark::JobLink& link) {
    auto field_size = [](const std::string& s) {
      return s.empty() ? 0 : 1 + VarintSize(s.size()) + s.size();
    };
    Varint(Tag(field, kLengthDelimited));
    Varint(field_size(link.name) + field_size(link.url));
    String(pb::JobLink::kNameFieldNumber, link.name);
    String(pb::JobLink::kUrlFieldNumber, link.url);
  }

  size_t Size() const { return static_cast<size_t>(out_ - start_); }

 private:
  void Varint(uint64_t value) {
    while (value >= 0x80) {
      *out_++ = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    *out_++ = static_cast<char>(value);
  }

  char* const start_;
  char* out_;
};

void WriteJobInfo(const executor::JobView& job, const std::vector<spark::JobLink>& links,
                  Writer& w) {
  w.String(pb::JobInfo::kExecutionIdFieldNumber, job.execution_id);
  w.Int(pb::JobInfo::kStatusFieldNumber, ToProtoStatus(job.status));
  w.Timestamp(pb::JobInfo::kStartedAtFieldNumber, job.started_at);
  w.Timestamp(pb::JobInfo::kFinishedAtFieldNumber, job.finished_at);
  w.String(pb::JobInfo::kOperatorStateFieldNumber, job.operator_state);
  w.String(pb::JobInfo::kMessageFieldNumber, job.message);
  w.String(pb::JobInfo::kNamespaceFieldNumber, job.namespace_);
  w.String(pb::JobInfo::kNameFieldNumber, job.name);
  w.String(pb::JobInfo::kDriverPodFieldNumber, job.driver_pod);
  w.String(pb::JobInfo::kJobIdFieldNumber, job.job_id);
  w.String(pb::JobInfo::kSparkApplicationIdFieldNumber, job.spark_app_id);
  w.Int(pb::JobInfo::kAttemptsFieldNumber, AttemptsField(job.attempts));
  w.String(pb::JobInfo::kDriverUiAddressFieldNumber, job.driver_ui_address);
  w.Int(pb::JobInfo::kWaitingReasonFieldNumber, static_cast<int64_t>(job.waiting_reason));
  w.String(pb::JobInfo::kWaitingMessageFieldNumber, job.waiting_message);
  w.String(pb::JobInfo::kQueueFieldNumber, job.queue);
  w.Timestamp(pb::JobInfo::kDeadlineAtFieldNumber, job.deadline_at);
  w.Int(pb::JobInfo::kDeadlineExceededFieldNumber, static_cast<int64_t>(job.deadline_exceeded));
  for (const spark::JobLink& link : links) w.Link(pb::JobInfo::kLinksFieldNumber, link);
  w.String(pb::JobInfo::kCancelReasonFieldNumber, job.cancel_reason);
  w.Int(pb::JobInfo::kOutputSourceFieldNumber, ToOutputSource(job.output_source));
  w.String(pb::JobInfo::kOutputNoteFieldNumber, job.output_note);
  if (job.exit_code) w.IntAlways(pb::JobInfo::kExitCodeFieldNumber, *job.exit_code);
}

}  // namespace

absl::StatusOr<std::string_view> StatusRequestId(const grpc::ByteBuffer& request,
                                                 grpc::Slice* slice, std::string* parsed) {
  std::string_view bytes;  // a request with no bytes is one with every field at its default
  if (request.Valid()) {
    if (!request.TrySingleSlice(slice).ok() && !request.DumpToSingleSlice(slice).ok()) {
      return absl::InvalidArgumentError("the request's bytes couldn't be read");
    }
    bytes = std::string_view(reinterpret_cast<const char*>(slice->begin()), slice->size());
  }
  if (std::optional<std::string_view> id = UsualEncodingId(bytes)) return *id;
  pb::StatusRequest message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        "the request isn't a jobexecutor.v1.StatusRequest (malformed, or execution_id isn't "
        "UTF-8)");
  }
  *parsed = std::move(*message.mutable_execution_id());
  return std::string_view(*parsed);
}

void WriteJobInfoWire(const executor::JobView& job, grpc::ByteBuffer* out) {
  // A fresh slice is this function's alone until it is handed over, so it is written in place
  // and then shortened to what was written: the same memory, freed as one.
  const std::vector<spark::JobLink> links = executor::LinksOf(job);
  grpc_slice slice = grpc_slice_malloc(MaxJobInfoSize(job, links));
  Writer writer(reinterpret_cast<char*>(GRPC_SLICE_START_PTR(slice)));
  WriteJobInfo(job, links, writer);
  GRPC_SLICE_SET_LENGTH(slice, writer.Size());
  grpc::Slice written(slice, grpc::Slice::STEAL_REF);
  grpc::ByteBuffer wire(&written, 1);
  out->Swap(&wire);  // an assignment would copy the buffer
}

}  // namespace kje::server
