#include "cache/app_informer.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/strings.h"
#include "k8s/errors.h"
#include "spark/apache/app_projection.h"
#include "tests/fakes/fake_kube_client.h"
#include "tests/fakes/io_loop.h"

namespace kje::cache {
namespace {

using testing::FakeKubeClient;

std::string AppJson(const std::string& name, const std::string& rv, const std::string& state) {
  std::string status;
  if (!state.empty()) {
    status = absl::StrCat(R"(,"status":{"currentState":{"currentStateSummary":")", state,
                          R"(","lastTransitionTime":"2026-01-01T00:00:00Z"}})");
  }
  return absl::StrCat(
      R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication","metadata":{"name":")", name,
      R"(","namespace":"jobs","uid":"uid-)", name, R"(","resourceVersion":")", rv,
      R"(","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app.kubernetes.io/managed-by":"gravitino","gravitino.apache.org/job-id":"1"}},"spec":{})",
      status, "}");
}

spark::AppProjection Projection(const std::string& name, const std::string& rv,
                                const std::string& state) {
  auto p = spark::apache::ProjectAppJson(AppJson(name, rv, state));
  REQUIRE(p.ok());
  return *p;
}

k8s::ListPage Page(std::vector<std::string> items, std::string rv, std::string continue_token) {
  k8s::ListPage page;
  for (const std::string& item : items) page.items.push_back(testing::Json(item));
  page.resource_version = std::move(rv);
  page.continue_token = std::move(continue_token);
  return page;
}

k8s::WatchEvent Event(k8s::WatchEvent::Type type, const std::string& name, const std::string& rv,
                      const std::string& state) {
  k8s::WatchEvent e;
  e.type = type;
  e.resource_version = rv;
  if (type != k8s::WatchEvent::Type::kBookmark) e.object = testing::Json(AppJson(name, rv, state));
  return e;
}

std::string StateOf(const AppInformer& informer, const std::string& name) {
  auto app = informer.Find(name);
  return app ? std::string(spark::apache::OperatorState(*app)) : "<missing>";
}

// An informer over a FakeKubeClient on a one-thread io_context.
struct Fixture {
  testing::IoLoop loop;
  boost::asio::io_context& io = loop.io();
  std::shared_ptr<FakeKubeClient> client = std::make_shared<FakeKubeClient>(io);
  FakeClock clock;
  std::shared_ptr<AppInformer> informer;

  Fixture() {
    InformerOptions options;
    options.project = spark::apache::ProjectApp;
    options.collection = {"spark.apache.org", "v1", "sparkapplications", "jobs", "", ""};
    options.label_selector = "app.kubernetes.io/managed-by=gravitino";
    options.page_size = 2;
    options.min_backoff = absl::Milliseconds(1);
    options.max_backoff = absl::Milliseconds(4);
    informer = NewAppInformer(io, client, options, clock);
  }
  ~Fixture() {
    informer->Stop();
    // The cancellations Stop posted run, and the loop and its calls end, before the io_context
    // goes.
    client->EndEveryCall();
    CHECK(loop.Finish());
    client->DropPending();
  }

  // Lets everything already posted run: the fake client's event deliveries and completions, each
  // a turn of this one-thread io_context.
  void Settle() {
    for (int i = 0; i < 3; ++i) client->Barrier();
  }

  std::shared_ptr<FakeKubeClient::Call> Next(const std::string& verb) {
    auto call = client->NextCall();
    REQUIRE(call != nullptr);
    REQUIRE(call->verb == verb);
    return call;
  }

  // Lists {a: Submitted (rv 10), b: RunningHealthy (rv 11)} at rv 20 and returns the watch call.
  std::shared_ptr<FakeKubeClient::Call> Sync() {
    informer->Start();
    auto list = Next("list");
    client->CompleteList(
        list,
        Page({AppJson("a", "10", "Submitted"), AppJson("b", "11", "RunningHealthy")}, "20", ""));
    return Next("watch");
  }
};

