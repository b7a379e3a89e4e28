// MatMul, reductions, Cast and the nn kernels.
#include <cmath>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

std::string MatMul(const std::string& type, bool ta, bool tb, const Tensor& a,
                   const Tensor& b) {
  auto run =
      RunKernel("name: 'm' op: 'MatMul' attr { key: 'T' value { type: " + type +
                    " } } attr { key: 'transpose_a' value { b: " +
                    (ta ? "true" : "false") +
                    " } } attr { key: 'transpose_b' value { b: " +
                    (tb ? "true" : "false") + " } }",
                {a, b});
  if (!run.status.ok()) return run.status.ToString();
  return Render(run.out(0));
}

TEST_CASE("MatMul multiplies with and without transposes", "[kernels]") {
  const Tensor a = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = MakeTensor<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  CHECK(MatMul("DT_FLOAT", false, false, a, b) ==
        "float [2,2] [[ 58  64]\n [139 154]]");
  const Tensor at = MakeTensor<float>({3, 2}, {1, 4, 2, 5, 3, 6});
  const Tensor bt = MakeTensor<float>({2, 3}, {7, 9, 11, 8, 10, 12});
  CHECK(MatMul("DT_FLOAT", true, false, at, b) ==
        "float [2,2] [[ 58  64]\n [139 154]]");
  CHECK(MatMul("DT_FLOAT", false, true, a, bt) ==
        "float [2,2] [[ 58  64]\n [139 154]]");
  CHECK(MatMul("DT_FLOAT", true, true, at, bt) ==
        "float [2,2] [[ 58  64]\n [139 154]]");
  const Tensor ad = MakeTensor<double>({1, 2}, {0.5, 2});
  const Tensor bd = MakeTensor<double>({2, 1}, {4, 0.25});
  CHECK(MatMul("DT_DOUBLE", false, false, ad, bd) == "double [1,1] [[2.5]]");
  const Tensor ai = MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4});
  CHECK(MatMul("DT_INT32", false, true, ai, ai) ==
        "int32 [2,2] [[ 5 11]\n [11 25]]");
  const Tensor ah = MakeTensor<Half>({1, 1}, {FloatToHalf(3)});
  CHECK(MatMul("DT_HALF", false, false, ah, ah) == "half [1,1] [[9]]");
  CHECK(MatMul("DT_FLOAT", false, false, a, a) ==
        "InvalidArgument: Matrix size-incompatible: In[0]: [2,3], In[1]: "
        "[2,3]");
  CHECK(
      MatMul("DT_FLOAT", false, false, MakeTensor<float>({3}, {1, 2, 3}), b) ==
      "InvalidArgument: In[0] is not a matrix. Instead it has shape [3]");
  CHECK(MatMul("DT_FLOAT", false, false, MakeTensor<float>({2, 0}, {}),
               MakeTensor<float>({0, 2}, {})) == "float [2,2] [[0 0]\n [0 0]]");
}

std::string Reduce(const std::string& op, const std::string& type,
                   const Tensor& x, const std::vector<int32_t>& axes,
                   bool keep_dims = false, bool scalar_axis = false) {
  const Tensor axes_t =
      scalar_axis
          ? Tensor::Scalar<int32_t>(axes[0])
          : MakeTensor<int32_t>({static_cast<int64_t>(axes.size())}, axes);
  auto run = RunKernel("name: 'r' op: '" + op +
                           "' attr { key: 'T' value { type: " + type +
                           " } } attr { key: 'keep_dims' value { b: " +
                           (keep_dims ? "true" : "false") + " } }",
                       {x, axes_t});
  if (!run.status.ok()) return run.status.ToString();
  return Render(run.out(0));
}

