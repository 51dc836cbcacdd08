// kje_grpc_floor: what this stack's gRPC costs a server, with nothing of ours in it, with the same
// callback API and server options as the service.
// - Per open WatchStatus stream: it serves jobexecutor.v1.JobExecutor/WatchStatus as the
//   service's first message does (one JobInfo per id, STARTED) and then holds the stream until the
//   caller ends it. bench/run.py opens as many streams on it as P9 opens on the service and reads
//   the RSS the same way: the difference is the service's own share.
// - Per Status call beside a Health check (P1I): with `--status-reply FILE` it answers every
//   Status with FILE's bytes (a JobInfo the service gave, serialized), with no work at all, and
//   Health with gRPC's own health service, as the service does.
// Prints "listening on 127.0.0.1:PORT" and serves until stdin closes.

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>

#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace {

namespace pb = jobexecutor::v1;

class HeldStream : public grpc::ServerWriteReactor<pb::JobInfo> {
 public:
  explicit HeldStream(const pb::WatchStatusRequest& request) {
    for (const std::string& id : request.execution_ids()) {
      pb::JobInfo* info = first_.Add();
      info->set_execution_id(id);
      info->set_status(pb::JobInfo::STARTED);
    }
    WriteNext();
  }

  void OnWriteDone(bool ok) override {
    bool end;
    {
      std::lock_guard<std::mutex> lock(mu_);
      writing_ = false;
      end = !ok || cancelled_;
    }
    if (end) return End();
    WriteNext();
  }
  void OnCancel() override {
    bool end;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancelled_ = true;
      end = !writing_;  // else when the write is done
    }
    if (end) End();
  }
  void OnDone() override { delete this; }

 private:
  void WriteNext() {
    pb::JobInfo* next = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (next_ < first_.size()) {
        writing_ = true;
        next = &first_[next_++];
      }
    }
    if (next != nullptr) StartWrite(next);
    // Then held: nothing more until the caller cancels.
  }
  void End() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished_) return;
      finished_ = true;
    }
    Finish(grpc::Status::CANCELLED);
  }

  google::protobuf::RepeatedPtrField<pb::JobInfo> first_;
  int next_ = 0;
  // OnCancel may run beside OnWriteDone.
  std::mutex mu_;
  bool writing_ = false;
  bool cancelled_ = false;
  bool finished_ = false;
};

class Floor final
    : public pb::JobExecutor::WithRawCallbackMethod_Status<pb::JobExecutor::CallbackService> {
 public:
  explicit Floor(const std::string& status_reply) : status_reply_(status_reply) {}

  grpc::ServerWriteReactor<pb::JobInfo>* WatchStatus(
      grpc::CallbackServerContext*, const pb::WatchStatusRequest* request) override {
    return new HeldStream(*request);
  }

  grpc::ServerUnaryReactor* Status(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer*,
                                   grpc::ByteBuffer* response) override {
    *response = grpc::ByteBuffer(&status_reply_, 1);  // a reference to the one slice
    grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

 private:
  const grpc::Slice status_reply_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string status_reply;
  if (argc == 3 && std::string(argv[1]) == "--status-reply") {
    std::ifstream in(argv[2], std::ios::binary);
    status_reply.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in) {
      std::cerr << "kje_grpc_floor: can't read " << argv[2] << std::endl;
      return 2;
    }
  } else if (argc != 1) {
    std::cerr << "usage: kje_grpc_floor [--status-reply FILE]" << std::endl;
    return 2;
  }
  Floor service(status_reply);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) return 1;
  std::cout << "listening on 127.0.0.1:" << port << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  server->Shutdown();
  return 0;
}