TEST_CASE("informer: paged list, then watch from the list's resourceVersion", "[informer]") {
  Fixture f;
  f.informer->Start();
  auto first = f.Next("list");
  CHECK(first->ref.namespace_ == "jobs");
  CHECK(first->ref.plural == "sparkapplications");
  CHECK(first->list.label_selector == "app.kubernetes.io/managed-by=gravitino");
  CHECK(first->list.limit == 2);
  CHECK(first->list.continue_token.empty());
  f.client->CompleteList(
      first, Page({AppJson("a", "10", "Submitted"), AppJson("b", "11", "DriverReady")}, "30",
                  "next-page"));
  auto second = f.Next("list");
  CHECK(second->list.continue_token == "next-page");
  // Half a list is not a snapshot: nothing is served from it yet.
  CHECK_FALSE(f.informer->synced());
  CHECK(f.informer->Find("a") == nullptr);
  f.client->CompleteList(second, Page({AppJson("c", "12", "")}, "30", ""));
  auto watch = f.Next("watch");
  CHECK(watch->watch.resource_version == "30");
  CHECK(watch->watch.allow_bookmarks);
  CHECK(watch->watch.label_selector == "app.kubernetes.io/managed-by=gravitino");
  CHECK(f.informer->synced());
  CHECK(StateOf(*f.informer, "a") == "Submitted");
  CHECK(StateOf(*f.informer, "b") == "DriverReady");
  CHECK(StateOf(*f.informer, "c").empty());
  auto stats = f.informer->stats();
  CHECK(stats.objects == 3);
  CHECK(stats.resource_version == "30");
  CHECK(stats.relists == 0);
}

TEST_CASE("informer: watch events update the snapshot, older versions never win", "[informer]") {
  Fixture f;
  auto watch = f.Sync();
  using T = k8s::WatchEvent::Type;
  f.client->SendEvent(watch, Event(T::kModified, "a", "21", "DriverRequested"));
  f.client->SendEvent(watch, Event(T::kAdded, "n", "22", ""));
  f.client->SendEvent(watch, Event(T::kDeleted, "b", "23", "RunningHealthy"));
  f.Settle();
  CHECK(StateOf(*f.informer, "a") == "DriverRequested");
  CHECK(f.informer->Find("n") != nullptr);
  CHECK(f.informer->Find("b") == nullptr);
  CHECK(f.informer->stats().resource_version == "23");

  // A replayed older event (e.g. after a resumed watch) must not roll the state back.
  f.client->SendEvent(watch, Event(T::kModified, "a", "15", "Submitted"));
  f.client->SendEvent(watch, Event(T::kBookmark, "", "40", ""));
  f.Settle();
  CHECK(StateOf(*f.informer, "a") == "DriverRequested");
  CHECK(f.informer->stats().resource_version == "40");
}

TEST_CASE("informer: our own writes are visible at once and not undone", "[informer]") {
  Fixture f;
  auto watch = f.Sync();
  f.informer->ObserveWrite(Projection("fresh", "25", ""));
  REQUIRE(f.informer->Find("fresh") != nullptr);
  f.informer->ObserveWrite(Projection("a", "26", "Submitted"));
  // The watch then delivers an older version of a: ignored.
  f.client->SendEvent(watch, Event(k8s::WatchEvent::Type::kModified, "a", "24", "Submitted"));
  f.Settle();
  CHECK(f.informer->Find("a")->resource_version() == "26");
  f.informer->ObserveGone("fresh");
  CHECK(f.informer->Find("fresh") == nullptr);
}

TEST_CASE("informer: a write answered after the watch saw the app deleted doesn't bring it back",
          "[informer]") {
  Fixture f;
  auto watch = f.Sync();
  using T = k8s::WatchEvent::Type;
  // A foreground delete: the DELETE's answer (rv 31, deletionTimestamp set) reaches us after the
  // watch has delivered both the marked version and the removal.
  f.client->SendEvent(watch, Event(T::kModified, "a", "31", "Submitted"));
  f.client->SendEvent(watch, Event(T::kDeleted, "a", "32", "Submitted"));
  f.Settle();
  REQUIRE(f.informer->Find("a") == nullptr);
  f.informer->ObserveWrite(Projection("a", "31", "Submitted"));
  CHECK(f.informer->Find("a") == nullptr);
  // A write newer than anything the watch delivered is ours to show at once (a create).
  f.informer->ObserveWrite(Projection("a", "33", ""));
  CHECK(f.informer->Find("a") != nullptr);
  // The same holds after a relist: its version is what the map reflects.
  f.client->EndWatch(watch, k8s::MakeApiStatus({410, "Expired", "too old resource version"}));
  auto relist = f.Next("list");
  f.client->CompleteList(relist, Page({AppJson("b", "45", "Succeeded")}, "50", ""));
  f.Next("watch");
  REQUIRE(f.informer->Find("a") == nullptr);
  f.informer->ObserveWrite(Projection("a", "40", "Submitted"));
  CHECK(f.informer->Find("a") == nullptr);
}

