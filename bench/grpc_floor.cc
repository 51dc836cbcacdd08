// kje_grpc_floor: what this stack's gRPC costs a server per open WatchStatus stream, with nothing
// of ours in it. It serves jobexecutor.v1.JobExecutor/WatchStatus as the service's first message
// does (one JobInfo per id, STARTED) and then holds the stream until the caller ends it, with the
// same callback API and server options as the service. bench/run.py opens as many streams on it
// as P9 opens on the service and reads the RSS the same way: the difference is the service's own
// share. Prints "listening on 127.0.0.1:PORT" and serves until stdin closes.

#include <grpcpp/grpcpp.h>

#include <iostream>
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

class Floor final : public pb::JobExecutor::CallbackService {
  grpc::ServerWriteReactor<pb::JobInfo>* WatchStatus(
      grpc::CallbackServerContext*, const pb::WatchStatusRequest* request) override {
    return new HeldStream(*request);
  }
};

}  // namespace

int main() {
  Floor service;
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
