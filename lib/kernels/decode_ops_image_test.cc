// DecodeGif and EncodeJpegVariableQuality.
#include <string>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::RunKernel;

TEST_CASE("DecodeGif gives frames x height x width x 3", "[kernels]") {
  // One red pixel: global palette {ff0000, 000000}, LZW codes clear, 0, end.
  const std::string gif(
      "GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00\x00\x00\x00"
      ",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00;",
      35);
  auto run = RunKernel("name: 'g' op: 'DecodeGif'",
                       {Tensor::Scalar<std::string>(gif)});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<uint8_t>(run.out(0)) == "[1,1,1,3] 255 0 0");
  auto bad = RunKernel("name: 'g' op: 'DecodeGif'",
                       {Tensor::Scalar<std::string>(gif.substr(0, 20))});
  CHECK_THAT(bad.status.message(), Contains("Invalid GIF data (size 20)"));
}

TEST_CASE("DecodeWebP gives one RGB frame", "[kernels]") {
  // A lossless 5x3 RGB image; its first pixel is (0, 255, 0).
  const std::string webp(
      "\x52\x49\x46\x46\x3a\x00\x00\x00\x57\x45\x42\x50\x56\x50\x38\x4c"
      "\x2d\x00\x00\x00\x2f\x04\x80\x00\x00\x77\x20\x24\x48\xfe\x2f\x26"
      "\x1a\xbd\x30\x11\x53\x33\xff\x19\x6d\xa0\xa0\x91\xa4\xe6\x7b\xa1"
      "\x6b\xc1\x13\x5a\xf0\x84\x16\x84\x45\xf4\x3f\xd6\x96\x73\xf3\xfd"
      "\x01\x00",
      66);
  auto run = RunKernel("name: 'w' op: 'DecodeWebP'",
                       {Tensor::Scalar<std::string>(webp)});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).shape().DebugString() == "[1,3,5,3]");
  auto p = run.out(0).flat<uint8_t>();
  CHECK((p[0] == 0 && p[1] == 255 && p[2] == 0));
  auto four = RunKernel(
      "name: 'w' op: 'DecodeWebP' attr { key: 'channels' value { i: 4 } }",
      {Tensor::Scalar<std::string>(webp)});
  CHECK_THAT(four.status.message(), Contains("Number of channels requested"));
}

TEST_CASE("DecodeJxl decodes a lossless grayscale image", "[kernels]") {
  // 6x2, pixel i = (i * 37 + 11) mod 256, written by libjxl losslessly.
  const std::string jxl(
      "\xff\x0a\x08\x00\x0a\x80\xa0\xb8\x11\x08\x02\x01\x00\x60\x00\x4b"
      "\x18\x8b\x15\x52\x5c\x15\x71\x63\xed\xf4\x83\x74\x17\xb2\x4e\x13"
      "\x11\xd1\x95\x17\xd9\xcd\x00",
      39);
  auto run = RunKernel("name: 'j' op: 'DecodeJxl'",
                       {Tensor::Scalar<std::string>(jxl)});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<uint8_t>(run.out(0)) ==
        "[2,6,1] 11 48 85 122 159 196 233 14 51 88 125 162");
  auto bad = RunKernel("name: 'j' op: 'DecodeJxl'",
                       {Tensor::Scalar<std::string>(jxl.substr(0, 2))});
  CHECK_THAT(bad.status.message(), Contains("Failed to decode JXL header"));
}

TEST_CASE("EncodeJpegVariableQuality checks the quality", "[kernels]") {
  Tensor image(tensorflow::DT_UINT8, TensorShape({4, 4, 3}));
  for (uint8_t& v : image.flat<uint8_t>()) v = 128;
  const char* node = "name: 'e' op: 'EncodeJpegVariableQuality'";
  auto run = RunKernel(node, {image, Tensor::Scalar<int32_t>(80)});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).scalar<std::string>().substr(0, 3) == "\xff\xd8\xff");
  auto bad = RunKernel(node, {image, Tensor::Scalar<int32_t>(-1)});
  CHECK_THAT(bad.status.message(), Contains("quality must be in [0,100]"));
}

}  // namespace
}  // namespace dfg
