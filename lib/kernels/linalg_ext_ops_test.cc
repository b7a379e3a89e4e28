// Hand-checked values for linalg_ext_ops.cc, linalg_band_ops.cc,
// linalg_ext_misc_ops.cc and the deprecated Batch* aliases, so that a
// machine without TensorFlow still tests them (the TF oracle's
// op_cases/linalg_ext.py and deprecated.py check them against TensorFlow).
#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <mutex>
#include <string>
#include <vector>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

KernelRun Op(const std::string& op, std::initializer_list<Tensor> in,
             const std::string& dtype = "DT_DOUBLE",
             const std::string& extra = "") {
  return RunKernel(fmt::format("name: 'n' op: '{}' attr {{ key: 'T' value {{ "
                               "type: {} }} }} {}",
                               op, dtype, extra),
                   in);
}

std::string BoolAttr(const char* name, bool v) {
  return fmt::format("attr {{ key: '{}' value {{ b: {} }} }}", name, v);
}

TEST_CASE("CholeskyGrad is the symmetric gradient of A from L and dL",
          "[kernels]") {
  // L = [[2, 0], [1, 1]], dL = tril([[1, 0], [1, 1]]).
  for (const char* op : {"CholeskyGrad", "BatchCholeskyGrad"}) {
    KernelRun r = Op(op, {MakeTensor<double>({2, 2}, {2, 0, 1, 1}),
                          MakeTensor<double>({2, 2}, {1, 9, 1, 1})});
    REQUIRE(r.status.ok());
    CHECK(Flat<double>(r.out(0)) == "[2,2] 0.25 0 0 0.5");
  }
  KernelRun bad = Op("CholeskyGrad", {MakeTensor<double>({2, 2}, {1, 0, 0, 1}),
                                      MakeTensor<double>({1}, {1})});
  CHECK(bad.status.message().find("same rank") != std::string::npos);
}

TEST_CASE("Lu packs L and U in one matrix and the row permutation",
          "[kernels]") {
  KernelRun r = Op("Lu", {MakeTensor<double>({2, 2}, {1, 2, 3, 4})});
  REQUIRE(r.status.ok());
  CHECK(r.out(0).flat<double>()[0] == 3);
  CHECK(r.out(0).flat<double>()[2] == Approx(1.0 / 3));
  CHECK(r.out(0).flat<double>()[3] == Approx(2.0 / 3));
  CHECK(Flat<int32_t>(r.out(1)) == "[2] 1 0");
  KernelRun singular = Op("Lu", {MakeTensor<double>({2, 2}, {1, 2, 2, 4})});
  CHECK(singular.status.message().find("not invertible") != std::string::npos);
}

TEST_CASE("SelfAdjointEig (V1) puts eigenvalues over eigenvectors",
          "[kernels]") {
  KernelRun r =
      Op("SelfAdjointEig", {MakeTensor<double>({2, 2}, {2, 0, 0, 1})});
  REQUIRE(r.status.ok());
  const auto v = r.out(0).flat<double>();
  REQUIRE(r.out(0).shape().DebugString() == "[3,2]");
  CHECK(v[0] == Approx(1.0));
  CHECK(v[1] == Approx(2.0));
  CHECK(std::abs(v[2]) == Approx(0.0).margin(1e-15));  // (1, 0): eigval 2
  CHECK(std::abs(v[3]) == Approx(1.0));
  CHECK(std::abs(v[4]) == Approx(1.0));
}

TEST_CASE("the Batch* aliases run their successors' kernels", "[kernels]") {
  KernelRun inv =
      Op("BatchMatrixInverse", {MakeTensor<double>({2, 2}, {2, 0, 0, 4})},
         "DT_DOUBLE", BoolAttr("adjoint", false));
  REQUIRE(inv.status.ok());
  CHECK(inv.out(0).flat<double>()[0] == 0.5);
  CHECK(inv.out(0).flat<double>()[3] == 0.25);
  KernelRun det =
      Op("BatchMatrixDeterminant", {MakeTensor<double>({2, 2}, {1, 2, 3, 4})});
  REQUIRE(det.status.ok());
  CHECK(det.out(0).flat<double>()[0] == Approx(-2.0));
}

