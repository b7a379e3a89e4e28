// Gradient kernels against central finite differences of their forward
// kernels, in float64: for L = sum(w * F(x)), dL/dx_i ~ (L(x + h e_i) -
// L(x - h e_i)) / 2h with an error of O(h^2) (|F'''| is small on these
// inputs) plus O(eps / h) of rounding; h = 1e-5 gives ~1e-10, the tolerance
// is 1e-7.
#include <fmt/format.h>

#include <cmath>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

constexpr double kH = 1e-5;
constexpr double kTol = 1e-7;

const char kDouble[] = "attr { key: 'T' value { type: DT_DOUBLE } } ";

std::string Node(const std::string& op, const std::string& attrs = "") {
  return "name: 'n' op: '" + op + "' " + kDouble + attrs;
}

std::vector<double> Values(const Tensor& t) {
  auto f = t.flat<double>();
  return {f.begin(), f.end()};
}

// L = sum(w * output `out` of `node` on `inputs`).
double Loss(const std::string& node, const std::vector<Tensor>& inputs,
            const std::vector<double>& w, int out = 0) {
  std::vector<std::optional<Tensor>> in(inputs.begin(), inputs.end());
  auto k = testing::KernelTester::Create(node);
  REQUIRE(k.ok());
  KernelRun r = (*k)->Run(in);
  REQUIRE(r.status.ok());
  std::vector<double> y = Values(r.out(out));
  REQUIRE(y.size() == w.size());
  double l = 0;
  for (size_t i = 0; i < y.size(); ++i) l += w[i] * y[i];
  return l;
}

// dL/d inputs[which] by central differences.
std::vector<double> NumericGrad(const std::string& node,
                                std::vector<Tensor> inputs, int which,
                                const std::vector<double>& w, int out = 0) {
  Tensor& x = inputs[which];
  x = x.DeepCopy();
  std::vector<double> g(x.NumElements());
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double v = x.flat<double>()[i];
    x.flat<double>()[i] = v + kH;
    const double up = Loss(node, inputs, w, out);
    x.flat<double>()[i] = v - kH;
    const double down = Loss(node, inputs, w, out);
    x.flat<double>()[i] = v;
    g[i] = (up - down) / (2 * kH);
  }
  return g;
}

void CheckClose(const std::vector<double>& got,
                const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(kTol).epsilon(1e-6));
  }
}

// Inputs away from the kinks of Relu/Relu6 (finite differences straddling
// a kink would be wrong, not the kernel).
const std::vector<double> kX = {-1.5, -0.3, 0.2, 0.7, 2.5, 6.8};
const std::vector<double> kW = {0.5, -1.0, 2.0, 0.25, -0.75, 1.5};

TEST_CASE("activation gradients match finite differences", "[train]") {
  const Tensor x = MakeTensor<double>({2, 3}, kX);
  const Tensor w = MakeTensor<double>({2, 3}, kW);
  for (const char* op : {"Relu", "Relu6"}) {
    KernelRun g = RunKernel(Node(std::string(op) + "Grad"), {w, x});
    REQUIRE(g.status.ok());
    CheckClose(Values(g.out(0)), NumericGrad(Node(op), {x}, 0, kW));
  }
  // The *Grad ops of cwise ops take (y, dy) with y = F(x).
  const Tensor pos = MakeTensor<double>({2, 3}, {0.1, 0.3, 0.7, 1.2, 2.5, 4});
  for (const char* op : {"Sigmoid", "Tanh", "Sqrt", "Rsqrt"}) {
    const std::string name = op;
    const Tensor& in = name == "Sqrt" || name == "Rsqrt" ? pos : x;
    KernelRun y = RunKernel(Node(op), {in});
    REQUIRE(y.status.ok());
    KernelRun g = RunKernel(Node(std::string(op) + "Grad"), {y.out(0), w});
    REQUIRE(g.status.ok());
    INFO(op);
    CheckClose(Values(g.out(0)), NumericGrad(Node(op), {in}, 0, kW));
  }
  KernelRun bad = RunKernel(Node("ReluGrad"), {w, MakeTensor<double>({6}, kX)});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("must have the same size and shape"));
}

