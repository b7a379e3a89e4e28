#include "lib/base/summarize.h"

#include <cmath>
#include <limits>
#include <vector>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

TEST_CASE("FloatToString and DoubleToString print as TensorFlow's StrCat",
          "[base]") {
  CHECK(FloatToString(1.5f) == "1.5");
  CHECK(FloatToString(0.1f) == "0.1");
  CHECK(FloatToString(1e-7f) == "1e-07");
  CHECK(FloatToString(16777217.0f) == "16777216");
  CHECK(FloatToString(3.14159274f) == "3.14159274");  // needs 9 digits
  CHECK(FloatToString(std::numeric_limits<float>::infinity()) == "inf");
  CHECK(FloatToString(-std::numeric_limits<float>::infinity()) == "-inf");
  CHECK(FloatToString(std::nanf("")) == "nan");
  CHECK(FloatToString(-std::nanf("")) == "-nan");
  CHECK(DoubleToString(0.1) == "0.1");
  CHECK(DoubleToString(1.0 / 3) == "0.33333333333333331");
  CHECK(DoubleToString(-std::nan("")) == "-nan");
}

TEST_CASE("SummarizeElements nests rows in brackets and cuts at the limit",
          "[base]") {
  auto element = [](int64_t i) { return std::to_string(i); };
  std::vector<int64_t> scalar, vector{5}, matrix{2, 3}, cube{2, 1, 2};
  CHECK(SummarizeElements(scalar, 1, element) == "0");
  CHECK(SummarizeElements(vector, 3, element) == "0 1 2");
  CHECK(SummarizeElements(vector, 5, element) == "0 1 2 3 4");
  CHECK(SummarizeElements(matrix, 6, element) == "[0 1 2][3 4 5]");
  CHECK(SummarizeElements(matrix, 4, element) == "[0 1 2][3...]");
  CHECK(SummarizeElements(cube, 3, element) == "[[0 1]][[2...]]");
  CHECK(SummarizeElements(vector, 0, element).empty());
}

}  // namespace
}  // namespace dfg
