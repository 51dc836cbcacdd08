// Integration tests of the k8s client against kubesim (a separate process, HTTPS with its own CA,
// bearer tokens, client certificates, fault injection and request statistics).

#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "k8s/client.h"
#include "k8s/errors.h"
#include "tests/k8s/async_test_util.h"
#include "tests/k8s/subprocess.h"
#include "tests/k8s/test_util.h"

namespace kje::k8s {
namespace {

using testing::Await;
using testing::In;
using testing::IoThread;
using testing::Start;
using testing::Subprocess;
using testing::TempDir;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class Kubesim {
 public:
  explicit Kubesim(std::vector<std::string> extra = {}) {
    dir_.Write("token", "tok-A");
    std::vector<std::string> argv = {KJE_KUBESIM,
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--token-file",
                                     dir_.File("token"),
                                     "--write-kubeconfig",
                                     dir_.File("kubeconfig"),
                                     "--write-ca",
                                     dir_.File("ca.crt"),
                                     "--kubeconfig-namespace",
                                     "jobs",
                                     "--namespaces",
                                     "jobs",
                                     "--crd-dir",
                                     KJE_CRD_DIR};
    argv.insert(argv.end(), extra.begin(), extra.end());
    REQUIRE(proc_.Start(argv).ok());
    const std::string ready = "kubesim listening on ";
    while (true) {
      absl::StatusOr<std::string> line = proc_.ReadLine(In(absl::Seconds(60)));
      REQUIRE(line.ok());
      if (line->rfind(ready, 0) == 0) {
        url_ = line->substr(ready.size());
        break;
      }
    }
    // The control client follows the token file, so it survives the tests' token rotations.
    auto config = ResolveConnection({"", "", url_, dir_.File("ca.crt"), dir_.File("token")},
                                    Environment::Process());
    REQUIRE(config.ok());
    control_ = *NewClient(control_io_.io(), *std::move(config));
  }

  const TempDir& dir() const { return dir_; }
  const std::string& url() const { return url_; }
  std::string kubeconfig() const { return dir_.File("kubeconfig"); }

  RawResponse Call(const std::string& method, const std::string& path,
                   const std::string& body = "") {
    auto r = Await(control_io_.io(),
                   control_->Raw(method, path, body, body.empty() ? "" : "application/json",
                                 Idempotency::kUnsafe, In(absl::Seconds(30))));
    REQUIRE(r.ok());
    return *r;
  }
  void Fault(const std::string& json) {
    REQUIRE(Call("POST", "/kubesim/faults", json).http_code == 201);
  }
  void ResetStats() { REQUIRE(Call("DELETE", "/kubesim/stats").http_code == 200); }
  // Requests kubesim answered with `code` for verb and resource since the last reset.
  int64_t Stat(const std::string& verb, const std::string& resource, int code) {
    RawResponse r = Call("GET", "/kubesim/stats");
    rapidjson::Document doc;
    doc.Parse(r.body.c_str());
    REQUIRE(doc.IsObject());
    int64_t n = 0;
    for (const auto& e : doc["requests"].GetArray()) {
      if (e["verb"].GetString() == verb && e["resource"].GetString() == resource &&
          e["code"].GetInt() == code) {
        n += e["count"].GetInt64();
      }
    }
    return n;
  }
  void RotateToken(const std::string& token) const {
    dir_.Write("token.next", token);
    std::filesystem::rename(dir_.File("token.next"), dir_.File("token"));
  }

 private:
  TempDir dir_;
  Subprocess proc_;
  std::string url_;
  IoThread control_io_;
  std::shared_ptr<Client> control_;
};

ClientOptions FastRetries(RequestMetrics* metrics = nullptr) {
  ClientOptions options;
  options.retry.initial_backoff = absl::Milliseconds(10);
  options.retry.max_backoff = absl::Milliseconds(100);
  options.metrics = metrics;
  return options;
}

ResourceRef ConfigMap(const std::string& name = "") {
  return {"", "v1", "configmaps", "jobs", name, ""};
}

std::string ConfigMapJson(const std::string& name, const std::string& value = "v") {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name,
                      R"(","labels":{"suite":"k8s"}},"data":{"k":")", value, R"("}})");
}

