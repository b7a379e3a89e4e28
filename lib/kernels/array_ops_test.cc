// Shape and layout kernels.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::MakeTensor;
using testing::Render;
using testing::RunKernel;

const char kReshape[] =
    "name: 'r' op: 'Reshape' attr { key: 'T' value { type: DT_FLOAT } }";

std::string Reshape(const Tensor& x, std::vector<int32_t> shape) {
  auto run = RunKernel(
      kReshape,
      {x, MakeTensor<int32_t>({static_cast<int64_t>(shape.size())}, shape)});
  if (!run.status.ok()) return run.status.ToString();
  return Render(run.out(0));
}

TEST_CASE("Reshape infers -1 and reports TensorFlow's errors", "[kernels]") {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(Reshape(x, {3, 2}) == "float [3,2] [[1 2]\n [3 4]\n [5 6]]");
  CHECK(Reshape(x, {-1}) == "float [6] [1 2 3 4 5 6]");
  CHECK(Reshape(x, {1, -1, 2}) == "float [1,3,2] [[[1 2]\n  [3 4]\n  [5 6]]]");
  CHECK(Reshape(x, {-1, -1}) ==
        "InvalidArgument: Only one input size may be -1, not both 0 and 1");
  CHECK(Reshape(x, {4, -1}) ==
        "InvalidArgument: Input to reshape is a tensor with 6 values, but the "
        "requested shape requires a multiple of 4");
  CHECK(Reshape(x, {4, 2}) ==
        "InvalidArgument: Input to reshape is a tensor with 6 values, but the "
        "requested shape has 8");
  CHECK(Reshape(x, {-2, 3}) ==
        "InvalidArgument: Size 0 must be non-negative, not -2");
  CHECK(Reshape(MakeTensor<float>({0, 2}, {}), {-1, 0}) ==
        "InvalidArgument: Reshape cannot infer the missing input size for an "
        "empty tensor unless all specified input sizes are non-zero");
  auto run = RunKernel(kReshape, {x, MakeTensor<int32_t>({1, 1}, {6})});
  CHECK(run.status.message() == "sizes input must be 1-D, not [1,1]");
  auto shares = RunKernel(kReshape, {x, MakeTensor<int32_t>({1}, {6})});
  CHECK(shares.out(0).SharesBufferWith(x));
}

TEST_CASE("Transpose permutes dims", "[kernels]") {
  const std::string node =
      "name: 't' op: 'Transpose' attr { key: 'T' value { type: DT_INT32 } }";
  const Tensor x = MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto t2 = RunKernel(node, {x, MakeTensor<int32_t>({2}, {1, 0})});
  CHECK(Render(t2.out(0)) == "int32 [3,2] [[1 4]\n [2 5]\n [3 6]]");
  const Tensor y = MakeTensor<int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto t3 = RunKernel(node, {y, MakeTensor<int32_t>({3}, {2, 0, 1})});
  CHECK(Render(t3.out(0)) ==
        "int32 [2,2,2] [[[0 2]\n  [4 6]]\n\n [[1 3]\n  [5 7]]]");
  auto same = RunKernel(node, {x, MakeTensor<int32_t>({2}, {0, 1})});
  CHECK(same.out(0).SharesBufferWith(x));
  auto bad = RunKernel(node, {x, MakeTensor<int32_t>({2}, {0, 0})});
  CHECK(bad.status.message() == "1 is missing from {0,0}.");
  auto range = RunKernel(node, {x, MakeTensor<int32_t>({2}, {0, 2})});
  CHECK(range.status.message() == "2 is out of range [0 .. 2)");
  auto size = RunKernel(node, {x, MakeTensor<int32_t>({1}, {0})});
  CHECK(size.status.message() ==
        "transpose expects a vector of size 2. But input(1) is a vector of "
        "size 1");
  const std::string strings =
      "name: 't' op: 'Transpose' attr { key: 'T' value { type: DT_STRING } }";
  auto s = RunKernel(strings, {MakeTensor<std::string>({1, 2}, {"a", "b"}),
                               MakeTensor<int32_t>({2}, {1, 0})});
  CHECK(Render(s.out(0)) == "string [2,1] [[\"a\"]\n [\"b\"]]");
}

