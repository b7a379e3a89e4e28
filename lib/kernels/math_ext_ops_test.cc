// Hand-checked values for math_ext_ops.cc, segment_reduce_ops.cc,
// special_math.cc and linalg_ops.cc, so that a machine without TensorFlow
// still tests them (the TF oracle's op_cases/math_ext.py checks them against
// TensorFlow itself).
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/special_math.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

KernelRun Op(const std::string& op, std::initializer_list<Tensor> in,
             const std::string& dtype, const std::string& extra = "") {
  return RunKernel(fmt::format("name: 'n' op: '{}' attr {{ key: 'T' value {{ "
                               "type: {} }} }} {}",
                               op, dtype, extra),
                   in);
}

TEST_CASE("special functions hit known values", "[kernels]") {
  CHECK(Ndtri(0.5) == 0.0);
  CHECK(Ndtri(0.975) == Approx(1.959963984540054).epsilon(1e-15));
  CHECK(Ndtri(1e-300) == Approx(-37.04710).epsilon(1e-6));
  CHECK(std::isinf(Ndtri(0.0)));
  CHECK(std::isnan(Ndtri(1.5)));
  CHECK(Erfinv(0.5) == Approx(0.4769362762044699).epsilon(1e-15));
  CHECK(Erfinv(-1e-10) == Approx(-8.862269254527580e-11).epsilon(1e-14));
  CHECK(std::erf(Erfinv(0.999999)) == Approx(0.999999).epsilon(1e-15));
  CHECK(Digamma(1.0) == Approx(-0.5772156649015329).epsilon(1e-15));
  CHECK(Digamma(-0.5) == Approx(0.03648997397857652).epsilon(1e-13));
  CHECK(std::isnan(Digamma(-2.0)));
}

TEST_CASE("incomplete gamma / beta, zeta, Dawson, Fresnel, Spence",
          "[kernels]") {
  CHECK(IgammaP(1.0, 2.0) == Approx(1.0 - std::exp(-2.0)).epsilon(1e-14));
  CHECK(IgammaQ(0.5, 2.0) == Approx(std::erfc(std::sqrt(2.0))).epsilon(1e-13));
  CHECK(HurwitzZeta(2.0, 1.0) == Approx(1.6449340668482264).epsilon(1e-14));
  CHECK(std::isinf(HurwitzZeta(2.0, -1.0)));
  CHECK(std::isnan(HurwitzZeta(2.5, -1.0)));
  CHECK(Polygamma(1.0, 1.0) == Approx(1.6449340668482264).epsilon(1e-14));
  CHECK(Betainc(2.0, 3.0, 0.4) == Approx(0.5248).epsilon(1e-13));
  CHECK(Dawson(1.0) == Approx(0.5380795069127684).epsilon(1e-14));
  double c = 0, s = 0;
  Fresnel(1.0, &c, &s);
  CHECK(c == Approx(0.7798934003768228).epsilon(1e-14));
  CHECK(s == Approx(0.4382591473903548).epsilon(1e-14));
  CHECK(Spence(2.0) == Approx(-0.8224670334241132).epsilon(1e-14));
  CHECK(Spence(0.0) == Approx(1.6449340668482264).epsilon(1e-14));
}

TEST_CASE("Bessel kernels keep TensorFlow's edge values", "[kernels]") {
  const std::vector<double> xs = {0.0, -2.5, 3.75};
  // A copy: the kernel's result (and its buffer) dies with `result`.
  auto run = [&](const char* op) {
    auto result = Op(op, {MakeTensor<double>({3}, xs)}, "DT_DOUBLE");
    const auto flat = result.out(0).flat<double>();
    return std::vector<double>(flat.begin(), flat.end());
  };
  auto k0 = run("BesselK0");
  CHECK((std::isinf(k0[0]) && std::isinf(k0[1])));
  CHECK(k0[2] == Approx(0.014774250877128702).epsilon(1e-13));
  auto i1e = run("BesselI1e");
  CHECK(i1e[1] == Approx(-0.20658464953126654).epsilon(1e-13));
  auto y0 = run("BesselY0");
  CHECK((std::isinf(y0[0]) && y0[0] < 0));
  CHECK(y0[2] == Approx(0.08525675697736312).epsilon(1e-13));
}

