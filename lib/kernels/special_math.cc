// Special functions by refinement: a start good to ~1e-3, then Halley /
// Newton steps on an accurate forward function until the step is below an
// ulp (three steps suffice from that start; a fixed count keeps the cost
// bounded).
#include "lib/kernels/special_math.h"

#include <cmath>
#include <complex>
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

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-16;
constexpr double kTiny = 1e-300;

// e^-x x^a / Gamma(a + 1) * sum x^n / ((a+1)...(a+n)): P(a, x).
double GammaSeries(double a, double x) {
  double term = 1.0 / a, sum = term;
  for (int n = 1; n < 10000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kEps) break;
  }
  return sum * std::exp(a * std::log(x) - x - std::lgamma(a));
}

// Q(a, x) by the continued fraction for x >= a + 1 (modified Lentz).
double GammaFraction(double a, double x) {
  double b = x + 1.0 - a, c = 1.0 / kTiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEps) break;
  }
  return std::exp(a * std::log(x) - x - std::lgamma(a)) * h;
}

// P (lower = true) or Q of (a, x), each from whichever form converges.
double Igamma(double a, double x, bool lower) {
  if (std::isnan(a) || std::isnan(x) || a <= 0 || x < 0) return kNaN;
  if (x == 0) return lower ? 0.0 : 1.0;
  if (std::isinf(x)) return lower ? 1.0 : 0.0;
  if (std::isinf(a)) return lower ? 0.0 : 1.0;
  if (x < a + 1.0) {
    const double p = GammaSeries(a, x);
    return lower ? p : 1.0 - p;
  }
  const double q = GammaFraction(a, x);
  return lower ? 1.0 - q : q;
}

// Bernoulli numbers B_2j / (2j)!, j = 1..12, for Euler-Maclaurin.
constexpr double kBernoulli[] = {
    1.0 / 6 / 2,
    -1.0 / 30 / 24,
    1.0 / 42 / 720,
    -1.0 / 30 / 40320,
    5.0 / 66 / 3628800,
    -691.0 / 2730 / 479001600,
    7.0 / 6 / 87178291200.0,
    -3617.0 / 510 / 20922789888000.0,
    43867.0 / 798 / 6402373705728000.0,
    -174611.0 / 330 / 2432902008176640000.0,
    854513.0 / 138 / 1124000727777607680000.0,
    -236364091.0 / 2730 / 620448401733239439360000.0};

// I_x(a, b)'s continued fraction (modified Lentz), for x < (a+1)/(a+b+2).
double BetaFraction(double a, double b, double x) {
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < 10000; ++m) {
    const int m2 = 2 * m;
    for (int pass = 0; pass < 2; ++pass) {
      const double an =
          pass == 0 ? m * (b - m) * x / ((a + m2 - 1) * (a + m2))
                    : -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
      d = 1.0 + an * d;
      if (std::fabs(d) < kTiny) d = kTiny;
      c = 1.0 + an / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      d = 1.0 / d;
      const double delta = d * c;
      h *= delta;
      if (pass == 1 && std::fabs(delta - 1.0) < kEps) return h;
    }
  }
  return h;
}

}  // namespace

double IgammaP(double a, double x) { return Igamma(a, x, true); }
double IgammaQ(double a, double x) { return Igamma(a, x, false); }

double HurwitzZeta(double x, double q) {
  if (std::isnan(x) || std::isnan(q)) return kNaN;
  if (x == 1.0) return kInf;
  if (x < 1.0) return kNaN;
  if (q <= 0.0) {
    if (q == std::floor(q)) {
      return x == std::floor(x) && std::fmod(x, 2.0) == 0.0 ? kInf : kNaN;
    }
    if (x != std::floor(x)) return kNaN;
  }
  if (std::isinf(q)) return 0.0;
  if (std::isinf(x)) return q == 1.0 ? 1.0 : (q > 1.0 ? 0.0 : kInf);
  // Direct terms until q + N > 9, then the Euler-Maclaurin tail.
  double sum = std::pow(q, -x), w = q;
  for (int i = 0; i < 9 || w <= 9.0; ++i) {
    w += 1.0;
    const double t = std::pow(w, -x);
    sum += t;
    if (std::fabs(t / sum) < kEps) return sum;
  }
  sum += std::pow(w, 1.0 - x) / (x - 1.0) - 0.5 * std::pow(w, -x);
  // sum_j B_2j/(2j)! x(x+1)...(x+2j-2) w^(-x-2j+1)
  double rising = x, power = std::pow(w, -x - 1.0);
  for (int j = 0; j < 12; ++j) {
    const double t = kBernoulli[j] * rising * power;
    sum += t;
    if (std::fabs(t / sum) < kEps) break;
    rising *= (x + 2 * j + 1) * (x + 2 * j + 2);
    power /= w * w;
  }
  return sum;
}

double Polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x) || n < 0 || n != std::floor(n)) {
    return kNaN;
  }
  if (n == 0) return Digamma(x);
  const double sign = std::fmod(n, 2.0) == 0.0 ? -1.0 : 1.0;
  return sign * std::exp(std::lgamma(n + 1.0)) * HurwitzZeta(n + 1.0, x);
}