TEST_CASE("informer: 410 Gone relists and reads keep the old snapshot meanwhile", "[informer]") {
  Fixture f;
  auto watch = f.Sync();
  f.client->EndWatch(watch, k8s::MakeApiStatus({410, "Expired", "too old resource version"}));
  auto relist = f.Next("list");
  CHECK(relist->list.continue_token.empty());
  CHECK(StateOf(*f.informer, "a") == "Submitted");  // served while relisting
  // Written by us after the relist's snapshot was taken (rv 60 > 50): must survive the swap.
  f.informer->ObserveWrite(Projection("mine", "60", ""));
  f.client->CompleteList(relist, Page({AppJson("a", "45", "Succeeded")}, "50", ""));
  auto rewatch = f.Next("watch");
  CHECK(rewatch->watch.resource_version == "50");
  CHECK(StateOf(*f.informer, "a") == "Succeeded");
  CHECK(f.informer->Find("b") == nullptr);  // deleted while the watch was gone
  CHECK(f.informer->Find("mine") != nullptr);
  CHECK(f.informer->stats().relists == 1);
}

TEST_CASE("informer: a relist keeps the versions it holds and projects only what changed",
          "[informer]") {
  Fixture f;
  auto watch = f.Sync();
  AppPtr a_before = f.informer->Find("a");
  AppPtr b_before = f.informer->Find("b");
  REQUIRE(a_before != nullptr);
  REQUIRE(b_before != nullptr);
  f.client->EndWatch(watch, k8s::MakeApiStatus({410, "Expired", "too old resource version"}));
  auto relist = f.Next("list");
  // a is listed at the version held; b changed.
  f.client->CompleteList(
      relist, Page({AppJson("a", "10", "Submitted"), AppJson("b", "31", "Succeeded")}, "40", ""));
  f.Next("watch");
  CHECK(f.informer->Find("a") == a_before);
  CHECK(f.informer->Find("b") != b_before);
  CHECK(StateOf(*f.informer, "b") == "Succeeded");
}

TEST_CASE("informer: an ended watch resumes from the last version seen", "[informer]") {
  Fixture f;
  auto watch = f.Sync();
  f.client->SendEvent(watch, Event(k8s::WatchEvent::Type::kBookmark, "", "33", ""));
  f.client->EndWatch(watch, absl::DeadlineExceededError("watch period over"));
  auto next = f.Next("watch");
  CHECK(next->watch.resource_version == "33");
  f.client->EndWatch(next, absl::OkStatus());
  auto third = f.Next("watch");
  CHECK(third->watch.resource_version == "33");
  CHECK(f.informer->stats().watch_restarts == 2);
  CHECK(f.informer->stats().relists == 0);
}

TEST_CASE("informer: errors back off and retry", "[informer]") {
  Fixture f;
  f.informer->Start();
  auto list = f.Next("list");
  f.client->CompleteList(list, absl::UnavailableError("connection refused"));
  auto again = f.Next("list");  // after the backoff timer
  f.client->CompleteList(again, Page({AppJson("a", "10", "Submitted")}, "20", ""));
  auto watch = f.Next("watch");
  f.client->EndWatch(watch, k8s::MakeApiStatus({500, "InternalError", "etcd down"}));
  auto rewatch = f.Next("watch");
  CHECK(rewatch->watch.resource_version == "20");
  CHECK(f.informer->stats().errors == 2);
  CHECK(StateOf(*f.informer, "a") == "Submitted");
}

TEST_CASE("informer: stop cancels and ignores late completions", "[informer]") {
  Fixture f;
  auto watch = f.Sync();
  f.informer->Stop();
  f.Settle();
  CHECK(watch->WaitCancelled());
  f.client->SendEvent(watch, Event(k8s::WatchEvent::Type::kAdded, "late", "90", ""));
  f.client->EndWatch(watch, absl::CancelledError("cancelled"));
  f.Settle();
  CHECK(f.informer->Find("late") == nullptr);
  CHECK_FALSE(f.client->HasPendingCall());
  CHECK(StateOf(*f.informer, "a") == "Submitted");  // reads still answer
}

TEST_CASE("informer: resourceVersion comparison", "[informer]") {
  CHECK(CompareResourceVersions("9", "10") == -1);
  CHECK(CompareResourceVersions("10", "9") == 1);
  CHECK(CompareResourceVersions("10", "10") == 0);
  CHECK_FALSE(CompareResourceVersions("abc", "10").has_value());
  CHECK_FALSE(CompareResourceVersions("", "10").has_value());
}

}  // namespace
}  // namespace kje::cache

namespace kje::cache {
namespace {

// What a subscriber saw, as "U:name@rv" / "D:name@rv".
struct Recorder {
  std::shared_ptr<Mailbox<AppEvent>> mailbox = std::make_shared<Mailbox<AppEvent>>(100);
  std::vector<std::string> seen;

