#include "lib/testing/golden_compare.h"

#include "lib/testing/catch.h"

namespace dfg::testing {
namespace {

const FloatTolerance kTol{1e-6, 0};

TEST_CASE("golden outputs without a tolerance must be identical", "[testing]") {
  CHECK_FALSE(CompareGoldenOutput("a 1.5\n", "a 1.5\n", std::nullopt));
  CHECK(CompareGoldenOutput("a 1.5\n", "a 1.5000001\n", std::nullopt));
}

TEST_CASE(
    "a tolerance accepts the last bits of a BLAS result and the "
    "column padding that follows their width",
    "[testing]") {
  // What was seen between machines: the default OpenBLAS kernel against
  // SkylakeX's.
  std::string expected =
      "probs float32 [2,3]\n"
      "[[ 0.029063787   0.30474368   0.66619253]\n"
      " [0.0007027916    0.0581846    0.9411126]]\n";
  std::string actual =
      "probs float32 [2,3]\n"
      "[[ 0.029063782   0.30474365    0.6661926]\n"
      " [0.0007027916    0.0581846    0.9411126]]\n";
  CHECK_FALSE(CompareGoldenOutput(expected, actual, kTol));
  CHECK(CompareGoldenOutput(expected, actual, std::nullopt));
}

TEST_CASE(
    "a tolerance still fails values, integers, text and printing "
    "that changed",
    "[testing]") {
  auto diff = [](const char* e, const char* a) {
    return CompareGoldenOutput(e, a, kTol).value_or("");
  };
  CHECK_THAT(diff("y [0.5]\n", "y [0.50001]\n"),
             Catch::Matchers::Contains("|diff|"));
  // Shapes and other integers are exact.
  CHECK_THAT(diff("y float32 [2,3]\n", "y float32 [2,4]\n"),
             Catch::Matchers::Contains("expected 3, got 4"));
  // Names with digits are text, not numbers.
  CHECK_THAT(diff("dense_1 0.5\n", "dense_2 0.5\n"),
             Catch::Matchers::Contains("text between numbers"));
  CHECK_THAT(diff("y [0.5, 0.25]\n", "y [0.5 0.25]\n"),
             Catch::Matchers::Contains("text between numbers"));
  CHECK_THAT(diff("y [0.5]\n", "y [0.5 0.25]\n"),
             Catch::Matchers::Contains("expected 1 numbers, got 2"));
  CHECK_THAT(diff("y 0.00070279\n", "y 7.0279e-04\n"),
             Catch::Matchers::Contains("printed another way"));
  CHECK_THAT(diff("y nan\n", "y 1.5\n"), Catch::Matchers::Contains("nan"));
  // Padding is free only before a number.
  CHECK_THAT(diff("y 0.5 ]\n", "y 0.5]\n"),
             Catch::Matchers::Contains("text between numbers"));
}

TEST_CASE("JSON doubles of float32 values compare within the tolerance",
          "[testing]") {
  CHECK_FALSE(CompareGoldenOutput("[0.029063787311315536, 0.0]",
                                  "[0.02906378172338009, 0.0]", kTol));
}

TEST_CASE("tolerance files name rtol and atol", "[testing]") {
  FloatTolerance t = ParseTolerance("rtol 1e-6\natol 2e-7\n");
  CHECK(t.rtol == 1e-6);
  CHECK(t.atol == 2e-7);
  CHECK_THROWS(ParseTolerance("tol 1\n"));
}

}  // namespace
}  // namespace dfg::testing