double Betainc(double a, double b, double x) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(x) || a <= 0 || b <= 0 ||
      x < 0 || x > 1) {
    return kNaN;
  }
  if (x == 0 || x == 1) return x;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) -
                           std::lgamma(b) + a * std::log(x) +
                           b * std::log1p(-x);
  // The fraction converges fast below the mean; above it, use symmetry.
  if (x < (a + 1.0) / (a + b + 2.0)) {
    return std::exp(log_front) * BetaFraction(a, b, x) / a;
  }
  return 1.0 - std::exp(log_front) * BetaFraction(b, a, 1.0 - x) / b;
}

double Dawson(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return 0.0;
  if (std::fabs(x) < 0.2) {
    // x sum_k (-2x^2)^k / (1 * 3 * ... * (2k+1))
    double term = x, sum = 0.0;
    for (int k = 1; k < 40 && term != 0.0; ++k) {
      sum += term;
      term *= -2.0 * x * x / (2 * k + 1);
      if (std::fabs(term) <= kEps * std::fabs(sum)) break;
    }
    return sum + term;
  }
  // (1/sqrt(pi)) sum_{n odd} exp(-(x - n h)^2) / n: the terms within ~16 h
  // of x / h carry every digit.
  constexpr double h = 0.2;
  const long center = std::lround(x / h);
  double sum = 0.0;
  for (long n = center - 81; n <= center + 81; ++n) {
    if (n % 2 == 0) continue;
    const double d = x - n * h;
    sum += std::exp(-d * d) / static_cast<double>(n);
  }
  return sum / std::sqrt(kPi);
}

void Fresnel(double x, double* c, double* s) {
  if (std::isnan(x)) {
    *c = *s = x;
    return;
  }
  const double ax = std::fabs(x);
  double cv, sv;
  if (ax > 36974.0) {
    cv = sv = 0.5;
  } else if (ax < 1.5) {
    // C = sum (-1)^k z^2k x / ((2k)! (4k+1)), S the odd terms; z = pi x^2/2.
    const double z = 0.5 * kPi * ax * ax;
    double term = ax;  // z^j x / j!
    cv = sv = 0.0;
    for (int j = 0; j < 60; ++j) {
      const double t = term / (2 * j + 1);
      const int sign = (j / 2) % 2 == 0 ? 1 : -1;
      (j % 2 == 0 ? cv : sv) += sign * t;
      term *= z / (j + 1);
      if (term < kEps * kEps) break;  // a few terms past an ulp of ax
    }
  } else {
    // C + iS = (1+i)/2 (1 - e^{i pi x^2/2} h), h by Lentz's method.
    const double pix2 = kPi * ax * ax;
    std::complex<double> b(1.0, -pix2), cc(1.0 / kTiny, 0.0);
    std::complex<double> d = 1.0 / b, h = d;
    for (int k = 2, n = -1; k < 1000; ++k) {
      n += 2;
      const double a = -static_cast<double>(n) * (n + 1);
      b += 4.0;
      d = 1.0 / (a * d + b);
      cc = b + a / cc;
      const std::complex<double> del = cc * d;
      h *= del;
      if (std::fabs(del.real() - 1.0) + std::fabs(del.imag()) < kEps) break;
    }
    h *= std::complex<double>(ax, -ax);
    const std::complex<double> cs =
        std::complex<double>(0.5, 0.5) *
        (1.0 -
         std::complex<double>(std::cos(0.5 * pix2), std::sin(0.5 * pix2)) * h);
    cv = cs.real();
    sv = cs.imag();
  }
  *c = std::copysign(cv, x);
  *s = std::copysign(sv, x);
}

namespace {

// Li2(z) = sum z^k / k^2 for |z| <= 1/2.
double DilogSeries(double z) {
  double power = z, sum = 0.0;
  for (int k = 1; k < 200; ++k) {
    const double t = power / (static_cast<double>(k) * k);
    sum += t;
    if (std::fabs(t) <= kEps * std::fabs(sum)) break;
    power *= z;
  }
  return sum;
}

// Li2(z) for z <= 1.
double Dilog(double z) {
  constexpr double kPi2Over6 = kPi * kPi / 6.0;
  if (z == 1.0) return kPi2Over6;
  if (z > 0.5) {  // Euler's reflection
    return kPi2Over6 - std::log(z) * std::log1p(-z) - DilogSeries(1.0 - z);
  }
  if (z >= -0.5) return DilogSeries(z);
  if (z >= -1.0) {  // Landen: z / (z - 1) is in (1/3, 1/2]
    const double l = std::log1p(-z);
    return -DilogSeries(z / (z - 1.0)) - 0.5 * l * l;
  }
  // Inversion: 1/z is in [-1, 0).
  const double l = std::log(-z);
  return -kPi2Over6 - 0.5 * l * l - Dilog(1.0 / z);
}

}  // namespace

double Spence(double x) {
  if (std::isnan(x) || x < 0 || std::isinf(x)) return kNaN;
  if (x == 0) return kPi * kPi / 6.0;
  if (x < 0.5) {
    // Reflection on x itself: 1 - x would round away x's small digits.
    return kPi * kPi / 6.0 - std::log(x) * std::log1p(-x) - DilogSeries(x);
  }
  return Dilog(1.0 - x);
}

}  // namespace dfg
