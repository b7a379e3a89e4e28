// Element-wise kernels: broadcasting, dtypes, errors.
#include <cmath>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

std::string Binary(const std::string& op, const std::string& type,
                   const Tensor& x, const Tensor& y) {
  auto run = RunKernel("name: 'n' op: '" + op +
                           "' attr { key: 'T' value { type: " + type + " } }",
                       {x, y});
  if (!run.status.ok()) return run.status.ToString();
  return Render(run.out(0));
}

std::string Unary(const std::string& op, const std::string& type,
                  const Tensor& x) {
  auto run = RunKernel("name: 'n' op: '" + op +
                           "' attr { key: 'T' value { type: " + type + " } }",
                       {x});
  if (!run.status.ok()) return run.status.ToString();
  return Render(run.out(0));
}

TEST_CASE("binary ops broadcast like NumPy", "[kernels]") {
  const Tensor m = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor row = MakeTensor<float>({3}, {10, 20, 30});
  const Tensor col = MakeTensor<float>({2, 1}, {100, 200});
  const Tensor s = Tensor::Scalar<float>(0.5f);
  CHECK(Binary("AddV2", "DT_FLOAT", m, m) ==
        "float [2,3] [[ 2  4  6]\n [ 8 10 12]]");
  CHECK(Binary("AddV2", "DT_FLOAT", m, row) ==
        "float [2,3] [[11 22 33]\n [14 25 36]]");
  CHECK(Binary("Sub", "DT_FLOAT", col, m) ==
        "float [2,3] [[ 99  98  97]\n [196 195 194]]");
  CHECK(Binary("Mul", "DT_FLOAT", s, m) ==
        "float [2,3] [[0.5   1 1.5]\n [  2 2.5   3]]");
  CHECK(Binary("RealDiv", "DT_FLOAT", m, s) ==
        "float [2,3] [[ 2  4  6]\n [ 8 10 12]]");
  CHECK(Binary("Add", "DT_FLOAT", col, row) ==
        "float [2,3] [[110 120 130]\n [210 220 230]]");
  // [2,1,3] + [4,1]: both broadcast, output [2,4,3].
  const Tensor a = MakeTensor<int32_t>({2, 1, 3}, {0, 1, 2, 3, 4, 5});
  const Tensor b = MakeTensor<int32_t>({4, 1}, {0, 10, 20, 30});
  CHECK(Binary("AddV2", "DT_INT32", a, b) ==
        "int32 [2,4,3] [[[ 0  1  2]\n  [10 11 12]\n  [20 21 22]\n  [30 31 "
        "32]]\n\n [[ 3  4  5]\n  [13 14 15]\n  [23 24 25]\n  [33 34 35]]]");
  CHECK(Binary("AddV2", "DT_FLOAT", m, MakeTensor<float>({0}, {})) ==
        "InvalidArgument: Incompatible shapes: [2,3] vs. [0]");
  CHECK(Binary("AddV2", "DT_FLOAT", m, MakeTensor<float>({4}, {1, 2, 3, 4})) ==
        "InvalidArgument: Incompatible shapes: [2,3] vs. [4]");
  CHECK(Binary("Mul", "DT_FLOAT", MakeTensor<float>({0, 3}, {}), row) ==
        "float [0,3] []");
}

TEST_CASE("Add concatenates strings", "[kernels]") {
  CHECK(Binary("Add", "DT_STRING", MakeTensor<std::string>({2}, {"a", "b"}),
               Tensor::Scalar<std::string>("!")) ==
        "string [2] [\"a!\" \"b!\"]");
}

TEST_CASE("integer division truncates and rejects zero", "[kernels]") {
  const Tensor x = MakeTensor<int32_t>({4}, {7, -7, 7, -7});
  const Tensor y = MakeTensor<int32_t>({4}, {2, 2, -2, -2});
  CHECK(Binary("Div", "DT_INT32", x, y) == "int32 [4] [ 3 -3 -3  3]");
  CHECK(Binary("FloorDiv", "DT_INT32", x, y) == "int32 [4] [ 3 -4 -4  3]");
  CHECK(Binary("FloorMod", "DT_INT32", x, y) == "int32 [4] [ 1  1 -1 -1]");
  const Tensor zero = MakeTensor<int32_t>({4}, {1, 0, 1, 1});
  CHECK(Binary("Div", "DT_INT32", x, zero) ==
        "InvalidArgument: Integer division by zero");
  CHECK(Binary("FloorDiv", "DT_INT64", MakeTensor<int64_t>({1}, {1}),
               MakeTensor<int64_t>({1}, {0})) ==
        "InvalidArgument: Integer division by zero");
  CHECK(Binary("FloorMod", "DT_UINT8", MakeTensor<uint8_t>({1}, {5}),
               MakeTensor<uint8_t>({1}, {0})) ==
        "InvalidArgument: Integer division by zero");
}