std::string Field(const std::string& json, const char* a, const char* b = nullptr) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  if (!doc.IsObject() || !doc.HasMember(a)) return "";
  const rapidjson::Value* v = &doc[a];
  if (b != nullptr) {
    if (!v->IsObject() || !v->HasMember(b)) return "";
    v = &(*v)[b];
  }
  return v->IsString() ? v->GetString() : "";
}

void CreateConfigMap(IoThread& io, Client& client, const std::string& name) {
  auto r = Await(io.io(), client.Create(ConfigMap(), ConfigMapJson(name), In(absl::Seconds(20))));
  REQUIRE(r.ok());
}

TEST_CASE("kubesim: kubeconfig connection, CRUD and API errors") {
  Kubesim sim;
  IoThread io;
  auto config = ResolveConnection({sim.kubeconfig(), "", "", "", ""}, Environment::Process());
  REQUIRE(config.ok());
  CHECK(config->namespace_ == "jobs");
  auto client = *NewClient(io.io(), *config, FastRetries());

  auto created =
      Await(io.io(), client->Create(ConfigMap(), ConfigMapJson("cm-1"), In(absl::Seconds(10))));
  REQUIRE(created.ok());
  std::string uid = Field(*created, "metadata", "uid");
  CHECK_FALSE(uid.empty());

  auto again =
      Await(io.io(), client->Create(ConfigMap(), ConfigMapJson("cm-1"), In(absl::Seconds(10))));
  CHECK(IsK8sConflict(again.status()));
  CHECK(GetApiError(again.status())->reason == "AlreadyExists");

  auto patched = Await(
      io.io(), client->Patch(ConfigMap("cm-1"), PatchType::kMerge,
                             R"({"metadata":{"annotations":{"a":"b"}}})", In(absl::Seconds(10))));
  REQUIRE(patched.ok());
  CHECK(patched->find(R"("a":"b")") != std::string::npos);

  auto json_patched =
      Await(io.io(), client->Patch(ConfigMap("cm-1"), PatchType::kJson,
                                   R"([{"op":"replace","path":"/data/k","value":"w"}])",
                                   In(absl::Seconds(10))));
  REQUIRE(json_patched.ok());
  CHECK(Field(*json_patched, "data", "k") == "w");

  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "not-the-uid";
  auto refused =
      Await(io.io(), client->Delete(ConfigMap("cm-1"), wrong_uid, In(absl::Seconds(10))));
  CHECK(IsK8sConflict(refused.status()));

  DeleteOptions right_uid;
  right_uid.precondition_uid = uid;
  right_uid.propagation_policy = "Background";
  REQUIRE(Await(io.io(), client->Delete(ConfigMap("cm-1"), right_uid, In(absl::Seconds(10)))).ok());
  auto gone = Await(io.io(), client->Get(ConfigMap("cm-1"), In(absl::Seconds(10))));
  CHECK(IsK8sNotFound(gone.status()));

  auto invalid = Await(
      io.io(), client->Create({"spark.apache.org", "v1", "sparkapplications", "jobs", "", ""},
                              R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication",)"
                              R"("metadata":{"name":"bad"},"spec":{"mainClass":42}})",
                              In(absl::Seconds(10))));
  CHECK(IsK8sInvalid(invalid.status()));
  CHECK(std::string(invalid.status().message()).find("mainClass") != std::string::npos);
}

