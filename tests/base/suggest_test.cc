#include "base/suggest.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kje {
namespace {

TEST_CASE("suggest: edit distance counts insertions, deletions and substitutions, case folded") {
  CHECK(EditDistance("", "") == 0);
  CHECK(EditDistance("image", "imag") == 1);
  CHECK(EditDistance("imag", "image") == 1);
  CHECK(EditDistance("Image", "image") == 0);
  CHECK(EditDistance("nightly", "nigthly") == 2);
  CHECK(EditDistance("abc", "xyz") == 3);
}

TEST_CASE("suggest: the nearest candidate within a third of the name, else nothing") {
  const std::vector<std::string> names = {"spark.image", "spark.imagePullPolicy", "namespace"};
  CHECK(DidYouMean("spark.imag", names) == "; did you mean spark.image?");
  CHECK(DidYouMean("namespce", names) == "; did you mean namespace?");
  // Too far from anything to be a typo of it.
  CHECK(DidYouMean("cluster", names).empty());
  // A short name gets one edit at most.
  CHECK(DidYouMean("ab", {"xy"}).empty());
  CHECK(DidYouMean("ab", {"abc"}) == "; did you mean abc?");
  CHECK(DidYouMean(std::string(200, 'a'), {std::string(200, 'a')}).empty());
}

}  // namespace
}  // namespace kje