TEST_CASE("float floor division and modulo follow the divisor's sign",
          "[kernels]") {
  const Tensor x = MakeTensor<float>({2}, {7.5f, -7.5f});
  const Tensor y = Tensor::Scalar<float>(2);
  CHECK(Binary("FloorDiv", "DT_FLOAT", x, y) == "float [2] [ 3 -4]");
  CHECK(Binary("FloorMod", "DT_FLOAT", x, y) == "float [2] [1.5 0.5]");
  CHECK(Binary("FloorMod", "DT_FLOAT", x, Tensor::Scalar<float>(-2)) ==
        "float [2] [-0.5 -1.5]");
  CHECK(Binary("RealDiv", "DT_FLOAT", x, Tensor::Scalar<float>(0)) ==
        "float [2] [ inf -inf]");
}

TEST_CASE("maximum, minimum, pow and squared difference", "[kernels]") {
  const Tensor x = MakeTensor<float>({3}, {1, NAN, 5});
  const Tensor y = MakeTensor<float>({3}, {2, 0, 3});
  CHECK(Binary("Maximum", "DT_FLOAT", x, y) == "float [3] [  2 nan   5]");
  CHECK(Binary("Minimum", "DT_FLOAT", x, y) == "float [3] [  1 nan   3]");
  CHECK(Binary("Pow", "DT_INT32", MakeTensor<int32_t>({3}, {2, 3, -2}),
               MakeTensor<int32_t>({3}, {10, 0, 3})) ==
        "int32 [3] [1024    1   -8]");
  CHECK(Binary("Pow", "DT_INT32", Tensor::Scalar<int32_t>(2),
               Tensor::Scalar<int32_t>(-1)) ==
        "InvalidArgument: Integers to negative integer powers are not "
        "allowed");
  CHECK(Binary("Pow", "DT_FLOAT", Tensor::Scalar<float>(4),
               Tensor::Scalar<float>(0.5f)) == "float [] 2");
  CHECK(Binary("SquaredDifference", "DT_INT64",
               MakeTensor<int64_t>({2}, {1, 5}),
               Tensor::Scalar<int64_t>(3)) == "int64 [2] [4 4]");
}

TEST_CASE("half and bfloat16 compute through float", "[kernels]") {
  const Tensor h =
      MakeTensor<Half>({2}, {FloatToHalf(1.5f), FloatToHalf(-2.0f)});
  CHECK(Binary("Mul", "DT_HALF", h, h) == "half [2] [2.25    4]");
  const Tensor b = MakeTensor<BFloat16>({1}, {FloatToBFloat16(3.0f)});
  CHECK(Binary("AddV2", "DT_BFLOAT16", b, b) == "bfloat16 [1] [6]");
}

TEST_CASE("comparisons give bools and broadcast", "[kernels]") {
  const Tensor x = MakeTensor<int32_t>({3}, {1, 2, 3});
  const Tensor two = Tensor::Scalar<int32_t>(2);
  CHECK(Binary("Less", "DT_INT32", x, two) == "bool [3] [ True False False]");
  CHECK(Binary("LessEqual", "DT_INT32", x, two) ==
        "bool [3] [ True  True False]");
  CHECK(Binary("Greater", "DT_INT32", x, two) ==
        "bool [3] [False False  True]");
  CHECK(Binary("GreaterEqual", "DT_INT32", x, two) ==
        "bool [3] [False  True  True]");
  CHECK(Binary("Equal", "DT_INT32", x, two) == "bool [3] [False  True False]");
  CHECK(Binary("NotEqual", "DT_INT32", x, two) ==
        "bool [3] [ True False  True]");
  CHECK(Binary("Equal", "DT_STRING", MakeTensor<std::string>({2}, {"a", "b"}),
               Tensor::Scalar<std::string>("b")) == "bool [2] [False  True]");
}

TEST_CASE("Equal with incompatible_shape_error=false gives a scalar",
          "[kernels]") {
  const Tensor x = MakeTensor<float>({2}, {1, 2});
  const Tensor y = MakeTensor<float>({3}, {1, 2, 3});
  const std::string attrs =
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: "
      "'incompatible_shape_error' value { b: false } }";
  auto eq = RunKernel("name: 'e' op: 'Equal' " + attrs, {x, y});
  CHECK(Render(eq.out(0)) == "bool [] False");
  auto ne = RunKernel("name: 'e' op: 'NotEqual' " + attrs, {x, y});
  CHECK(Render(ne.out(0)) == "bool [] True");
  CHECK(Binary("Equal", "DT_FLOAT", x, y) ==
        "InvalidArgument: Incompatible shapes: [2] vs. [3]");
}

