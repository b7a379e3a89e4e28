// Split, OneHot, Where, TopKV2, Cumsum, LeakyRelu, resize, BatchMatMulV2 and
// the fused kernels. Expected values are hand-computed.
#include <cmath>
#include <limits>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const std::string& op, const std::string& attrs) {
  return "name: 'n' op: '" + op + "' " + attrs;
}

const char kFloat[] = "attr { key: 'T' value { type: DT_FLOAT } } ";

TEST_CASE("Split and SplitV cut along an axis", "[kernels]") {
  const Tensor x = MakeTensor<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto s = RunKernel(
      Node("Split", std::string(kFloat) + "attr { key: 'num_split' value { i: "
                                          "2 } }"),
      {Tensor::Scalar<int32_t>(1), x});
  REQUIRE(s.status.ok());
  CHECK(Flat<float>(s.out(0)) == "[2,2] 1 2 5 6");
  CHECK(Flat<float>(s.out(1)) == "[2,2] 3 4 7 8");
  auto odd = RunKernel(
      Node("Split", std::string(kFloat) + "attr { key: 'num_split' value { i: "
                                          "3 } }"),
      {Tensor::Scalar<int32_t>(1), x});
  CHECK_THAT(odd.status.message(),
             Catch::Matchers::Contains("should evenly divide the split "
                                       "dimension"));
  auto v = RunKernel(
      Node("SplitV", std::string(kFloat) +
                         "attr { key: 'num_split' value { i: 2 } } attr { "
                         "key: 'Tlen' value { type: DT_INT32 } }"),
      {MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<int32_t>({2}, {1, -1}),
       Tensor::Scalar<int32_t>(0)});
  REQUIRE(v.status.ok());
  CHECK(Flat<float>(v.out(0)) == "[1] 1");
  CHECK(Flat<float>(v.out(1)) == "[2] 2 3");
}

TEST_CASE("OneHot, Where, GatherNd, BroadcastTo and ReverseV2", "[kernels]") {
  auto oh = RunKernel(
      Node("OneHot",
           std::string(kFloat) + "attr { key: 'TI' value { type: DT_INT32 } }"),
      {MakeTensor<int32_t>({3}, {0, 2, -1}), Tensor::Scalar<int32_t>(3),
       Tensor::Scalar(1.0f), Tensor::Scalar(0.0f)});
  CHECK(Flat<float>(oh.out(0)) == "[3,3] 1 0 0 0 0 1 0 0 0");
  auto w = RunKernel(Node("Where", "attr { key: 'T' value { type: DT_BOOL } }"),
                     {MakeTensor<bool>({2, 2}, {true, false, false, true})});
  CHECK(Flat<int64_t>(w.out(0)) == "[2,2] 0 0 1 1");
  auto nd =
      RunKernel(Node("GatherNd",
                     "attr { key: 'Tparams' value { type: DT_FLOAT } } attr "
                     "{ key: 'Tindices' value { type: DT_INT32 } }"),
                {MakeTensor<float>({2, 2}, {1, 2, 3, 4}),
                 MakeTensor<int32_t>({2, 2}, {1, 0, 0, 1})});
  CHECK(Flat<float>(nd.out(0)) == "[2] 3 2");
  auto bt = RunKernel(
      Node("BroadcastTo", kFloat),
      {MakeTensor<float>({2}, {1, 2}), MakeTensor<int32_t>({2}, {2, 2})});
  CHECK(Flat<float>(bt.out(0)) == "[2,2] 1 2 1 2");
  auto rv = RunKernel(Node("ReverseV2", kFloat),
                      {MakeTensor<float>({2, 2}, {1, 2, 3, 4}),
                       MakeTensor<int32_t>({1}, {-1})});
  CHECK(Flat<float>(rv.out(0)) == "[2,2] 2 1 4 3");
}

TEST_CASE("TopKV2, Cumsum and LeakyRelu", "[kernels]") {
  auto tk = RunKernel(
      Node("TopKV2", kFloat),
      {MakeTensor<float>({4}, {3, 1, 3, 2}), Tensor::Scalar<int32_t>(2)});
  CHECK(Flat<float>(tk.out(0)) == "[2] 3 3");
  CHECK(Flat<int32_t>(tk.out(1)) == "[2] 0 2");
  const Tensor x = MakeTensor<float>({3}, {1, 2, 3});
  auto ex = RunKernel(
      Node("Cumsum",
           std::string(kFloat) + "attr { key: 'exclusive' value { b: true } }"),
      {x, Tensor::Scalar<int32_t>(0)});
  CHECK(Flat<float>(ex.out(0)) == "[3] 0 1 3");
  auto rev =
      RunKernel(Node("Cumsum", std::string(kFloat) +
                                   "attr { key: 'reverse' value { b: true } }"),
                {x, Tensor::Scalar<int32_t>(0)});
  CHECK(Flat<float>(rev.out(0)) == "[3] 6 5 3");
  auto lr =
      RunKernel(Node("LeakyRelu", std::string(kFloat) +
                                      "attr { key: 'alpha' value { f: 0.5 } }"),
                {MakeTensor<float>({2}, {-2, 3})});
  CHECK(Flat<float>(lr.out(0)) == "[2] -1 3");
}

