// ResizeBicubic, CropAndResize and ExtractImagePatches. Expected values are
// hand-computed (the bicubic weights from the cubic-convolution kernel).
#include <fmt/format.h>

#include <cmath>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

std::string Bicubic(bool half_pixel) {
  return fmt::format(
      "name: 'r' op: 'ResizeBicubic' attr {{ key: 'T' value {{ type: DT_FLOAT "
      "}} }} attr {{ key: 'half_pixel_centers' value {{ b: {} }} }}",
      half_pixel);
}

TEST_CASE("ResizeBicubic uses the legacy and the Keys cubic kernels",
          "[kernels]") {
  const Tensor ramp = MakeTensor<float>({1, 1, 4, 1}, {0, 1, 2, 3});
  const Tensor size = MakeTensor<int32_t>({2}, {1, 8});
  // Legacy, a = -0.75: x = 1 samples 0.5 with weights (-0.09375, 0.59375,
  // 0.59375, -0.09375) on pixels (0, 0, 1, 2).
  auto legacy = RunKernel(Bicubic(false), {ramp, size});
  REQUIRE(legacy.status.ok());
  CHECK(legacy.out(0).flat<float>()[0] == 0.0f);
  CHECK(legacy.out(0).flat<float>()[1] == 0.40625f);
  // Half-pixel, a = -0.5: x = 0 samples -0.25; only pixels 0 and 1 are
  // inside, weights 0.8671875 and -0.0703125 renormalized.
  auto keys = RunKernel(Bicubic(true), {ramp, size});
  REQUIRE(keys.status.ok());
  const auto k = keys.out(0).flat<float>();
  CHECK(std::abs(k[0] - (-0.0703125 / 0.796875)) < 1e-6);
  CHECK(std::abs(k[1] - (0.2265625 - 2 * 0.0234375) / 1.0703125) < 1e-6);
  auto same =
      RunKernel(Bicubic(false), {ramp, MakeTensor<int32_t>({2}, {1, 4})});
  REQUIRE(same.status.ok());
  CHECK(Flat<float>(same.out(0)) == "[1,1,4,1] 0 1 2 3");
}

TEST_CASE("ResizeBicubic checks its inputs", "[kernels]") {
  auto both = RunKernel(
      "name: 'r' op: 'ResizeBicubic' attr { key: 'T' value { type: DT_FLOAT } "
      "} attr { key: 'half_pixel_centers' value { b: true } } attr { key: "
      "'align_corners' value { b: true } }",
      {MakeTensor<float>({1, 1, 1, 1}, {1}), MakeTensor<int32_t>({2}, {1, 1})});
  CHECK_THAT(both.status.message(),
             Catch::Matchers::Contains("align_corners must be False"));
  auto zero = RunKernel(Bicubic(false), {MakeTensor<float>({1, 1, 1, 1}, {1}),
                                         MakeTensor<int32_t>({2}, {0, 1})});
  CHECK_THAT(zero.status.message(),
             Catch::Matchers::Contains("output dimensions must be positive"));
}

std::string Crop(const char* method, float extrapolation = 0) {
  return fmt::format(
      "name: 'c' op: 'CropAndResize' attr {{ key: 'T' value {{ type: DT_FLOAT "
      "}} }} attr {{ key: 'method' value {{ s: '{}' }} }} attr {{ key: "
      "'extrapolation_value' value {{ f: {} }} }}",
      method, extrapolation);
}