TEST_CASE("Mod and TruncateMod keep the dividend's sign, TruncateDiv truncates",
          "[kernels]") {
  auto x = MakeTensor<int32_t>({4}, {-7, 7, -7, 7});
  auto y = MakeTensor<int32_t>({4}, {2, -2, -2, 2});
  CHECK(Flat<int32_t>(Op("TruncateMod", {x, y}, "DT_INT32").out(0)) ==
        "[4] -1 1 -1 1");
  CHECK(Flat<int32_t>(Op("TruncateDiv", {x, y}, "DT_INT32").out(0)) ==
        "[4] -3 -3 3 3");
  auto zero = MakeTensor<int32_t>({1}, {0});
  CHECK(Op("Mod", {x, zero}, "DT_INT32").status.message() ==
        "Integer division by zero");
  auto f =
      Op("Mod", {MakeTensor<float>({1}, {-7.5f}), MakeTensor<float>({1}, {2})},
         "DT_FLOAT");
  CHECK(f.out(0).flat<float>()[0] == -1.5f);
}

TEST_CASE("bitwise ops clamp shift amounts as TensorFlow does", "[kernels]") {
  auto x = MakeTensor<int8_t>({4}, {1, 1, 1, -1});
  auto s = MakeTensor<int8_t>({4}, {7, 8, -1, 3});
  auto l = Op("LeftShift", {x, s}, "DT_INT8");
  const auto lf = l.out(0).flat<int8_t>();
  CHECK((lf[0] == -128 && lf[1] == -128 && lf[2] == 1 && lf[3] == -8));
  auto r =
      Op("RightShift",
         {MakeTensor<int8_t>({2}, {-128, 64}), MakeTensor<int8_t>({2}, {7, 8})},
         "DT_INT8");
  CHECK((r.out(0).flat<int8_t>()[0] == -1 && r.out(0).flat<int8_t>()[1] == 0));
  auto p =
      Op("PopulationCount", {MakeTensor<int64_t>({2}, {-1, 3})}, "DT_INT64");
  CHECK(
      (p.out(0).flat<uint8_t>()[0] == 64 && p.out(0).flat<uint8_t>()[1] == 2));
}

TEST_CASE("segment reductions fill empty segments with TensorFlow's values",
          "[kernels]") {
  auto data = MakeTensor<float>({3}, {1, 3, 5});
  auto ids = MakeTensor<int32_t>({3}, {0, 0, 2});
  const std::string idx = "attr { key: 'Tindices' value { type: DT_INT32 } }";
  CHECK(Flat<float>(Op("SegmentMax", {data, ids}, "DT_FLOAT", idx).out(0)) ==
        "[3] 3 0 5");
  CHECK(Flat<float>(Op("SegmentMean", {data, ids}, "DT_FLOAT", idx).out(0)) ==
        "[3] 2 0 5");
  CHECK(Flat<float>(Op("SegmentProd", {data, ids}, "DT_FLOAT", idx).out(0)) ==
        "[3] 3 1 5");
  auto u = Op("UnsortedSegmentMax", {data, ids, Tensor::Scalar<int32_t>(4)},
              "DT_FLOAT", idx);
  REQUIRE(u.status.ok());
  CHECK(u.out(0).flat<float>()[1] == std::numeric_limits<float>::lowest());
  auto bad = Op("SegmentMin", {data, MakeTensor<int32_t>({3}, {1, 0, 0})},
                "DT_FLOAT", idx);
  CHECK(bad.status.message() == "segment ids are not increasing");
}

TEST_CASE("MatrixBandPart keeps the band", "[kernels]") {
  auto in = MakeTensor<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto r = Op("MatrixBandPart",
              {in, Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(1)},
              "DT_FLOAT");
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[3,3] 1 2 0 0 5 6 0 0 9");
  auto causal =
      Op("MatrixBandPart",
         {in, Tensor::Scalar<int64_t>(-1), Tensor::Scalar<int64_t>(0)},
         "DT_FLOAT");
  CHECK(Flat<float>(causal.out(0)) == "[3,3] 1 0 0 4 5 0 7 8 9");
}

