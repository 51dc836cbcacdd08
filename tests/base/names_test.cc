#include "base/names.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

namespace kje {
namespace {

// The rules as Kubernetes states them, spelt out slowly, to hold the table-driven checks to.
bool Alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])? of any length.
bool LabelShaped(std::string_view s) {
  if (s.empty() || !Alnum(s.front()) || !Alnum(s.back())) return false;
  for (char c : s) {
    if (!Alnum(c) && c != '-') return false;
  }
  return true;
}

bool LabelByTheRules(std::string_view s) { return s.size() <= 63 && LabelShaped(s); }

bool SubdomainByTheRules(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (size_t start = 0;;) {
    size_t dot = s.find('.', start);
    if (!LabelShaped(s.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

TEST_CASE("names: labels and subdomains as Kubernetes has them") {
  CHECK(IsDns1123Label("spark-jobs"));
  CHECK(IsDns1123Label("a"));
  CHECK(IsDns1123Label(std::string(63, 'a')));
  CHECK_FALSE(IsDns1123Label(std::string(64, 'a')));
  for (const char* bad : {"", "-a", "a-", "A", "a.b", "a_b", "a b", "\xc3\xa9"}) {
    CHECK_FALSE(IsDns1123Label(bad));
  }
  CHECK(IsDns1123Subdomain("gravitino-job-1.b"));
  CHECK(IsDns1123Subdomain(std::string(253, 'a')));
  CHECK_FALSE(IsDns1123Subdomain(std::string(254, 'a')));
  for (const char* bad : {"", ".a", "a.", "a..b", "a.-b", "a-.b", "-a", "a-", "A", "a/b", "a_b"}) {
    CHECK_FALSE(IsDns1123Subdomain(bad));
  }
  static_assert(IsDns1123Label("ns") && IsDns1123Subdomain("a.b"));
}

TEST_CASE("names: the checks agree with the rules on 50,000 random names") {
  const std::string alphabet = std::string("az09-.A_/ ") + '\0' + "\xff";
  std::mt19937 rng(1205);
  int labels = 0;
  int subdomains = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string s;
    size_t length = rng() % 12;
    for (size_t k = 0; k < length; ++k) {
      // Mostly the bytes a name is made of, so that many are valid.
      s.push_back(alphabet[rng() % 5 < 4 ? rng() % 6 : rng() % alphabet.size()]);
    }
    INFO("name: \"" << s << "\"");
    REQUIRE(IsDns1123Label(s) == LabelByTheRules(s));
    REQUIRE(IsDns1123Subdomain(s) == SubdomainByTheRules(s));
    labels += IsDns1123Label(s) ? 1 : 0;
    subdomains += IsDns1123Subdomain(s) ? 1 : 0;
  }
  // Enough of each kind to say something.
  CHECK(labels > 2000);
  CHECK(subdomains > labels);
}

}  // namespace
}  // namespace kje