TEST_CASE("AdjustContrast (v1) scales around the channel mean and clamps",
          "[kernels]") {
  // One 2x1 image, one channel: values 0 and 4, mean 2, factor 2 -> -2, 6,
  // clamped to [-1, 5].
  KernelRun r =
      Op("AdjustContrast",
         {MakeTensor<int32_t>({2, 1, 1}, {0, 4}), MakeTensor<float>({}, {2}),
          MakeTensor<float>({}, {-1}), MakeTensor<float>({}, {5})},
         "DT_INT32");
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[2,1,1] -1 5");
}

TEST_CASE("TridiagonalMatMul and TridiagonalSolve invert each other",
          "[kernels]") {
  // T = [[2, 1, 0], [1, 2, 1], [0, 1, 2]].
  auto sup = MakeTensor<double>({1, 3}, {1, 1, 0});
  auto dia = MakeTensor<double>({1, 3}, {2, 2, 2});
  auto sub = MakeTensor<double>({1, 3}, {0, 1, 1});
  KernelRun mm = Op("TridiagonalMatMul",
                    {sup, dia, sub, MakeTensor<double>({3, 1}, {1, 1, 1})});
  REQUIRE(mm.status.ok());
  CHECK(Flat<double>(mm.out(0)) == "[3,1] 3 4 3");
  auto diags = MakeTensor<double>({3, 3}, {1, 1, 0, 2, 2, 2, 0, 1, 1});
  auto rhs = MakeTensor<double>({3, 1}, {3, 4, 3});
  for (bool pivoting : {true, false}) {
    KernelRun s = Op("TridiagonalSolve", {diags, rhs}, "DT_DOUBLE",
                     BoolAttr("partial_pivoting", pivoting) +
                         BoolAttr("perturb_singular", false));
    REQUIRE(s.status.ok());
    for (double x : s.out(0).flat<double>()) CHECK(x == Approx(1.0));
  }
  // T = [[0, 1], [1, 1]]: a zero leading pivot needs pivoting; the Thomas
  // algorithm gives NaN.
  auto zero_first = MakeTensor<double>({3, 2}, {1, 0, 0, 1, 0, 1});
  KernelRun thomas =
      Op("TridiagonalSolve", {zero_first, MakeTensor<double>({2, 1}, {1, 2})},
         "DT_DOUBLE",
         BoolAttr("partial_pivoting", false) +
             BoolAttr("perturb_singular", false));
  REQUIRE(thomas.status.ok());
  CHECK(std::isnan(thomas.out(0).flat<double>()[0]));
  KernelRun pivoted = Op(
      "TridiagonalSolve", {zero_first, MakeTensor<double>({2, 1}, {1, 2})},
      "DT_DOUBLE",
      BoolAttr("partial_pivoting", true) + BoolAttr("perturb_singular", false));
  REQUIRE(pivoted.status.ok());
  CHECK(Flat<double>(pivoted.out(0)) == "[2,1] 1 1");
}

TEST_CASE("BandedTriangularSolve reads LEFT_RIGHT band storage", "[kernels]") {
  // Lower: A = [[1, 0, 0], [1, 2, 0], [0, 1, 4]].
  KernelRun lower =
      Op("BandedTriangularSolve",
         {MakeTensor<double>({2, 3}, {1, 2, 4, 0, 1, 1}),
          MakeTensor<double>({3, 1}, {1, 4, 12})},
         "DT_DOUBLE", BoolAttr("lower", true) + BoolAttr("adjoint", false));
  REQUIRE(lower.status.ok());
  CHECK(Flat<double>(lower.out(0)) == "[3,1] 1 1.5 2.625");
  // Upper: A = [[1, 1, 0], [0, 2, 1], [0, 0, 4]].
  KernelRun upper =
      Op("BandedTriangularSolve",
         {MakeTensor<double>({2, 3}, {1, 1, 0, 1, 2, 4}),
          MakeTensor<double>({3, 1}, {2, 4, 4})},
         "DT_DOUBLE", BoolAttr("lower", false) + BoolAttr("adjoint", false));
  REQUIRE(upper.status.ok());
  CHECK(Flat<double>(upper.out(0)) == "[3,1] 0.5 1.5 1");
}

}  // namespace
}  // namespace dfg