TEST_CASE("MatrixDiagPartV3 aligns short diagonals as `align` says",
          "[kernels]") {
  auto in = MakeTensor<float>({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  auto k = MakeTensor<int32_t>({2}, {-1, 2});
  auto pad = Tensor::Scalar<float>(0);
  auto left = Op("MatrixDiagPartV3", {in, k, pad}, "DT_FLOAT",
                 "attr { key: 'align' value { s: 'LEFT_RIGHT' } }");
  REQUIRE(left.status.ok());
  CHECK(Flat<float>(left.out(0)) == "[4,3] 3 8 0 2 7 12 1 6 11 0 5 10");
  auto right = Op("MatrixDiagPartV3", {in, k, pad}, "DT_FLOAT",
                  "attr { key: 'align' value { s: 'RIGHT_LEFT' } }");
  CHECK(Flat<float>(right.out(0)) == "[4,3] 0 3 8 2 7 12 1 6 11 5 10 0");
  auto diag =
      Op("MatrixDiagV3",
         {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
          MakeTensor<int32_t>({2}, {-1, 0}), Tensor::Scalar<int32_t>(-1),
          Tensor::Scalar<int32_t>(-1), Tensor::Scalar<float>(9)},
         "DT_FLOAT");
  REQUIRE(diag.status.ok());
  CHECK(Flat<float>(diag.out(0)) == "[3,3] 1 9 9 4 2 9 9 5 3");
}

TEST_CASE("small math ops: L2Loss, Bucketize, HistogramFixedWidth, InTopKV2",
          "[kernels]") {
  auto l2 = Op("L2Loss", {MakeTensor<float>({2}, {3, 4})}, "DT_FLOAT");
  CHECK(l2.out(0).flat<float>()[0] == 12.5f);
  auto b = RunKernel(
      "name: 'b' op: 'Bucketize' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'boundaries' value { list { f: [0, 1, 2] } } }",
      {MakeTensor<float>({5}, {-1, 0, 1, 2, 5})});
  REQUIRE(b.status.ok());
  CHECK(Flat<int32_t>(b.out(0)) == "[5] 0 1 2 3 3");
  auto h = Op("HistogramFixedWidth",
              {MakeTensor<int32_t>({7}, {-1, 0, 1, 2, 5, 9, 4}),
               MakeTensor<int32_t>({2}, {0, 5}), Tensor::Scalar<int32_t>(3)},
              "DT_INT32");
  REQUIRE(h.status.ok());
  CHECK(Flat<int32_t>(h.out(0)) == "[3] 3 1 3");
  auto top = Op("InTopKV2",
                {MakeTensor<float>({2, 3}, {1, 2, 3, 3, 3, 1}),
                 MakeTensor<int32_t>({2}, {2, 1}), Tensor::Scalar<int32_t>(1)},
                "DT_INT32");
  REQUIRE(top.status.ok());
  CHECK((top.out(0).flat<bool>()[0] && top.out(0).flat<bool>()[1]));
}

TEST_CASE("linear algebra kernels through LAPACK", "[kernels]") {
  auto a = MakeTensor<double>({2, 2}, {4, 2, 2, 3});
  auto inv = Op("MatrixInverse", {a}, "DT_DOUBLE");
  REQUIRE(inv.status.ok());
  const auto iv = inv.out(0).flat<double>();
  CHECK(iv[0] == Approx(0.375));
  CHECK(iv[1] == Approx(-0.25));
  CHECK(iv[3] == Approx(0.5));
  auto det = Op("MatrixDeterminant", {a}, "DT_DOUBLE");
  CHECK(det.out(0).flat<double>()[0] == Approx(8.0));
  auto chol = Op("Cholesky", {a}, "DT_DOUBLE");
  const auto l = chol.out(0).flat<double>();
  CHECK((l[0] == Approx(2.0) && l[1] == 0.0 && l[2] == Approx(1.0) &&
         l[3] == Approx(std::sqrt(2.0))));
  auto svd = RunKernel(
      "name: 's' op: 'Svd' attr { key: 'T' value { type: DT_DOUBLE } }",
      {MakeTensor<double>({2, 2}, {3, 0, 0, -5})});
  REQUIRE(svd.status.ok());
  CHECK(svd.out(0).flat<double>()[0] == Approx(5.0));
  CHECK(svd.out(0).flat<double>()[1] == Approx(3.0));
  auto sing = Op("MatrixInverse", {MakeTensor<double>({2, 2}, {1, 2, 2, 4})},
                 "DT_DOUBLE");
  CHECK(sing.status.message() == "Input is not invertible.");
}

}  // namespace
}  // namespace dfg
