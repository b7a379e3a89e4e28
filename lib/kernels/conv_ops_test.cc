// Conv, pooling, batch norm, slicing and gather kernels. Expected values are
// hand-computed (small integer inputs).
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::RunKernel;

// "<shape> v0 v1 ...": the shape and the row-major values.
template <typename T>
std::string Flat(const Tensor& t) {
  std::string s = t.shape().DebugString();
  for (const T& v : t.flat<T>()) s += fmt::format(" {}", v);
  return s;
}

std::string Conv(const std::string& attrs, const Tensor& x, const Tensor& f) {
  auto run = RunKernel(
      "name: 'c' op: 'Conv2D' attr { key: 'T' value { type: DT_FLOAT } } " +
          attrs,
      {x, f});
  if (!run.status.ok()) return run.status.ToString();
  return Flat<float>(run.out(0));
}

const char kStrides1[] =
    "attr { key: 'strides' value { list { i: [1,1,1,1] } } } ";

TEST_CASE("Conv2D SAME and VALID match hand-computed sums", "[kernels]") {
  // 3x3 input 1..9, one channel; 2x2 filter of ones.
  const Tensor x = MakeTensor<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor f = MakeTensor<float>({2, 2, 1, 1}, {1, 1, 1, 1});
  CHECK(Conv(std::string(kStrides1) +
                 "attr { key: 'padding' value { s: 'VALID' } }",
             x, f) == "[1,2,2,1] 12 16 24 28");
  // SAME pads one row/col at the end (bottom/right).
  CHECK(Conv(std::string(kStrides1) +
                 "attr { key: 'padding' value { s: 'SAME' } }",
             x, f) == "[1,3,3,1] 12 16 9 24 28 15 15 17 9");
  // EXPLICIT: one row on top only.
  CHECK(Conv(std::string(kStrides1) +
                 "attr { key: 'padding' value { s: 'EXPLICIT' } } attr { key: "
                 "'explicit_paddings' value { list { i: [0,0,1,0,0,0,0,0] } } "
                 "}",
             x, f) == "[1,3,2,1] 3 5 12 16 24 28");
}

TEST_CASE("Conv2D handles strides, 1x1 filters and groups", "[kernels]") {
  const Tensor x = MakeTensor<float>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  // 1x1, 2 in -> 1 out: weights (1, 10).
  const Tensor f = MakeTensor<float>({1, 1, 2, 1}, {1, 10});
  CHECK(Conv(std::string(kStrides1) +
                 "attr { key: 'padding' value { s: 'VALID' } }",
             x, f) == "[1,2,2,1] 21 43 65 87");
  // Stride 2 takes the top-left pixel only.
  CHECK(Conv("attr { key: 'strides' value { list { i: [1,2,2,1] } } } attr { "
             "key: 'padding' value { s: 'VALID' } }",
             x, f) == "[1,1,1,1] 21");
  // Grouped: filter in_ch 1, 2 groups, out 2: out0 = 2*c0, out1 = 3*c1.
  const Tensor g = MakeTensor<float>({1, 1, 1, 2}, {2, 3});
  CHECK(Conv(std::string(kStrides1) +
                 "attr { key: 'padding' value { s: 'VALID' } }",
             x, g) == "[1,2,2,2] 2 6 6 12 10 18 14 24");
  CHECK_THAT(Conv("attr { key: 'strides' value { list { i: [2,1,1,1] } } } "
                  "attr { key: 'padding' value { s: 'VALID' } }",
                  x, f),
             Catch::Matchers::Contains("strides in the batch and depth"));
  CHECK_THAT(Conv(std::string(kStrides1) +
                      "attr { key: 'padding' value { s: 'VALID' } } attr { "
                      "key: 'data_format' value { s: 'NCHW' } }",
                  MakeTensor<float>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                  MakeTensor<float>({1, 1, 2, 1}, {1, 1})),
             Catch::Matchers::Contains("only supports the NHWC tensor format"));
  CHECK_THAT(Conv(std::string(kStrides1) +
                      "attr { key: 'padding' value { s: 'VALID' } }",
                  x, MakeTensor<float>({4, 1, 2, 1}, {1, 1, 1, 1, 1, 1, 1, 1})),
             Catch::Matchers::Contains("Computed output size would be "
                                       "negative"));
}

