#include "bench/load.h"

#include <grpcpp/grpcpp.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/grpc_codes.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpc_util/poll_keeper.h"
#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace kje::bench {
namespace {

using Clock = std::chrono::steady_clock;
namespace health = grpc::health::v1;
namespace pb = jobexecutor::v1;

// The latency figures of `all` (milliseconds) into a LoadResult or a WatchResult.
template <class Result>
void Summarize(std::vector<double> all, Result* r) {
  std::sort(all.begin(), all.end());
  double sum = 0;
  for (double v : all) sum += v;
  r->p50_ms = Quantile(all, 0.50);
  r->p90_ms = Quantile(all, 0.90);
  r->p99_ms = Quantile(all, 0.99);
  r->max_ms = all.empty() ? 0 : all.back();
  r->mean_ms = all.empty() ? 0 : sum / static_cast<double>(all.size());
}

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
    for (const SlotStats& s : slots_) {
      all.insert(all.end(), s.latencies_ms.begin(), s.latencies_ms.end());
      r.ok += s.ok;
      for (const auto& [code, n] : s.errors) r.errors[code] += n;
    }
    r.calls = static_cast<int64_t>(all.size());
    r.seconds = std::chrono::duration<double>(finish_ - start_).count();
    r.throughput = r.seconds > 0 ? static_cast<double>(r.calls) / r.seconds : 0;
    Summarize(std::move(all), &r);
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

  // `request` and `response` are the slot's (SlotMessages): no other call uses them meanwhile.
  static void Launch(Phase* phase, int slot, int64_t deadline_ms, const Req* request,
                     Resp* response, const Start& start) {
    auto* call = new UnaryCall(phase, slot);
    call->context_.set_deadline(std::chrono::system_clock::now() +
                                std::chrono::milliseconds(deadline_ms));
    call->started_ = Clock::now();
    response->Clear();
    start(&call->context_, request, response, call);
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
  UnaryCall(Phase* phase, int slot) : phase_(phase), slot_(slot) {}

  Phase* phase_;
  int slot_;
  Clock::time_point started_;
  grpc::ClientContext context_;
};

// The messages of one slot, reused by its calls one after the other. Once warm, reading an answer
// allocates nothing (a cleared message keeps its strings' capacity), so the client's own cost per
// call is small and about the same for every method: a ratio of two methods measures the server.
template <typename Req, typename Resp>
struct SlotMessages {
  Req request;
  Resp response;
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

// The channels of a run: each its own connection.
absl::StatusOr<std::vector<std::shared_ptr<grpc::Channel>>> Connect(const LoadOptions& options) {
  std::vector<std::shared_ptr<grpc::Channel>> channels;
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
    channels.push_back(std::move(channel));
  }
  return channels;
}

int64_t RealtimeNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The send time a message carries, if it carries one.
std::optional<int64_t> SentNs(std::string_view text) {
  size_t at = text.find(kSentMarker);
  if (at == std::string_view::npos) return std::nullopt;
  text.remove_prefix(at + sizeof(kSentMarker) - 1);
  int64_t ns = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), ns);
  if (ec != std::errc() || ptr == text.data()) return std::nullopt;
  return ns;
}

// What every stream of a watch run reports to; the streams' reactions run on gRPC's threads.
class WatchRun {
 public:
  explicit WatchRun(int64_t streams) : streams_(streams) {}

  void Opened() {
    std::lock_guard<std::mutex> lock(mu_);
    ++opened_;
    cv_.notify_all();
  }

  void Received(bool timed) {
    std::lock_guard<std::mutex> lock(mu_);
    ++messages_;
    if (timed) ++timed_;
    last_message_ = Clock::now();
    cv_.notify_all();
  }

  // `by_client`: the client had cancelled the streams, so CANCELLED is its own doing.
  void Ended(bool opened, const grpc::Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    if (!opened) ++unopened_done_;
    if (!cancelling_ || status.error_code() != grpc::StatusCode::CANCELLED) {
      ++ended_[std::string(GrpcCodeNameOf(static_cast<int>(status.error_code())))];
    }
    cv_.notify_all();
  }

