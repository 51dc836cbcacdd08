#include "bench/load.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "base/grpc_codes.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace kje::bench {
namespace {

using Clock = std::chrono::steady_clock;
namespace health = grpc::health::v1;
namespace pb = jobexecutor::v1;

// What one in-flight slot has seen. Only its own calls touch it, one after the other.
struct SlotStats {
  std::vector<double> latencies_ms;
  std::map<std::string, int64_t> errors;
  int64_t ok = 0;
};

// One phase (warm-up or measured): keeps `concurrency` calls in flight until the budget is
// spent, then lets them drain.
class Phase {
 public:
  using Issue = std::function<void(int64_t index, int slot)>;

  Phase(const LoadOptions& options, int64_t calls, int64_t duration_ms, bool record)
      : options_(options),
        calls_(calls),
        record_(record),
        slots_(static_cast<size_t>(options.concurrency)) {
    if (calls_ <= 0) end_ = Clock::now() + std::chrono::milliseconds(duration_ms);
  }

  // Runs the phase; `issue(index, slot)` must start call `index` and eventually call Done().
  void Run(const Issue& issue) {
    issue_ = issue;
    start_ = Clock::now();
    {
      std::lock_guard<std::mutex> lock(mu_);
      active_ = options_.concurrency;
    }
    for (int slot = 0; slot < options_.concurrency; ++slot) Next(slot);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return active_ == 0; });
    finish_ = Clock::now();
  }

  // Reports the end of a call started at `started`, then starts the slot's next call.
  void Done(int slot, Clock::time_point started, const grpc::Status& status) {
    SlotStats& s = slots_[static_cast<size_t>(slot)];
    if (record_) {
      s.latencies_ms.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - started).count());
      if (status.ok()) {
        ++s.ok;
      } else {
        ++s.errors[std::string(GrpcCodeNameOf(static_cast<int>(status.error_code())))];
      }
    }
    Next(slot);
  }

  LoadResult Result() const {
    LoadResult r;
    std::vector<double> all;
    double sum = 0;
    for (const SlotStats& s : slots_) {
      all.insert(all.end(), s.latencies_ms.begin(), s.latencies_ms.end());
      r.ok += s.ok;
      for (const auto& [code, n] : s.errors) r.errors[code] += n;
    }
    std::sort(all.begin(), all.end());
    for (double v : all) sum += v;
    r.calls = static_cast<int64_t>(all.size());
    r.seconds = std::chrono::duration<double>(finish_ - start_).count();
    r.throughput = r.seconds > 0 ? static_cast<double>(r.calls) / r.seconds : 0;
    r.p50_ms = Quantile(all, 0.50);
    r.p90_ms = Quantile(all, 0.90);
    r.p99_ms = Quantile(all, 0.99);
    r.max_ms = all.empty() ? 0 : all.back();
    r.mean_ms = all.empty() ? 0 : sum / static_cast<double>(all.size());
    return r;
  }

 private:
  void Next(int slot) {
    int64_t index = next_index_.fetch_add(1);
    bool more = calls_ > 0 ? index < calls_ : Clock::now() < end_;
    if (!more) {
      std::lock_guard<std::mutex> lock(mu_);
      if (--active_ == 0) cv_.notify_all();
      return;
    }
    issue_(index, slot);
  }

  const LoadOptions& options_;
  const int64_t calls_;
  const bool record_;
  Clock::time_point end_;
  Clock::time_point start_;
  Clock::time_point finish_;
  Issue issue_;
  std::atomic<int64_t> next_index_{0};
  std::vector<SlotStats> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  int active_ = 0;
};

// One unary call; deletes itself when done (OnDone is the reactor's last reaction).
template <typename Req, typename Resp>
class UnaryCall : public grpc::ClientUnaryReactor {
 public:
  using Start =
      std::function<void(grpc::ClientContext*, const Req*, Resp*, grpc::ClientUnaryReactor*)>;

  static void Launch(Phase* phase, int slot, int64_t deadline_ms, Req request, const Start& start) {
    auto* call = new UnaryCall(phase, slot, std::move(request));
    call->context_.set_deadline(std::chrono::system_clock::now() +
                                std::chrono::milliseconds(deadline_ms));
    call->started_ = Clock::now();
    start(&call->context_, &call->request_, &call->response_, call);
    call->StartCall();
  }

  void OnDone(const grpc::Status& status) override {
    Phase* phase = phase_;
    int slot = slot_;
    Clock::time_point started = started_;
    delete this;
    phase->Done(slot, started, status);
  }

 private:
  UnaryCall(Phase* phase, int slot, Req request)
      : phase_(phase), slot_(slot), request_(std::move(request)) {}

  Phase* phase_;
  int slot_;
  Clock::time_point started_;
  grpc::ClientContext context_;
  Req request_;
  Resp response_;
};

pb::JobTemplate SubmitTemplate(const LoadOptions& options) {
  pb::JobTemplate t;
  t.set_name("spark-pi");
  t.set_executable("local:///opt/spark/examples/jars/spark-examples.jar");
  t.add_arguments("100");
  pb::SparkJob* spark = t.mutable_spark();
  spark->set_class_name("org.apache.spark.examples.SparkPi");
  if (!options.submit_namespace.empty()) {
    (*spark->mutable_configs())["spark.kubernetes.namespace"] = options.submit_namespace;
  }
  return t;
}

}  // namespace

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double rank = std::ceil(q * static_cast<double>(sorted.size()));
  size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