TEST_CASE("Transpose's row copies and tiled 2-D blocks match the index map",
          "[kernels]") {
  const std::string node =
      "name: 't' op: 'Transpose' attr { key: 'T' value { type: DT_INT32 } }";
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int32_t>>>
      cases = {{{37, 21}, {1, 0}},       {{3, 19, 35}, {0, 2, 1}},
               {{5, 18, 17}, {2, 1, 0}}, {{4, 6, 2, 7}, {0, 2, 1, 3}},
               {{3, 4, 33}, {1, 0, 2}},  {{2, 3, 4, 5}, {3, 1, 2, 0}},
               {{17, 3, 18}, {2, 1, 0}}};
  for (const auto& [dims, perm] : cases) {
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    std::vector<int32_t> values(total);
    for (int64_t i = 0; i < total; ++i) values[i] = static_cast<int32_t>(i);
    auto r = RunKernel(
        node, {MakeTensor<int32_t>(dims, values),
               MakeTensor<int32_t>({static_cast<int64_t>(perm.size())}, perm)});
    REQUIRE(r.status.ok());
    const int rank = static_cast<int>(dims.size());
    std::vector<int64_t> in_strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d) {
      in_strides[d] = in_strides[d + 1] * dims[d + 1];
    }
    auto out = r.out(0).flat<int32_t>();
    bool same = true;
    for (int64_t o = 0; o < total; ++o) {
      int64_t rest = o, in = 0;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t size = dims[perm[d]];
        in += (rest % size) * in_strides[perm[d]];
        rest /= size;
      }
      same &= out[o] == values[in];
    }
    CHECK(same);
  }
}

TEST_CASE("ConcatV2 joins along an axis, negative allowed", "[kernels]") {
  const std::string node =
      "name: 'c' op: 'ConcatV2' attr { key: 'N' value { i: 2 } } attr { key: "
      "'T' value { type: DT_FLOAT } }";
  const Tensor a = MakeTensor<float>({2, 1}, {1, 2});
  const Tensor b = MakeTensor<float>({2, 2}, {3, 4, 5, 6});
  auto run = RunKernel(node, {a, b, Tensor::Scalar<int32_t>(-1)});
  CHECK(Render(run.out(0)) == "float [2,3] [[1 3 4]\n [2 5 6]]");
  auto rows = RunKernel(node, {b, b, Tensor::Scalar<int32_t>(0)});
  CHECK(Render(rows.out(0)) == "float [4,2] [[3 4]\n [5 6]\n [3 4]\n [5 6]]");
  auto bad = RunKernel(node, {a, b, Tensor::Scalar<int32_t>(0)});
  CHECK(bad.status.message() ==
        "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = "
        "[2,1] vs. shape[1] = [2,2]");
  auto axis = RunKernel(node, {a, b, Tensor::Scalar<int32_t>(2)});
  CHECK(axis.status.message() ==
        "ConcatOp : Expected concatenating dimensions in the range [-2, 2), "
        "but got 2");
}

TEST_CASE("Pack stacks along a new axis", "[kernels]") {
  const std::string attrs =
      "attr { key: 'N' value { i: 2 } } attr { key: 'T' value { type: "
      "DT_INT32 } }";
  const Tensor a = MakeTensor<int32_t>({2}, {1, 2});
  const Tensor b = MakeTensor<int32_t>({2}, {3, 4});
  auto p0 = RunKernel("name: 'p' op: 'Pack' " + attrs, {a, b});
  CHECK(Render(p0.out(0)) == "int32 [2,2] [[1 2]\n [3 4]]");
  auto p1 = RunKernel(
      "name: 'p' op: 'Pack' attr { key: 'axis' value { i: -1 } } " + attrs,
      {a, b});
  CHECK(Render(p1.out(0)) == "int32 [2,2] [[1 3]\n [2 4]]");
  auto bad = RunKernel("name: 'p' op: 'Pack' " + attrs,
                       {a, MakeTensor<int32_t>({1}, {1})});
  CHECK(bad.status.message() ==
        "Shapes of all inputs must match: values[0].shape = [2] != "
        "values[1].shape = [1]");
}