TEST_CASE("ResizeBilinear and ResizeNearestNeighbor", "[kernels]") {
  const Tensor img = MakeTensor<float>({1, 2, 2, 1}, {1, 2, 3, 4});
  auto bl =
      RunKernel(Node("ResizeBilinear",
                     std::string(kFloat) +
                         "attr { key: 'align_corners' value { b: true } }"),
                {img, MakeTensor<int32_t>({2}, {3, 3})});
  CHECK(Flat<float>(bl.out(0)) == "[1,3,3,1] 1 1.5 2 2 2.5 3 3 3.5 4");
  auto nn = RunKernel(Node("ResizeNearestNeighbor", kFloat),
                      {img, MakeTensor<int32_t>({2}, {4, 4})});
  CHECK(Flat<float>(nn.out(0)) == "[1,4,4,1] 1 1 2 2 1 1 2 2 3 3 4 4 3 3 4 4");
  // half_pixel_centers: source (o + 0.5) * 0.5 - 0.5 = -0.25, 0.25...
  auto hp = RunKernel(
      Node("ResizeBilinear",
           std::string(kFloat) +
               "attr { key: 'half_pixel_centers' value { b: true } }"),
      {MakeTensor<float>({1, 1, 2, 1}, {0, 4}),
       MakeTensor<int32_t>({2}, {1, 4})});
  CHECK(Flat<float>(hp.out(0)) == "[1,1,4,1] 0 1 3 4");
}

TEST_CASE("BatchMatMulV2 broadcasts batch dims", "[kernels]") {
  auto r = RunKernel(Node("BatchMatMulV2", kFloat),
                     {MakeTensor<float>({2, 1, 2}, {1, 2, 3, 4}),
                      MakeTensor<float>({2, 1}, {1, 10})});
  CHECK(Flat<float>(r.out(0)) == "[2,1,1] 21 43");
  auto bad = RunKernel(Node("BatchMatMulV2", kFloat),
                       {MakeTensor<float>({2, 1, 2}, {1, 2, 3, 4}),
                        MakeTensor<float>({3, 2, 1}, {1, 1, 1, 1, 1, 1})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("compatible batch dimensions"));
}

TEST_CASE("_FusedConv2D and _FusedMatMul apply BiasAdd and activations",
          "[kernels]") {
  auto conv = RunKernel(
      Node("_FusedConv2D",
           std::string(kFloat) +
               "attr { key: 'num_args' value { i: 1 } } attr { key: "
               "'strides' value { list { i: [1,1,1,1] } } } attr { key: "
               "'padding' value { s: 'VALID' } } attr { key: 'fused_ops' "
               "value { list { s: ['BiasAdd', 'Relu'] } } }"),
      {MakeTensor<float>({1, 1, 1, 2}, {1, -2}),
       MakeTensor<float>({1, 1, 2, 2}, {1, 0, 0, 1}),
       MakeTensor<float>({2}, {0.5, 0.5})});
  CHECK(Flat<float>(conv.out(0)) == "[1,1,1,2] 1.5 0");
  auto mm = RunKernel(
      Node("_FusedMatMul",
           std::string(kFloat) +
               "attr { key: 'num_args' value { i: 1 } } attr { key: "
               "'fused_ops' value { list { s: ['BiasAdd', 'LeakyRelu'] } } "
               "}"),
      {MakeTensor<float>({1, 2}, {1, -2}),
       MakeTensor<float>({2, 2}, {1, 0, 0, 1}),
       MakeTensor<float>({2}, {0, 0})});
  CHECK(Flat<float>(mm.out(0)) == "[1,2] 1 -0.4");
  auto bad =
      RunKernel(Node("_FusedMatMul",
                     std::string(kFloat) +
                         "attr { key: 'num_args' value { i: 0 } } attr { key: "
                         "'fused_ops' value { list { s: ['Softmax'] } } }"),
                {MakeTensor<float>({1, 2}, {1, -2}),
                 MakeTensor<float>({2, 2}, {1, 0, 0, 1})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("Fusion is not implemented"));
}

TEST_CASE("_FusedDepthwiseConv2dNative adds the bias and activates",
          "[kernels]") {
  auto node = [](const std::string& fused) {
    return Node("_FusedDepthwiseConv2dNative",
                std::string(kFloat) +
                    "attr { key: 'num_args' value { i: 1 } } attr { key: "
                    "'strides' value { list { i: [1,1,1,1] } } } attr { key: "
                    "'padding' value { s: 'VALID' } } attr { key: 'fused_ops' "
                    "value { list { s: [" +
                    fused + "] } } }");
  };
  // x [1,1,2,2] (two pixels, two channels), a 1x1 filter of multiplier 2:
  // out channel c*2+m = x[c] * w[c][m], then + bias, then the activation.
  const Tensor x = MakeTensor<float>({1, 1, 2, 2}, {1, -2, 3, 4});
  const Tensor w = MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, -4});
  const Tensor b = MakeTensor<float>({4}, {0.5, 0, 1, 0});
  auto relu6 = RunKernel(node("'BiasAdd', 'Relu6'"), {x, w, b});
  REQUIRE(relu6.status.ok());
  CHECK(Flat<float>(relu6.out(0)) == "[1,1,2,4] 1.5 2 0 6 3.5 6 6 0");
  auto elu = RunKernel(node("'BiasAdd', 'Elu'"), {x, w, b});
  REQUIRE(elu.status.ok());
  CHECK(elu.out(0).flat<float>()[2] == Approx(std::expm1(-5.0f)));
  auto bias = RunKernel(node("'BiasAdd'"), {x, w, b});
  CHECK(Flat<float>(bias.out(0)) == "[1,1,2,4] 1.5 2 -5 8 3.5 6 13 -16");
  for (const char* fused : {"'Relu'", "'BiasAdd', 'LeakyRelu'"}) {
    auto bad = RunKernel(node(fused), {x, w, b});
    CHECK_THAT(bad.status.message(),
               Catch::Matchers::Contains("Fusion is not implemented"));
  }
}