TEST_CASE("logical ops", "[kernels]") {
  const Tensor a = MakeTensor<bool>({4}, {true, true, false, false});
  const Tensor b = MakeTensor<bool>({4}, {true, false, true, false});
  auto run_and = RunKernel("name: 'a' op: 'LogicalAnd'", {a, b});
  CHECK(Render(run_and.out(0)) == "bool [4] [ True False False False]");
  auto run_or = RunKernel("name: 'o' op: 'LogicalOr'", {a, b});
  CHECK(Render(run_or.out(0)) == "bool [4] [ True  True  True False]");
  auto run_not = RunKernel("name: 'n' op: 'LogicalNot'", {a});
  CHECK(Render(run_not.out(0)) == "bool [4] [False False  True  True]");
}

TEST_CASE("unary math", "[kernels]") {
  const Tensor x = MakeTensor<float>({4}, {-2, -0.5f, 0, 4});
  CHECK(Unary("Neg", "DT_FLOAT", x) == "float [4] [  2 0.5  -0  -4]");
  CHECK(Unary("Abs", "DT_FLOAT", x) == "float [4] [  2 0.5   0   4]");
  CHECK(Unary("Square", "DT_FLOAT", x) == "float [4] [   4 0.25    0   16]");
  CHECK(Unary("Relu", "DT_FLOAT", x) == "float [4] [0 0 0 4]");
  CHECK(Unary("Relu6", "DT_FLOAT", MakeTensor<float>({3}, {-1, 3, 9})) ==
        "float [3] [0 3 6]");
  CHECK(Unary("Sign", "DT_FLOAT", x) == "float [4] [-1 -1  0  1]");
  CHECK(Unary("Floor", "DT_FLOAT", x) == "float [4] [-2 -1  0  4]");
  CHECK(Unary("Ceil", "DT_FLOAT", x) == "float [4] [-2 -0  0  4]");
  CHECK(Unary("Sqrt", "DT_FLOAT", MakeTensor<float>({2}, {4, 2.25f})) ==
        "float [2] [  2 1.5]");
  CHECK(Unary("Rsqrt", "DT_FLOAT", MakeTensor<float>({1}, {4})) ==
        "float [1] [0.5]");
  CHECK(Unary("Exp", "DT_DOUBLE", MakeTensor<double>({1}, {0})) ==
        "double [1] [1]");
  CHECK(Unary("Log", "DT_DOUBLE", MakeTensor<double>({2}, {1, 0})) ==
        "double [2] [   0 -inf]");
  CHECK(Unary("Sigmoid", "DT_FLOAT", MakeTensor<float>({1}, {0})) ==
        "float [1] [0.5]");
  CHECK(Unary("Tanh", "DT_FLOAT", MakeTensor<float>({1}, {0})) ==
        "float [1] [0]");
  CHECK(Unary("Abs", "DT_INT32", MakeTensor<int32_t>({2}, {-3, 4})) ==
        "int32 [2] [3 4]");
  CHECK(Unary("Neg", "DT_INT64", MakeTensor<int64_t>({1}, {5})) ==
        "int64 [1] [-5]");
  CHECK(Unary("Sign", "DT_INT32", MakeTensor<int32_t>({3}, {-9, 0, 9})) ==
        "int32 [3] [-1  0  1]");
  CHECK_THAT(Unary("Sqrt", "DT_INT32", MakeTensor<int32_t>({1}, {4})),
             Contains("No OpKernel was registered to support Op 'Sqrt'"));
}

TEST_CASE("Round rounds half to even", "[kernels]") {
  CHECK(Unary("Round", "DT_FLOAT",
              MakeTensor<float>(
                  {7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, 2.6f})) ==
        "float [7] [ 0  2  2 -0 -2  2  3]");
  CHECK(Unary("Round", "DT_INT32", MakeTensor<int32_t>({1}, {3})) ==
        "int32 [1] [3]");
}

