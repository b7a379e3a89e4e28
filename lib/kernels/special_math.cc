// Special functions by refinement: a start good to ~1e-3, then Halley /
// Newton steps on an accurate forward function until the step is below an
// ulp (three steps suffice from that start; a fixed count keeps the cost
// bounded).
#include "lib/kernels/special_math.h"

#include <cmath>
#include <limits>

namespace dfg {
namespace {

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrt2Pi = 2.50662827463100050242;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kPi = 3.14159265358979323846;

// A&S 26.2.23: the upper-tail normal quantile for 0 < q <= 0.5 (|error| <
// 4.5e-4), returned negated: the x with Phi(x) ~= q.
double NormalTailStart(double q) {
  const double t = std::sqrt(-2.0 * std::log(q));
  const double num = 2.515517 + t * (0.802853 + t * 0.010328);
  const double den = 1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308));
  return -(t - num / den);
}

// Phi(x) - q for x <= 0, in the tail form erfc keeps accurate.
double LowerTailMinus(double x, double q) {
  return 0.5 * std::erfc(-x / kSqrt2) - q;
}

// The x <= 0 with Phi(x) = q, 0 < q <= 0.5.
double LowerQuantile(double q) {
  double x = NormalTailStart(q);
  for (int i = 0; i < 4; ++i) {
    // Halley's step on Phi(x) - q; Phi'(x) = exp(-x^2/2) / sqrt(2 pi).
    const double e = LowerTailMinus(x, q);
    const double u = e * kSqrt2Pi * std::exp(0.5 * x * x);
    if (!std::isfinite(u)) break;
    const double step = u / (1.0 + 0.5 * x * u);
    x -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
  }
  return x;
}

}  // namespace

double Ndtri(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  if (p == 0.5) return 0.0;
  // 1 - p is exact for p >= 0.5 (Sterbenz), so the upper half loses nothing.
  return p < 0.5 ? LowerQuantile(p) : -LowerQuantile(1.0 - p);
}

double Erfinv(double x) {
  if (std::isnan(x) || x < -1.0 || x > 1.0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const double a = std::fabs(x);
  if (a == 1.0)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  double y;
  if (a >= 0.5) {
    // erf(y) = a  <=>  Phi(-y sqrt2) = (1 - a) / 2, exact for a >= 0.5.
    y = -LowerQuantile(0.5 * (1.0 - a)) / kSqrt2;
  } else {
    // Newton on erf near 0, where erf keeps relative accuracy.
    y = a / kTwoOverSqrtPi;
    for (int i = 0; i < 6; ++i) {
      const double step =
          (std::erf(y) - a) / (kTwoOverSqrtPi * std::exp(-y * y));
      y -= step;
      if (std::fabs(step) <= 1e-17 * y) break;
    }
  }
  return std::copysign(y, x);
}

double Digamma(double x) {
  if (std::isnan(x) || x == -std::numeric_limits<double>::infinity()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (x == std::numeric_limits<double>::infinity()) return x;
  double result = 0.0;
  if (x <= 0.0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x); the argument is
    // reduced mod 1 first so that tan stays accurate for large |x|.
    const double r = x - std::floor(x);
    result = -kPi / std::tan(kPi * r);
    x = 1.0 - x;
  }
  while (x < 10.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  // A&S 6.3.18 with Bernoulli numbers B2..B14.
  const double z = 1.0 / (x * x);
  const double series =
      z * (1.0 / 12 -
           z * (1.0 / 120 -
                z * (1.0 / 252 -
                     z * (1.0 / 240 -
                          z * (1.0 / 132 - z * (691.0 / 32760 - z / 12.0))))));
  return result + std::log(x) - 0.5 / x - series;
}

}  // namespace dfg