TEST_CASE("Shape, Size and Rank describe their input", "[kernels]") {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto shape = RunKernel(
      "name: 's' op: 'Shape' attr { key: 'T' value { type: DT_FLOAT } }", {x});
  CHECK(Render(shape.out(0)) == "int32 [2] [2 3]");
  auto shape64 = RunKernel(
      "name: 's' op: 'Shape' attr { key: 'T' value { type: DT_FLOAT } } attr "
      "{ key: 'out_type' value { type: DT_INT64 } }",
      {x});
  CHECK(Render(shape64.out(0)) == "int64 [2] [2 3]");
  auto size = RunKernel(
      "name: 's' op: 'Size' attr { key: 'T' value { type: DT_FLOAT } }", {x});
  CHECK(Render(size.out(0)) == "int32 [] 6");
  auto rank = RunKernel(
      "name: 'r' op: 'Rank' attr { key: 'T' value { type: DT_FLOAT } }", {x});
  CHECK(Render(rank.out(0)) == "int32 [] 2");
}

TEST_CASE("ExpandDims and Squeeze add and drop size-1 dims", "[kernels]") {
  const Tensor x = MakeTensor<float>({2}, {1, 2});
  auto e = RunKernel(
      "name: 'e' op: 'ExpandDims' attr { key: 'T' value { type: DT_FLOAT } }",
      {x, Tensor::Scalar<int32_t>(-1)});
  CHECK(Render(e.out(0)) == "float [2,1] [[1]\n [2]]");
  auto s = RunKernel(
      "name: 's' op: 'Squeeze' attr { key: 'T' value { type: DT_FLOAT } }",
      {MakeTensor<float>({1, 2, 1}, {1, 2})});
  CHECK(Render(s.out(0)) == "float [2] [1 2]");
  auto bad = RunKernel(
      "name: 's' op: 'Squeeze' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'squeeze_dims' value { list { i: 1 } } }",
      {MakeTensor<float>({1, 2, 1}, {1, 2})});
  CHECK(bad.status.message() ==
        "Can not squeeze dim[1], expected a dimension of 1, got 2");
}

TEST_CASE("Fill, ZerosLike, OnesLike and Range make tensors", "[kernels]") {
  auto fill = RunKernel(
      "name: 'f' op: 'Fill' attr { key: 'T' value { type: DT_FLOAT } }",
      {MakeTensor<int32_t>({2}, {2, 2}), Tensor::Scalar<float>(7)});
  CHECK(Render(fill.out(0)) == "float [2,2] [[7 7]\n [7 7]]");
  auto neg = RunKernel(
      "name: 'f' op: 'Fill' attr { key: 'T' value { type: DT_FLOAT } }",
      {MakeTensor<int32_t>({1}, {-1}), Tensor::Scalar<float>(7)});
  CHECK(neg.status.code() == Code::kInvalidArgument);
  CHECK_THAT(neg.status.message(),
             Catch::Matchers::Contains("Dimension -1 must be >= 0"));
  auto zeros = RunKernel(
      "name: 'z' op: 'ZerosLike' attr { key: 'T' value { type: DT_INT32 } }",
      {MakeTensor<int32_t>({3}, {5, 6, 7})});
  CHECK(Render(zeros.out(0)) == "int32 [3] [0 0 0]");
  auto ones = RunKernel(
      "name: 'o' op: 'OnesLike' attr { key: 'T' value { type: DT_HALF } }",
      {MakeTensor<Half>({2}, {Half{}, Half{}})});
  CHECK(Render(ones.out(0)) == "half [2] [1 1]");
  const std::string range =
      "name: 'r' op: 'Range' attr { key: 'Tidx' value { type: DT_INT32 } }";
  auto r =
      RunKernel(range, {Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(12),
                        Tensor::Scalar<int32_t>(4)});
  CHECK(Render(r.out(0)) == "int32 [3] [ 3  7 11]");
  auto down =
      RunKernel(range, {Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(0),
                        Tensor::Scalar<int32_t>(-2)});
  CHECK(Render(down.out(0)) == "int32 [3] [5 3 1]");
  auto zero =
      RunKernel(range, {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(5),
                        Tensor::Scalar<int32_t>(0)});
  CHECK(zero.status.message() == "Requires delta != 0: 0");
  auto wrong =
      RunKernel(range, {Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(1),
                        Tensor::Scalar<int32_t>(1)});
  CHECK(wrong.status.message() ==
        "Requires start <= limit when delta > 0: 5/1");
  auto frange = RunKernel(
      "name: 'r' op: 'Range' attr { key: 'Tidx' value { type: DT_FLOAT } }",
      {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1),
       Tensor::Scalar<float>(0.25f)});
  CHECK(Render(frange.out(0)) == "float [4] [   0 0.25  0.5 0.75]");
}