TEST_CASE("reductions over axes, keep_dims and negative axes", "[kernels]") {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(Reduce("Sum", "DT_FLOAT", x, {1}) == "float [2] [ 6 15]");
  CHECK(Reduce("Sum", "DT_FLOAT", x, {0}) == "float [3] [5 7 9]");
  CHECK(Reduce("Sum", "DT_FLOAT", x, {-1}, true) ==
        "float [2,1] [[ 6]\n [15]]");
  CHECK(Reduce("Sum", "DT_FLOAT", x, {0, 1}) == "float [] 21");
  CHECK(Reduce("Sum", "DT_FLOAT", x, {}) == "float [2,3] [[1 2 3]\n [4 5 6]]");
  CHECK(Reduce("Mean", "DT_FLOAT", x, {0}, false, true) ==
        "float [3] [2.5 3.5 4.5]");
  CHECK(Reduce("Max", "DT_FLOAT", x, {1}) == "float [2] [3 6]");
  CHECK(Reduce("Min", "DT_FLOAT", x, {0}) == "float [3] [1 2 3]");
  CHECK(Reduce("Prod", "DT_FLOAT", x, {1}) == "float [2] [  6 120]");
  CHECK(Reduce("Sum", "DT_FLOAT", x, {2}) ==
        "InvalidArgument: Invalid reduction dimension (2 for input with 2 "
        "dimension(s)");
  // Integer mean divides as integers.
  CHECK(Reduce("Mean", "DT_INT32", MakeTensor<int32_t>({3}, {1, 2, 4}), {0}) ==
        "int32 [] 2");
}

TEST_CASE("reductions over non-adjacent axes", "[kernels]") {
  std::vector<int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  const Tensor x = MakeTensor<int32_t>({2, 3, 4}, v);
  CHECK(Reduce("Sum", "DT_INT32", x, {0, 2}) == "int32 [3] [ 60  92 124]");
  CHECK(Reduce("Sum", "DT_INT32", x, {0, 2}, true) ==
        "int32 [1,3,1] [[[ 60]\n  [ 92]\n  [124]]]");
  CHECK(Reduce("Max", "DT_INT32", x, {1}) ==
        "int32 [2,4] [[ 8  9 10 11]\n [20 21 22 23]]");
  // A global average pooling of NHWC images: Mean over the rows and columns.
  std::vector<float> f(24);
  for (int i = 0; i < 24; ++i) f[i] = static_cast<float>(i);
  const Tensor images = MakeTensor<float>({2, 2, 2, 3}, f);
  CHECK(Reduce("Mean", "DT_FLOAT", images, {1, 2}) ==
        "float [2,3] [[ 4.5  5.5  6.5]\n [16.5 17.5 18.5]]");
  CHECK(Reduce("Sum", "DT_FLOAT", images, {1, 2}, true) ==
        "float [2,1,1,3] [[[[18 22 26]]]\n\n\n [[[66 70 74]]]]");
}

TEST_CASE("empty reductions give the identity of the reducer", "[kernels]") {
  const Tensor e = MakeTensor<float>({0, 2}, {});
  CHECK(Reduce("Sum", "DT_FLOAT", e, {0}) == "float [2] [0 0]");
  CHECK(Reduce("Prod", "DT_FLOAT", e, {0}) == "float [2] [1 1]");
  CHECK(Reduce("Max", "DT_FLOAT", e, {0}) == "float [2] [-inf -inf]");
  CHECK(Reduce("Min", "DT_FLOAT", e, {0}) == "float [2] [inf inf]");
  CHECK(Reduce("Mean", "DT_FLOAT", e, {0}) == "float [2] [nan nan]");
  CHECK(Reduce("Sum", "DT_FLOAT", e, {1}) == "float [0] []");
  CHECK(Reduce("Max", "DT_INT32", MakeTensor<int32_t>({0}, {}), {0}) ==
        "int32 [] -2147483648");
  CHECK(Reduce("Mean", "DT_INT32", MakeTensor<int32_t>({0}, {}), {0}) ==
        "int32 [] 0");
}

TEST_CASE("All and Any reduce bools", "[kernels]") {
  const Tensor b = MakeTensor<bool>({2, 2}, {true, false, true, true});
  auto all =
      RunKernel("name: 'a' op: 'All'", {b, MakeTensor<int32_t>({1}, {1})});
  CHECK(Render(all.out(0)) == "bool [2] [False  True]");
  auto any =
      RunKernel("name: 'a' op: 'Any'", {b, MakeTensor<int32_t>({1}, {0})});
  CHECK(Render(any.out(0)) == "bool [2] [True True]");
}