TEST_CASE("_MklLayerNorm normalizes the last dimension as TensorFlow does",
          "[kernels]") {
  const std::string ln =
      Node("_MklLayerNorm",
           std::string(kFloat) + "attr { key: 'epsilon' value { f: 0.01 } }");
  const Tensor x = MakeTensor<float>({2, 4}, {1, 2, 3, 4, -1, 0, 5, 2});
  const Tensor scale = MakeTensor<float>({4}, {1, 2, 0.5, -1});
  const Tensor offset = MakeTensor<float>({4}, {0, 1, 0, -2});
  auto y = RunKernel(ln, {x, scale, offset});
  REQUIRE(y.status.ok());
  // TensorFlow 2.21's oneDNN kernel.
  const float want[] = {-1.3363062f, 0.10912919f, 0.2227177f,  -3.336306f,
                        -1.0900519f, -0.3080622f, 0.76303625f, -2.2180104f};
  auto got = y.out(0).flat<float>();
  REQUIRE(got.size() == 8);
  for (int i = 0; i < 8; ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-6));
  auto rank4 = RunKernel(
      ln, {MakeTensor<float>({1, 1, 1, 4}, {1, 2, 3, 4}), scale, offset});
  CHECK(rank4.status.message() == "input must be 2D or 3D[1,1,1,4]");
  auto scale2d =
      RunKernel(ln, {x, MakeTensor<float>({1, 4}, {1, 2, 0.5, -1}), offset});
  CHECK(scale2d.status.message() == "scale must be 1D tensor[1,4]");
  auto mismatch = RunKernel(ln, {x, scale, MakeTensor<float>({3}, {0, 1, 0})});
  CHECK_THAT(mismatch.status.message(),
             Catch::Matchers::Contains("are not same"));
  auto short_scale = RunKernel(ln, {x, MakeTensor<float>({3}, {1, 2, 3}),
                                    MakeTensor<float>({3}, {0, 1, 0})});
  CHECK_THAT(short_scale.status.message(),
             Catch::Matchers::Contains("the input's last dimension (4"));
}