  // Until every stream has had a first message or ended.
  void WaitOpen() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return opened_ + unopened_done_ >= streams_; });
  }

  // Until `expect` timed messages arrived, or `settle` passed without a message, or every
  // stream ended.
  void WaitSettled(int64_t expect, Clock::duration settle) {
    std::unique_lock<std::mutex> lock(mu_);
    last_message_ = std::max(last_message_, Clock::now());
    for (;;) {
      if ((expect > 0 && timed_ >= expect) || done_ >= streams_) return;
      Clock::time_point quiet_until = last_message_ + settle;
      if (Clock::now() >= quiet_until) return;
      cv_.wait_until(lock, quiet_until);
    }
  }

  void Cancelling() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelling_ = true;
  }

  void WaitDone() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_ >= streams_; });
  }

  // The counts so far (latencies are the streams' own, gathered at the end).
  WatchResult Counts() {
    std::lock_guard<std::mutex> lock(mu_);
    WatchResult r;
    r.streams = streams_;
    r.opened = opened_;
    r.messages = messages_;
    r.timed = timed_;
    r.ended = ended_;
    return r;
  }

 private:
  const int64_t streams_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t opened_ = 0;
  int64_t unopened_done_ = 0;
  int64_t done_ = 0;
  int64_t messages_ = 0;
  int64_t timed_ = 0;
  bool cancelling_ = false;
  Clock::time_point last_message_;
  std::map<std::string, int64_t> ended_;
};

// One WatchStatus stream, reading until it ends. Its reactions never overlap, so what it
// records needs no lock; the run reads it only after OnDone.
class WatchStream : public grpc::ClientReadReactor<pb::JobInfo> {
 public:
  WatchStream(WatchRun* run, pb::JobExecutor::Stub* stub, const std::string& execution_id,
              int64_t deadline_ms)
      : run_(run) {
    request_.add_execution_ids(execution_id);
    context_.set_deadline(std::chrono::system_clock::now() +
                          std::chrono::milliseconds(deadline_ms));
    stub->async()->WatchStatus(&context_, &request_, this);
  }

  void Start() {
    StartRead(&info_);
    StartCall();
  }

  void Cancel() { context_.TryCancel(); }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // OnDone follows
    int64_t now_ns = RealtimeNs();
    // The first message is the job's current status, whatever time ago it changed: not a
    // delivery.
    std::optional<int64_t> sent;
    if (opened_) sent = SentNs(info_.message());
    if (sent) latencies_ms_.push_back(static_cast<double>(now_ns - *sent) / 1e6);
    if (!opened_) {
      opened_ = true;
      run_->Opened();
    }
    run_->Received(sent.has_value());
    StartRead(&info_);
  }

  void OnDone(const grpc::Status& status) override { run_->Ended(opened_, status); }

  const std::vector<double>& latencies_ms() const { return latencies_ms_; }

 private:
  WatchRun* run_;
  grpc::ClientContext context_;
  pb::WatchStatusRequest request_;
  pb::JobInfo info_;
  bool opened_ = false;
  std::vector<double> latencies_ms_;
};

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
    case Method::kWatch:
      return "watch";
  }
  return "?";
}

