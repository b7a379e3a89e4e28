// ResizeArea, ScaleAndTranslate(+Grad) and the resize gradients, on values
// worked out by hand.
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const std::string& op, const std::string& attrs = "") {
  return fmt::format(
      "name: 'n' op: '{}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} {}",
      op, attrs);
}

TEST_CASE("ResizeArea averages the covered pixels by covered area",
          "[kernels]") {
  const Tensor ramp = MakeTensor<float>({1, 1, 4, 1}, {0, 1, 2, 3});
  auto half =
      RunKernel(Node("ResizeArea"), {ramp, MakeTensor<int32_t>({2}, {1, 2})});
  REQUIRE(half.status.ok());
  CHECK(Flat<float>(half.out(0)) == "[1,1,2,1] 0.5 2.5");
  // 4 -> 3: each output covers 4/3 pixels, e.g. out[0] = (in0 + in1 / 3) *
  // 3/4 = 0.25.
  auto thirds =
      RunKernel(Node("ResizeArea"), {ramp, MakeTensor<int32_t>({2}, {1, 3})});
  REQUIRE(thirds.status.ok());
  const auto t = thirds.out(0).flat<float>();
  CHECK(t[0] == Approx(0.25));
  CHECK(t[1] == Approx(1.5));
  CHECK(t[2] == Approx(2.75));
}

TEST_CASE("ScaleAndTranslate samples with the named kernel", "[kernels]") {
  // Triangle, 2x up: samples at 0.25, 0.75, 1.25, 1.75 between pixel
  // centers 0.5 (value 0) and 1.5 (value 1).
  auto tri = RunKernel(
      Node("ScaleAndTranslate",
           "attr { key: 'kernel_type' value { s: 'triangle' } }"),
      {MakeTensor<float>({1, 1, 2, 1}, {0, 1}),
       MakeTensor<int32_t>({2}, {1, 4}), MakeTensor<float>({2}, {1, 2}),
       MakeTensor<float>({2}, {0, 0})});
  REQUIRE(tri.status.ok());
  CHECK(Flat<float>(tri.out(0)) == "[1,1,4,1] 0 0.25 0.75 1");
  auto bad = RunKernel(Node("ScaleAndTranslate",
                            "attr { key: 'kernel_type' value { s: 'cubic' } }"),
                       {});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("Unrecognized kernel type: cubic"));
}

TEST_CASE("ScaleAndTranslateGrad sends each gradient back along its weights",
          "[kernels]") {
  auto g = RunKernel(
      Node("ScaleAndTranslateGrad",
           "attr { key: 'kernel_type' value { s: 'triangle' } }"),
      {MakeTensor<float>({1, 1, 4, 1}, {1, 1, 1, 1}),
       MakeTensor<float>({1, 1, 2, 1}, {0, 0}), MakeTensor<float>({2}, {1, 2}),
       MakeTensor<float>({2}, {0, 0})});
  REQUIRE(g.status.ok());
  // Pixel 0 fed the samples with weights 1, 0.75, 0.25, 0.
  CHECK(Flat<float>(g.out(0)) == "[1,1,2,1] 2 2");
}

TEST_CASE("resize gradients scatter onto the pixels the forward op read",
          "[kernels]") {
  // Bilinear, 2 -> 4 legacy: samples 0, 0.5, 1, 1.5 (the last clamped).
  auto bl = RunKernel(Node("ResizeBilinearGrad"),
                      {MakeTensor<float>({1, 1, 4, 1}, {1, 1, 1, 1}),
                       MakeTensor<float>({1, 1, 2, 1}, {0, 0})});
  REQUIRE(bl.status.ok());
  CHECK(Flat<float>(bl.out(0)) == "[1,1,2,1] 1.5 2.5");
  // Nearest, 4 -> 2: gradient pixels 0,1 came from 0; 2,3 from 1.
  auto nn = RunKernel(
      "name: 'n' op: 'ResizeNearestNeighborGrad' attr { key: 'T' value { "
      "type: DT_INT32 } }",
      {MakeTensor<int32_t>({1, 1, 4, 1}, {1, 2, 3, 4}),
       MakeTensor<int32_t>({2}, {1, 2})});
  REQUIRE(nn.status.ok());
  CHECK(Flat<int32_t>(nn.out(0)) == "[1,1,2,1] 3 7");
  // Bicubic weights sum to one: the total gradient is kept.
  auto bc = RunKernel(Node("ResizeBicubicGrad"),
                      {MakeTensor<float>({1, 1, 3, 1}, {1, 1, 1}),
                       MakeTensor<float>({1, 1, 2, 1}, {0, 0})});
  REQUIRE(bc.status.ok());
  const auto b = bc.out(0).flat<float>();
  CHECK(b[0] + b[1] == Approx(3.0));
  auto both = RunKernel(
      Node("ResizeBilinearGrad",
           "attr { key: 'align_corners' value { b: true } } attr { key: "
           "'half_pixel_centers' value { b: true } }"),
      {MakeTensor<float>({1, 1, 1, 1}, {1}),
       MakeTensor<float>({1, 1, 1, 1}, {0})});
  CHECK_THAT(both.status.message(),
             Catch::Matchers::Contains("align_corners must be False"));
}

}  // namespace
}  // namespace dfg