TEST_CASE("MaxPool ignores padding and AvgPool excludes it", "[kernels]") {
  const Tensor x = MakeTensor<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const std::string attrs =
      "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'ksize' value { "
      "list { i: [1,2,2,1] } } } attr { key: 'strides' value { list { i: "
      "[1,2,2,1] } } } attr { key: 'padding' value { s: 'SAME' } }";
  auto mx = RunKernel("name: 'p' op: 'MaxPool' " + attrs, {x});
  CHECK(Flat<float>(mx.out(0)) == "[1,2,2,1] 5 6 8 9");
  auto av = RunKernel("name: 'p' op: 'AvgPool' " + attrs, {x});
  // (1+2+4+5)/4, (3+6)/2, (7+8)/2, 9/1.
  CHECK(Flat<float>(av.out(0)) == "[1,2,2,1] 3 4.5 7.5 9");
}

TEST_CASE("FusedBatchNormV3 normalizes with given or batch statistics",
          "[kernels]") {
  const Tensor x = MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 6});
  const Tensor scale = MakeTensor<float>({2}, {2, 1});
  const Tensor offset = MakeTensor<float>({2}, {1, 0});
  const Tensor mean = MakeTensor<float>({2}, {1, 2});
  const Tensor var = MakeTensor<float>({2}, {4, 16});
  const std::string node =
      "name: 'bn' op: 'FusedBatchNormV3' attr { key: 'T' value { type: "
      "DT_FLOAT } } attr { key: 'U' value { type: DT_FLOAT } } attr { key: "
      "'epsilon' value { f: 0 } } ";
  auto inf = RunKernel(node + "attr { key: 'is_training' value { b: false } }",
                       {x, scale, offset, mean, var});
  // c0: 2*(x-1)/2+1 = x; c1: (x-2)/4.
  CHECK(Flat<float>(inf.out(0)) == "[1,1,2,2] 1 0 3 1");
  auto tr = RunKernel(node + "attr { key: 'is_training' value { b: true } }",
                      {x, scale, offset, MakeTensor<float>({0}, {}),
                       MakeTensor<float>({0}, {})});
  // c0: mean 2, var 1 -> 2*(x-2)+1; c1: mean 4, var 4 -> (x-4)/2.
  CHECK(Flat<float>(tr.out(0)) == "[1,1,2,2] -1 -1 3 1");
  // Bessel-corrected batch variance (n = 2).
  CHECK(Flat<float>(tr.out(2)) == "[2] 2 8");
}

TEST_CASE("StridedSlice handles masks, negative strides and errors",
          "[kernels]") {
  const Tensor x = MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto ss = [&](std::vector<int32_t> b, std::vector<int32_t> e,
                std::vector<int32_t> s, const std::string& masks) {
    const int64_t n = b.size();
    auto run = RunKernel(
        "name: 's' op: 'StridedSlice' attr { key: 'T' value { type: DT_INT32 "
        "} } attr { key: 'Index' value { type: DT_INT32 } } " +
            masks,
        {x, MakeTensor<int32_t>({n}, b), MakeTensor<int32_t>({n}, e),
         MakeTensor<int32_t>({n}, s)});
    return run.status.ok() ? Flat<int32_t>(run.out(0)) : run.status.ToString();
  };
  CHECK(ss({0, 0}, {2, 3}, {1, 2}, "") == "[2,2] 1 3 4 6");
  CHECK(ss({0, -1}, {0, 0}, {1, -1},
           "attr { key: 'begin_mask' value { i: 1 } } attr { key: 'end_mask' "
           "value { i: 3 } }") == "[2,3] 3 2 1 6 5 4");
  CHECK(ss({1}, {2}, {1}, "attr { key: 'shrink_axis_mask' value { i: 1 } }") ==
        "[3] 4 5 6");
  CHECK(ss({0, 1}, {0, 2}, {1, 1},
           "attr { key: 'ellipsis_mask' value { i: 1 } } attr { key: "
           "'shrink_axis_mask' value { i: 2 } }") == "[2] 2 5");
  CHECK(ss({0, 0}, {1, 1}, {1, 1},
           "attr { key: 'new_axis_mask' value { i: 1 } }") == "[1,1,3] 1 2 3");
  CHECK(ss({0}, {1}, {0}, "") ==
        "InvalidArgument: strides[0] must be non-zero");
  CHECK(ss({5}, {6}, {1}, "attr { key: 'shrink_axis_mask' value { i: 1 } }") ==
        "InvalidArgument: slice index 5 of dimension 0 out of bounds.");
}

