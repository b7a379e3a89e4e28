// IgammaGradA (d/da of the regularized lower incomplete gamma P(a, x)) and
// RandomGammaGrad (d sample / d alpha of a Gamma(alpha) sample, the implicit
// reparameterization gradient -(dP/da) / (dP/dx)), broadcasting, float and
// double, as TensorFlow's CPU kernels (Eigen's igamma_der_a and
// gamma_sample_der_alpha).
//
// Like Eigen, both differentiate the computation of P itself with respect
// to a (forward mode): below x = max(a, 1) the series P = x^a e^-x /
// Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)), above it the continued
// fraction of Q = 1 - P (Numerical Recipes 6.2.7) through its three-term
// recurrences. Computed in double; float rounds the result once. Edges as
// Eigen: 0 at x = 0 and x = inf, NaN for a <= 0, x < 0 or NaN.
#include <cmath>
#include <limits>

#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/special_math.h"

namespace dfg {
namespace {

constexpr double kEps = 1e-16;
constexpr int kMaxTerms = 5000;

// dP/da (sample: -(dP/da) / (dP/dx)) by the series, for x <= max(a, 1).
double SeriesDerivative(double a, double x, bool sample) {
  double t = 1.0, dt = 0.0, s = 1.0, ds = 0.0;
  for (int n = 1; n < kMaxTerms; ++n) {
    const double r = x / (a + n);
    dt = (dt - t / (a + n)) * r;
    t *= r;
    s += t;
    ds += dt;
    if (std::fabs(t) <= kEps * std::fabs(s) &&
        std::fabs(dt) <= kEps * std::fabs(ds)) {
      break;
    }
  }
  const double dlog = std::log(x) - Digamma(a + 1.0);
  if (sample) return -(ds + s * dlog) * x / a;
  return std::exp(a * std::log(x) - x - std::lgamma(a + 1.0)) * (s * dlog + ds);
}

// The same by Q's continued fraction 1/(b1 + a2/(b2 + ...)), b_n = x + 2n -
// 1 - a, a_n = -(n - 1)(n - 1 - a), for x > max(a, 1).
double FractionDerivative(double a, double x, bool sample) {
  if (std::isinf(x)) return 0.0;
  // A_n / B_n and their derivatives in a; *2 the previous terms.
  double A = 0.0, A2 = 1.0, B = 1.0, B2 = 0.0;
  double dA = 0.0, dA2 = 0.0, dB = 0.0, dB2 = 0.0;
  double f = 0.0, df = 0.0;
  for (int n = 1; n < kMaxTerms; ++n) {
    const double b = x + 2.0 * n - 1.0 - a;
    const double an = n == 1 ? 1.0 : -(n - 1.0) * (n - 1.0 - a);
    const double dan = n == 1 ? 0.0 : n - 1.0;
    const double nA = b * A + an * A2, nB = b * B + an * B2;
    const double ndA = -A + b * dA + dan * A2 + an * dA2;
    const double ndB = -B + b * dB + dan * B2 + an * dB2;
    A2 = A, B2 = B, dA2 = dA, dB2 = dB;
    A = nA, B = nB, dA = ndA, dB = ndB;
    if (B == 0.0) continue;
    const double nf = A / B, ndf = (dA * B - A * dB) / (B * B);
    const bool done = std::fabs(nf - f) <= kEps * std::fabs(nf) &&
                      std::fabs(ndf - df) <= kEps * std::fabs(ndf);
    f = nf, df = ndf;
    if (done) break;
    if (std::fabs(B) > 1e100) {  // rescale: only the ratios matter
      const double k = 1.0 / B;
      A *= k, B *= k, dA *= k, dB *= k, A2 *= k, B2 *= k, dA2 *= k, dB2 *= k;
    }
  }
  const double dlog = std::log(x) - Digamma(a);
  if (sample) return x * (f * dlog + df);
  return -std::exp(a * std::log(x) - x - std::lgamma(a)) * (f * dlog + df);
}

double GammaDerivative(double a, double x, bool sample) {
  if (x == 0.0) return 0.0;
  if (x < 0.0 || a <= 0.0 || std::isnan(a) || std::isnan(x)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (x > 1.0 && x > a) return FractionDerivative(a, x, sample);
  return SeriesDerivative(a, x, sample);
}

template <bool kSample>
struct GammaDerivativeFn {
  template <typename C>
  C operator()(const C& a, const C& x) const {
    return static_cast<C>(GammaDerivative(static_cast<double>(a),
                                          static_cast<double>(x), kSample));
  }
};

}  // namespace

void RegisterIgammaGradKernels(KernelRegistry* r) {
  using Types = TypeList<float, double>;
  const auto t = TypeConstraint("T", Types());
  r->Register<BinaryOpKernel<GammaDerivativeFn<false>, Types>>("IgammaGradA",
                                                               {t});
  r->Register<BinaryOpKernel<GammaDerivativeFn<true>, Types>>("RandomGammaGrad",
                                                              {t});
}

}  // namespace dfg
