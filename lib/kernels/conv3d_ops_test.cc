// Conv3D, MaxPool3D and AvgPool3D. Expected values are hand-computed on a
// 2x2x2 volume holding 1..8 (value = z*4 + y*2 + x + 1).
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::RunKernel;

std::string Flat(const Tensor& t) {
  std::string s = t.shape().DebugString();
  for (float v : t.flat<float>()) s += fmt::format(" {}", v);
  return s;
}

Tensor Cube() {
  return MakeTensor<float>({1, 2, 2, 2, 1}, {1, 2, 3, 4, 5, 6, 7, 8});
}

std::string List(const char* name, const char* values) {
  return fmt::format("attr {{ key: '{}' value {{ list {{ {} }} }} }} ", name,
                     values);
}

std::string Conv3D(const char* padding, const char* extra = "") {
  return fmt::format(
      "name: 'c' op: 'Conv3D' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} "
      "attr {{ key: 'padding' value {{ s: '{}' }} }} {}{}",
      padding, List("strides", "i: 1 i: 1 i: 1 i: 1 i: 1"), extra);
}

TEST_CASE("Conv3D sums the window over depth, rows and columns", "[kernels]") {
  std::vector<float> f(16);
  for (int i = 0; i < 16; ++i) f[i] = i % 2 == 0 ? 1.0f : 2.0f;
  const Tensor filter = MakeTensor<float>({2, 2, 2, 1, 2}, f);
  auto valid = RunKernel(Conv3D("VALID"), {Cube(), filter});
  REQUIRE(valid.status.ok());
  CHECK(Flat(valid.out(0)) == "[1,1,1,1,2] 36 72");
  auto same = RunKernel(Conv3D("SAME"), {Cube(), filter});
  REQUIRE(same.status.ok());
  // SAME pads one cell after each dim: each output sums its corner block.
  CHECK(Flat(same.out(0)) ==
        "[1,2,2,2,2] 36 72 20 40 22 44 12 24 26 52 14 28 15 30 8 16");
}

TEST_CASE("Conv3D with strides and several input channels", "[kernels]") {
  std::vector<float> in(2 * 3 * 3 * 3 * 2);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 7);
  // A 1x1x1 filter picking channel 0 minus channel 1: output at stride 2
  // is in[c0] - in[c1] at voxels (0,0,0), (0,0,2), ... of each batch.
  const Tensor filter = MakeTensor<float>({1, 1, 1, 2, 1}, {1, -1});
  auto r = RunKernel(
      fmt::format(
          "name: 'c' op: 'Conv3D' attr {{ key: 'T' value {{ type: DT_FLOAT }} "
          "}} attr {{ key: 'padding' value {{ s: 'VALID' }} }} {}",
          List("strides", "i: 1 i: 2 i: 2 i: 2 i: 1")),
      {MakeTensor<float>({2, 3, 3, 3, 2}, in), filter});
  REQUIRE(r.status.ok());
  REQUIRE(r.out(0).shape() == TensorShape({2, 2, 2, 2, 1}));
  const auto out = r.out(0).flat<float>();
  int k = 0;
  for (int b = 0; b < 2; ++b) {
    for (int z = 0; z < 3; z += 2) {
      for (int y = 0; y < 3; y += 2) {
        for (int x = 0; x < 3; x += 2, ++k) {
          const int base = ((((b * 3 + z) * 3 + y) * 3) + x) * 2;
          CHECK(out[k] == in[base] - in[base + 1]);
        }
      }
    }
  }
}