namespace dfg {
namespace {

TEST_CASE("MatrixExponential, MatrixSquareRoot and MatrixLogarithm",
          "[kernels]") {
  // exp([[0, 1], [0, 0]]) = [[1, 1], [0, 1]]; exp(diag(1, 2)).
  KernelRun e = Op("MatrixExponential",
                   {MakeTensor<double>({2, 2, 2}, {0, 1, 0, 0, 1, 0, 0, 2})});
  REQUIRE(e.status.ok());
  const auto ev = e.out(0).flat<double>();
  CHECK(ev[0] == Approx(1.0));
  CHECK(ev[1] == Approx(1.0));
  CHECK(ev[2] == Approx(0.0).margin(1e-15));
  CHECK(ev[4] == Approx(std::exp(1.0)));
  CHECK(ev[7] == Approx(std::exp(2.0)));
  // [[4, 1], [0, 9]] has the root [[2, 0.2], [0, 3]].
  KernelRun s =
      Op("MatrixSquareRoot", {MakeTensor<double>({2, 2}, {4, 1, 0, 9})});
  REQUIRE(s.status.ok());
  const auto sv = s.out(0).flat<double>();
  CHECK(sv[0] == Approx(2.0));
  CHECK(sv[1] == Approx(0.2));
  CHECK(sv[3] == Approx(3.0));
  KernelRun neg =
      Op("MatrixSquareRoot", {MakeTensor<double>({2, 2}, {-1, 0, 0, 4})});
  REQUIRE(neg.status.ok());
  for (double v : neg.out(0).flat<double>()) CHECK(std::isnan(v));
  // log([[2, 1], [0, 2]]) = [[log 2, 1/2], [0, log 2]].
  using C = std::complex<double>;
  KernelRun l =
      Op("MatrixLogarithm", {MakeTensor<C>({2, 2}, {C(2), C(1), C(0), C(2)})},
         "DT_COMPLEX128");
  REQUIRE(l.status.ok());
  const auto lv = l.out(0).flat<C>();
  CHECK(lv[0].real() == Approx(std::log(2.0)));
  CHECK(lv[1].real() == Approx(0.5));
  CHECK(std::abs(lv[2]) == Approx(0.0).margin(1e-15));
}

TEST_CASE("Eig of a rotation has eigenvalues +-i", "[kernels]") {
  KernelRun r = RunKernel(
      "name: 'n' op: 'Eig' attr { key: 'T' value { type: DT_DOUBLE } } "
      "attr { key: 'Tout' value { type: DT_COMPLEX128 } } "
      "attr { key: 'compute_v' value { b: true } }",
      {MakeTensor<double>({2, 2}, {0, -1, 1, 0})});
  REQUIRE(r.status.ok());
  const auto e = r.out(0).flat<std::complex<double>>();
  CHECK(std::abs(e[0].real()) == Approx(0.0).margin(1e-15));
  CHECK(std::abs(e[0].imag()) == Approx(1.0));
  CHECK(std::abs(e[1] - std::conj(e[0])) == Approx(0.0).margin(1e-14));
  for (const auto& v : r.out(1).flat<std::complex<double>>())
    CHECK(std::abs(v) == Approx(std::sqrt(0.5)));
}

TEST_CASE("Fact, SdcaFprint and IsotonicRegression", "[kernels]") {
  KernelRun fact = RunKernel("name: 'n' op: 'Fact'", {});
  REQUIRE(fact.status.ok());
  CHECK(fact.out(0).flat<std::string>()[0] == "0! == 1");
  // Values from TensorFlow 2.21.
  KernelRun fp = RunKernel("name: 'n' op: 'SdcaFprint'",
                           {MakeTensor<std::string>({2}, {"a", ""})});
  REQUIRE(fp.status.ok());
  CHECK(Flat<int64_t>(fp.out(0)) ==
        "[2,2] 7969074168056553668 5955762262185338209 4463240938071824939 "
        "4374473821787594281");
  // Non-increasing fit: [1, 3, 2, 4] pools into one block of mean 2.5.
  KernelRun iso = RunKernel(
      "name: 'n' op: 'IsotonicRegression' attr { key: 'T' value { type: "
      "DT_FLOAT } } attr { key: 'output_dtype' value { type: DT_FLOAT } }",
      {MakeTensor<float>({4}, {1, 3, 2, 4})});
  REQUIRE(iso.status.ok());
  CHECK(Flat<float>(iso.out(0)) == "[4] 2.5 2.5 2.5 2.5");
  CHECK(Flat<int32_t>(iso.out(1)) == "[4] 0 0 0 0");
}

TEST_CASE("ApproxTopK is the exact top k on CPU", "[kernels]") {
  const std::string attrs =
      "attr { key: 'k' value { i: 2 } } "
      "attr { key: 'reduction_dimension' value { i: -1 } } "
      "attr { key: 'is_max_k' value { b: true } }";
  KernelRun r = Op("ApproxTopK", {MakeTensor<float>({5}, {1, 4, 2, 4, 0})},
                   "DT_FLOAT", attrs);
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[2] 4 4");
  CHECK(Flat<int32_t>(r.out(1)) == "[2] 1 3");
}

TEST_CASE("SdcaShrinkL1 shrinks ref variables in place", "[kernels]") {
  auto tester = testing::KernelTester::Create(
      "name: 'n' op: 'SdcaShrinkL1' attr { key: 'num_features' value { i: 1 "
      "} } attr { key: 'l1' value { f: 1 } } attr { key: 'l2' value { f: 2 "
      "} }");
  REQUIRE(tester.ok());
  Tensor w = MakeTensor<float>({4}, {2, -2, 0.25, -0.5});
  std::mutex mu;
  KernelRun r = (*tester)->RunValues({TensorValue{&w, &mu}});
  REQUIRE(r.status.ok());
  // Shrinkage l1 / l2 = 0.5.
  CHECK(Flat<float>(w) == "[4] 1.5 -1.5 0 -0");
}

TEST_CASE("the k-means helpers match TensorFlow's seeded samples",
          "[kernels]") {
  KernelRun nn = RunKernel("name: 'n' op: 'NearestNeighbors'",
                           {MakeTensor<float>({2, 2}, {0, 0, 3, 3}),
                            MakeTensor<float>({3, 2}, {1, 0, 3, 4, 0, 2}),
                            MakeTensor<int64_t>({}, {2})});
  REQUIRE(nn.status.ok());
  CHECK(Flat<int64_t>(nn.out(0)) == "[2,2] 0 2 1 2");
  CHECK(Flat<float>(nn.out(1)) == "[2,2] 1 4 1 10");
  // Values from TensorFlow 2.21.
  KernelRun kmc2 = RunKernel("name: 'n' op: 'KMC2ChainInitialization'",
                             {MakeTensor<float>({8}, {1, 2, 3, 4, 5, 6, 7, 8}),
                              MakeTensor<int64_t>({}, {5})});
  REQUIRE(kmc2.status.ok());
  CHECK(Flat<int64_t>(kmc2.out(0)) == "[] 7");
  std::vector<float> points(12);
  for (int i = 0; i < 12; ++i) points[i] = static_cast<float>(i);
  KernelRun pp = RunKernel(
      "name: 'n' op: 'KmeansPlusPlusInitialization'",
      {MakeTensor<float>({6, 2}, points), MakeTensor<int64_t>({}, {3}),
       MakeTensor<int64_t>({}, {9}), MakeTensor<int64_t>({}, {0})});
  REQUIRE(pp.status.ok());
  CHECK(Flat<float>(pp.out(0)) == "[3,2] 0 1 8 9 6 7");
}

}  // namespace
}  // namespace dfg