TEST_CASE("kubesim: masterUrl + caCertFile + tokenFile, and in-cluster") {
  Kubesim sim;
  IoThread io;
  SECTION("masterUrl") {
    auto config =
        ResolveConnection({"", "", sim.url(), sim.dir().File("ca.crt"), sim.dir().File("token")},
                          Environment::Process());
    REQUIRE(config.ok());
    auto client = *NewClient(io.io(), *config, FastRetries());
    CHECK(
        Await(io.io(), client->Get({"", "v1", "namespaces", "", "jobs", ""}, In(absl::Seconds(10))))
            .ok());
  }
  SECTION("in-cluster") {
    TempDir sa;
    sa.Write("token", "tok-A");
    sa.Write("ca.crt", ReadAll(sim.dir().File("ca.crt")));
    sa.Write("namespace", "jobs");
    std::string port = sim.url().substr(sim.url().rfind(':') + 1);
    Environment env = Environment::Process();
    env.getenv = [port](const std::string& name) -> std::optional<std::string> {
      if (name == "KUBERNETES_SERVICE_HOST") return "127.0.0.1";
      if (name == "KUBERNETES_SERVICE_PORT") return port;
      return std::nullopt;
    };
    env.home = "";
    env.service_account_dir = sa.path();
    auto config = ResolveConnection({}, env);
    REQUIRE(config.ok());
    CHECK(config->source == "in-cluster");
    CHECK(config->namespace_ == "jobs");
    auto client = *NewClient(io.io(), *config, FastRetries());
    CHECK(Await(io.io(), client->List(ConfigMap(), ListOptions{}, In(absl::Seconds(10)))).ok());
  }
}

TEST_CASE("kubesim: exec plugin credentials, re-run after a 401") {
  Kubesim sim;
  IoThread io;
  std::string plugin = sim.dir().Write(
      "plugin.sh",
      "#!/bin/sh\necho run >> \"$RUNS\"\n"
      "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":"
      "\"ExecCredential\",\"status\":{\"token\":\"%s\"}}' \"$(cat \"$TOKEN_PATH\")\"\n",
      0755);
  std::string kubeconfig = absl::StrCat(
      "kind: Config\ncurrent-context: c\nclusters:\n- name: s\n  cluster:\n    server: ", sim.url(),
      "\n    certificate-authority: ", sim.dir().File("ca.crt"),
      "\ncontexts:\n- name: c\n  context: {cluster: s, user: u}\nusers:\n- name: u\n  user:\n"
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ",
      plugin, "\n      env:\n      - {name: TOKEN_PATH, value: ", sim.dir().File("token"),
      "}\n      - {name: RUNS, value: ", sim.dir().File("runs"), "}\n");
  auto config = ResolveConnection({sim.dir().Write("exec-kubeconfig", kubeconfig), "", "", "", ""},
                                  Environment::Process());
  REQUIRE(config.ok());
  auto client = *NewClient(io.io(), *config, FastRetries());
  auto get = [&] {
    return Await(io.io(),
                 client->Get({"", "v1", "namespaces", "", "jobs", ""}, In(absl::Seconds(10))));
  };
  REQUIRE(get().ok());
  REQUIRE(get().ok());
  auto runs = [&] {
    std::string text = ReadAll(sim.dir().File("runs"));
    return std::count(text.begin(), text.end(), '\n');
  };
  CHECK(runs() == 1);  // cached: the credential has no expiry
  sim.RotateToken("tok-B");
  REQUIRE(get().ok());  // 401 → the plugin runs again and returns the new token
  CHECK(runs() == 2);
}