TEST_CASE("BiasAddGrad is the gradient of BiasAdd's bias", "[train]") {
  for (const char* format : {"NHWC", "NCHW"}) {
    const std::string attr = fmt::format(
        "attr {{ key: 'data_format' value {{ s: '{}' }} }}", format);
    std::vector<double> xv(2 * 3 * 2 * 2), wv(xv.size());
    for (size_t i = 0; i < xv.size(); ++i) {
      xv[i] = 0.1 * i - 1;
      wv[i] = std::sin(1.0 + i);
    }
    const Tensor x = MakeTensor<double>({2, 3, 2, 2}, xv);
    const int64_t c = std::string(format) == "NHWC" ? 2 : 3;
    std::vector<double> bv(c, 0.5);
    const Tensor b = MakeTensor<double>({c}, bv);
    KernelRun g = RunKernel(Node("BiasAddGrad", attr),
                            {MakeTensor<double>({2, 3, 2, 2}, wv)});
    REQUIRE(g.status.ok());
    INFO(format);
    CheckClose(Values(g.out(0)),
               NumericGrad(Node("BiasAdd", attr), {x, b}, 1, wv));
  }
  KernelRun bad =
      RunKernel(Node("BiasAddGrad"), {MakeTensor<double>({2}, {1, 2})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("Input tensor must be at least 2D"));
  const std::string ncdhw = "attr { key: 'data_format' value { s: 'NCDHW' } }";
  const Tensor x = MakeTensor<double>({1, 2}, {1, 2});
  for (const KernelRun& r : {RunKernel(Node("BiasAddGrad", ncdhw), {x}),
                             RunKernel(Node("BiasAdd", ncdhw),
                                       {x, MakeTensor<double>({2}, {1, 2})})}) {
    CHECK(r.status.code() == Code::kInvalidArgument);
    CHECK_THAT(r.status.message(),
               Catch::Matchers::Contains("Invalid data format"));
  }
}

TEST_CASE("MatMul with transposes gives the gradients of MatMul", "[train]") {
  // y = a b, dL/da = dy b^T, dL/db = a^T dy: MatMul's gradient graph.
  const Tensor a = MakeTensor<double>({2, 3}, {1, 2, -1, 0.5, 3, -2});
  const Tensor b = MakeTensor<double>({3, 2}, {0.2, -1, 1.5, 2, -0.5, 1});
  const std::vector<double> dy = {1, -2, 0.5, 3};
  const Tensor dyt = MakeTensor<double>({2, 2}, dy);
  const std::string tb = "attr { key: 'transpose_b' value { b: true } }";
  const std::string ta = "attr { key: 'transpose_a' value { b: true } }";
  KernelRun da = RunKernel(Node("MatMul", tb), {dyt, b});
  KernelRun db = RunKernel(Node("MatMul", ta), {a, dyt});
  REQUIRE((da.status.ok() && db.status.ok()));
  CheckClose(Values(da.out(0)), NumericGrad(Node("MatMul"), {a, b}, 0, dy));
  CheckClose(Values(db.out(0)), NumericGrad(Node("MatMul"), {a, b}, 1, dy));
}

TEST_CASE("softmax cross entropy's backprop is its loss's gradient",
          "[train]") {
  const Tensor logits = MakeTensor<double>({2, 3}, {1, 2, 0.5, -1, 0, 3});
  const Tensor labels = MakeTensor<double>({2, 3}, {0.2, 0.7, 0.1, 0, 0, 1});
  KernelRun r =
      RunKernel(Node("SoftmaxCrossEntropyWithLogits"), {logits, labels});
  REQUIRE(r.status.ok());
  // Loss of row 0 by hand: logsumexp(x) - sum(labels * x).
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(0.5));
  CHECK(r.out(0).flat<double>()[0] ==
        Approx(lse - (0.2 * 1 + 0.7 * 2 + 0.1 * 0.5)));
  CheckClose(Values(r.out(1)),
             NumericGrad(Node("SoftmaxCrossEntropyWithLogits"),
                         {logits, labels}, 0, {1, 1}));
  // Labels broadcast over the batch.
  KernelRun bc = RunKernel(Node("SoftmaxCrossEntropyWithLogits"),
                           {logits, MakeTensor<double>({1, 3}, {0, 1, 0})});
  REQUIRE(bc.status.ok());
  CHECK(bc.out(1).shape() == TensorShape({2, 3}));

  const std::string sparse = "attr { key: 'Tlabels' value { type: DT_INT32 } }";
  const Tensor ids = MakeTensor<int32_t>({2}, {1, 2});
  KernelRun s = RunKernel(Node("SparseSoftmaxCrossEntropyWithLogits", sparse),
                          {logits, ids});
  REQUIRE(s.status.ok());
  CheckClose(Values(s.out(1)),
             NumericGrad(Node("SparseSoftmaxCrossEntropyWithLogits", sparse),
                         {logits, ids}, 0, {1, 1}));
  KernelRun out = RunKernel(Node("SparseSoftmaxCrossEntropyWithLogits", sparse),
                            {logits, MakeTensor<int32_t>({2}, {1, 3})});
  CHECK_THAT(out.status.message(),
             Catch::Matchers::Contains("Received a label value of 3 which is "
                                       "outside the valid range of [0, 3)"));
}