TEST_CASE("Pad, Slice, Tile and GatherV2 move elements", "[kernels]") {
  const Tensor x = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  auto pad = RunKernel(
      "name: 'p' op: 'PadV2' attr { key: 'T' value { type: DT_FLOAT } }",
      {x, MakeTensor<int32_t>({2, 2}, {1, 0, 0, 1}), Tensor::Scalar(9.0f)});
  CHECK(Flat<float>(pad.out(0)) == "[3,3] 9 9 9 1 2 9 3 4 9");
  auto mirror = RunKernel(
      "name: 'p' op: 'MirrorPad' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'mode' value { s: 'REFLECT' } }",
      {MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<int32_t>({1, 2}, {2, 1})});
  CHECK(Flat<float>(mirror.out(0)) == "[6] 3 2 1 2 3 2");
  auto slice = RunKernel(
      "name: 's' op: 'Slice' attr { key: 'T' value { type: DT_FLOAT } } attr "
      "{ key: 'Index' value { type: DT_INT32 } }",
      {x, MakeTensor<int32_t>({2}, {1, 0}), MakeTensor<int32_t>({2}, {1, -1})});
  CHECK(Flat<float>(slice.out(0)) == "[1,2] 3 4");
  auto tile = RunKernel(
      "name: 't' op: 'Tile' attr { key: 'T' value { type: DT_FLOAT } }",
      {x, MakeTensor<int32_t>({2}, {1, 2})});
  CHECK(Flat<float>(tile.out(0)) == "[2,4] 1 2 1 2 3 4 3 4");
  const std::string gather =
      "name: 'g' op: 'GatherV2' attr { key: 'Tparams' value { type: DT_FLOAT "
      "} } attr { key: 'Tindices' value { type: DT_INT32 } } attr { key: "
      "'Taxis' value { type: DT_INT32 } }";
  auto g = RunKernel(gather, {x, MakeTensor<int32_t>({3}, {1, 0, 1}),
                              Tensor::Scalar<int32_t>(1)});
  CHECK(Flat<float>(g.out(0)) == "[2,3] 2 1 2 4 3 4");
  auto bad = RunKernel(gather, {x, MakeTensor<int32_t>({2}, {0, 2}),
                                Tensor::Scalar<int32_t>(0)});
  CHECK(bad.status.message() == "indices[1] = 2 is not in [0, 2)");
}

}  // namespace
}  // namespace dfg

namespace dfg {
namespace {

TEST_CASE("DepthwiseConv2dNative ignores dilations as TensorFlow's CPU kernel",
          "[kernels]") {
  const Tensor x = MakeTensor<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor f = MakeTensor<float>({2, 2, 1, 1}, {1, 1, 1, 1});
  auto depthwise = [&](const std::string& dilations) {
    auto run = RunKernel(
        "name: 'd' op: 'DepthwiseConv2dNative' attr { key: 'T' value { type: "
        "DT_FLOAT } } attr { key: 'strides' value { list { i: [1,1,1,1] } } } "
        "attr { key: 'padding' value { s: 'VALID' } } attr { key: 'dilations' "
        "value { list { i: " +
            dilations + " } } }",
        {x, f});
    if (!run.status.ok()) return run.status.ToString();
    return Flat<float>(run.out(0));
  };
  CHECK(depthwise("[1,1,1,1]") == "[1,2,2,1] 12 16 24 28");
  CHECK(depthwise("[1,2,2,1]") == "[1,2,2,1] 12 16 24 28");
  // Not even checked.
  CHECK(depthwise("[1,2]") == "[1,2,2,1] 12 16 24 28");
}

}  // namespace
}  // namespace dfg