TEST_CASE("kubesim: client certificate authentication") {
  TempDir certs;
  std::string d = certs.path();
  std::string script =
      absl::StrCat("set -e; cd ", d,
                   "; openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 "
                   "-subj /CN=client-ca -addext basicConstraints=critical,CA:TRUE "
                   "-addext keyUsage=critical,keyCertSign,cRLSign >/dev/null 2>&1"
                   "; openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr "
                   "-subj /CN=tester/O=system:masters >/dev/null 2>&1"
                   "; printf 'basicConstraints=CA:FALSE\\nextendedKeyUsage=clientAuth\\n' > ext.cnf"
                   "; openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial "
                   "-out client.crt -days 2 -extfile ext.cnf >/dev/null 2>&1");
  REQUIRE(std::system(script.c_str()) == 0);
  Kubesim sim({"--client-ca", certs.File("ca.crt")});
  IoThread io;
  std::string kubeconfig = absl::StrCat(
      "kind: Config\ncurrent-context: c\nclusters:\n- name: s\n  cluster:\n    server: ", sim.url(),
      "\n    certificate-authority: ", sim.dir().File("ca.crt"),
      "\ncontexts:\n- name: c\n  context: {cluster: s, user: u}\nusers:\n- name: u\n  user:\n"
      "    client-certificate: ",
      certs.File("client.crt"), "\n    client-key: ", certs.File("client.key"), "\n");
  auto config = ResolveConnection({certs.Write("kubeconfig", kubeconfig), "", "", "", ""},
                                  Environment::Process());
  REQUIRE(config.ok());
  CHECK(config->credentials->Get()->bearer_token.empty());
  auto client = *NewClient(io.io(), *config, FastRetries());
  CHECK(Await(io.io(), client->Get({"", "v1", "namespaces", "", "jobs", ""}, In(absl::Seconds(10))))
            .ok());
}

TEST_CASE("kubesim: token rotation under steady load fails no request") {
  Kubesim sim;
  IoThread io;
  // The client reads the very file kubesim accepts tokens from.
  auto config =
      ResolveConnection({"", "", sim.url(), sim.dir().File("ca.crt"), sim.dir().File("token")},
                        Environment::Process());
  REQUIRE(config.ok());
  RequestMetrics metrics;
  auto client = *NewClient(io.io(), *config, FastRetries(&metrics));
  constexpr int kWorkers = 4;
  constexpr int kPerWorker = 300;
  // Rotations are paced by the requests, not by the clock: one after every kEvery completed
  // requests, and only once every worker still running has finished a request since the last
  // one. So every request in flight at a rotation started after the previous one, and no
  // request meets two rotations (its one re-read of the token covers one), however slow the
  // build or a worker (TSan is 10x).
  struct Progress {
    absl::Mutex mu;
    int completed ABSL_GUARDED_BY(mu) = 0;
    int finished ABSL_GUARDED_BY(mu) = 0;
    int due ABSL_GUARDED_BY(mu) = 0;
    // The workers that finished a request since the last rotation, and those done with all.
    std::vector<bool> moved ABSL_GUARDED_BY(mu) = std::vector<bool>(kWorkers, false);
    std::vector<bool> done ABSL_GUARDED_BY(mu) = std::vector<bool>(kWorkers, false);
    bool RotationDue() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      if (finished == kWorkers) return true;
      if (completed < due) return false;
      for (int w = 0; w < kWorkers; ++w) {
        if (!moved[w] && !done[w]) return false;
      }
      return true;
    }
  } progress;
  constexpr int kEvery = 25;
  std::atomic<int> failures{0};
  std::atomic<int> rotations{0};
  std::thread rotator([&] {
    for (int round = 0;; ++round) {
      {
        absl::MutexLock lock(&progress.mu);
        progress.due = (round + 1) * kEvery;
        progress.mu.Await(absl::Condition(&progress, &Progress::RotationDue));
        if (progress.finished == kWorkers) return;
        progress.moved.assign(kWorkers, false);
      }
      sim.RotateToken(absl::StrCat("rotated-", round));
      ++rotations;
    }
  });
  std::vector<std::thread> workers;
  absl::Mutex mu;
  std::string first_error;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      for (int i = 0; i < kPerWorker; ++i) {
        auto r = Await(
            io.io(), client->Get({"", "v1", "namespaces", "", "jobs", ""}, In(absl::Seconds(10))));
        if (!r.ok()) {
          ++failures;
          absl::MutexLock lock(&mu);
          if (first_error.empty()) first_error = r.status().ToString();
        }
        absl::MutexLock lock(&progress.mu);
        ++progress.completed;
        progress.moved[w] = true;
      }
      absl::MutexLock lock(&progress.mu);
      ++progress.finished;
      progress.done[w] = true;  // a worker that is done holds no rotation back
    });
  }
  for (auto& t : workers) t.join();
  rotator.join();
  INFO(first_error);
  CHECK(failures.load() == 0);
  CHECK(metrics.Count("get", "namespaces", "200") == kWorkers * kPerWorker);
  CHECK(rotations.load() >= 3);  // the token really changed under the load
  UNSCOPED_INFO("401s absorbed: " << metrics.Count("get", "namespaces", "401"));
}

