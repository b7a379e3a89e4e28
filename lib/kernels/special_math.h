// Internal: special functions the math kernels need beyond <cmath>, in
// double precision (float kernels round the double result once).
//
// Ndtri and Erfinv refine a coarse start (Abramowitz & Stegun 26.2.23) with
// Halley / Newton steps on the <cmath> erfc / erf, which are accurate to an
// ulp; Digamma uses reflection, the recurrence psi(x+1) = psi(x) + 1/x and the
// asymptotic series (A&S 6.3.18). The incomplete gamma / beta functions and
// the Hurwitz zeta function follow below.
#ifndef DFG_LIB_KERNELS_SPECIAL_MATH_H_
#define DFG_LIB_KERNELS_SPECIAL_MATH_H_

namespace dfg {

// The inverse of the standard normal CDF: -inf at 0, +inf at 1, NaN outside
// [0, 1].
double Ndtri(double p);
// The inverse of erf: +-inf at +-1, NaN outside [-1, 1].
double Erfinv(double x);
// The logarithmic derivative of Gamma: NaN at the poles (0, -1, -2, ...) and
// at -inf.
double Digamma(double x);
// The regularized incomplete gamma functions P(a, x) (Igamma) and
// Q(a, x) = 1 - P (Igammac): a series below x = a + 1, Lentz's continued
// fraction above (Numerical Recipes 6.2). NaN for a <= 0 or x < 0.
double IgammaP(double a, double x);
double IgammaQ(double a, double x);
// The Hurwitz zeta function sum_k (k + q)^-x by Euler-Maclaurin summation
// (A&S 23.1.30), with TensorFlow's domain: +inf at x = 1, NaN for x < 1;
// for q a non-positive integer +inf when x is an even integer, else NaN;
// for other q < 0, NaN unless x is an integer.
double HurwitzZeta(double x, double q);
// psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x); Digamma for n = 0; NaN unless
// n is a non-negative integer.
double Polygamma(double n, double x);
// The regularized incomplete beta function I_x(a, b) by Lentz's continued
// fraction (Numerical Recipes 6.4). NaN for a <= 0, b <= 0 or x outside
// [0, 1].
double Betainc(double a, double b, double x);
// Dawson's integral exp(-x^2) int_0^x exp(t^2) dt: Taylor series near 0,
// Rybicki's sum (Numerical Recipes 6.10.3, error ~ exp(-(pi/2h)^2)) beyond.
double Dawson(double x);
// The Fresnel integrals int_0^x cos / sin(pi t^2 / 2) dt: power series
// below |x| = 1.5, the continued fraction of erfc (Numerical Recipes 6.8)
// above; +-1/2 beyond |x| = 36974 where TensorFlow stops.
void Fresnel(double x, double* c, double* s);
// Spence's integral int_1^x log t / (1 - t) dt = Li2(1 - x) for x >= 0
// (NaN below): the dilogarithm's series after the reflections that bring
// its argument into [-1/2, 1/2].
double Spence(double x);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_SPECIAL_MATH_H_