TEST_CASE("ArgMax and ArgMin pick the first extreme", "[kernels]") {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 9, 9, 4, 0, 0});
  const std::string attrs = "attr { key: 'T' value { type: DT_FLOAT } }";
  auto mx = RunKernel("name: 'a' op: 'ArgMax' " + attrs,
                      {x, Tensor::Scalar<int32_t>(1)});
  CHECK(Render(mx.out(0)) == "int64 [2] [1 0]");
  auto mn = RunKernel("name: 'a' op: 'ArgMin' " + attrs +
                          " attr { key: 'output_type' value { type: DT_INT32 "
                          "} }",
                      {x, Tensor::Scalar<int32_t>(-2)});
  CHECK(Render(mn.out(0)) == "int32 [3] [0 1 1]");
  auto bad = RunKernel("name: 'a' op: 'ArgMax' " + attrs,
                       {x, Tensor::Scalar<int32_t>(2)});
  CHECK(bad.status.message() ==
        "Expected dimension in the range [-2, 2), but got 2");
  auto empty =
      RunKernel("name: 'a' op: 'ArgMax' " + attrs,
                {MakeTensor<float>({2, 0}, {}), Tensor::Scalar<int32_t>(1)});
  CHECK(empty.status.message() == "Reduction axis 1 is empty in shape [2,0]");
}

std::string Cast(const std::string& src, const std::string& dst,
                 const Tensor& x, bool truncate = false) {
  auto run = RunKernel(
      "name: 'c' op: 'Cast' attr { key: 'SrcT' value { "
      "type: " +
          src + " } } attr { key: 'DstT' value { type: " + dst +
          " } } attr { key: 'Truncate' value { b: " +
          (truncate ? "true" : "false") + " } }",
      {x});
  if (!run.status.ok()) return run.status.ToString();
  return Render(run.out(0));
}

TEST_CASE("Cast truncates floats toward zero and maps bools", "[kernels]") {
  const Tensor f = MakeTensor<float>({5}, {1.7f, -1.7f, 0.5f, -0.5f, 3.0f});
  CHECK(Cast("DT_FLOAT", "DT_INT32", f) == "int32 [5] [ 1 -1  0  0  3]");
  CHECK(Cast("DT_FLOAT", "DT_INT64", f) == "int64 [5] [ 1 -1  0  0  3]");
  CHECK(Cast("DT_FLOAT", "DT_BOOL", MakeTensor<float>({3}, {0, -0.0f, 2})) ==
        "bool [3] [False False  True]");
  CHECK(Cast("DT_BOOL", "DT_FLOAT", MakeTensor<bool>({2}, {true, false})) ==
        "float [2] [1 0]");
  CHECK(Cast("DT_INT32", "DT_UINT8", MakeTensor<int32_t>({2}, {257, -1})) ==
        "uint8 [2] [  1 255]");
  CHECK(Cast("DT_DOUBLE", "DT_FLOAT", MakeTensor<double>({1}, {0.1})) ==
        "float [1] [0.1]");
  CHECK(Cast("DT_INT32", "DT_COMPLEX64", MakeTensor<int32_t>({1}, {2})) ==
        "complex64 [1] [(2+0j)]");
  CHECK(Cast("DT_COMPLEX64", "DT_FLOAT",
             MakeTensor<std::complex<float>>({1}, {{3, 4}})) ==
        "float [1] [3]");
  CHECK(Cast("DT_FLOAT", "DT_HALF", MakeTensor<float>({1}, {0.1f})) ==
        "half [1] [0.099975586]");
  CHECK(Cast("DT_STRING", "DT_FLOAT", MakeTensor<std::string>({1}, {"1"})) ==
        "Unimplemented: Cast string to "
        "float is not supported\n\t [[{{node c}}]]");
}

