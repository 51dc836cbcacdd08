// UploadArtifacts takes any sequence of headers (name, size, SHA-256) and data parts from a
// caller, and Submit takes any "staged:" reference. Input: a first byte choosing the bounds, then
// operations, each a byte and its operands:
//   'h' len name...: a header for the next data blob, with its true size and digest
//   'H' len name... size(2 bytes) len digest...: a header as the caller wrote it
//   'd' len bytes...: a data part;  'f': the stream ends;  'r' len text...: a staged reference
// Invariants: a store only ever holds objects whose bytes hash to their key; a file stored is one
// the caller sent whole and within the bounds; once a call fails nothing more is written and
// every later step says so; a refusal is bounded and holds no control byte; what Finish reports
// is what was sent; a reference that parses is the canonical text of its key.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "spark/staged_reference.h"
#include "staging/sha256.h"
#include "staging/upload_session.h"

namespace {

using kje::spark::StagedKey;

class MemoryStore;

class MemoryWriter final : public kje::staging::ArtifactWriter {
 public:
  MemoryWriter(MemoryStore& store, StagedKey key) : store_(store), key_(std::move(key)) {}
  absl::Status Append(std::string_view bytes) override {
    FUZZ_CHECK(!committed_);
    bytes_.append(bytes);
    return absl::OkStatus();
  }
  absl::Status Commit() override;

 private:
  MemoryStore& store_;
  StagedKey key_;
  std::string bytes_;
  bool committed_ = false;
};

class MemoryStore final : public kje::staging::ArtifactStore {
 public:
  std::string_view Kind() const override { return "memory"; }
  absl::StatusOr<bool> Exists(const StagedKey& key, absl::Time) override {
    return objects.contains(key.ObjectPath());
  }
  absl::StatusOr<bool> Refresh(const StagedKey& key, absl::Time deadline) override {
    return Exists(key, deadline);
  }
  absl::StatusOr<std::unique_ptr<kje::staging::ArtifactWriter>> StartWrite(const StagedKey& key,
                                                                           int64_t,
                                                                           absl::Time) override {
    FUZZ_CHECK(writable);
    return std::make_unique<MemoryWriter>(*this, key);
  }
  absl::StatusOr<std::string> ClusterUri(const StagedKey& key, absl::Time) override {
    return "local:///staged/" + key.ObjectPath();
  }
  std::vector<std::pair<std::string, std::string>> JobConf() const override { return {}; }
  absl::StatusOr<std::vector<kje::staging::StoredObject>> List(absl::Time) override {
    return std::vector<kje::staging::StoredObject>{};
  }
  absl::Status Delete(std::string_view path, absl::Time) override {
    objects.erase(std::string(path));
    return absl::OkStatus();
  }