TEST_CASE("_FusedMatMul's GELU is the formula on every element of a big output",
          "[kernels]") {
  // [3,1] x [1,700]: 2100 outputs over [-4, 4], more than the GELU's
  // blocks of 512 and a partial last one, against the formula in double.
  const int64_t n = 700;
  std::vector<float> row(n), zeros(n, 0.0f);
  for (int64_t j = 0; j < n; ++j) row[j] = -4.0f + 8.0f * j / (n - 1);
  const Tensor a = MakeTensor<float>({3, 1}, {1.0f, -1.0f, 0.5f});
  const Tensor b = MakeTensor<float>({1, n}, row);
  const Tensor bias = MakeTensor<float>({n}, zeros);
  for (const char* act : {"GeluApproximate", "GeluExact"}) {
    INFO(act);
    auto got = RunKernel(
        Node("_FusedMatMul",
             std::string(kFloat) +
                 fmt::format("attr {{ key: 'num_args' value {{ i: 1 }} }} "
                             "attr {{ key: 'fused_ops' value {{ list {{ s: "
                             "['BiasAdd', '{}'] }} }} }}",
                             act)),
        {a, b, bias});
    REQUIRE(got.status.ok());
    auto y = got.out(0).flat<float>();
    REQUIRE(y.size() == static_cast<size_t>(3 * n));
    const bool exact = std::string(act) == "GeluExact";
    for (int64_t i = 0; i < 3 * n; ++i) {
      const double x = double(a.flat<float>()[i / n]) * row[i % n];
      const double want = exact
                              ? 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)))
                              : 0.5 * x *
                                    (1 + std::tanh(std::sqrt(2 / M_PI) *
                                                   (x + 0.044715 * x * x * x)));
      INFO("element " << i << " x " << x);
      CHECK(std::abs(y[i] - want) <= 2e-6 * (1 + std::abs(want)));
    }
  }
}

TEST_CASE("_FusedMatMul runs oneDNN's Gelu and Add forms as TensorFlow does",
          "[kernels]") {
  // Values from TensorFlow 2.21 with its oneDNN kernel (the default on x86;
  // the oracle runs the Eigen kernel, which refuses these forms).
  const Tensor a = MakeTensor<float>({2, 2}, {1, -2, 0.5, 3});
  const Tensor b = MakeTensor<float>({2, 2}, {1, 0.5, 0, 1});
  const Tensor bias = MakeTensor<float>({2}, {0.25, -0.5});
  auto node = [](const char* ops, int args) {
    return Node("_FusedMatMul",
                std::string(kFloat) +
                    fmt::format("attr {{ key: 'num_args' value {{ i: {} }} }} "
                                "attr {{ key: 'fused_ops' value {{ list {{ s: "
                                "[{}] }} }} }}",
                                args, ops));
  };
  auto near = [](const Tensor& t, std::vector<float> want) {
    auto got = t.flat<float>();
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      CHECK(std::abs(got[i] - want[i]) <= 2e-6f * (1 + std::abs(want[i])));
    }
  };
  auto approx =
      RunKernel(node("'BiasAdd', 'GeluApproximate'", 1), {a, b, bias});
  near(approx.out(0),
       {1.1177141666f, -0.0454022884f, 0.5799605846f, 2.7422766685f});
  auto exact = RunKernel(node("'BiasAdd', 'GeluExact'", 1), {a, b, bias});
  near(exact.out(0),
       {1.1179378033f, -0.0455002785f, 0.5800294876f, 2.7418057919f});
  auto add = RunKernel(node("'BiasAdd', 'Add'", 2),
                       {a, b, bias, MakeTensor<float>({2, 2}, {1, 2, 3, 4})});
  near(add.out(0), {2.25f, 0.0f, 3.75f, 6.75f});
  // NaN stays NaN, infinities saturate (the values come in as the bias).
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor special =
      MakeTensor<float>({4}, {std::nanf(""), inf, -inf, 0.5f});
  const Tensor one = MakeTensor<float>({1, 1}, {1});
  const Tensor zeros = MakeTensor<float>({1, 4}, {0, 0, 0, 0});
  for (const char* act : {"Tanh", "Sigmoid", "Elu"}) {
    auto r = RunKernel(node(fmt::format("'BiasAdd', '{}'", act).c_str(), 1),
                       {one, zeros, special});
    auto y = r.out(0).flat<float>();
    INFO(act);
    CHECK(std::isnan(y[0]));
    CHECK(y[1] == (std::string(act) == "Elu" ? inf : 1.0f));
    CHECK(y[2] == (std::string(act) == "Tanh"  ? -1.0f
                   : std::string(act) == "Elu" ? -1.0f
                                               : 0.0f));
  }
  auto half = RunKernel(
      Node("_FusedMatMul",
           "attr { key: 'T' value { type: DT_HALF } } attr { key: 'num_args' "
           "value { i: 1 } } attr { key: 'fused_ops' value { list { s: "
           "['BiasAdd', 'GeluExact'] } } }"),
      {MakeTensor<Half>({1, 1}, {FloatToHalf(1.0f)}),
       MakeTensor<Half>({1, 1}, {FloatToHalf(1.0f)}),
       MakeTensor<Half>({1}, {FloatToHalf(0.0f)})});
  CHECK_THAT(half.status.message(),
             Catch::Matchers::Contains(
                 "Fusion is not implemented: [BiasAdd,GeluExact]"));
}

}  // namespace
}  // namespace dfg
