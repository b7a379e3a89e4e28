// Activation, batch-norm and depthwise-convolution gradients on values
// worked out by hand.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const std::string& op, const std::string& attrs = "") {
  return "name: 'n' op: '" + op +
         "' attr { key: 'T' value { type: DT_FLOAT } } " + attrs;
}

TEST_CASE("activation gradients scale the incoming gradient", "[kernels]") {
  const Tensor g = MakeTensor<float>({3}, {1, 2, 4});
  // EluGrad on outputs: (y + 1) * g below zero.
  auto elu =
      RunKernel(Node("EluGrad"), {g, MakeTensor<float>({3}, {-0.5f, 0, 2})});
  REQUIRE(elu.status.ok());
  CHECK(Flat<float>(elu.out(0)) == "[3] 0.5 2 4");
  auto leaky =
      RunKernel(Node("LeakyReluGrad", "attr { key: 'alpha' value { f: 0.5 } }"),
                {g, MakeTensor<float>({3}, {-1, 0, 1})});
  REQUIRE(leaky.status.ok());
  CHECK(Flat<float>(leaky.out(0)) == "[3] 0.5 1 4");
  // SoftsignGrad: g / (1 + |x|)^2.
  auto softsign =
      RunKernel(Node("SoftsignGrad"), {g, MakeTensor<float>({3}, {1, -1, 3})});
  REQUIRE(softsign.status.ok());
  CHECK(Flat<float>(softsign.out(0)) == "[3] 0.25 0.5 0.25");
  auto bad = RunKernel(Node("EluGrad"), {g, MakeTensor<float>({2}, {1, 2})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("must have the same size and shape"));
}

TEST_CASE("FusedBatchNormGrad sums dy and dy * normalized x per channel",
          "[kernels]") {
  // One channel, x = {-1, 1} around mean 0 with variance 1 - eps.
  const float eps = 0.0001f;
  auto bn = RunKernel(
      Node("FusedBatchNormGrad",
           "attr { key: 'epsilon' value { f: 0.0001 } } attr { key: "
           "'is_training' value { b: false } }"),
      {MakeTensor<float>({2, 1, 1, 1}, {1, 3}),
       MakeTensor<float>({2, 1, 1, 1}, {-1, 1}), MakeTensor<float>({1}, {2}),
       MakeTensor<float>({1}, {0}), MakeTensor<float>({1}, {1 - eps})});
  REQUIRE(bn.status.ok());
  // Inference: dx = dy * scale / sqrt(var + eps) = 2 dy.
  CHECK(Flat<float>(bn.out(0)) == "[2,1,1,1] 2 6");
  CHECK(bn.out(1).flat<float>()[0] == Approx(2.0));  // -1*1 + 1*3
  CHECK(bn.out(2).flat<float>()[0] == 4.0f);
  CHECK(bn.out(3).NumElements() == 0);
}

TEST_CASE("DepthwiseConv2dNativeBackpropInput spreads dy over the window",
          "[kernels]") {
  // 1x1 output from a 2x2 VALID window: the input gradient is the filter
  // times dy.
  auto dw = RunKernel(
      Node("DepthwiseConv2dNativeBackpropInput",
           "attr { key: 'strides' value { list { i: [1, 1, 1, 1] } } } attr { "
           "key: 'padding' value { s: 'VALID' } }"),
      {MakeTensor<int32_t>({4}, {1, 2, 2, 1}),
       MakeTensor<float>({2, 2, 1, 1}, {1, 2, 3, 4}),
       MakeTensor<float>({1, 1, 1, 1}, {10})});
  REQUIRE(dw.status.ok());
  CHECK(Flat<float>(dw.out(0)) == "[1,2,2,1] 10 20 30 40");
}

}  // namespace
}  // namespace dfg