std::vector<double> Ramp(size_t n, double scale) {
  std::vector<double> v(n);
  // Distinct values (no ties for MaxPool), not monotonic.
  for (size_t i = 0; i < n; ++i)
    v[i] = scale * std::sin(0.7 * i + 0.3) + 0.01 * i;
  return v;
}

TEST_CASE("MaxPoolGrad and AvgPoolGrad match finite differences", "[train]") {
  for (const char* padding : {"VALID", "SAME"}) {
    const std::string attrs = fmt::format(
        "attr {{ key: 'ksize' value {{ list {{ i: 1 i: 2 i: 2 i: 1 }} }} }} "
        "attr {{ key: 'strides' value {{ list {{ i: 1 i: 2 i: 1 i: 1 }} }} }} "
        "attr {{ key: 'padding' value {{ s: '{}' }} }}",
        padding);
    const Tensor x = MakeTensor<double>({2, 4, 3, 2}, Ramp(48, 1.0));
    KernelRun y = RunKernel(Node("MaxPool", attrs), {x});
    REQUIRE(y.status.ok());
    const std::vector<double> w = Ramp(y.out(0).NumElements(), 0.5);
    const Tensor dy = MakeTensor<double>(
        std::vector<int64_t>(y.out(0).shape().dim_sizes().begin(),
                             y.out(0).shape().dim_sizes().end()),
        w);
    INFO(padding);
    KernelRun g = RunKernel(Node("MaxPoolGrad", attrs), {x, y.out(0), dy});
    REQUIRE(g.status.ok());
    CheckClose(Values(g.out(0)),
               NumericGrad(Node("MaxPool", attrs), {x}, 0, w));
    KernelRun a = RunKernel(Node("AvgPoolGrad", attrs),
                            {MakeTensor<int32_t>({4}, {2, 4, 3, 2}), dy});
    REQUIRE(a.status.ok());
    CheckClose(Values(a.out(0)),
               NumericGrad(Node("AvgPool", attrs), {x}, 0, w));
  }
}