TEST_CASE("kubesim faults: 429 with Retry-After, 503, reset mid-body, slow responses") {
  Kubesim sim;
  IoThread io;
  RequestMetrics metrics;
  auto config = LoadKubeconfig(sim.kubeconfig(), "", Environment::Process());
  REQUIRE(config.ok());
  auto client = *NewClient(io.io(), *config, FastRetries(&metrics));
  CreateConfigMap(io, *client, "target");
  auto get = [&](absl::Duration timeout) {
    return Await(io.io(), client->Get(ConfigMap("target"), In(timeout)));
  };
  sim.ResetStats();

  SECTION("429 + Retry-After is honoured") {
    sim.Fault(
        R"({"verb":"get","resource":"configmaps","status":429,"retryAfterSeconds":1,"count":1})");
    absl::Time start = absl::Now();
    REQUIRE(get(absl::Seconds(10)).ok());
    CHECK(absl::Now() - start >= absl::Seconds(1));
    CHECK(sim.Stat("get", "configmaps", 429) == 1);
    CHECK(sim.Stat("get", "configmaps", 200) == 1);
    CHECK(metrics.Count("get", "configmaps", "429") == 1);
  }
  SECTION("503 is retried") {
    sim.Fault(R"({"verb":"get","resource":"configmaps","status":503,"count":2})");
    REQUIRE(get(absl::Seconds(10)).ok());
    CHECK(sim.Stat("get", "configmaps", 503) == 2);
    CHECK(metrics.Count("get", "configmaps", "503") == 2);
  }
  SECTION("a create is not repeated after a 500") {
    sim.Fault(R"({"verb":"create","resource":"configmaps","status":500,"count":1})");
    auto r =
        Await(io.io(), client->Create(ConfigMap(), ConfigMapJson("once"), In(absl::Seconds(10))));
    CHECK(HttpCode(r.status()) == 500);
    CHECK(sim.Stat("create", "configmaps", 500) == 1);
    CHECK(sim.Stat("create", "configmaps", 201) == 0);
  }
  SECTION("a reset mid-body is retried for a read") {
    sim.Fault(R"({"verb":"get","resource":"configmaps","resetMidBody":true,"count":1})");
    auto r = get(absl::Seconds(10));
    REQUIRE(r.ok());
    CHECK(Field(*r, "metadata", "name") == "target");
    CHECK(metrics.Count("get", "configmaps", "error") + metrics.Count("get", "configmaps", "200") ==
          2);
  }
  SECTION("a response slower than the deadline") {
    sim.Fault(R"({"verb":"get","resource":"configmaps","latencyMs":3000,"count":1})");
    absl::Time start = absl::Now();
    CHECK(absl::IsDeadlineExceeded(get(absl::Milliseconds(500)).status()));
    CHECK(absl::Now() - start < absl::Seconds(2));
    REQUIRE(get(absl::Seconds(10)).ok());  // the client is still usable
  }
}

