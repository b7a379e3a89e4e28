// DecodeWav, EncodeWav, AudioSpectrogram and Mfcc on hand-checked values.
#include <cmath>
#include <string>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::MakeTensor;
using testing::RunKernel;

TEST_CASE("EncodeWav and DecodeWav round-trip 16-bit PCM", "[kernels]") {
  auto enc = RunKernel("name: 'e' op: 'EncodeWav'",
                       {MakeTensor<float>({3, 1}, {0.5f, -1.0f, 2.0f}),
                        Tensor::Scalar<int32_t>(8000)});
  REQUIRE(enc.status.ok());
  const std::string& wav = enc.out(0).scalar<std::string>();
  REQUIRE(wav.size() == 44 + 6);
  CHECK(wav.substr(0, 4) == "RIFF");
  CHECK(static_cast<uint8_t>(wav[44]) == 0x00);  // 0.5 -> 16384 = 0x4000
  CHECK(static_cast<uint8_t>(wav[45]) == 0x40);
  auto dec = RunKernel(
      "name: 'd' op: 'DecodeWav' attr { key: 'desired_channels' value { i: 2 "
      "} } attr { key: 'desired_samples' value { i: 4 } }",
      {enc.out(0)});
  REQUIRE(dec.status.ok());
  // Clipped to 32767/32768; the mono channel repeated; padded with zeros.
  CHECK(testing::Flat<float>(dec.out(0)) ==
        "[4,2] 0.5 0.5 -1 -1 0.9999695 0.9999695 0 0");
  CHECK(dec.out(1).scalar<int32_t>() == 8000);
  auto bad = RunKernel("name: 'd' op: 'DecodeWav'",
                       {Tensor::Scalar<std::string>("RIFX")});
  CHECK_THAT(bad.status.message(), Contains("Header mismatch"));
}

TEST_CASE("AudioSpectrogram of a constant is its DC bin", "[kernels]") {
  // Hann window of 4 (periodic): 0, 0.5, 1, 0.5; its sum 2 is the DC value,
  // bin 1 is -0.5 - 0.5i... |X1| = 1, bin 2 is 0.
  auto run = RunKernel(
      "name: 's' op: 'AudioSpectrogram' attr { key: 'window_size' value { i: "
      "4 } } attr { key: 'stride' value { i: 2 } }",
      {MakeTensor<float>({6, 1}, {1, 1, 1, 1, 1, 1})});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).shape().DebugString() == "[1,2,3]");
  auto o = run.out(0).flat<float>();
  CHECK(o[0] == Approx(2));
  CHECK(o[1] == Approx(1));
  CHECK(o[2] == Approx(0).margin(1e-6));
}

TEST_CASE("Mfcc gives dct_coefficient_count values per frame", "[kernels]") {
  Tensor spec(tensorflow::DT_FLOAT, TensorShape({1, 1, 257}));
  for (float& v : spec.flat<float>()) v = 1;
  auto run = RunKernel(
      "name: 'm' op: 'Mfcc' attr { key: 'filterbank_channel_count' value { "
      "i: 4 } } attr { key: 'dct_coefficient_count' value { i: 2 } }",
      {spec, Tensor::Scalar<int32_t>(16000)});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).shape().DebugString() == "[1,1,2]");
  CHECK(std::isfinite(run.out(0).flat<float>()[0]));
  auto bad =
      RunKernel("name: 'm' op: 'Mfcc'", {spec, Tensor::Scalar<int32_t>(0)});
  CHECK_THAT(bad.status.message(), Contains("Mfcc initialization failed"));
}

}  // namespace
}  // namespace dfg