Tensor Image3x3() {
  return MakeTensor<float>({1, 3, 3, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
}

TEST_CASE("CropAndResize samples boxes bilinearly or nearest", "[kernels]") {
  const Tensor boxes = MakeTensor<float>(
      {3, 4}, {0, 0, 1, 1, 0, 0, 0.25f, 0.25f, 0.25f, 0.25f, 0.75f, 0.75f});
  const Tensor index = MakeTensor<int32_t>({3}, {0, 0, 0});
  auto bilinear =
      RunKernel(Crop("bilinear"),
                {Image3x3(), boxes, index, MakeTensor<int32_t>({2}, {2, 2})});
  REQUIRE(bilinear.status.ok());
  CHECK(Flat<float>(bilinear.out(0)) ==
        "[3,2,2,1] 0 2 6 8 0 0.5 1.5 2 2 3 5 6");
  auto nearest = RunKernel(Crop("nearest"), {Image3x3(), boxes, index,
                                             MakeTensor<int32_t>({2}, {2, 2})});
  REQUIRE(nearest.status.ok());
  CHECK(Flat<float>(nearest.out(0)) == "[3,2,2,1] 0 2 6 8 0 1 3 4 4 5 7 8");
  auto center = RunKernel(Crop("bilinear"), {Image3x3(), boxes, index,
                                             MakeTensor<int32_t>({2}, {1, 1})});
  REQUIRE(center.status.ok());
  CHECK(Flat<float>(center.out(0)) == "[3,1,1,1] 4 1 4");
  auto outside = RunKernel(
      Crop("bilinear", 7),
      {Image3x3(), MakeTensor<float>({1, 4}, {-1, -1, 0, 0}),
       MakeTensor<int32_t>({1}, {0}), MakeTensor<int32_t>({2}, {2, 2})});
  REQUIRE(outside.status.ok());
  CHECK(Flat<float>(outside.out(0)) == "[1,2,2,1] 7 7 7 0");
}

TEST_CASE("CropAndResize rejects bad box indices and sizes", "[kernels]") {
  const Tensor box = MakeTensor<float>({1, 4}, {0, 0, 1, 1});
  auto index = RunKernel(Crop("bilinear"),
                         {Image3x3(), box, MakeTensor<int32_t>({1}, {1}),
                          MakeTensor<int32_t>({2}, {2, 2})});
  CHECK(index.status.code() == Code::kOutOfRange);
  CHECK_THAT(index.status.message(),
             Catch::Matchers::Contains("box_index has values outside"));
  auto size = RunKernel(Crop("bilinear"),
                        {Image3x3(), box, MakeTensor<int32_t>({1}, {0}),
                         MakeTensor<int32_t>({2}, {0, 2})});
  CHECK_THAT(size.status.message(),
             Catch::Matchers::Contains("crop dimensions must be positive"));
  auto nan = RunKernel(
      Crop("bilinear"),
      {Image3x3(), MakeTensor<float>({1, 4}, {0, 0, NAN, 1}),
       MakeTensor<int32_t>({1}, {0}), MakeTensor<int32_t>({2}, {2, 2})});
  CHECK_THAT(nan.status.message(), Catch::Matchers::Contains("not finite"));
}

std::string Patches(const char* ksizes, const char* strides, const char* rates,
                    const char* padding) {
  auto list = [](const char* name, const char* v) {
    return fmt::format("attr {{ key: '{}' value {{ list {{ {} }} }} }} ", name,
                       v);
  };
  return fmt::format(
      "name: 'p' op: 'ExtractImagePatches' attr {{ key: 'T' value {{ type: "
      "DT_FLOAT }} }} attr {{ key: 'padding' value {{ s: '{}' }} }} {}{}{}",
      padding, list("ksizes", ksizes), list("strides", strides),
      list("rates", rates));
}

TEST_CASE("ExtractImagePatches gathers dilated, strided patches", "[kernels]") {
  const char* k2 = "i: 1 i: 2 i: 2 i: 1";
  const char* one = "i: 1 i: 1 i: 1 i: 1";
  auto valid = RunKernel(Patches(k2, one, one, "VALID"), {Image3x3()});
  REQUIRE(valid.status.ok());
  CHECK(Flat<float>(valid.out(0)) ==
        "[1,2,2,4] 0 1 3 4 1 2 4 5 3 4 6 7 4 5 7 8");
  auto dilated =
      RunKernel(Patches(k2, one, "i: 1 i: 2 i: 2 i: 1", "VALID"), {Image3x3()});
  REQUIRE(dilated.status.ok());
  CHECK(Flat<float>(dilated.out(0)) == "[1,1,1,4] 0 2 6 8");
  auto same =
      RunKernel(Patches(k2, "i: 1 i: 2 i: 2 i: 1", one, "SAME"), {Image3x3()});
  REQUIRE(same.status.ok());
  CHECK(Flat<float>(same.out(0)) ==
        "[1,2,2,4] 0 1 3 4 2 0 5 0 6 7 0 0 8 0 0 0");
  auto batch = RunKernel(Patches("i: 2 i: 1 i: 1 i: 1", one, one, "VALID"),
                         {Image3x3()});
  CHECK(batch.status.code() == Code::kUnimplemented);
  CHECK_THAT(batch.status.message(),
             Catch::Matchers::Contains("Only supportksizesacross space."));
}

}  // namespace
}  // namespace dfg