TEST_CASE("kubesim watch: a dropped watch resumes from its last resourceVersion, 410 relists") {
  Kubesim sim;
  IoThread io;
  auto config = LoadKubeconfig(sim.kubeconfig(), "", Environment::Process());
  REQUIRE(config.ok());
  auto client = *NewClient(io.io(), *config, FastRetries());
  auto page = Await(io.io(), client->List(ConfigMap(), ListOptions{}, In(absl::Seconds(10))));
  REQUIRE(page.ok());
  for (int i = 0; i < 6; ++i) CreateConfigMap(io, *client, absl::StrCat("w-", i));
  sim.ResetStats();

  SECTION("dropped after 2 events, resumed, every event exactly once and in order") {
    sim.Fault(R"({"verb":"watch","resource":"configmaps","dropWatchAfterEvents":2,"count":2})");
    std::vector<std::string> names;
    WatchOptions options;
    options.resource_version = page->resource_version;
    options.allow_bookmarks = false;
    // The events run on the watch's strand, and the last one cancels it from there, as an
    // informer stopping on an event would.
    std::shared_ptr<testing::Started<absl::Status>> watching;
    absl::Notification started;
    watching =
        Start(io.io(),
              client->Watch(ConfigMap(), options, In(absl::Seconds(30)), [&](const WatchEvent& e) {
                CHECK(e.type == WatchEvent::Type::kAdded);
                names.push_back(Field(e.object.ToString(), "metadata", "name"));
                if (names.size() != 6) return;
                started.WaitForNotification();
                watching->Cancel();
              }));
    started.Notify();
    REQUIRE(watching->result().wait_for(std::chrono::seconds(60)) == std::future_status::ready);
    absl::Status done = watching->result().get();
    CHECK(absl::IsCancelled(done));
    CHECK(names == std::vector<std::string>{"w-0", "w-1", "w-2", "w-3", "w-4", "w-5"});
    CHECK(sim.Stat("watch", "configmaps", 200) == 3);
  }
  SECTION("forced 410 is reported as Gone") {
    sim.Fault(R"({"verb":"watch","resource":"configmaps","forceGone":true,"count":1})");
    absl::Status done =
        Await(io.io(), client->Watch(ConfigMap(), WatchOptions{}, In(absl::Seconds(10)),
                                     [](const WatchEvent&) {}));
    CHECK(IsK8sGone(done));
  }
  SECTION("a compacted resourceVersion is Gone") {
    REQUIRE(sim.Call("POST", "/kubesim/compact").http_code == 200);
    WatchOptions options;
    options.resource_version = page->resource_version;
    absl::Status done = Await(io.io(), client->Watch(ConfigMap(), options, In(absl::Seconds(10)),
                                                     [](const WatchEvent&) {}));
    CHECK(IsK8sGone(done));
  }
}

TEST_CASE("kubesim: a paged LIST of 100k objects, one bounded page at a time", "[slow]") {
  Kubesim sim;
  IoThread io;
  auto config = LoadKubeconfig(sim.kubeconfig(), "", Environment::Process());
  REQUIRE(config.ok());
  auto client = *NewClient(io.io(), *config, FastRetries());
  constexpr int kObjects = 100000;
  constexpr int kInFlight = 32;
  // Creates with a bounded number in flight: kInFlight coroutines, each creating the next
  // object until none is left.
  {
    std::atomic<int> next{0};
    std::atomic<int> failed{0};
    auto creator = [&]() -> boost::asio::awaitable<absl::Status> {
      for (int i = next.fetch_add(1); i < kObjects; i = next.fetch_add(1)) {
        auto create = client->Create(ConfigMap(), ConfigMapJson(absl::StrCat("obj-", i)),
                                     In(absl::Seconds(60)));
        absl::StatusOr<std::string> r = co_await std::move(create);
        if (!r.ok()) ++failed;
      }
      co_return absl::OkStatus();
    };
    std::vector<std::shared_ptr<testing::Started<absl::Status>>> creators;
    for (int i = 0; i < kInFlight; ++i) creators.push_back(Start(io.io(), creator()));
    for (auto& c : creators) {
      REQUIRE(c->result().wait_for(std::chrono::minutes(5)) == std::future_status::ready);
    }
    REQUIRE(failed.load() == 0);
  }
  ClientOptions small = FastRetries();
  small.max_body_bytes = 2 << 20;  // a page of 500 fits; the whole list would not
  auto paged = *NewClient(io.io(), *config, small);
  ListOptions options;
  options.limit = 500;
  options.label_selector = "suite=k8s";
  std::set<std::string> names;
  size_t pages = 0;
  size_t largest = 0;
  do {
    auto page = Await(io.io(), paged->List(ConfigMap(), options, In(absl::Seconds(30))));
    REQUIRE(page.ok());
    ++pages;
    largest = std::max(largest, page->items.size());
    for (const ParsedJson& item : page->items) {
      names.insert(Field(item.ToString(), "metadata", "name"));
    }
    options.continue_token = page->continue_token;
  } while (!options.continue_token.empty());
  CHECK(names.size() == kObjects);
  CHECK(largest <= 500);
  CHECK(pages >= kObjects / 500);
  // The same list in one response is over the body limit: paging is what keeps memory bounded.
  ListOptions whole;
  whole.label_selector = "suite=k8s";
  CHECK(absl::IsResourceExhausted(
      Await(io.io(), paged->List(ConfigMap(), whole, In(absl::Seconds(60)))).status()));
}

}  // namespace
}  // namespace kje::k8s