TEST_CASE("Conv2DBackpropFilter is the gradient of Conv2D's filter",
          "[train]") {
  for (const char* padding : {"VALID", "SAME"}) {
    const std::string attrs = fmt::format(
        "attr {{ key: 'strides' value {{ list {{ i: 1 i: 2 i: 1 i: 1 }} }} }} "
        "attr {{ key: 'padding' value {{ s: '{}' }} }}",
        padding);
    const Tensor x = MakeTensor<double>({2, 5, 4, 3}, Ramp(120, 1.0));
    const Tensor f = MakeTensor<double>({3, 2, 3, 2}, Ramp(36, 0.3));
    KernelRun y = RunKernel(Node("Conv2D", attrs), {x, f});
    REQUIRE(y.status.ok());
    const std::vector<double> w = Ramp(y.out(0).NumElements(), 0.5);
    const Tensor dy = MakeTensor<double>(
        std::vector<int64_t>(y.out(0).shape().dim_sizes().begin(),
                             y.out(0).shape().dim_sizes().end()),
        w);
    INFO(padding);
    KernelRun g = RunKernel(Node("Conv2DBackpropFilter", attrs),
                            {x, MakeTensor<int32_t>({4}, {3, 2, 3, 2}), dy});
    REQUIRE(g.status.ok());
    CheckClose(Values(g.out(0)),
               NumericGrad(Node("Conv2D", attrs), {x, f}, 1, w));
    KernelRun gi = RunKernel(Node("Conv2DBackpropInput", attrs),
                             {MakeTensor<int32_t>({4}, {2, 5, 4, 3}), f, dy});
    REQUIRE(gi.status.ok());
    CheckClose(Values(gi.out(0)),
               NumericGrad(Node("Conv2D", attrs), {x, f}, 0, w));
  }
}

TEST_CASE("UnsortedSegmentSum is the gradient of GatherV2's params",
          "[train]") {
  const std::string gather =
      "name: 'g' op: 'GatherV2' attr { key: 'Tparams' value { type: DT_DOUBLE "
      "} } attr { key: 'Tindices' value { type: DT_INT32 } } attr { key: "
      "'Taxis' value { type: DT_INT32 } }";
  const Tensor params = MakeTensor<double>({4, 2}, Ramp(8, 1.0));
  const Tensor ids = MakeTensor<int32_t>({5}, {3, 0, 3, 1, 0});
  const std::vector<double> w = Ramp(10, 0.5);
  KernelRun g = RunKernel(
      Node("UnsortedSegmentSum",
           "attr { key: 'Tindices' value { type: DT_INT32 } }"),
      {MakeTensor<double>({5, 2}, w), ids, Tensor::Scalar<int32_t>(4)});
  REQUIRE(g.status.ok());
  CheckClose(
      Values(g.out(0)),
      NumericGrad(gather, {params, ids, Tensor::Scalar<int32_t>(0)}, 0, w));
}

TEST_CASE("StridedSliceGrad scatters dy where StridedSlice reads", "[train]") {
  // x[1:, ::-2, 1] of a [3,4,2]: shrink on the last dim.
  const std::string attrs =
      "attr { key: 'Index' value { type: DT_INT32 } } attr { key: "
      "'shrink_axis_mask' value { i: 4 } } attr { key: 'begin_mask' value { "
      "i: 2 } } attr { key: 'end_mask' value { i: 2 } }";
  const Tensor x = MakeTensor<double>({3, 4, 2}, Ramp(24, 1.0));
  const Tensor b = MakeTensor<int32_t>({3}, {1, 0, 1});
  const Tensor e = MakeTensor<int32_t>({3}, {3, 0, 2});
  const Tensor st = MakeTensor<int32_t>({3}, {1, -2, 1});
  KernelRun y = RunKernel(Node("StridedSlice", attrs), {x, b, e, st});
  REQUIRE(y.status.ok());
  REQUIRE(y.out(0).shape() == TensorShape({2, 2}));
  const std::vector<double> w = {1, -2, 3, 0.5};
  KernelRun g = RunKernel(Node("StridedSliceGrad", attrs),
                          {MakeTensor<int32_t>({3}, {3, 4, 2}), b, e, st,
                           MakeTensor<double>({2, 2}, w)});
  REQUIRE(g.status.ok());
  CheckClose(Values(g.out(0)),
             NumericGrad(Node("StridedSlice", attrs), {x, b, e, st}, 0, w));
  KernelRun bad = RunKernel(Node("StridedSliceGrad", attrs),
                            {MakeTensor<int32_t>({3}, {3, 4, 2}), b, e, st,
                             MakeTensor<double>({4}, w)});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("shape of dy was [4] instead of [2,2]"));
}

}  // namespace
}  // namespace dfg
