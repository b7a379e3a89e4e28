// Colour-space conversions, hue/saturation/contrast adjustment and box
// drawing on values worked out by hand.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

constexpr const char* kFloat = "attr { key: 'T' value { type: DT_FLOAT } }";

std::string Node(const std::string& op) {
  return "name: 'n' op: '" + op + "' " + kFloat;
}

TEST_CASE("RGBToHSV and HSVToRGB convert primaries and back", "[kernels]") {
  // Red, green, blue at full value; a grey has hue and saturation 0.
  const Tensor rgb =
      MakeTensor<float>({4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0.5, 0.5});
  auto hsv = RunKernel(Node("RGBToHSV"), {rgb});
  REQUIRE(hsv.status.ok());
  const auto h = hsv.out(0).flat<float>();
  CHECK(h[0] == 0.0f);
  CHECK(h[3] == Approx(1.0 / 3));
  CHECK(h[6] == Approx(2.0 / 3));
  CHECK(h[9] == 0.0f);
  CHECK(h[10] == 0.0f);
  auto back = RunKernel(Node("HSVToRGB"), {hsv.out(0)});
  REQUIRE(back.status.ok());
  const auto b = back.out(0).flat<float>();
  for (int i = 0; i < 12; ++i) CHECK(b[i] == Approx(rgb.flat<float>()[i]));
  auto two = RunKernel(Node("RGBToHSV"), {MakeTensor<float>({1, 2}, {0, 0})});
  CHECK_THAT(two.status.message(),
             Catch::Matchers::Contains("must have 3 channels"));
}

TEST_CASE("AdjustHue rotates and AdjustSaturation scales", "[kernels]") {
  const Tensor red = MakeTensor<float>({1, 1, 3}, {1, 0, 0});
  // A third of a turn takes red to green.
  auto hue =
      RunKernel(Node("AdjustHue"), {red, Tensor::Scalar<float>(1.0f / 3)});
  REQUIRE(hue.status.ok());
  CHECK(hue.out(0).flat<float>()[1] == Approx(1.0));
  CHECK(hue.out(0).flat<float>()[0] == Approx(0.0).margin(1e-6));
  // Saturation 0 gives the grey of the value.
  auto sat = RunKernel(Node("AdjustSaturation"),
                       {MakeTensor<float>({1, 1, 3}, {0.8f, 0.4f, 0.2f}),
                        Tensor::Scalar<float>(0.0f)});
  REQUIRE(sat.status.ok());
  CHECK(Flat<float>(sat.out(0)) == "[1,1,3] 0.8 0.8 0.8");
}

TEST_CASE("AdjustContrastv2 scales each channel around its image mean",
          "[kernels]") {
  auto c = RunKernel(
      Node("AdjustContrastv2"),
      {MakeTensor<float>({2, 1, 1}, {1, 3}), Tensor::Scalar<float>(2.0f)});
  REQUIRE(c.status.ok());
  CHECK(Flat<float>(c.out(0)) == "[2,1,1] 0 4");
}

TEST_CASE("DrawBoundingBoxes paints the box outline", "[kernels]") {
  auto d = RunKernel(Node("DrawBoundingBoxes"),
                     {MakeTensor<float>({1, 3, 3, 1}, std::vector<float>(9, 0)),
                      MakeTensor<float>({1, 1, 4}, {0, 0, 1, 1})});
  REQUIRE(d.status.ok());
  // Grey images take the first colour's first channel (1); the centre
  // pixel stays.
  CHECK(Flat<float>(d.out(0)) == "[1,3,3,1] 1 1 1 1 0 1 1 1 1");
}

}  // namespace
}  // namespace dfg
