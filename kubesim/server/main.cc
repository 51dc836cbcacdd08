// kubesim: a local Kubernetes API server and Spark-operator simulator (see kubesim/README.md).

#include <openssl/rand.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#ifdef KUBESIM_HAVE_CONTROLLER
#include "kubesim/controller/controller.h"
#include "kubesim/kubeflow/controller.h"
#include "kubesim/schedule/controller.h"
#endif
#include "kubesim/schema/crd.h"
#include "kubesim/schema/crd_overlay.h"
#include "kubesim/server/api.h"
#include "kubesim/server/auth.h"
#include "kubesim/server/config.h"
#include "kubesim/server/http_server.h"
#include "kubesim/server/seed.h"
#include "kubesim/server/tls.h"
#include "kubesim/store/core_types.h"
#include "kubesim/store/store.h"

namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string RandomToken() {
  unsigned char bytes[24];
  RAND_bytes(bytes, sizeof(bytes));
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

// Operator 1.1 writes states only a 1.1 CRD accepts: without one its status writes would fail.
bool OperatorCrdFits(const kubesim::Flags& flags, const std::vector<kubesim::Crd>& crds,
                     std::string* error) {
  bool wants_1_1 = flags.operator_version == "1.1";
  for (const auto& [ns, version] : flags.namespace_operator_versions) {
    wants_1_1 = wants_1_1 || version == "1.1";
  }
  if (!wants_1_1) return true;
  for (const kubesim::Crd& crd : crds) {
    if (crd.name == "sparkapplications.spark.apache.org" &&
        boost::json::serialize(crd.object).find("\"Suspended\"") != std::string::npos) {
      return true;
    }
  }
  *error =
      "--operator-version 1.1 needs a SparkApplication CRD with the Suspended state: add "
      "--crd-overlay crds/apache-spark-operator/1.1.0-overlay/sparkapplications-v1-overlay.yaml";
  return false;
}

// The Kubeflow operator writes sparkoperator.k8s.io/v1beta2 SparkApplications: without their CRD
// it would watch nothing, silently.
bool KubeflowCrdFits(const kubesim::Flags& flags, const std::vector<kubesim::Crd>& crds,
                     std::string* error) {
  if (!flags.kubeflow_namespaces_given) return true;
  for (const kubesim::Crd& crd : crds) {
    if (crd.name == "sparkapplications.sparkoperator.k8s.io") return true;
  }
  *error =
      "--kubeflow-namespaces needs the Kubeflow SparkApplication CRD "
      "(sparkapplications.sparkoperator.k8s.io): add --crd-dir "
      "crds/kubeflow-spark-operator/v2.5.2";
  return false;
}

#ifdef KUBESIM_HAVE_CONTROLLER
kubesim::op::OperatorVersion ToOperatorVersion(const std::string& version) {
  return version == "1.1" ? kubesim::op::OperatorVersion::k1_1 : kubesim::op::OperatorVersion::k1_0;
}
#endif

// The event TTL is a cluster duration like the operators': --time-scale compresses it too.
int64_t EventTtlWallMs(const kubesim::Flags& flags) {
  const double ms = static_cast<double>(flags.event_ttl_seconds) * 1000.0 / flags.time_scale;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(ms)));
}

// etcd revokes expired leases on its own timer: expired Events go within this much wall time.
constexpr auto kTtlSweep = std::chrono::milliseconds(100);