TEST_CASE("Cast to bfloat16 rounds unless Truncate is set", "[kernels]") {
  const Tensor f = MakeTensor<float>({1}, {1.01171875f});
  const Tensor rounded = testing::KernelTester::Create(
                             "name: 'c' op: 'Cast' attr { key: 'SrcT' value "
                             "{ type: DT_FLOAT } } attr { key: 'DstT' value { "
                             "type: DT_BFLOAT16 } }")
                             .value()
                             ->Run({f})
                             .out(0);
  CHECK(rounded.flat<BFloat16>()[0].bits == 0x3f82);
  auto t = testing::KernelTester::Create(
               "name: 'c' op: 'Cast' attr { key: 'SrcT' value { type: "
               "DT_FLOAT } } attr { key: 'DstT' value { type: DT_BFLOAT16 } "
               "} attr { key: 'Truncate' value { b: true } }")
               .value()
               ->Run({f});
  CHECK(t.out(0).flat<BFloat16>()[0].bits == 0x3f81);
}

TEST_CASE("BiasAdd adds along the channel dim", "[kernels]") {
  const Tensor x = MakeTensor<float>({1, 2, 2}, {1, 2, 3, 4});
  const Tensor b = MakeTensor<float>({2}, {10, 20});
  auto nhwc = RunKernel(
      "name: 'b' op: 'BiasAdd' attr { key: 'T' value { type: DT_FLOAT } }",
      {x, b});
  CHECK(Render(nhwc.out(0)) == "float [1,2,2] [[[11 22]\n  [13 24]]]");
  auto nchw = RunKernel(
      "name: 'b' op: 'BiasAdd' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'data_format' value { s: 'NCHW' } }",
      {x, b});
  CHECK(Render(nchw.out(0)) == "float [1,2,2] [[[11 12]\n  [23 24]]]");
  auto bad = RunKernel(
      "name: 'b' op: 'BiasAdd' attr { key: 'T' value { type: DT_FLOAT } }",
      {x, MakeTensor<float>({3}, {1, 2, 3})});
  CHECK(bad.status.message() ==
        "Must provide as many biases as the last dimension of the input "
        "tensor: [3] vs. [1,2,2]");
  auto vec = RunKernel(
      "name: 'b' op: 'BiasAdd' attr { key: 'T' value { type: DT_FLOAT } }",
      {b, b});
  CHECK(vec.status.message() == "Input tensor must be at least 2D: [2]");
}

TEST_CASE("Softmax normalizes the last dim", "[kernels]") {
  auto run = RunKernel(
      "name: 's' op: 'Softmax' attr { key: 'T' value { type: DT_DOUBLE } }",
      {MakeTensor<double>({2, 2}, {0, 0, 1000, 1000})});
  CHECK(Render(run.out(0)) == "double [2,2] [[0.5 0.5]\n [0.5 0.5]]");
  auto three = RunKernel(
      "name: 's' op: 'Softmax' attr { key: 'T' value { type: DT_FLOAT } }",
      {MakeTensor<float>({3}, {1, 2, 3})});
  const auto v = three.out(0).flat<float>();
  CHECK(std::abs(v[0] - 0.09003057f) < 1e-6f);
  CHECK(std::abs(v[2] - 0.66524096f) < 1e-6f);
  auto scalar = RunKernel(
      "name: 's' op: 'Softmax' attr { key: 'T' value { type: DT_FLOAT } }",
      {Tensor::Scalar<float>(1)});
  CHECK(scalar.status.message() == "logits must have >= 1 dimension, got []");
}

TEST_CASE("CheckNumerics names NaN and Inf", "[kernels]") {
  const std::string node =
      "name: 'c' op: 'CheckNumerics' attr { key: 'T' value { type: DT_FLOAT "
      "} } attr { key: 'message' value { s: 'bad x' } }";
  CHECK(RunKernel(node, {MakeTensor<float>({2}, {1, 2})}).status.ok());
  CHECK(RunKernel(node, {MakeTensor<float>({2}, {1, NAN})}).status.message() ==
        "bad x : Tensor had NaN values");
  CHECK(RunKernel(node, {MakeTensor<float>({2}, {INFINITY, NAN})})
            .status.message() == "bad x : Tensor had Inf and NaN values");
}

}  // namespace
}  // namespace dfg
