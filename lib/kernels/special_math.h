// Internal: special functions the math kernels need beyond <cmath>, in
// double precision (float kernels round the double result once).
//
// Ndtri and Erfinv refine a coarse start (Abramowitz & Stegun 26.2.23) with
// Halley / Newton steps on the <cmath> erfc / erf, which are accurate to an
// ulp; Digamma uses reflection, the recurrence psi(x+1) = psi(x) + 1/x and the
// asymptotic series (A&S 6.3.18).
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

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_SPECIAL_MATH_H_