namespace kje::k8s {
namespace {

TEST_CASE("kubesim logs: a followed log ends when its container terminates") {
  Kubesim sim;
  IoThread io;
  auto config = LoadKubeconfig(sim.kubeconfig(), "", Environment::Process());
  REQUIRE(config.ok());
  auto client = *NewClient(io.io(), *config, FastRetries());
  const ResourceRef pod{"", "v1", "pods", "jobs", "logpod", ""};
  REQUIRE(Await(io.io(),
                client->Create({"", "v1", "pods", "jobs", "", ""},
                               R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"logpod"},)"
                               R"("spec":{"containers":[{"name":"main","image":"busybox"}]}})",
                               In(absl::Seconds(10))))
              .ok());
  LogOptions options;
  options.container = "main";
  options.tail_lines = 10;
  auto waiting = Await(io.io(), client->Log(pod, options, In(absl::Seconds(10))));
  CHECK(HttpCode(waiting.status()) == 400);  // the container has not started
  REQUIRE(Await(io.io(),
                client->Patch({"", "v1", "pods", "jobs", "logpod", "status"}, PatchType::kMerge,
                              R"({"status":{"phase":"Running","containerStatuses":[{"name":"main",)"
                              R"("state":{"running":{}}}]}})",
                              In(absl::Seconds(10))))
              .ok());
  auto text = Await(io.io(), client->Log(pod, options, In(absl::Seconds(10))));
  INFO(text.status().ToString());
  REQUIRE(text.ok());
  CHECK(text->empty());

  options.follow = true;
  SECTION("the stream stays open until the deadline while the container runs") {
    absl::Time start = absl::Now();
    absl::Status done = Await(io.io(), client->StreamLog(pod, options, In(absl::Milliseconds(800)),
                                                         [](std::string_view) {}));
    CHECK(absl::IsDeadlineExceeded(done));
    CHECK(absl::Now() - start >= absl::Milliseconds(700));
  }
  SECTION("the stream ends with OK once the container terminated") {
    auto following = Start(
        io.io(), client->StreamLog(pod, options, In(absl::Seconds(30)), [](std::string_view) {}));
    auto& future = following->result();
    auto patched =
        Await(io.io(),
              client->Patch({"", "v1", "pods", "jobs", "logpod", "status"}, PatchType::kMerge,
                            R"({"status":{"phase":"Succeeded","containerStatuses":[{"name":"main",)"
                            R"("state":{"terminated":{"exitCode":0}}}]}})",
                            In(absl::Seconds(10))));
    REQUIRE(patched.ok());
    REQUIRE(future.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    CHECK(future.get().ok());
  }
  SECTION("a missing pod is NotFound") {
    absl::Status done =
        Await(io.io(), client->StreamLog({"", "v1", "pods", "jobs", "nope", ""}, options,
                                         In(absl::Seconds(10)), [](std::string_view) {}));
    CHECK(IsK8sNotFound(done));
  }
}

}  // namespace
}  // namespace kje::k8s