absl::StatusOr<Method> ParseMethod(const std::string& name) {
  for (Method m : {Method::kHealthCheck, Method::kStatus, Method::kSubmit, Method::kWatch}) {
    if (MethodName(m) == name) return m;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown method \"", name, "\" (health, status, submit or watch)"));
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
  if (options.method == Method::kWatch) {
    return absl::InvalidArgumentError("watch streams are held by RunWatch, not RunLoad");
  }

  auto channels = Connect(options);
  if (!channels.ok()) return channels.status();
  std::vector<std::unique_ptr<health::Health::Stub>> health_stubs;
  std::vector<std::unique_ptr<pb::JobExecutor::Stub>> executor_stubs;
  for (const auto& channel : *channels) {
    health_stubs.push_back(health::Health::NewStub(channel));
    executor_stubs.push_back(pb::JobExecutor::NewStub(channel));
  }

  const pb::JobTemplate submit_template = SubmitTemplate(options);
  const auto slots = static_cast<size_t>(options.concurrency);
  std::vector<SlotMessages<health::HealthCheckRequest, health::HealthCheckResponse>> health_slots(
      slots);
  std::vector<SlotMessages<pb::StatusRequest, pb::JobInfo>> status_slots(slots);
  std::vector<SlotMessages<pb::SubmitRequest, pb::SubmitResponse>> submit_slots(slots);
  auto run = [&](int64_t calls, int64_t duration_ms, bool record) {
    Phase phase(options, calls, duration_ms, record);
    Phase* p = &phase;
    phase.Run([&, p, record](int64_t index, int slot) {
      size_t ch = static_cast<size_t>(slot % options.channels);
      switch (options.method) {
        case Method::kHealthCheck: {
          health::Health::Stub* stub = health_stubs[ch].get();
          auto& m = health_slots[static_cast<size_t>(slot)];
          UnaryCall<health::HealthCheckRequest, health::HealthCheckResponse>::Launch(
              p, slot, options.deadline_ms, &m.request, &m.response,
              [stub](auto* ctx, auto* req, auto* resp, auto* reactor) {
                stub->async()->Check(ctx, req, resp, reactor);
              });
          break;
        }
        case Method::kStatus: {
          auto& m = status_slots[static_cast<size_t>(slot)];
          m.request.set_execution_id(
              options.execution_ids[static_cast<size_t>(index) % options.execution_ids.size()]);
          pb::JobExecutor::Stub* stub = executor_stubs[ch].get();
          UnaryCall<pb::StatusRequest, pb::JobInfo>::Launch(
              p, slot, options.deadline_ms, &m.request, &m.response,
              [stub](auto* ctx, auto* req, auto* resp, auto* reactor) {
                stub->async()->Status(ctx, req, resp, reactor);
              });
          break;
        }
        case Method::kWatch:
          break;  // refused above
        case Method::kSubmit: {
          auto& m = submit_slots[static_cast<size_t>(slot)];
          m.request.set_job_id(absl::StrCat(options.job_prefix, "-", record ? "" : "w", index));
          m.request.set_metalake("bench");
          *m.request.mutable_template_() = submit_template;
          pb::JobExecutor::Stub* stub = executor_stubs[ch].get();
          UnaryCall<pb::SubmitRequest, pb::SubmitResponse>::Launch(
              p, slot, options.deadline_ms, &m.request, &m.response,
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
  // Under callgrind (P1I) the measured calls alone are counted, in their own dump: the start-up,
  // the connection and the warm-up aren't, so whatever they vary by between runs doesn't land in
  // the per-call figure. Outside valgrind these are a few no-op instructions.
  CALLGRIND_ZERO_STATS;
  LoadResult result = run(options.calls, options.duration_ms, true);
  CALLGRIND_DUMP_STATS_AT("measured calls");
  return result;
}

absl::StatusOr<WatchResult> RunWatch(const LoadOptions& options, const WatchHooks& hooks) {
  if (options.target.empty()) return absl::InvalidArgumentError("no target");
  if (options.method != Method::kWatch) return absl::InvalidArgumentError("not a watch");
  if (options.concurrency < 1 || options.channels < 1) {
    return absl::InvalidArgumentError("concurrency and channels must be at least 1");
  }
  if (options.execution_ids.empty()) return absl::InvalidArgumentError("watch needs execution ids");
  auto channels = Connect(options);
  if (!channels.ok()) return channels.status();
  std::vector<std::unique_ptr<pb::JobExecutor::Stub>> stubs;
  for (const auto& channel : *channels) stubs.push_back(pb::JobExecutor::NewStub(channel));

  // This client's reactions run on gRPC's callback threads, which sleep through a quiet second
  // as the server's do (grpc_util/poll_keeper.h): the first changes after one would be late here,
  // not on the server. The server answers the keeper's path UNIMPLEMENTED.
  grpc_util::PollKeeper keeper(channels->front(), grpc_util::PollKeeper::kMethod);
  WatchRun run(options.concurrency);
  std::vector<std::unique_ptr<WatchStream>> streams;
  streams.reserve(static_cast<size_t>(options.concurrency));
  Clock::time_point start = Clock::now();
  for (int i = 0; i < options.concurrency; ++i) {
    size_t index = static_cast<size_t>(i);
    streams.push_back(std::make_unique<WatchStream>(
        &run, stubs[index % stubs.size()].get(),
        options.execution_ids[index % options.execution_ids.size()], options.deadline_ms));
    streams.back()->Start();
  }
  run.WaitOpen();
  double open_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (hooks.on_open) {
    WatchResult so_far = run.Counts();
    so_far.open_seconds = open_seconds;
    hooks.on_open(so_far);
  }
  if (hooks.wait_for_end) hooks.wait_for_end();
  run.WaitSettled(options.expect_timed, std::chrono::milliseconds(options.settle_ms));
  run.Cancelling();
  for (auto& stream : streams) stream->Cancel();
  run.WaitDone();

  WatchResult r = run.Counts();
  r.open_seconds = open_seconds;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (const auto& stream : streams) {
    all.insert(all.end(), stream->latencies_ms().begin(), stream->latencies_ms().end());
  }
  Summarize(std::move(all), &r);
  return r;
}

namespace {

// {"CODE":n,...}
void WriteCounts(std::ostream& out, const std::map<std::string, int64_t>& counts) {
  out << "{";
  bool first = true;
  for (const auto& [code, n] : counts) {
    out << (first ? "" : ",") << "\"" << code << "\":" << n;
    first = false;
  }
  out << "}";
}

// {"p50":...,"p90":...,"p99":...,"max":...,"mean":...} of a LoadResult or a WatchResult.
template <class Result>
void WriteLatency(std::ostream& out, const Result& r) {
  out << "{\"p50\":" << r.p50_ms << ",\"p90\":" << r.p90_ms << ",\"p99\":" << r.p99_ms
      << ",\"max\":" << r.max_ms << ",\"mean\":" << r.mean_ms << "}";
}

}  // namespace

std::string WatchToJson(const LoadOptions& options, const WatchResult& r) {
  std::ostringstream out;
  out.precision(6);
  out << std::fixed;
  out << "{\"method\":\"watch\",\"streams\":" << r.streams << ",\"channels\":" << options.channels
      << ",\"opened\":" << r.opened << ",\"open_seconds\":" << r.open_seconds
      << ",\"messages\":" << r.messages << ",\"timed\":" << r.timed << ",\"ended\":";
  WriteCounts(out, r.ended);
  out << ",\"seconds\":" << r.seconds << ",\"latency_ms\":";
  WriteLatency(out, r);
  out << "}";
  return out.str();
}

std::string ToJson(const LoadOptions& options, const LoadResult& r) {
  std::ostringstream out;
  out.precision(6);
  out << std::fixed;
  out << "{\"method\":\"" << MethodName(options.method)
      << "\",\"concurrency\":" << options.concurrency << ",\"channels\":" << options.channels
      << ",\"calls\":" << r.calls << ",\"ok\":" << r.ok << ",\"errors\":";
  WriteCounts(out, r.errors);
  out << ",\"seconds\":" << r.seconds << ",\"throughput\":" << r.throughput << ",\"latency_ms\":";
  WriteLatency(out, r);
  out << "}";
  return out.str();
}

}  // namespace kje::bench
