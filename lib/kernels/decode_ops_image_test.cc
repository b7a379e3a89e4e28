// DecodeGif and EncodeJpegVariableQuality.
#include <string>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::RunKernel;

TEST_CASE("DecodeGif gives [frames, height, width, 3]", "[kernels]") {
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
