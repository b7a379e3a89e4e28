// BroadcastGradientArgs (expected values from TensorFlow 2.21's
// tf.raw_ops.BroadcastGradientArgs), DynamicStitch, ConcatOffset,
// InvertPermutation and the segment sums (hand-computed).
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::KernelRun;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

TEST_CASE("BroadcastGradientArgs names the dims each side sums over",
          "[train]") {
  const std::string node =
      "name: 'b' op: 'BroadcastGradientArgs' attr { key: 'T' value { type: "
      "DT_INT32 } }";
  auto run = [&](std::vector<int32_t> a, std::vector<int32_t> b) {
    KernelRun r =
        RunKernel(node, {MakeTensor<int32_t>({int64_t(a.size())}, a),
                         MakeTensor<int32_t>({int64_t(b.size())}, b)});
    REQUIRE(r.status.ok());
    return Render(r.out(0)) + " | " + Render(r.out(1));
  };
  CHECK(run({1, 2}, {1, 2}) == "int32 [0] [] | int32 [0] []");
  CHECK(run({2, 1, 3}, {3}) == "int32 [1] [1] | int32 [2] [0 1]");
  CHECK(run({}, {2, 3}) == "int32 [2] [0 1] | int32 [0] []");
  CHECK(run({5, 1}, {1, 1}) == "int32 [1] [1] | int32 [2] [0 1]");
  KernelRun bad = RunKernel(
      node, {MakeTensor<int32_t>({2}, {2, 3}), MakeTensor<int32_t>({1}, {4})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("Incompatible shapes: [2,3] vs. [4]"));
  KernelRun matrix = RunKernel(node, {MakeTensor<int32_t>({1, 2}, {2, 3}),
                                      MakeTensor<int32_t>({1}, {4})});
  CHECK_THAT(matrix.status.message(),
             Catch::Matchers::Contains("In[0] must be a vector.[1,2]"));
}

TEST_CASE("DynamicStitch interleaves, later indices win", "[train]") {
  const std::string node =
      "name: 's' op: 'DynamicStitch' attr { key: 'N' value { i: 2 } } attr "
      "{ key: 'T' value { type: DT_FLOAT } }";
  KernelRun r = RunKernel(
      node, {MakeTensor<int32_t>({2}, {0, 2}), MakeTensor<int32_t>({2}, {1, 2}),
             MakeTensor<float>({2, 2}, {1, 2, 3, 4}),
             MakeTensor<float>({2, 2}, {5, 6, 7, 8})});
  REQUIRE(r.status.ok());
  CHECK(Render(r.out(0)) == "float [3,2] [[1 2]\n [5 6]\n [7 8]]");
  KernelRun bad = RunKernel(
      node, {MakeTensor<int32_t>({2}, {0, 2}), MakeTensor<int32_t>({1}, {1}),
             MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<float>({1}, {5})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("data[0].shape = [3] does not start "
                                       "with indices[0].shape = [2]"));
}

TEST_CASE("ConcatOffset and InvertPermutation", "[train]") {
  KernelRun c = RunKernel(
      "name: 'c' op: 'ConcatOffset' attr { key: 'N' value { i: 3 } }",
      {Tensor::Scalar<int32_t>(1), MakeTensor<int32_t>({3}, {2, 2, 5}),
       MakeTensor<int32_t>({3}, {2, 3, 5}),
       MakeTensor<int32_t>({3}, {2, 7, 5})});
  REQUIRE(c.status.ok());
  CHECK(Render(c.out(0)) == "int32 [3] [0 0 0]");
  CHECK(Render(c.out(1)) == "int32 [3] [0 2 0]");
  CHECK(Render(c.out(2)) == "int32 [3] [0 5 0]");
  KernelRun mismatch = RunKernel(
      "name: 'c' op: 'ConcatOffset' attr { key: 'N' value { i: 2 } }",
      {Tensor::Scalar<int32_t>(1), MakeTensor<int32_t>({3}, {2, 2, 5}),
       MakeTensor<int32_t>({3}, {3, 3, 5})});
  CHECK_THAT(mismatch.status.message(),
             Catch::Matchers::Contains("input[1,0] mismatch: 2 vs. 3"));

  const std::string inv =
      "name: 'i' op: 'InvertPermutation' attr { key: 'T' value { type: "
      "DT_INT32 } }";
  KernelRun p = RunKernel(inv, {MakeTensor<int32_t>({4}, {2, 0, 3, 1})});
  REQUIRE(p.status.ok());
  CHECK(Render(p.out(0)) == "int32 [4] [1 3 0 2]");
  KernelRun dup = RunKernel(inv, {MakeTensor<int32_t>({2}, {1, 1})});
  CHECK_THAT(dup.status.message(),
             Catch::Matchers::Contains("1 is duplicated in the input."));
}

TEST_CASE("SegmentSum and UnsortedSegmentSum add rows by id", "[train]") {
  const Tensor data = MakeTensor<double>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  KernelRun s = RunKernel(
      "name: 's' op: 'SegmentSum' attr { key: 'T' value { type: DT_DOUBLE } "
      "} attr { key: 'Tindices' value { type: DT_INT32 } }",
      {data, MakeTensor<int32_t>({4}, {0, 0, 2, 2})});
  REQUIRE(s.status.ok());
  CHECK(Render(s.out(0)) == "double [3,2] [[ 4  6]\n [ 0  0]\n [12 14]]");
  KernelRun unsorted_order = RunKernel(
      "name: 's' op: 'SegmentSum' attr { key: 'T' value { type: DT_DOUBLE } "
      "} attr { key: 'Tindices' value { type: DT_INT32 } }",
      {data, MakeTensor<int32_t>({4}, {1, 0, 2, 2})});
  CHECK_THAT(unsorted_order.status.message(),
             Catch::Matchers::Contains("segment ids are not increasing"));

  const std::string uss =
      "name: 'u' op: 'UnsortedSegmentSum' attr { key: 'T' value { type: "
      "DT_DOUBLE } } attr { key: 'Tindices' value { type: DT_INT32 } }";
  KernelRun u = RunKernel(uss, {data, MakeTensor<int32_t>({4}, {2, -1, 0, 2}),
                                Tensor::Scalar<int32_t>(3)});
  REQUIRE(u.status.ok());
  CHECK(Render(u.out(0)) == "double [3,2] [[ 5  6]\n [ 0  0]\n [ 8 10]]");
  KernelRun range =
      RunKernel(uss, {data, MakeTensor<int32_t>({4}, {0, 1, 2, 3}),
                      Tensor::Scalar<int32_t>(3)});
  CHECK_THAT(range.status.message(),
             Catch::Matchers::Contains("is out of range [0, 3)"));
}

}  // namespace
}  // namespace dfg