  std::shared_ptr<Subscription> SubscribeTo(AppInformer& informer,
                                            std::vector<std::string> names = {}) {
    return informer.Subscribe(std::move(names), mailbox);
  }
  std::vector<std::string> Seen() {
    for (const AppEvent& e : mailbox->Drain()) {
      seen.push_back(absl::StrCat(e.type == AppEvent::Type::kDeleted ? "D:" : "U:",
                                  ToAbsl(e.app->name()), "@", ToAbsl(e.app->resource_version())));
    }
    return seen;
  }
};

TEST_CASE("informer: listeners get every change in order, and only changes", "[informer]") {
  Fixture f;
  Recorder r;
  r.SubscribeTo(*f.informer);
  auto watch = f.Sync();
  using T = k8s::WatchEvent::Type;
  f.client->SendEvent(watch, Event(T::kModified, "a", "21", "DriverRequested"));
  f.client->SendEvent(watch, Event(T::kAdded, "n", "22", ""));
  f.client->SendEvent(watch, Event(T::kDeleted, "b", "23", "RunningHealthy"));
  // Not changes: an older replay, the same version again, a bookmark, a delete of an unknown app.
  f.client->SendEvent(watch, Event(T::kModified, "a", "15", "Submitted"));
  f.client->SendEvent(watch, Event(T::kModified, "a", "21", "DriverRequested"));
  f.client->SendEvent(watch, Event(T::kBookmark, "", "30", ""));
  f.client->SendEvent(watch, Event(T::kDeleted, "zz", "31", ""));
  f.Settle();
  f.informer->ObserveWrite(Projection("a", "32", "DriverReady"));
  f.informer->ObserveGone("n");
  f.informer->ObserveGone("never-there");
  // The first list's snapshot counts as a change too (a and b appeared, in no particular order).
  std::vector<std::string> seen = r.Seen();
  REQUIRE(seen.size() == 7);
  std::sort(seen.begin(), seen.begin() + 2);
  CHECK(seen == std::vector<std::string>{"U:a@10", "U:b@11", "U:a@21", "U:n@22", "D:b@23", "U:a@32",
                                         "D:n@22"});
}

TEST_CASE("informer: a relist reports what the watch missed", "[informer]") {
  Fixture f;
  auto watch = f.Sync();
  Recorder r;
  r.SubscribeTo(*f.informer);
  f.client->EndWatch(watch, k8s::MakeApiStatus({410, "Expired", "too old resource version"}));
  auto next = f.Next("list");
  // a changed, b vanished, c appeared; nothing about an unchanged one.
  f.client->CompleteList(
      next, Page({AppJson("a", "40", "RunningHealthy"), AppJson("c", "41", "")}, "50", ""));
  f.Next("watch");
  f.Settle();  // the watch is opened before the listeners are told
  std::vector<std::string> seen = r.Seen();
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::string>{"D:b@11", "U:a@40", "U:c@41"});
}

TEST_CASE("informer: subscribers get only the names they asked for; unsubscribing closes",
          "[informer]") {
  Fixture f;
  Recorder all;
  Recorder only_x;
  all.SubscribeTo(*f.informer);
  auto sub = only_x.SubscribeTo(*f.informer, {"x"});
  f.informer->ObserveWrite(Projection("x", "1", ""));
  f.informer->ObserveWrite(Projection("y", "1", ""));
  CHECK(f.informer->subscribers() == 2);
  f.informer->Unsubscribe(sub);
  CHECK(f.informer->subscribers() == 1);
  CHECK(only_x.mailbox->state() == Mailbox<AppEvent>::State::kClosed);
  f.informer->ObserveWrite(Projection("x", "2", ""));
  CHECK(all.Seen() == std::vector<std::string>{"U:x@1", "U:y@1", "U:x@2"});
  CHECK(only_x.Seen() == std::vector<std::string>{"U:x@1"});
}

TEST_CASE("informer: a subscriber that falls behind overflows alone, and nobody waits",
          "[informer]") {
  Fixture f;
  auto slow = std::make_shared<Mailbox<AppEvent>>(3);
  Recorder fast;
  f.informer->Subscribe({}, slow);
  fast.SubscribeTo(*f.informer);
  for (int i = 1; i <= 10; ++i) f.informer->ObserveWrite(Projection("x", std::to_string(i), ""));
  CHECK(slow->state() == Mailbox<AppEvent>::State::kOverflowed);
  CHECK(slow->size() == 3);  // what it held stays for the consumer to drain
  CHECK(fast.Seen().size() == 10);
  CHECK(f.informer->Find("x")->resource_version() == "10");
}

TEST_CASE("informer: stop closes every subscription", "[informer]") {
  Fixture f;
  Recorder r;
  r.SubscribeTo(*f.informer);
  f.Sync();
  f.informer->Stop();
  CHECK(r.mailbox->state() == Mailbox<AppEvent>::State::kClosed);
  CHECK(f.informer->subscribers() == 0);
}

TEST_CASE("informer: a list page that timed out is asked again, not failed", "[informer]") {
  Fixture f;
  f.informer->Start();
  auto first = f.Next("list");
  f.client->CompleteList(first, absl::DeadlineExceededError("no answer in time"));
  auto again = f.Next("list");
  CHECK(again->list.continue_token.empty());
  f.client->CompleteList(again, Page({AppJson("a", "10", "Submitted")}, "20", "more"));
  auto second_page = f.Next("list");
  f.client->CompleteList(second_page, absl::DeadlineExceededError("no answer in time"));
  auto retried = f.Next("list");
  CHECK(retried->list.continue_token == "more");  // the same page, not the whole list
  f.client->CompleteList(retried, Page({}, "20", ""));
  f.Next("watch");
  CHECK(f.informer->stats().errors == 0);
  CHECK(StateOf(*f.informer, "a") == "Submitted");
}

TEST_CASE("informer: pages of the snapshot in name order, filtered", "[informer]") {
  Fixture f;
  f.Sync();
  for (const char* name : {"e", "d", "c"}) f.informer->ObserveWrite(Projection(name, "30", ""));
  auto all = [](const spark::AppProjection&) { return true; };
  auto names = [](const std::vector<AppPtr>& page) {
    std::string out;
    for (const auto& app : page) out += app->name();
    return out;
  };
  CHECK(names(f.informer->ListAfter("", 2, all)) == "ab");
  CHECK(names(f.informer->ListAfter("b", 2, all)) == "cd");
  CHECK(names(f.informer->ListAfter("d", 2, all)) == "e");
  CHECK(names(f.informer->ListAfter("e", 2, all)).empty());
  auto no_state = [](const spark::AppProjection& app) { return !spark::apache::HasState(app); };
  CHECK(names(f.informer->ListAfter("", 10, no_state)) == "cde");
}

// An on-demand informer is stopped whenever its namespace goes idle, often while the next LIST
// page is being fetched beside the one being read. On two io threads (as in the service), each
// stop must cancel that fetch at once (not leave it to its own deadline, holding a connection
// and the fetch's frame), and the informer, its loop and its fetch must all be freed.
TEST_CASE("informer: a stop mid-list cancels the page in flight, and everything is freed",
          "[informer]") {
  constexpr int kRounds = 1000;
  int cancelled = 0;
  int freed = 0;
  for (int round = 0; round < kRounds; ++round) {
    boost::asio::io_context io;
    auto work = boost::asio::make_work_guard(io);
    std::thread threads[2] = {std::thread([&io] { io.run(); }), std::thread([&io] { io.run(); })};
    auto client = std::make_shared<FakeKubeClient>(io);
    client->set_complete_on_cancel(true);  // as the real client ends a cancelled request
    FakeClock clock;
    InformerOptions options;
    options.project = spark::apache::ProjectApp;
    options.collection = {"spark.apache.org", "v1", "sparkapplications", "jobs", "", ""};
    options.page_size = 2;
    std::shared_ptr<AppInformer> informer = NewAppInformer(io, client, options, clock);
    std::weak_ptr<AppInformer> weak = informer;
    informer->Start();
    auto first = client->NextCall();
    REQUIRE(first != nullptr);
    client->CompleteList(first, Page({AppJson("a", "10", "Submitted")}, "", "page-2"));
    // The next page is asked as soon as the first one's continue token is known.
    auto second = client->NextCall();
    REQUIRE(second != nullptr);
    REQUIRE(second->verb == "list");
    informer->Stop();
    const bool seen = second->WaitCancelled();
    // Never cancelled: the test ends the fetch itself, so the round can end and report.
    if (!seen) client->CompleteList(second, absl::CancelledError("ended by the test"));
    cancelled += seen;
    informer.reset();
    // Without work left, run() returns: nothing of the informer's is parked anywhere.
    work.reset();
    for (std::thread& t : threads) t.join();
    // The loop's frame holds the informer; the fetch's frame, the fake's call.
    freed += weak.expired() && client->live_calls() == 0;
    client->DropPending();
    if (!seen) break;  // one failed round says it; the others would each wait out the deadline
  }
  CHECK(cancelled == kRounds);
  CHECK(freed == kRounds);
}

}  // namespace
}  // namespace kje::cache