std::string MethodName(Method method) {
  switch (method) {
    case Method::kHealthCheck:
      return "health";
    case Method::kStatus:
      return "status";
    case Method::kSubmit:
      return "submit";
  }
  return "?";
}

absl::StatusOr<Method> ParseMethod(const std::string& name) {
  for (Method m : {Method::kHealthCheck, Method::kStatus, Method::kSubmit}) {
    if (MethodName(m) == name) return m;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown method \"", name, "\" (health, status or submit)"));
}

absl::StatusOr<LoadResult> RunLoad(const LoadOptions& options) {
  if (options.target.empty()) return absl::InvalidArgumentError("no target");
  if (options.concurrency < 1 || options.channels < 1) {
    return absl::InvalidArgumentError("concurrency and channels must be at least 1");
  }
  if ((options.calls > 0) == (options.duration_ms > 0)) {
    return absl::InvalidArgumentError("give either a call count or a duration");
  }
  if (options.method == Method::kStatus && options.execution_ids.empty()) {
    return absl::InvalidArgumentError("status needs execution ids");
  }

  std::vector<std::unique_ptr<health::Health::Stub>> health_stubs;
  std::vector<std::unique_ptr<pb::JobExecutor::Stub>> executor_stubs;
  for (int i = 0; i < options.channels; ++i) {
    grpc::ChannelArguments args;
    // Without it channels to one target share a subchannel, hence one connection.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    auto channel =
        grpc::CreateCustomChannel(options.target, grpc::InsecureChannelCredentials(), args);
    if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                   std::chrono::milliseconds(options.connect_timeout_ms))) {
      return absl::UnavailableError(absl::StrCat("can't connect to ", options.target));
    }
    health_stubs.push_back(health::Health::NewStub(channel));
    executor_stubs.push_back(pb::JobExecutor::NewStub(channel));
  }

  const pb::JobTemplate submit_template = SubmitTemplate(options);
  auto run = [&](int64_t calls, int64_t duration_ms, bool record) {
    Phase phase(options, calls, duration_ms, record);
    Phase* p = &phase;
    phase.Run([&, p, record](int64_t index, int slot) {
      size_t ch = static_cast<size_t>(slot % options.channels);
      switch (options.method) {
        case Method::kHealthCheck: {
          health::Health::Stub* stub = health_stubs[ch].get();
          UnaryCall<health::HealthCheckRequest, health::HealthCheckResponse>::Launch(
              p, slot, options.deadline_ms, health::HealthCheckRequest(),
              [stub](auto* ctx, auto* req, auto* resp, auto* reactor) {
                stub->async()->Check(ctx, req, resp, reactor);
              });
          break;
        }
        case Method::kStatus: {
          pb::StatusRequest req;
          req.set_execution_id(
              options.execution_ids[static_cast<size_t>(index) % options.execution_ids.size()]);
          pb::JobExecutor::Stub* stub = executor_stubs[ch].get();
          UnaryCall<pb::StatusRequest, pb::JobInfo>::Launch(
              p, slot, options.deadline_ms, std::move(req),
              [stub](auto* ctx, auto* req, auto* resp, auto* reactor) {
                stub->async()->Status(ctx, req, resp, reactor);
              });
          break;
        }
        case Method::kSubmit: {
          pb::SubmitRequest req;
          req.set_job_id(absl::StrCat(options.job_prefix, "-", record ? "" : "w", index));
          req.set_metalake("bench");
          *req.mutable_template_() = submit_template;
          pb::JobExecutor::Stub* stub = executor_stubs[ch].get();
          UnaryCall<pb::SubmitRequest, pb::SubmitResponse>::Launch(
              p, slot, options.deadline_ms, std::move(req),
              [stub](auto* ctx, auto* req, auto* resp, auto* reactor) {
                stub->async()->Submit(ctx, req, resp, reactor);
              });
          break;
        }
      }
    });
    return phase.Result();
  };

  if (options.warmup_calls > 0) run(options.warmup_calls, 0, false);
  return run(options.calls, options.duration_ms, true);
}

std::string ToJson(const LoadOptions& options, const LoadResult& r) {
  std::ostringstream out;
  out.precision(6);
  out << std::fixed;
  out << "{\"method\":\"" << MethodName(options.method)
      << "\",\"concurrency\":" << options.concurrency << ",\"channels\":" << options.channels
      << ",\"calls\":" << r.calls << ",\"ok\":" << r.ok << ",\"errors\":{";
  bool first = true;
  for (const auto& [code, n] : r.errors) {
    out << (first ? "" : ",") << "\"" << code << "\":" << n;
    first = false;
  }
  out << "},\"seconds\":" << r.seconds << ",\"throughput\":" << r.throughput
      << ",\"latency_ms\":{\"p50\":" << r.p50_ms << ",\"p90\":" << r.p90_ms
      << ",\"p99\":" << r.p99_ms << ",\"max\":" << r.max_ms << ",\"mean\":" << r.mean_ms << "}}";
  return out.str();
}

}  // namespace kje::bench