TEST_CASE("Select picks elements, rows or whole tensors", "[kernels]") {
  const Tensor t = MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4});
  const Tensor e = MakeTensor<int32_t>({2, 2}, {-1, -2, -3, -4});
  const std::string node =
      "name: 's' op: 'Select' attr { key: 'T' value { type: DT_INT32 } }";
  auto elem = RunKernel(
      node, {MakeTensor<bool>({2, 2}, {true, false, false, true}), t, e});
  CHECK(Render(elem.out(0)) == "int32 [2,2] [[ 1 -2]\n [-3  4]]");
  auto rows = RunKernel(node, {MakeTensor<bool>({2}, {false, true}), t, e});
  CHECK(Render(rows.out(0)) == "int32 [2,2] [[-1 -2]\n [ 3  4]]");
  auto scalar = RunKernel(node, {Tensor::Scalar<bool>(false), t, e});
  CHECK(Render(scalar.out(0)) == "int32 [2,2] [[-1 -2]\n [-3 -4]]");
  auto bad = RunKernel(node, {MakeTensor<bool>({3}, {true, true, true}), t, e});
  CHECK_THAT(bad.status.message(),
             Contains("Number of batches of 'then' must match size of "
                      "'cond', but saw: 2 vs. 3"));
  auto mismatch = RunKernel(
      node, {MakeTensor<bool>({1, 4}, {true, true, true, true}), t, e});
  CHECK_THAT(mismatch.status.message(),
             Contains("must have the same size and shape"));
}

TEST_CASE("SelectV2 broadcasts all three inputs", "[kernels]") {
  auto run = RunKernel(
      "name: 's' op: 'SelectV2' attr { key: 'T' value { type: DT_FLOAT } }",
      {MakeTensor<bool>({2, 1}, {true, false}),
       MakeTensor<float>({3}, {1, 2, 3}), Tensor::Scalar<float>(0)});
  CHECK(Render(run.out(0)) == "float [2,3] [[1 2 3]\n [0 0 0]]");
  auto bad = RunKernel(
      "name: 's' op: 'SelectV2' attr { key: 'T' value { type: DT_FLOAT } }",
      {MakeTensor<bool>({2}, {true, false}), MakeTensor<float>({3}, {1, 2, 3}),
       Tensor::Scalar<float>(0)});
  CHECK_THAT(bad.status.message(), Contains("must be broadcastable"));
}

TEST_CASE("ClipByValue clamps with scalar or full bounds", "[kernels]") {
  auto run = RunKernel(
      "name: 'c' op: 'ClipByValue' attr { key: 'T' value { type: DT_FLOAT } }",
      {MakeTensor<float>({4}, {-5, 0, 5, 10}), Tensor::Scalar<float>(-1),
       MakeTensor<float>({4}, {1, 1, 6, 6})});
  CHECK(Render(run.out(0)) == "float [4] [-1  0  5  6]");
}

TEST_CASE("AddN sums same-shape inputs", "[kernels]") {
  auto run = RunKernel(
      "name: 'a' op: 'AddN' attr { key: 'N' value { i: 3 } } attr { key: "
      "'T' value { type: DT_INT32 } }",
      {MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int32_t>({2}, {10, 20}),
       MakeTensor<int32_t>({2}, {100, 200})});
  CHECK(Render(run.out(0)) == "int32 [2] [111 222]");
  auto bad = RunKernel(
      "name: 'a' op: 'AddN' attr { key: 'N' value { i: 2 } } attr { key: "
      "'T' value { type: DT_INT32 } }",
      {MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int32_t>({1}, {1})});
  CHECK_THAT(bad.status.message(), Contains("must have the same size"));
}

}  // namespace
}  // namespace dfg

namespace dfg {
namespace {

TEST_CASE("binary ops write into a sole-owner input when allowed",
          "[kernels]") {
  auto tester = testing::KernelTester::Create(
                    "name: 'a' op: 'AddV2' attr { key: 'T' value { type: "
                    "DT_FLOAT } }")
                    .value();
  Tensor x = testing::MakeTensor<float>({3}, {1, 2, 3});
  Tensor y = Tensor::Scalar<float>(10);
  const void* x_data = x.data();
  TensorValue in[2] = {{&x}, {&y}};
  OpOutput out[1];
  OpKernelContext::Params p;
  p.op_kernel = &tester->kernel();
  p.inputs = in;
  p.outputs = out;
  p.step = &tester->services();
  p.allow_input_forwarding = true;
  OpKernelContext ctx(&p);
  tester->kernel().Compute(&ctx);
  REQUIRE(ctx.status().ok());
  CHECK(out[0].value.data() == x_data);
  CHECK(testing::Render(out[0].value) == "float [3] [11 12 13]");
  // A shared input is never written.
  Tensor shared = testing::MakeTensor<float>({3}, {1, 2, 3});
  Tensor other = shared;
  in[0].tensor = &shared;
  OpOutput out2[1];
  p.outputs = out2;
  OpKernelContext ctx2(&p);
  tester->kernel().Compute(&ctx2);
  CHECK(out2[0].value.data() != shared.data());
  CHECK(testing::Render(other) == "float [3] [1 2 3]");
}

}  // namespace
}  // namespace dfg