TEST_CASE("Conv3D rejects dilations, grouped filters and bad ranks",
          "[kernels]") {
  const Tensor filter = MakeTensor<float>({1, 1, 1, 1, 1}, {1});
  auto dilated =
      RunKernel(Conv3D("VALID",
                       "attr { key: 'dilations' value { list { i: 1 i: 2 i: 1 "
                       "i: 1 i: 1 } } }"),
                {Cube(), filter});
  CHECK(dilated.status.code() == Code::kInvalidArgument);
  CHECK_THAT(dilated.status.message(),
             Catch::Matchers::Contains("only supports dilated rates of 1"));
  auto grouped = RunKernel(
      Conv3D("VALID"), {MakeTensor<float>({1, 1, 1, 1, 2}, {1, 2}), filter});
  CHECK_THAT(grouped.status.message(),
             Catch::Matchers::Contains("Number of channels in filter (1) must "
                                       "match last dimension of input (2)"));
  auto indivisible =
      RunKernel(Conv3D("VALID"), {MakeTensor<float>({1, 1, 1, 1, 3}, {1, 2, 3}),
                                  MakeTensor<float>({1, 1, 1, 2, 1}, {1, 1})});
  CHECK_THAT(indivisible.status.message(),
             Catch::Matchers::Contains("Input depth must be evenly divisible "
                                       "by filter depth: 3 vs 2"));
  auto rank =
      RunKernel(Conv3D("VALID"), {MakeTensor<float>({1, 2}, {1, 2}), filter});
  CHECK_THAT(rank.status.message(),
             Catch::Matchers::Contains("input must be 5-dimensional"));
  auto strides = RunKernel(
      fmt::format(
          "name: 'c' op: 'Conv3D' attr {{ key: 'T' value {{ type: DT_FLOAT }} "
          "}} attr {{ key: 'padding' value {{ s: 'VALID' }} }} {}",
          List("strides", "i: 2 i: 1 i: 1 i: 1 i: 1")),
      {Cube(), filter});
  CHECK_THAT(strides.status.message(),
             Catch::Matchers::Contains("strides in the batch and depth"));
}

std::string Pool(const char* op, const char* padding, const char* ksize) {
  return fmt::format(
      "name: 'p' op: '{}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} "
      "attr {{ key: 'padding' value {{ s: '{}' }} }} {}{}",
      op, padding, List("ksize", ksize),
      List("strides", "i: 1 i: 1 i: 1 i: 1 i: 1"));
}

TEST_CASE("MaxPool3D and AvgPool3D pool over in-bounds cells", "[kernels]") {
  const char* k2 = "i: 1 i: 2 i: 2 i: 2 i: 1";
  auto max_valid = RunKernel(Pool("MaxPool3D", "VALID", k2), {Cube()});
  REQUIRE(max_valid.status.ok());
  CHECK(Flat(max_valid.out(0)) == "[1,1,1,1,1] 8");
  auto avg_valid = RunKernel(Pool("AvgPool3D", "VALID", k2), {Cube()});
  REQUIRE(avg_valid.status.ok());
  CHECK(Flat(avg_valid.out(0)) == "[1,1,1,1,1] 4.5");
  auto avg_same = RunKernel(Pool("AvgPool3D", "SAME", k2), {Cube()});
  REQUIRE(avg_same.status.ok());
  CHECK(Flat(avg_same.out(0)) == "[1,2,2,2,1] 4.5 5 5.5 6 6.5 7 7.5 8");
  auto max_same =
      RunKernel(Pool("MaxPool3D", "SAME", k2),
                {MakeTensor<float>({1, 2, 2, 2, 1}, {8, 7, 6, 5, 4, 3, 2, 1})});
  REQUIRE(max_same.status.ok());
  CHECK(Flat(max_same.out(0)) == "[1,2,2,2,1] 8 7 6 5 4 3 2 1");
}

TEST_CASE("Pool3D rejects pooling over batch or depth", "[kernels]") {
  auto batch = RunKernel(Pool("MaxPool3D", "VALID", "i: 2 i: 1 i: 1 i: 1 i: 1"),
                         {Cube()});
  CHECK(batch.status.code() == Code::kUnimplemented);
  CHECK_THAT(batch.status.message(),
             Catch::Matchers::Contains("not yet supported on the batch"));
  auto rank = RunKernel(Pool("AvgPool3D", "VALID", "i: 1 i: 1 i: 1 i: 1 i: 1"),
                        {MakeTensor<float>({2}, {1, 2})});
  CHECK_THAT(rank.status.message(),
             Catch::Matchers::Contains("tensor_in must be 5-dimensional"));
}

}  // namespace
}  // namespace dfg
