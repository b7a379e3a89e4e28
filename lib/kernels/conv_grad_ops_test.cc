// Conv2DBackpropInput. Expected values are hand-computed; a property test
// checks the adjoint identity <Conv2D(x, f), dy> == <x, backprop(dy, f)>
// over strides, paddings, batches and channels.
#include <fmt/format.h>

#include <cmath>
#include <random>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

template <typename T>
std::string Flat(const Tensor& t) {
  std::string s = t.shape().DebugString();
  for (const T& v : t.flat<T>()) s += fmt::format(" {}", v);
  return s;
}

std::string Attrs(const std::string& dtype, const std::string& strides,
                  const std::string& padding, const std::string& extra = "") {
  return fmt::format(
      "attr {{ key: 'T' value {{ type: {} }} }} attr {{ key: 'strides' value "
      "{{ list {{ i: {} }} }} }} attr {{ key: 'padding' value {{ s: '{}' }} "
      "}} {}",
      dtype, strides, padding, extra);
}

KernelRun Backprop(const std::string& attrs, std::vector<int32_t> sizes,
                   const Tensor& f, const Tensor& dy) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  return RunKernel("name: 'g' op: 'Conv2DBackpropInput' " + attrs,
                   {MakeTensor<int32_t>({n}, sizes), f, dy});
}

TEST_CASE(
    "Conv2DBackpropInput sums out_backprop over the windows that "
    "covered each input pixel",
    "[kernels]") {
  const std::string valid = Attrs("DT_FLOAT", "[1,1,1,1]", "VALID");
  const Tensor ones = MakeTensor<float>({2, 2, 1, 1}, {1, 1, 1, 1});
  const Tensor dy = MakeTensor<float>({1, 2, 2, 1}, {1, 2, 3, 4});
  auto r = Backprop(valid, {1, 3, 3, 1}, ones, dy);
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[1,3,3,1] 1 3 2 4 10 6 3 7 4");
  // Two input_sizes values: batch from out_backprop, depth from the filter.
  auto hw = Backprop(valid, {3, 3}, ones, dy);
  REQUIRE(hw.status.ok());
  CHECK(Flat<float>(hw.out(0)) == "[1,3,3,1] 1 3 2 4 10 6 3 7 4");
  // Stride 2, SAME, 1x1 filter of 2: only the strided pixels get gradient.
  auto strided = Backprop(Attrs("DT_FLOAT", "[1,2,2,1]", "SAME"), {1, 4, 4, 1},
                          MakeTensor<float>({1, 1, 1, 1}, {2}), dy);
  REQUIRE(strided.status.ok());
  CHECK(Flat<float>(strided.out(0)) ==
        "[1,4,4,1] 2 0 4 0 0 0 0 0 6 0 8 0 0 0 0 0");
  // Channels: dx[c] = sum_o dy[o] * f[c, o].
  auto deep = Backprop(valid, {1, 1, 1, 2},
                       MakeTensor<float>({1, 1, 2, 3}, {1, 0, 2, 0, 1, 1}),
                       MakeTensor<float>({1, 1, 1, 3}, {1, 2, 3}));
  REQUIRE(deep.status.ok());
  CHECK(Flat<float>(deep.out(0)) == "[1,1,1,2] 7 5");
  // EXPLICIT: one padding row on top.
  auto ex =
      Backprop(Attrs("DT_FLOAT", "[1,1,1,1]", "EXPLICIT",
                     "attr { key: 'explicit_paddings' value { list { i: "
                     "[0,0,1,0,0,0,0,0] } } }"),
               {1, 2, 2, 1}, ones, MakeTensor<float>({1, 2, 1, 1}, {1, 2}));
  REQUIRE(ex.status.ok());
  CHECK(Flat<float>(ex.out(0)) == "[1,2,2,1] 3 3 2 2");
}

TEST_CASE("Conv2DBackpropInput computes int32 and double", "[kernels]") {
  auto i = Backprop(Attrs("DT_INT32", "[1,1,1,1]", "VALID"), {1, 3, 3, 1},
                    MakeTensor<int32_t>({2, 2, 1, 1}, {1, 1, 1, 1}),
                    MakeTensor<int32_t>({1, 2, 2, 1}, {1, 2, 3, 4}));
  REQUIRE(i.status.ok());
  CHECK(Flat<int32_t>(i.out(0)) == "[1,3,3,1] 1 3 2 4 10 6 3 7 4");
  auto d = Backprop(Attrs("DT_DOUBLE", "[1,1,1,1]", "VALID"), {1, 3, 3, 1},
                    MakeTensor<double>({2, 2, 1, 1}, {1, 1, 1, 1}),
                    MakeTensor<double>({1, 2, 2, 1}, {1, 2, 3, 4}));
  REQUIRE(d.status.ok());
  CHECK(Flat<double>(d.out(0)) == "[1,3,3,1] 1 3 2 4 10 6 3 7 4");
}