  std::map<std::string, std::string> objects;  // path -> bytes
  bool writable = true;
};

absl::Status MemoryWriter::Commit() {
  FUZZ_CHECK(!committed_ && store_.writable);
  committed_ = true;
  // Content addressing: the session commits only bytes that hash to the key.
  FUZZ_CHECK(kje::staging::Sha256Hex(bytes_) == key_.sha256);
  store_.objects[key_.ObjectPath()] = bytes_;
  return absl::OkStatus();
}

void CheckRefusal(const absl::Status& status) {
  std::string_view message(status.message().data(), status.message().size());
  FUZZ_CHECK(message.size() <= 1024);
  for (char c : message) FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
}

void CheckReference(std::string_view text) {
  auto key = kje::spark::ParseStagedReference(text);
  if (!key.ok()) {
    CheckRefusal(key.status());
    FUZZ_CHECK(key.status().code() == absl::StatusCode::kInvalidArgument);
    return;
  }
  FUZZ_CHECK(kje::spark::IsStagedReference(text));
  FUZZ_CHECK(kje::spark::CheckStagedName(key->name).ok() && kje::spark::IsSha256Hex(key->sha256));
  FUZZ_CHECK(key->Reference() == text);
  auto again = kje::spark::ParseStagedReference(key->Reference());
  FUZZ_CHECK(again.ok() && *again == *key);
}

// A cursor over the input's bytes.
struct Reader {
  std::string_view rest;
  bool Empty() const { return rest.empty(); }
  unsigned char Byte() {
    if (rest.empty()) return 0;
    unsigned char b = static_cast<unsigned char>(rest[0]);
    rest.remove_prefix(1);
    return b;
  }
  std::string_view Bytes(size_t n) {
    n = std::min(n, rest.size());
    std::string_view out = rest.substr(0, n);
    rest.remove_prefix(n);
    return out;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{kje::fuzz::AsText(data, size)};
  const unsigned char bounds = in.Byte();
  kje::staging::UploadLimits limits;
  limits.max_file_bytes = 1 + (bounds & 0x0f) * 8;
  limits.max_upload_bytes = 1 + (bounds >> 4) * 16;
  limits.max_files = 1 + (bounds & 0x03);
  MemoryStore store;
  kje::staging::UploadSession session(store, limits, absl::InfiniteFuture());
  // What the caller declared and sent per file, in order: a stored file must match one.
  struct Sent {
    std::string name;
    std::string digest;
    int64_t size = 0;
    std::string bytes;
  };
  std::vector<Sent> sent;
  bool failed = false;
  bool finished = false;
  auto step = [&](const absl::Status& status) {
    if (failed) {
      FUZZ_CHECK(status.code() == absl::StatusCode::kFailedPrecondition);
      return;
    }
    if (!status.ok()) {
      CheckRefusal(status);
      failed = true;
      store.writable = false;  // nothing may be written after a failure
    }
  };
  for (int ops = 0; !in.Empty() && ops < 64 && !finished; ++ops) {
    switch (in.Byte()) {
      case 'h': {
        std::string name(in.Bytes(in.Byte() % 24));
        std::string blob(in.Bytes(in.Byte()));
        std::string digest = kje::staging::Sha256Hex(blob);
        sent.push_back(Sent{name, digest, static_cast<int64_t>(blob.size()), ""});
        step(session.OnHeader(name, static_cast<int64_t>(blob.size()), digest));
        // The blob follows in two parts, as a client cuts it.
        size_t cut = blob.empty() ? 0 : in.Byte() % (blob.size() + 1);
        for (std::string_view part :
             {std::string_view(blob).substr(0, cut), std::string_view(blob).substr(cut)}) {
          if (part.empty()) continue;
          sent.back().bytes.append(part);
          step(session.OnData(part));
        }
        break;
      }
      case 'H': {
        std::string name(in.Bytes(in.Byte() % 24));
        int64_t declared = (int64_t{in.Byte()} << 8 | in.Byte()) - 16;
        std::string digest(in.Bytes(in.Byte() % 80));
        sent.push_back(Sent{name, digest, declared, ""});
        step(session.OnHeader(name, declared, digest));
        break;
      }
      case 'd': {
        std::string_view part = in.Bytes(in.Byte());
        if (!sent.empty()) sent.back().bytes.append(part);
        step(session.OnData(part));
        break;
      }
      case 'f': {
        auto files = session.Finish();
        finished = true;
        if (failed) {
          FUZZ_CHECK(!files.ok() && files.status().code() == absl::StatusCode::kFailedPrecondition);
          break;
        }
        if (!files.ok()) {
          CheckRefusal(files.status());
          break;
        }
        FUZZ_CHECK(!files->empty() && static_cast<int64_t>(files->size()) <= limits.max_files);
        FUZZ_CHECK(files->size() == sent.size());
        int64_t total = 0;
        for (size_t i = 0; i < files->size(); ++i) {
          const auto& file = (*files)[i];
          FUZZ_CHECK(file.key.name == sent[i].name && file.key.sha256 == sent[i].digest);
          FUZZ_CHECK(file.size == sent[i].size && file.size <= limits.max_file_bytes);
          FUZZ_CHECK(static_cast<int64_t>(sent[i].bytes.size()) == file.size);
          FUZZ_CHECK(kje::staging::Sha256Hex(sent[i].bytes) == file.key.sha256);
          FUZZ_CHECK(store.objects.contains(file.key.ObjectPath()));
          CheckReference(file.reference);
          total += file.size;
        }
        FUZZ_CHECK(total <= limits.max_upload_bytes);
        break;
      }
      case 'r':
        CheckReference(in.Bytes(in.Byte()));
        break;
      default:
        break;
    }
  }
  // Whatever happened, the store holds only whole files whose bytes match their key (checked at
  // each commit) under names a staged file may have.
  for (const auto& [path, bytes] : store.objects) {
    FUZZ_CHECK(path.starts_with("sha256/"));
    FUZZ_CHECK(static_cast<int64_t>(bytes.size()) <= limits.max_file_bytes);
  }
  return 0;
}
