// DepthToSpace, SpaceToDepth, SpaceToBatchND and BatchToSpaceND. Expected
// values are hand-computed.
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const std::string& op, const std::string& attrs) {
  return "name: 'n' op: '" + op +
         "' attr { key: 'T' value { type: DT_FLOAT } } " + attrs;
}

std::string Block(int b, const std::string& format = "NHWC") {
  return fmt::format(
      "attr {{ key: 'block_size' value {{ i: {} }} }} attr {{ key: "
      "'data_format' value {{ s: '{}' }} }}",
      b, format);
}

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return v;
}

TEST_CASE(
    "DepthToSpace spreads depth blocks over space and SpaceToDepth "
    "undoes it",
    "[kernels]") {
  // Pixels p00=1..4, p01=5..8, p10=9..12, p11=13..16.
  const Tensor x = MakeTensor<float>({1, 2, 2, 4}, Iota(16));
  auto d2s = RunKernel(Node("DepthToSpace", Block(2)), {x});
  REQUIRE(d2s.status.ok());
  CHECK(Flat<float>(d2s.out(0)) ==
        "[1,4,4,1] 1 2 5 6 3 4 7 8 9 10 13 14 11 12 15 16");
  auto s2d = RunKernel(Node("SpaceToDepth", Block(2)), {d2s.out(0)});
  REQUIRE(s2d.status.ok());
  CHECK(Flat<float>(s2d.out(0)) == Flat<float>(x));
  // Two output channels per pixel: depth 8 -> 2 with a 2x2 block.
  auto deep = RunKernel(Node("DepthToSpace", Block(2)),
                        {MakeTensor<float>({1, 1, 1, 8}, Iota(8))});
  REQUIRE(deep.status.ok());
  CHECK(Flat<float>(deep.out(0)) == "[1,2,2,2] 1 2 3 4 5 6 7 8");
}

TEST_CASE("DepthToSpace and SpaceToDepth reject bad shapes and NCHW",
          "[kernels]") {
  auto depth = RunKernel(Node("DepthToSpace", Block(2)),
                         {MakeTensor<float>({1, 1, 1, 3}, Iota(3))});
  CHECK(depth.status.code() == Code::kInvalidArgument);
  CHECK_THAT(depth.status.message(),
             Catch::Matchers::Contains(
                 "Input depth dimension 3 should be divisible by: 4"));
  auto rank = RunKernel(Node("DepthToSpace", Block(2)),
                        {MakeTensor<float>({4}, Iota(4))});
  CHECK_THAT(
      rank.status.message(),
      Catch::Matchers::Contains("Input rank should be: 4 instead of: 1"));
  auto nchw = RunKernel(Node("DepthToSpace", Block(2, "NCHW")),
                        {MakeTensor<float>({1, 4, 1, 1}, Iota(4))});
  CHECK_THAT(nchw.status.message(),
             Catch::Matchers::Contains(
                 "Only NHWC data_format supported on CPU. Got NCHW"));
  auto odd = RunKernel(Node("SpaceToDepth", Block(2)),
                       {MakeTensor<float>({1, 3, 4, 1}, Iota(12))});
  CHECK_THAT(odd.status.message(),
             Catch::Matchers::Contains("Image width 4 and height 3 should be "
                                       "divisible by block_size: 2"));
}

std::string BlockNode(const std::string& op, const std::string& index_type) {
  const bool to_batch = op == "SpaceToBatchND";
  return Node(op, fmt::format("attr {{ key: 'Tblock_shape' value {{ type: {} "
                              "}} }} attr {{ key: '{}' value {{ type: {} }} }}",
                              index_type, to_batch ? "Tpaddings" : "Tcrops",
                              index_type));
}

KernelRun SpaceBatch(const std::string& op, const Tensor& x,
                     std::vector<int32_t> block, std::vector<int32_t> pads) {
  const int64_t n = static_cast<int64_t>(block.size());
  return RunKernel(
      BlockNode(op, "DT_INT32"),
      {x, MakeTensor<int32_t>({n}, block), MakeTensor<int32_t>({n, 2}, pads)});
}