int Fail(const std::string& message) {
  std::cerr << "kubesim: " << message << std::endl;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kubesim;
  Flags flags;
  std::string error;
  if (!ParseFlags(std::vector<std::string>(argv + 1, argv + argc), &flags, &error)) {
    std::cerr << "kubesim: " << error << "\n" << UsageText();
    return 2;
  }
  if (flags.help) {
    std::cout << UsageText();
    return 0;
  }
  std::string host;
  uint16_t port = 0;
  if (!SplitHostPort(flags.listen, &host, &port, &error)) return Fail(error);

  // Signals are taken synchronously by sigwait below; every thread started from here on
  // inherits the blocked mask, so none of them is interrupted by SIGTERM.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<Store> store = NewMemoryStore(WallMs);
  for (ResourceType t : CoreTypes()) {
    if (t.plural == "events") t.ttl_ms = EventTtlWallMs(flags);
    store->RegisterType(t);
  }

  TokenFile tokens(flags.token_file, flags.token_file.empty() ? RandomToken() : "");
  ApiOptions api_options;
  api_options.max_body_bytes = flags.max_body_bytes;
  api_options.bookmark_interval_ms = flags.bookmark_interval_ms;
  Api api(*store, tokens, api_options, WallMs);
  std::vector<Crd> all_crds;
  for (const std::string& dir : flags.crd_dirs) {
    std::vector<Crd> crds = LoadCrdDir(dir, &error);
    if (crds.empty()) return Fail("loading CRDs from " + dir + ": " + error);
    for (Crd& crd : crds) all_crds.push_back(std::move(crd));
  }
  for (const std::string& overlay : flags.crd_overlays) {
    if (!ApplyCrdOverlayFile(overlay, &all_crds, &error)) return Fail(error);
  }
  if (!OperatorCrdFits(flags, all_crds, &error)) return Fail(error);
  if (!KubeflowCrdFits(flags, all_crds, &error)) return Fail(error);
  for (const Crd& crd : all_crds) api.AddCrd(crd);

  std::set<std::string> namespaces = {"default", "kube-system"};
  namespaces.insert(flags.namespaces.begin(), flags.namespaces.end());
  const ResourceType* ns_type = store->FindType("", "v1", "namespaces");
  if (ns_type == nullptr) return Fail("the store serves no namespaces");
  for (const std::string& ns : namespaces) {
    boost::json::object obj{{"apiVersion", "v1"},
                            {"kind", "Namespace"},
                            {"metadata", boost::json::object{{"name", ns}}}};
    auto r = store->Create(*ns_type, "", obj, WriteOptions{});
    if (!r.ok() && r.error().code != 409) {
      return Fail("creating namespace " + ns + ": " + r.error().message);
    }
  }

  std::vector<SeedSpec> seeds;
  for (const std::string& text : flags.seeds) {
    if (!ParseSeedSpec(text, &seeds.emplace_back(), &error)) {
      return Fail("--seed " + text + ": " + error);
    }
  }

  HttpServerOptions http;
  http.host = host;
  http.port = port;
  http.threads = flags.threads;
  http.max_body_bytes = static_cast<size_t>(flags.max_body_bytes);
  std::string ca_pem;
  if (!flags.tls_cert.empty()) {
    if (!ReadFile(flags.tls_cert, &http.cert_pem, &error) ||
        !ReadFile(flags.tls_key, &http.key_pem, &error)) {
      return Fail(error);
    }
    ca_pem = http.cert_pem;
    if (!flags.tls_ca.empty() && !ReadFile(flags.tls_ca, &ca_pem, &error)) return Fail(error);
  } else {
    GeneratedTls tls;
    if (!GenerateServerTls(&tls, &error)) return Fail(error);
    http.cert_pem = tls.server.cert_pem;
    http.key_pem = tls.server.key_pem;
    ca_pem = tls.ca.cert_pem;
  }
  if (!flags.client_ca.empty() && !ReadFile(flags.client_ca, &http.client_ca_pem, &error)) {
    return Fail(error);
  }
  if (!flags.write_ca.empty() && !WriteFileAtomically(flags.write_ca, ca_pem, &error)) {
    return Fail(error);
  }

  std::unique_ptr<HttpServer> server = StartHttpServer(
      http,
      [&api](const HttpRequest& request, const std::function<void()>& notify) {
        return api.Handle(request, notify);
      },
      &error);
  if (!server) return Fail(error);
  std::string url = "https://127.0.0.1:" + std::to_string(server->port());
  if (!flags.write_kubeconfig.empty() &&
      !WriteFileAtomically(
          flags.write_kubeconfig,
          KubeconfigYaml(url, ca_pem, tokens.Current(), flags.kubeconfig_namespace), &error)) {
    return Fail(error);
  }

#ifdef KUBESIM_HAVE_CONTROLLER
  std::unique_ptr<Controller> controller;
  std::vector<std::string> operator_namespaces =
      flags.operator_namespaces.value_or(std::vector<std::string>{"default"});
  const ResourceType* spark = store->FindType("spark.apache.org", "v1", "sparkapplications");
  if (spark != nullptr && !operator_namespaces.empty()) {
    op::Options op_options;
    op_options.time_scale = flags.time_scale;
    op_options.version = ToOperatorVersion(flags.operator_version);
    for (const auto& [ns, version] : flags.namespace_operator_versions) {
      op_options.namespace_versions[ns] = ToOperatorVersion(version);
    }
    controller =
        NewController(*store, *spark,
                      std::set<std::string>(operator_namespaces.begin(), operator_namespaces.end()),
                      op_options, WallMs);
    controller->Start();
  }
  std::unique_ptr<Controller> kubeflow_controller;
  const ResourceType* kubeflow_app =
      store->FindType("sparkoperator.k8s.io", "v1beta2", "sparkapplications");
  if (kubeflow_app != nullptr && !flags.kubeflow_namespaces.empty()) {
    kubeflow::Options kf_options;
    kf_options.time_scale = flags.time_scale;
    kf_options.executor_owner = flags.kubeflow_executor_owner == "driver-only"
                                    ? kubeflow::ExecutorOwner::kDriverOnly
                                    : kubeflow::ExecutorOwner::kApp;
    kubeflow_controller = kubeflow::NewController(
        *store, *kubeflow_app,
        std::set<std::string>(flags.kubeflow_namespaces.begin(), flags.kubeflow_namespaces.end()),
        kf_options, WallMs);
    kubeflow_controller->Start();
  }
  // ScheduledSparkApplications run beside the SparkApplications they create, when their CRD is
  // loaded too.
  std::unique_ptr<Controller> schedule_controller;
  const ResourceType* scheduled =
      store->FindType("sparkoperator.k8s.io", "v1beta2", "scheduledsparkapplications");
  if (kubeflow_app != nullptr && scheduled != nullptr && !flags.kubeflow_namespaces.empty()) {
    schedule::ControllerOptions schedule_options;
    schedule_options.time_scale = flags.time_scale;
    schedule_controller = schedule::NewController(
        *store, *scheduled, *kubeflow_app,
        std::set<std::string>(flags.kubeflow_namespaces.begin(), flags.kubeflow_namespaces.end()),
        schedule_options, WallMs);
    schedule_controller->Start();
  }
#else
  std::cerr << "kubesim: built without the operator controller\n";
#endif

  std::printf("kubesim listening on %s\n", url.c_str());
  std::fflush(stdout);

  // Seeding 100k applications takes longer than a client waits for the port: it runs while
  // kubesim serves, and each seed is announced on stdout when written.
  std::atomic<bool> stopping{false};
  std::thread seeder([&] {
    for (size_t i = 0; i < seeds.size() && !stopping; ++i) {
      std::string seed_error;
      if (!SeedStore(*store, seeds[i], WallMs(), &seed_error, &stopping)) {
        if (stopping) break;
        std::cerr << "kubesim: --seed " << flags.seeds[i] << ": " << seed_error << std::endl;
        std::_Exit(2);
      }
      std::printf("kubesim seeded %s\n", flags.seeds[i].c_str());
      std::fflush(stdout);
    }
  });

  std::mutex ttl_mu;
  std::condition_variable ttl_wake;
  std::thread ttl_sweeper([&] {
    std::unique_lock lock(ttl_mu);
    while (!ttl_wake.wait_for(lock, kTtlSweep, [&] { return stopping.load(); })) {
      store->ExpireTtl();
    }
  });

  int sig = 0;
  sigwait(&signals, &sig);
  {
    std::lock_guard lock(ttl_mu);
    stopping = true;
  }
  ttl_wake.notify_all();
  seeder.join();
  ttl_sweeper.join();
#ifdef KUBESIM_HAVE_CONTROLLER
  if (controller) controller->Stop();
  if (kubeflow_controller) kubeflow_controller->Stop();
  if (schedule_controller) schedule_controller->Stop();
#endif
  server->Stop();
  return 0;
}
