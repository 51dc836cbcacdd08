#include "spark/execution_id.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.h"

namespace kje::spark {
namespace {

TEST_CASE("ExecutionId formats as cluster/kind/namespace/name and parses back") {
  absl::StatusOr<ExecutionId> id = ExecutionId::Of("prod", "sparkapp", "jobs", "gravitino-job-7");
  REQUIRE(id.ok());
  CHECK(id->ToString() == "prod/sparkapp/jobs/gravitino-job-7");
  absl::StatusOr<ExecutionId> parsed = ExecutionId::Parse(id->ToString());
  REQUIRE(parsed.ok());
  CHECK(*parsed == *id);
  CHECK(parsed->cluster == "prod");
  CHECK(parsed->kind == "sparkapp");
  CHECK(parsed->namespace_ == "jobs");
  CHECK(parsed->name == "gravitino-job-7");
}

TEST_CASE("ExecutionId matches the reference's example") {
  absl::StatusOr<ExecutionId> id = ExecutionId::Parse("default/sparkapp/default/gravitino-job-1");
  REQUIRE(id.ok());
  CHECK(id->ToString() == "default/sparkapp/default/gravitino-job-1");
}

TEST_CASE("ExecutionId::Parse rejects malformed ids with NOT_FOUND") {
  const char* bad = GENERATE("", "/", "a/b/c", "a/sparkapp/c/d/e", "default/sparkapp/ns/name/",
                             "/sparkapp/ns/name", "c/sparkapp//name", "c/sparkapp/ns/ ",
                             "c/ /ns/name", "c/sparkapp/ns/\t", "c/job/ns/name",
                             "c/SPARKAPP/ns/name", "c/sparkapp ns/name", "c//sparkapp/ns");
  absl::StatusOr<ExecutionId> id = ExecutionId::Parse(bad);
  INFO("id: \"" << bad << "\"");
  REQUIRE_FALSE(id.ok());
  CHECK(id.status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("ExecutionId::Parse names an unknown kind") {
  absl::StatusOr<ExecutionId> id = ExecutionId::Parse("c/pod/ns/name");
  REQUIRE(id.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(id.status().message()).find("unknown kind of a job") != std::string::npos);
}

TEST_CASE("ExecutionId::Parse quotes only the start of a huge id") {
  std::string huge(100000, 'x');
  absl::StatusOr<ExecutionId> id = ExecutionId::Parse(huge);
  REQUIRE(id.status().code() == absl::StatusCode::kNotFound);
  CHECK(id.status().message().size() < 1000);
}

TEST_CASE("A well-formed id with a name Kubernetes can't hold is NOT_FOUND, quoted in part") {
  // 9,000 characters: quoted whole, the message would pass gRPC's 8 KiB metadata limit.
  std::string long_name = "default/sparkapp/default/" + std::string(9000, 'a');
  absl::StatusOr<ExecutionId> id = ExecutionId::Parse(long_name);
  REQUIRE(id.status().code() == absl::StatusCode::kNotFound);
  CHECK(id.status().message().size() < 1024);
  CHECK(std::string(id.status().message()).find("(9025 bytes)") != std::string::npos);
  for (const char* bad :
       {"c/sparkapp/Default/app", "c/sparkapp/ns_1/app", "c/sparkapp/ns/App", "c/sparkapp/ns/a..b",
        "c/sparkapp/ns/-a", "c/sparkapp/ns/a.", "c/sparkapp/ns/a\nb"}) {
    INFO(bad);
    CHECK(ExecutionId::Parse(bad).status().code() == absl::StatusCode::kNotFound);
  }
  std::string ns64 = "c/sparkapp/" + std::string(64, 'n') + "/app";
  CHECK(ExecutionId::Parse(ns64).status().code() == absl::StatusCode::kNotFound);
  std::string name253 = "c/sparkapp/ns/" + std::string(253, 'a');
  CHECK(ExecutionId::Parse(name253).ok());
  CHECK(ExecutionId::Parse("c/sparkapp/ns/" + std::string(254, 'a')).status().code() ==
        absl::StatusCode::kNotFound);
  CHECK(ExecutionId::Parse("c/sparkapp/ns-1/gravitino-job.v2-1").ok());
}

TEST_CASE("ExecutionId::Of rejects blank parts - slashes and unknown kinds") {
  CHECK(ExecutionId::Of("", "sparkapp", "ns", "n").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ExecutionId::Of("a/b", "sparkapp", "ns", "n").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ExecutionId::Of("c", "sparkapp", " ", "n").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ExecutionId::Of("c", "sparkapp", "ns", "a/b").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ExecutionId::Of("c", "job", "ns", "n").status().code() ==
        absl::StatusCode::kInvalidArgument);
}

// What Parse accepts, said from the rules rather than from the parser: four '/'-separated parts,
// a non-blank cluster, the kind, a DNS-1123 label and a DNS-1123 subdomain.
bool AcceptedByTheRules(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.size() != 4) return false;
  bool blank = parts[0].find_first_not_of(" \t\n\r\f\v") == std::string_view::npos;
  return !blank && parts[1] == kKindSparkApp && IsDns1123Label(parts[2]) &&
         IsDns1123Subdomain(parts[3]);
}

TEST_CASE("ExecutionIdView::Parse accepts exactly what the rules accept, its parts in the text") {
  const std::string base = "default/sparkapp/team-a/gravitino-job-1.b";
  const std::string alphabet = std::string("az09-./ \tA_") + '\0' + "\xc3\xa9";
  std::mt19937 rng(20261205);
  size_t accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = base;
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      size_t at = rng() % (text.size() + 1);
      char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          text.insert(at, 1, c);
          break;
        case 1:
          if (at < text.size()) text.erase(at, 1);
          break;
        default:
          if (at < text.size()) text[at] = c;
      }
    }
    absl::StatusOr<ExecutionIdView> id = ExecutionIdView::Parse(text);
    INFO("id: \"" << text << "\"");
    REQUIRE(id.ok() == AcceptedByTheRules(text));
    if (!id.ok()) {
      CHECK(id.status().code() == absl::StatusCode::kNotFound);
      continue;
    }
    ++accepted;
    std::string joined = std::string(id->cluster) + "/" + std::string(id->kind) + "/" +
                         std::string(id->namespace_) + "/" + std::string(id->name);
    CHECK(joined == text);
    CHECK(id->cluster.data() == text.data());
    CHECK(id->name.data() + id->name.size() == text.data() + text.size());
  }
  CHECK(accepted > 1000);  // the edits left enough ids well-formed to say something
}

TEST_CASE("An id of another cluster is NOT_FOUND with both cluster names") {
  absl::StatusOr<ExecutionId> id = ParseForCluster("east/sparkapp/ns/gravitino-job-1", "west");
  REQUIRE(id.status().code() == absl::StatusCode::kNotFound);
  std::string message(id.status().message());
  CHECK(message.find("runs in cluster \"east\"") != std::string::npos);
  CHECK(message.find("connected to cluster \"west\"") != std::string::npos);

  absl::StatusOr<ExecutionId> same = ParseForCluster("west/sparkapp/ns/gravitino-job-1", "west");
  REQUIRE(same.ok());
  CHECK(same->name == "gravitino-job-1");
  CHECK(ParseForCluster("bad", "west").status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kje::spark