TEST_CASE(
    "SpaceToBatchND moves padded blocks into the batch and "
    "BatchToSpaceND crops them back",
    "[kernels]") {
  // Rows [1 2 3], [4 5 6], padded right to width 4.
  const Tensor x = MakeTensor<float>({1, 2, 3, 1}, Iota(6));
  auto s2b = SpaceBatch("SpaceToBatchND", x, {2, 2}, {0, 0, 0, 1});
  REQUIRE(s2b.status.ok());
  CHECK(Flat<float>(s2b.out(0)) == "[4,1,2,1] 1 3 2 0 4 6 5 0");
  auto b2s = SpaceBatch("BatchToSpaceND", s2b.out(0), {2, 2}, {0, 0, 0, 1});
  REQUIRE(b2s.status.ok());
  CHECK(Flat<float>(b2s.out(0)) == "[1,2,3,1] 1 2 3 4 5 6");
  // One block dim, two images: output batch = offset * 2 + image.
  auto one = SpaceBatch("SpaceToBatchND",
                        MakeTensor<float>({2, 2, 1, 1}, Iota(4)), {2}, {0, 0});
  REQUIRE(one.status.ok());
  CHECK(Flat<float>(one.out(0)) == "[4,1,1,1] 1 3 2 4");
  // int64 block_shape and paddings.
  auto wide = RunKernel(BlockNode("SpaceToBatchND", "DT_INT64"),
                        {MakeTensor<float>({1, 2, 2, 1}, Iota(4)),
                         MakeTensor<int64_t>({2}, {2, 2}),
                         MakeTensor<int64_t>({2, 2}, {0, 0, 0, 0})});
  REQUIRE(wide.status.ok());
  CHECK(Flat<float>(wide.out(0)) == "[4,1,1,1] 1 2 3 4");
  // Block 1 without padding: the input as is.
  auto same = SpaceBatch("BatchToSpaceND", x, {1, 1}, {0, 0, 0, 0});
  REQUIRE(same.status.ok());
  CHECK(Flat<float>(same.out(0)) == Flat<float>(x));
}

TEST_CASE("SpaceToBatchND and BatchToSpaceND reject bad blocks and padding",
          "[kernels]") {
  const Tensor x = MakeTensor<float>({1, 3, 1, 1}, Iota(3));
  auto indivisible = SpaceBatch("SpaceToBatchND", x, {2}, {0, 0});
  CHECK(indivisible.status.code() == Code::kInvalidArgument);
  CHECK_THAT(indivisible.status.message(),
             Catch::Matchers::Contains(
                 "padded_shape[0]=3 is not divisible by block_shape[0]=2"));
  auto negative = SpaceBatch("SpaceToBatchND", x, {3}, {-1, 1});
  CHECK_THAT(negative.status.message(),
             Catch::Matchers::Contains("Paddings must be non-negative"));
  auto zero = SpaceBatch("SpaceToBatchND", x, {0}, {0, 0});
  CHECK_THAT(zero.status.message(),
             Catch::Matchers::Contains(
                 "All values in block_shape must be positive, got value, 0"));
  auto pads = RunKernel(
      BlockNode("SpaceToBatchND", "DT_INT32"),
      {x, MakeTensor<int32_t>({1}, {2}), MakeTensor<int32_t>({2}, {0, 1})});
  CHECK_THAT(pads.status.message(),
             Catch::Matchers::Contains(
                 "paddings should have shape [1, 2] instead of [2]"));
  auto batch = SpaceBatch("BatchToSpaceND", x, {2}, {0, 0});
  CHECK_THAT(batch.status.message(),
             Catch::Matchers::Contains("Input batch dimension (1) is not "
                                       "divisible by product of block sizes "
                                       "(2)"));
  auto crop = SpaceBatch("BatchToSpaceND",
                         MakeTensor<float>({2, 1, 1, 1}, Iota(2)), {2}, {2, 1});
  CHECK_THAT(crop.status.message(),
             Catch::Matchers::Contains("cropped_shape[0]=-1 must be "
                                       "non-negative"));
}

}  // namespace
}  // namespace dfg