// sum(a * b) in double.
double Dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (size_t i = 0; i < a.flat<float>().size(); ++i) {
    s += double(a.flat<float>()[i]) * double(b.flat<float>()[i]);
  }
  return s;
}

Tensor Random(std::mt19937* rng, std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(*rng);
  return MakeTensor<float>(dims, v);
}

TEST_CASE("Conv2DBackpropInput is the adjoint of Conv2D", "[kernels]") {
  struct Shape {
    int64_t batch, rows, cols, in, kh, kw, out, stride;
    const char* padding;
  };
  const Shape shapes[] = {{1, 5, 5, 2, 3, 3, 3, 1, "SAME"},
                          {2, 7, 6, 3, 3, 2, 4, 2, "SAME"},
                          {2, 8, 8, 4, 4, 4, 2, 2, "SAME"},
                          {3, 6, 7, 2, 3, 3, 5, 2, "VALID"},
                          {1, 9, 9, 1, 5, 5, 2, 3, "VALID"}};
  std::mt19937 rng(7);
  for (const Shape& s : shapes) {
    const std::string strides = fmt::format("[1,{},{},1]", s.stride, s.stride);
    const Tensor x = Random(&rng, {s.batch, s.rows, s.cols, s.in});
    const Tensor f = Random(&rng, {s.kh, s.kw, s.in, s.out});
    const std::string attrs = Attrs("DT_FLOAT", strides, s.padding);
    auto y = RunKernel("name: 'c' op: 'Conv2D' " + attrs, {x, f});
    REQUIRE(y.status.ok());
    std::vector<int64_t> ydims(y.out(0).shape().dim_sizes().begin(),
                               y.out(0).shape().dim_sizes().end());
    const Tensor dy = Random(&rng, ydims);
    auto dx = Backprop(
        attrs,
        {int32_t(s.batch), int32_t(s.rows), int32_t(s.cols), int32_t(s.in)}, f,
        dy);
    REQUIRE(dx.status.ok());
    const double lhs = Dot(y.out(0), dy), rhs = Dot(x, dx.out(0));
    INFO(fmt::format("{} {} vs {}", strides, lhs, rhs));
    CHECK(std::abs(lhs - rhs) <= 1e-4 * (1 + std::abs(lhs)));
  }
}

TEST_CASE("Conv2DBackpropInput rejects bad shapes and attrs", "[kernels]") {
  const std::string valid = Attrs("DT_FLOAT", "[1,1,1,1]", "VALID");
  const Tensor ones = MakeTensor<float>({2, 2, 1, 1}, {1, 1, 1, 1});
  const Tensor dy9 = MakeTensor<float>({1, 3, 3, 1}, std::vector<float>(9, 1));
  auto size = Backprop(valid, {1, 3, 3, 1}, ones, dy9);
  CHECK(size.status.code() == Code::kInvalidArgument);
  CHECK_THAT(size.status.message(),
             Catch::Matchers::Contains(
                 "Conv2DBackpropInput: Size of out_backprop doesn't match "
                 "computed: actual = 3, computed = 2 spatial_dim: 1 input: 3 "
                 "filter: 2 output: 3 stride: 1 dilation: 1"));
  auto three = Backprop(valid, {1, 3, 3}, ones, dy9);
  CHECK_THAT(three.status.message(),
             Catch::Matchers::Contains("requires input_sizes to contain 4 "
                                       "values or 2 values, but got: 3"));
  auto nchw =
      Backprop(valid + "attr { key: 'data_format' value { s: 'NCHW' } }",
               {1, 1, 3, 3}, ones, dy9);
  CHECK_THAT(nchw.status.message(),
             Catch::Matchers::Contains("Conv2DBackpropInputOp [CPU or "
                                       "GPU(int32)] only supports NHWC data "
                                       "format."));
  auto dilated = Backprop(
      valid + "attr { key: 'dilations' value { list { i: [1,2,2,1] } } }",
      {1, 3, 3, 1}, ones, dy9);
  CHECK_THAT(dilated.status.message(),
             Catch::Matchers::Contains("not yet support dilation rates larger "
                                       "than 1."));
  auto batch_stride = Backprop(Attrs("DT_FLOAT", "[2,1,1,1]", "VALID"),
                               {1, 3, 3, 1}, ones, dy9);
  CHECK(batch_stride.status.code() == Code::kUnimplemented);
  auto depth = Backprop(valid, {1, 3, 3, 1}, ones,
                        MakeTensor<float>({1, 2, 2, 2}, std::vector<float>(8)));
  CHECK_THAT(depth.status.message(),
             Catch::Matchers::Contains("filter and out_backprop must have the "
                                       "same out_depth"));
}

}  // namespace
}  // namespace dfg
