// ExtractVolumePatches and ExtractGlimpseV2 on tiny inputs: patches of a
// 1x1x2x2 volume holding 1..4, and a zero-padded glimpse off a 2x2 image.
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

TEST_CASE("ExtractVolumePatches flattens each window, zeros outside",
          "[kernels]") {
  auto r = RunKernel(
      "name: 'p' op: 'ExtractVolumePatches' attr { key: 'T' value { type: "
      "DT_FLOAT } } attr { key: 'padding' value { s: 'SAME' } } "
      "attr { key: 'ksizes' value { list { i: 1 i: 1 i: 2 i: 2 i: 1 } } } "
      "attr { key: 'strides' value { list { i: 1 i: 1 i: 2 i: 1 i: 1 } } }",
      {MakeTensor<float>({1, 1, 2, 2, 1}, {1, 2, 3, 4})});
  REQUIRE(r.status.ok());
  // SAME pads one row below and one column right of the 2x2 image.
  CHECK(Flat<float>(r.out(0)) == "[1,1,1,2,4] 1 2 3 4 2 0 4 0");
}

TEST_CASE("ExtractGlimpseV2 pads a glimpse off the image with zeros",
          "[kernels]") {
  auto r = RunKernel(
      "name: 'g' op: 'ExtractGlimpseV2' "
      "attr { key: 'centered' value { b: false } } "
      "attr { key: 'normalized' value { b: false } } "
      "attr { key: 'uniform_noise' value { b: false } } "
      "attr { key: 'noise' value { s: 'zero' } }",
      {MakeTensor<float>({1, 2, 2, 1}, {1, 2, 3, 4}),
       MakeTensor<int32_t>({2}, {2, 2}),
       MakeTensor<float>({1, 2}, {1.0f, -1.0f})});
  REQUIRE(r.status.ok());
  // Rows 1..2, columns -1..0: only (1, 0) = 3 is inside.
  CHECK(Flat<float>(r.out(0)) == "[1,2,2,1] 0 3 0 0");
}

}  // namespace
}  // namespace dfg