// Pad, MirrorPad, Slice and Tile on [2,3,4,5] against the index formula,
// for maps of each kind MapCopy copies differently: whole trailing blocks,
// runs of a last mapped dim, fills, and rows that are all fill.
TEST_CASE("Pad, MirrorPad, Slice and Tile copy rows as the index formula",
          "[kernels]") {
  const std::vector<int64_t> dims{2, 3, 4, 5};
  std::vector<int32_t> values(120);
  for (int i = 0; i < 120; ++i) values[i] = i + 1;
  const Tensor x = MakeTensor<int32_t>(dims, values);
  // in[i] for output index o: the input index of each dim, -1 for a fill.
  auto expect = [&](const std::vector<int64_t>& out_dims, auto map) {
    std::vector<int32_t> v;
    std::vector<int64_t> o(4, 0);
    for (o[0] = 0; o[0] < out_dims[0]; ++o[0])
      for (o[1] = 0; o[1] < out_dims[1]; ++o[1])
        for (o[2] = 0; o[2] < out_dims[2]; ++o[2])
          for (o[3] = 0; o[3] < out_dims[3]; ++o[3]) {
            int64_t at = 0;
            bool fill = false;
            for (int d = 0; d < 4; ++d) {
              const int64_t i = map(d, o[d]);
              fill |= i < 0;
              at = at * dims[d] + i;
            }
            v.push_back(fill ? 0 : values[at]);
          }
    return Render(MakeTensor<int32_t>(out_dims, v));
  };
  const std::string attrs =
      " attr { key: 'T' value { type: DT_INT32 } }"
      " attr { key: 'Tpaddings' value { type: DT_INT32 } }";
  for (const std::vector<int32_t>& p :
       {std::vector<int32_t>{0, 0, 1, 2, 1, 1, 0, 0},
        std::vector<int32_t>{1, 0, 0, 0, 0, 0, 0, 0},
        std::vector<int32_t>{0, 0, 0, 0, 0, 0, 2, 1},
        std::vector<int32_t>{0, 1, 1, 0, 0, 2, 1, 0}}) {
    auto pad = RunKernel("name: 'p' op: 'Pad'" + attrs,
                         {x, MakeTensor<int32_t>({4, 2}, p)});
    std::vector<int64_t> out_dims;
    for (int d = 0; d < 4; ++d)
      out_dims.push_back(dims[d] + p[2 * d] + p[2 * d + 1]);
    CHECK(Render(pad.out(0)) == expect(out_dims, [&](int d, int64_t o) {
            const int64_t i = o - p[2 * d];
            return i >= dims[d] ? -1 : i;
          }));
    std::vector<int32_t> q = p;
    for (int32_t& e : q) e = std::min(e, 1);
    auto mirror = RunKernel("name: 'm' op: 'MirrorPad'" + attrs +
                                " attr { key: 'mode' value { s: 'REFLECT' } }",
                            {x, MakeTensor<int32_t>({4, 2}, q)});
    out_dims.clear();
    for (int d = 0; d < 4; ++d)
      out_dims.push_back(dims[d] + q[2 * d] + q[2 * d + 1]);
    CHECK(Render(mirror.out(0)) == expect(out_dims, [&](int d, int64_t o) {
            int64_t i = o - q[2 * d];
            if (i < 0) i = -i;
            if (i >= dims[d]) i = 2 * dims[d] - 2 - i;
            return i;
          }));
  }
  auto slice = RunKernel(
      "name: 's' op: 'Slice' attr { key: 'T' value { type: DT_INT32 } }"
      " attr { key: 'Index' value { type: DT_INT32 } }",
      {x, MakeTensor<int32_t>({4}, {1, 1, 0, 0}),
       MakeTensor<int32_t>({4}, {1, 2, -1, -1})});
  CHECK(Render(slice.out(0)) == expect({1, 2, 4, 5}, [](int d, int64_t o) {
          return d < 2 ? o + 1 : o;
        }));
  auto tile = RunKernel(
      "name: 't' op: 'Tile' attr { key: 'T' value { type: DT_INT32 } }"
      " attr { key: 'Tmultiples' value { type: DT_INT32 } }",
      {x, MakeTensor<int32_t>({4}, {1, 2, 1, 2})});
  CHECK(Render(tile.out(0)) ==
        expect({2, 6, 4, 10}, [&](int d, int64_t o) { return o % dims[d]; }));
}

}  // namespace
}  // namespace dfg
