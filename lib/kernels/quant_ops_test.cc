// The quantization kernels of quant_ops_*.cc on hand-computed values:
// fake-quant nudging, QuantizeAndDequantize scaling and rounding, and the
// fixed-point requantization of qint32 to quint8.
#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::RunKernel;

std::string Floats(const Tensor& t) {
  std::string s = t.shape().DebugString();
  for (float v : t.flat<float>()) s += fmt::format(" {}", v);
  return s;
}

Tensor F(std::vector<float> v) {
  return MakeTensor<float>({static_cast<int64_t>(v.size())}, v);
}

Tensor Q32(std::vector<int32_t> v) {
  Tensor t(tensorflow::DT_QINT32,
           TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<QInt32>()[i].value = v[i];
  return t;
}

std::string Node(const char* op, const std::string& attrs = "") {
  return fmt::format("name: 'n' op: '{}' {}", op, attrs);
}

TEST_CASE("FakeQuant rounds to the nudged levels and clamps", "[kernels]") {
  // [0, 2.55] in 255 steps of 0.01: zero is already a level.
  const std::string range =
      "attr { key: 'min' value { f: 0 } } attr { key: 'max' value { f: 2.55 } "
      "}";
  auto args = RunKernel(Node("FakeQuantWithMinMaxArgs", range),
                        {F({-1.0f, 0.014f, 0.026f, 3.0f})});
  REQUIRE(args.status.ok());
  CHECK(Floats(args.out(0)) == "[4] 0 0.01 0.03 2.55");
  auto grad = RunKernel(Node("FakeQuantWithMinMaxArgsGradient", range),
                        {F({1, 2, 3}), F({-1.0f, 1.0f, 3.0f})});
  REQUIRE(grad.status.ok());
  CHECK(Floats(grad.out(0)) == "[3] 0 2 0");
  // The Vars gradient also sums what falls below min / above max.
  auto vars = RunKernel(Node("FakeQuantWithMinMaxVarsGradient"),
                        {F({1, 2, 3}), F({-1.0f, 1.0f, 3.0f}),
                         Tensor::Scalar(0.0f), Tensor::Scalar(2.55f)});
  REQUIRE(vars.status.ok());
  CHECK(Floats(vars.out(1)) == "[] 1");
  CHECK(Floats(vars.out(2)) == "[] 3");
}

TEST_CASE(
    "FakeQuantWithMinMaxVarsPerChannel: a channel whose range is 0..0 is zero",
    "[kernels]") {
  auto r = RunKernel(Node("FakeQuantWithMinMaxVarsPerChannel"),
                     {MakeTensor<float>({2, 2}, {0.014f, 5, -1, 1}), F({0, 0}),
                      F({2.55f, 0})});
  REQUIRE(r.status.ok());
  CHECK(Floats(r.out(0)) == "[2,2] 0.01 0 0 0");
  auto bad = RunKernel(Node("FakeQuantWithMinMaxVarsPerChannel"),
                       {MakeTensor<float>({1, 2}, {0, 0}), F({0}), F({1, 1})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("min has incorrect size, expected 2"));
}

TEST_CASE("QuantizeAndDequantizeV2 scales by the side that fills the range",
          "[kernels]") {
  // [-1, 1] signed 8 bits: the max side gives scale 127; -63.5 rounds to
  // -64 half to even and to -63 half up.
  const std::string t = "attr { key: 'T' value { type: DT_FLOAT } }";
  auto even = RunKernel(
      Node("QuantizeAndDequantizeV2", t),
      {F({-1, -0.5f, 1}), Tensor::Scalar(0.0f), Tensor::Scalar(0.0f)});
  REQUIRE(even.status.ok());
  CHECK(Floats(even.out(0)) ==
        fmt::format("[3] -1 {} 1", -64.0f * (1.0f / 127.0f)));
  auto up = RunKernel(
      Node("QuantizeAndDequantizeV2",
           t + " attr { key: 'round_mode' value { s: 'HALF_UP' } }"),
      {F({-1, -0.5f, 1}), Tensor::Scalar(0.0f), Tensor::Scalar(0.0f)});
  REQUIRE(up.status.ok());
  CHECK(Floats(up.out(0)) ==
        fmt::format("[3] -1 {} 1", -63.0f * (1.0f / 127.0f)));
  auto bad =
      RunKernel(Node("QuantizeAndDequantizeV2",
                     t + " attr { key: 'range_given' value { b: true } }"),
                {F({1}), Tensor::Scalar(1.0f), Tensor::Scalar(0.0f)});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("Invalid range: input_min 1 > "
                                       "input_max 0"));
}

TEST_CASE("Requantize qint32 to quint8 in 16.16 fixed point", "[kernels]") {
  // [-1, 1] onto [-1, 1]: 0 is level 128, the extremes saturate.
  auto r = RunKernel(Node("Requantize",
                          "attr { key: 'Tinput' value { type: DT_QINT32 } } "
                          "attr { key: 'out_type' value { type: DT_QUINT8 } }"),
                     {Q32({0, std::numeric_limits<int32_t>::max(),
                           std::numeric_limits<int32_t>::min()}),
                      Tensor::Scalar(-1.0f), Tensor::Scalar(1.0f),
                      Tensor::Scalar(-1.0f), Tensor::Scalar(1.0f)});
  REQUIRE(r.status.ok());
  const auto out = r.out(0).flat<QUInt8>();
  CHECK(int{out[0].value} == 128);
  CHECK(int{out[1].value} == 255);
  CHECK(int{out[2].value} == 0);
  auto bad =
      RunKernel(Node("Requantize",
                     "attr { key: 'Tinput' value { type: DT_QINT32 } } "
                     "attr { key: 'out_type' value { type: DT_QUINT8 } }"),
                {Q32({0}), Tensor::Scalar(-1.0f), Tensor::Scalar(1.0f),
                 Tensor::Scalar(1.0f), Tensor::Scalar(2.0f)});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("requested_output_min must be <= 0"));
}

