// PNG and JPEG round trips, ImageProjectiveTransform and the V1 NMS.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

TEST_CASE("EncodePng then DecodePng gives the image back", "[kernels]") {
  std::vector<uint8_t> pixels(4 * 3 * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = i * 7;
  const Tensor image = MakeTensor<uint8_t>({4, 3, 3}, pixels);
  auto enc = RunKernel("name: 'e' op: 'EncodePng'", {image});
  REQUIRE(enc.status.ok());
  auto dec = RunKernel("name: 'd' op: 'DecodePng'", {enc.out(0)});
  REQUIRE(dec.status.ok());
  CHECK(Flat<uint8_t>(dec.out(0)) == Flat<uint8_t>(image));
  auto bad = RunKernel("name: 'd' op: 'DecodePng'",
                       {Tensor::Scalar<std::string>("GIF89a...")});
  CHECK_THAT(bad.status.message(), Catch::Matchers::Contains("GIF"));
}

TEST_CASE("EncodeJpeg output has the shape ExtractJpegShape reads",
          "[kernels]") {
  const Tensor image =
      MakeTensor<uint8_t>({5, 7, 1}, std::vector<uint8_t>(35, 128));
  auto enc = RunKernel("name: 'e' op: 'EncodeJpeg'", {image});
  REQUIRE(enc.status.ok());
  auto shape = RunKernel("name: 's' op: 'ExtractJpegShape'", {enc.out(0)});
  REQUIRE(shape.status.ok());
  CHECK(Flat<int32_t>(shape.out(0)) == "[3] 5 7 1");
  // A flat grey survives JPEG exactly.
  auto dec = RunKernel("name: 'd' op: 'DecodeJpeg'", {enc.out(0)});
  REQUIRE(dec.status.ok());
  CHECK(dec.out(0).flat<uint8_t>()[17] == 128);
}

TEST_CASE("ImageProjectiveTransformV3 shifts with the fill value",
          "[kernels]") {
  // Output x reads input x + 1; the last column falls outside.
  auto t = RunKernel(
      "name: 't' op: 'ImageProjectiveTransformV3' attr { key: 'dtype' value "
      "{ type: DT_FLOAT } } attr { key: 'interpolation' value { s: 'NEAREST' "
      "} }",
      {MakeTensor<float>({1, 1, 3, 1}, {1, 2, 3}),
       MakeTensor<float>({1, 8}, {1, 0, 1, 0, 1, 0, 0, 0}),
       MakeTensor<int32_t>({2}, {1, 3}), Tensor::Scalar<float>(9)});
  REQUIRE(t.status.ok());
  CHECK(Flat<float>(t.out(0)) == "[1,1,3,1] 2 3 9");
}

TEST_CASE("NonMaxSuppression drops boxes over the IoU threshold", "[kernels]") {
  // Boxes 0 and 1 overlap with IoU 0.81; box 2 is apart.
  auto nms = RunKernel(
      "name: 'n' op: 'NonMaxSuppression' attr { key: 'iou_threshold' value { "
      "f: 0.5 } }",
      {MakeTensor<float>({3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.0f, 2, 2, 3, 3}),
       MakeTensor<float>({3}, {0.9f, 0.95f, 0.5f}),
       Tensor::Scalar<int32_t>(3)});
  REQUIRE(nms.status.ok());
  CHECK(Flat<int32_t>(nms.out(0)) == "[2] 1 2");
}

}  // namespace
}  // namespace dfg
