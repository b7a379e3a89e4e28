// The candidate samplers, ComputeAccidentalHits, RandomIndexShuffle and
// StatelessSampleDistortedBoundingBox against TensorFlow's numbers.
#include <cfloat>
#include <cmath>
#include <vector>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::RunKernel;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto f = t.flat<T>();
  return std::vector<T>(f.begin(), f.end());
}

std::string SamplerNode(const std::string& op, int num, bool unique,
                        int range) {
  return "name: 's' op: '" + op +
         "' attr { key: 'num_true' value { i: 2 } }"
         " attr { key: 'num_sampled' value { i: " +
         std::to_string(num) +
         " } } attr { key: 'unique' value { b: " + (unique ? "true" : "false") +
         " } } attr { key: 'range_max' value { i: " + std::to_string(range) +
         " } } attr { key: 'seed' value { i: 3 } }"
         " attr { key: 'seed2' value { i: 21 } }";
}

// Reference values: TensorFlow 2.21 (CPU, Linux), the same raw ops and
// seeds run eagerly once.
TEST_CASE("UniformCandidateSampler matches TensorFlow's draws", "[kernels]") {
  auto run = RunKernel(SamplerNode("UniformCandidateSampler", 6, false, 20),
                       {MakeTensor<int64_t>({1, 2}, {1, 5})});
  REQUIRE(run.status.ok());
  CHECK(Values<int64_t>(run.out(0)) ==
        std::vector<int64_t>{3, 2, 17, 18, 9, 17});
  CHECK(Values<float>(run.out(1)) == std::vector<float>{0.3f, 0.3f});
  CHECK(Values<float>(run.out(2)) == std::vector<float>(6, 0.3f));
}

TEST_CASE("LearnedUnigramCandidateSampler learns the true classes per step",
          "[kernels]") {
  auto k = testing::KernelTester::Create(
      SamplerNode("LearnedUnigramCandidateSampler", 3, false, 6));
  REQUIRE(k.ok());
  const Tensor classes = MakeTensor<int64_t>({1, 2}, {1, 5});
  auto first = (*k)->Run({classes});
  REQUIRE(first.status.ok());
  CHECK(Values<int64_t>(first.out(0)) == std::vector<int64_t>{3, 0, 4});
  CHECK(Values<float>(first.out(1)) == std::vector<float>{0.5f, 0.5f});
  // Classes 1 and 5 now weigh 2 of 8.
  auto second = (*k)->Run({classes});
  REQUIRE(second.status.ok());
  CHECK(Values<int64_t>(second.out(0)) == std::vector<int64_t>{0, 1, 0});
  CHECK(Values<float>(second.out(1)) == std::vector<float>{0.75f, 0.75f});
  CHECK(Values<float>(second.out(2)) ==
        std::vector<float>{0.375f, 0.75f, 0.375f});
}

TEST_CASE("LogUniformCandidateSampler draws unique values as TensorFlow",
          "[kernels]") {
  auto run = RunKernel(SamplerNode("LogUniformCandidateSampler", 4, true, 1000),
                       {MakeTensor<int64_t>({1, 2}, {1, 5})});
  REQUIRE(run.status.ok());
  CHECK(Values<int64_t>(run.out(0)) == std::vector<int64_t>{143, 34, 32, 19});
  CHECK(Values<float>(run.out(1)) ==
        std::vector<float>{0.23475438356399536f, 0.08924946933984756f});
}

TEST_CASE("ComputeAccidentalHits finds the true classes among the samples",
          "[kernels]") {
  auto run = RunKernel(
      "name: 'h' op: 'ComputeAccidentalHits'"
      " attr { key: 'num_true' value { i: 2 } }",
      {MakeTensor<int64_t>({2, 2}, {1, 5, 7, 2}),
       MakeTensor<int64_t>({3}, {5, 3, 7})});
  REQUIRE(run.status.ok());
  CHECK(Values<int32_t>(run.out(0)) == std::vector<int32_t>{0, 1});
  CHECK(Values<int64_t>(run.out(1)) == std::vector<int64_t>{0, 2});
  CHECK(Values<float>(run.out(2)) == std::vector<float>(2, -FLT_MAX));
}

TEST_CASE("RandomIndexShuffle permutes as TensorFlow's Simon cipher",
          "[kernels]") {
  auto run = RunKernel(
      "name: 'r' op: 'RandomIndexShuffle'"
      " attr { key: 'dtype' value { type: DT_INT64 } }"
      " attr { key: 'Tseed' value { type: DT_INT64 } }"
      " attr { key: 'rounds' value { i: 4 } }",
      {MakeTensor<int64_t>({6}, {0, 1, 2, 3, 4, 5}),
       MakeTensor<int64_t>({3}, {1, 2, 3}), MakeTensor<int64_t>({}, {11})});
  REQUIRE(run.status.ok());
  CHECK(Values<int64_t>(run.out(0)) == std::vector<int64_t>{2, 0, 6, 4, 8, 11});
}

TEST_CASE("StatelessSampleDistortedBoundingBox matches TensorFlow's crop",
          "[kernels]") {
  auto run = RunKernel(
      "name: 'b' op: 'StatelessSampleDistortedBoundingBox'"
      " attr { key: 'T' value { type: DT_INT32 } }"
      " attr { key: 'Tseed' value { type: DT_INT64 } }"
      " attr { key: 'aspect_ratio_range' value { list { f: 0.75 f: 1.33 } } }"
      " attr { key: 'area_range' value { list { f: 0.05 f: 1.0 } } }"
      " attr { key: 'max_attempts' value { i: 100 } }"
      " attr { key: 'use_image_if_no_bounding_boxes' value { b: false } }",
      {MakeTensor<int32_t>({3}, {120, 90, 3}),
       MakeTensor<float>({1, 1, 4}, {0.1f, 0.2f, 0.5f, 0.6f}),
       MakeTensor<float>({}, {0.3f}), MakeTensor<int64_t>({2}, {5, 9})});
  REQUIRE(run.status.ok());
  CHECK(Values<int32_t>(run.out(0)) == std::vector<int32_t>{37, 12, 0});
  CHECK(Values<int32_t>(run.out(1)) == std::vector<int32_t>{62, 72, -1});
  CHECK(Values<float>(run.out(2)) ==
        std::vector<float>{0.3083333373069763f, 0.13333334028720856f,
                           0.824999988079071f, 0.9333333373069763f});
}

TEST_CASE("StochasticCastToInt keeps integers, saturates and zeroes NaN",
          "[kernels]") {
  auto run = RunKernel(
      "name: 'c' op: 'StochasticCastToInt'"
      " attr { key: 'Tin' value { type: DT_FLOAT } }"
      " attr { key: 'Tout' value { type: DT_INT8 } }",
      {MakeTensor<float>({6}, {3.0f, -4.0f, 300.0f, -300.0f, NAN, 2.5f}),
       MakeTensor<uint64_t>({1}, {7}), MakeTensor<uint64_t>({2}, {1, 2}),
       MakeTensor<int32_t>({}, {1})});
  REQUIRE(run.status.ok());
  const std::vector<int8_t> v = Values<int8_t>(run.out(0));
  CHECK(std::vector<int8_t>(v.begin(), v.end() - 1) ==
        std::vector<int8_t>{3, -4, 127, -128, 0});
  CHECK((v.back() == 2 || v.back() == 3));
}

}  // namespace
}  // namespace dfg
