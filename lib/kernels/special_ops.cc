// Special functions: the Bessel family (BesselI0/I1 and their exponentially
// scaled I0e/I1e, J0/J1, Y0/Y1, K0/K1, K0e/K1e) and Expint (the exponential
// integral Ei). Values come from the C library (j0/j1/y0/y1) and C++17's
// mathematical special functions (cyl_bessel_i/k, expint), in double;
// arguments outside their domains are answered here first (libstdc++
// throws on them), and the scaled forms switch to the asymptotic series
// where the unscaled ones overflow or underflow.
#include <cmath>
#include <limits>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;
// Beyond this, I_nu(x) overflows and K_nu(x) underflows a double.
constexpr double kAsymptotic = 600.0;

// sum_k s^k a_k(nu) / x^k with a_k(nu) = prod_{j<=k} (4nu^2 - (2j-1)^2) /
// (k! 8^k) (A&S 9.7.1, 9.7.2); s = -1 for I, +1 for K. At x >= 600 the
// terms fall below an ulp long before they start to grow.
double AsymptoticSeries(int nu, double x, double s) {
  const double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 40; ++k) {
    term *= s * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * x);
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum;
}

// I_nu(|x|) e^{-|x|}, nu = 0 or 1 (the sign of odd orders is applied by the
// caller).
double ScaledI(int nu, double ax) {
  if (ax > kAsymptotic) {
    return AsymptoticSeries(nu, ax, -1.0) / std::sqrt(2.0 * kPi * ax);
  }
  return std::cyl_bessel_i(static_cast<double>(nu), ax) * std::exp(-ax);
}

// TensorFlow's (Cephes') edges: I0(+-inf) and I1(+-inf) are NaN, the
// scaled forms 0 there.
double BesselI(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  double v;
  if (scaled) {
    v = std::isinf(ax) ? 0.0 : ScaledI(nu, ax);
  } else if (std::isinf(ax)) {
    return kNaN;
  } else if (ax > kAsymptotic) {
    // e^ax in two halves: I_nu stays finite a little past exp's overflow.
    const double half = std::exp(0.5 * ax);
    v = ScaledI(nu, ax) * half * half;
  } else {
    v = std::cyl_bessel_i(static_cast<double>(nu), ax);
  }
  return (nu == 1 && x < 0) ? -v : v;
}

// K_nu is +inf on x <= 0 (TensorFlow's answer off the domain), 0 at +inf.
double BesselK(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  if (x <= 0) return kInf;
  if (std::isinf(x)) return 0.0;
  if (scaled && x > kAsymptotic) {
    return AsymptoticSeries(nu, x, 1.0) * std::sqrt(kPi / (2.0 * x));
  }
  const double k =
      x > kAsymptotic ? 0.0 : std::cyl_bessel_k(static_cast<double>(nu), x);
  return scaled ? k * std::exp(x) : k;
}

// Y_nu is -inf on x <= 0 and NaN at +inf (TensorFlow's edges).
double BesselY(int nu, double x) {
  if (std::isnan(x) || x == kInf) return kNaN;
  if (x <= 0) return -kInf;
  return nu == 0 ? ::y0(x) : ::y1(x);
}

// J_nu is NaN at +-inf (TensorFlow's edge; the C library says 0).
double BesselJ(int nu, double x) {
  if (std::isinf(x)) return kNaN;
  return nu == 0 ? ::j0(x) : ::j1(x);
}

// Ei(x) for x >= 0: -inf at 0; NaN for x < 0 and at +inf as TensorFlow's.
double Ei(double x) {
  if (std::isnan(x) || x < 0 || x == kInf) return kNaN;
  if (x == 0) return -kInf;
  return std::expint(x);
}

template <double (*kFn)(double)>
struct DoubleF {
  template <typename C>
  C operator()(const C& x) const {
    return static_cast<C>(kFn(static_cast<double>(x)));
  }
};

double I0(double x) { return BesselI(0, x, false); }
double I1(double x) { return BesselI(1, x, false); }
double I0e(double x) { return BesselI(0, x, true); }
double I1e(double x) { return BesselI(1, x, true); }
double K0(double x) { return BesselK(0, x, false); }
double K1(double x) { return BesselK(1, x, false); }
double K0e(double x) { return BesselK(0, x, true); }
double K1e(double x) { return BesselK(1, x, true); }
double J0(double x) { return BesselJ(0, x); }
double J1(double x) { return BesselJ(1, x); }
double Y0(double x) { return BesselY(0, x); }
double Y1(double x) { return BesselY(1, x); }

// TensorFlow's float BesselY1 is NaN at 0 (its double one -inf).
struct Y1F {
  template <typename C>
  C operator()(const C& x) const {
    if (std::is_same_v<C, float> && x == 0) return static_cast<C>(kNaN);
    return static_cast<C>(Y1(static_cast<double>(x)));
  }
};

using BesselTypes = TypeList<float, double, Half>;
using F32F64 = TypeList<float, double>;

template <double (*kFn)(double), typename Types>
void Unary(KernelRegistry* r, const char* op, Types types) {
  r->Register<UnaryOpKernel<DoubleF<kFn>, Types>>(op,
                                                  {TypeConstraint("T", types)});
}

}  // namespace

void RegisterSpecialKernels(KernelRegistry* r) {
  Unary<I0>(r, "BesselI0", BesselTypes());
  Unary<I1>(r, "BesselI1", BesselTypes());
  Unary<I0e>(r, "BesselI0e", BesselTypes());
  Unary<I1e>(r, "BesselI1e", BesselTypes());
  Unary<K0>(r, "BesselK0", BesselTypes());
  Unary<K1>(r, "BesselK1", BesselTypes());
  Unary<K0e>(r, "BesselK0e", BesselTypes());
  Unary<K1e>(r, "BesselK1e", BesselTypes());
  Unary<J0>(r, "BesselJ0", BesselTypes());
  Unary<J1>(r, "BesselJ1", BesselTypes());
  Unary<Y0>(r, "BesselY0", BesselTypes());
  r->Register<UnaryOpKernel<Y1F, BesselTypes>>(
      "BesselY1", {TypeConstraint("T", BesselTypes())});
  Unary<Ei>(r, "Expint", F32F64());
}

}  // namespace dfg