TEST_CASE("RequantizationRange finds the float range in use", "[kernels]") {
  // Over [-1, 1] a qint32 step is 2 / (2^32 - 1): -2^30 is about -0.5.
  auto r = RunKernel(Node("RequantizationRange",
                          "attr { key: 'Tinput' value { type: DT_QINT32 } }"),
                     {Q32({-(1 << 30), 1 << 29}), Tensor::Scalar(-1.0f),
                      Tensor::Scalar(1.0f)});
  REQUIRE(r.status.ok());
  CHECK(r.out(0).flat<float>()[0] == Approx(-0.5f).margin(1e-6));
  CHECK(r.out(1).flat<float>()[0] == Approx(0.25f).margin(1e-6));
}

TEST_CASE("QuantizedMatMul multiplies values minus their zero points",
          "[kernels]") {
  // [0, 255] has zero point 0, [-1, 254] has zero point 1.
  Tensor a(tensorflow::DT_QUINT8, TensorShape({1, 2}));
  Tensor b(tensorflow::DT_QUINT8, TensorShape({2, 1}));
  a.flat<QUInt8>()[0].value = 3;
  a.flat<QUInt8>()[1].value = 4;
  b.flat<QUInt8>()[0].value = 6;
  b.flat<QUInt8>()[1].value = 11;
  auto r = RunKernel(Node("QuantizedMatMul",
                          "attr { key: 'T1' value { type: DT_QUINT8 } } "
                          "attr { key: 'T2' value { type: DT_QUINT8 } }"),
                     {a, b, Tensor::Scalar(0.0f), Tensor::Scalar(255.0f),
                      Tensor::Scalar(-1.0f), Tensor::Scalar(254.0f)});
  REQUIRE(r.status.ok());
  CHECK(r.out(0).flat<QInt32>()[0].value == 3 * 5 + 4 * 10);
  CHECK(Floats(r.out(2)) == fmt::format("[] {}", 2147483648.0f));
}

TEST_CASE("QuantizedAvgPool truncates the int32 mean of the window",
          "[kernels]") {
  Tensor x(tensorflow::DT_QUINT8, TensorShape({1, 1, 3, 1}));
  x.flat<QUInt8>()[0].value = 1;
  x.flat<QUInt8>()[1].value = 2;
  x.flat<QUInt8>()[2].value = 6;
  auto r = RunKernel(
      Node("QuantizedAvgPool",
           "attr { key: 'T' value { type: DT_QUINT8 } } "
           "attr { key: 'ksize' value { list { i: [1, 1, 2, 1] } } } "
           "attr { key: 'strides' value { list { i: [1, 1, 1, 1] } } } "
           "attr { key: 'padding' value { s: 'SAME' } }"),
      {x, Tensor::Scalar(0.0f), Tensor::Scalar(1.0f)});
  REQUIRE(r.status.ok());
  const auto y = r.out(0).flat<QUInt8>();
  // (1+2)/2, (2+6)/2, and 6 alone at the padded edge.
  CHECK(int{y[0].value} == 1);
  CHECK(int{y[1].value} == 4);
  CHECK(int{y[2].value} == 6);
}

TEST_CASE("UniformQuantize rounds x / scale half up and adds the zero point",
          "[kernels]") {
  // scale 0.5, zero point 3: -1.25 -> floor(-2.5 + 0.5) + 3 = 1; 100 clamps.
  auto r = RunKernel(
      Node("UniformQuantize",
           "attr { key: 'Tin' value { type: DT_FLOAT } } "
           "attr { key: 'Tout' value { type: DT_QINT8 } } "
           "attr { key: 'quantization_min_val' value { i: -127 } } "
           "attr { key: 'quantization_max_val' value { i: 127 } }"),
      {F({-1.25f, 0.75f, 100}), Tensor::Scalar(0.5f), Tensor::Scalar(3)});
  REQUIRE(r.status.ok());
  const auto q = r.out(0).flat<QInt8>();
  CHECK(int{q[0].value} == 1);
  CHECK(int{q[1].value} == 5);
  CHECK(int{q[2].value} == 127);
}

TEST_CASE("UniformRequantize applies the fixed-point scale ratio",
          "[kernels]") {
  // Scale 0.1 -> 0.2 halves the value: (7 - 1) / 2 + 0 = 3, rounding 2.5 up.
  Tensor x(tensorflow::DT_QINT8, TensorShape({2}));
  x.flat<QInt8>()[0].value = 7;
  x.flat<QInt8>()[1].value = 6;
  auto r = RunKernel(
      Node("UniformRequantize",
           "attr { key: 'Tin' value { type: DT_QINT8 } } "
           "attr { key: 'Tout' value { type: DT_QINT8 } } "
           "attr { key: 'input_quantization_min_val' value { i: -128 } } "
           "attr { key: 'input_quantization_max_val' value { i: 127 } } "
           "attr { key: 'output_quantization_min_val' value { i: -128 } } "
           "attr { key: 'output_quantization_max_val' value { i: 127 } }"),
      {x, Tensor::Scalar(0.1f), Tensor::Scalar(1), Tensor::Scalar(0.2f),
       Tensor::Scalar(0)});
  REQUIRE(r.status.ok());
  CHECK(int{r.out(0).flat<QInt8>()[0].value} == 3);
  CHECK(int{r.out(0).flat<QInt8>()[1].value} == 3);  // 2.5 rounds up
}

}  // namespace
}  // namespace dfg
