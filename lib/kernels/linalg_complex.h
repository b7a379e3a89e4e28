// Internal: what the complex linear algebra kernels (linalg_matfunc_ops.cc,
// linalg_eig_op.cc) share: a column-major complex double matrix read from
// any float / double / complex64 / complex128 [..., n, n] tensor, and BLAS's
// product of two.
#ifndef DFG_LIB_KERNELS_LINALG_COMPLEX_H_
#define DFG_LIB_KERNELS_LINALG_COMPLEX_H_

#include <cblas.h>

#include <complex>
#include <vector>

#include "lib/kernels/linalg_lapack.h"

namespace dfg {

using Complex = std::complex<double>;
using MatFuncTypes =
    TypeList<float, double, std::complex<float>, std::complex<double>>;

// A column-major complex n x n matrix.
struct CMat {
  int n = 0;
  std::vector<Complex> a;
  explicit CMat(int size) : n(size), a(static_cast<size_t>(size) * size) {}
  Complex& at(int r, int c) { return a[static_cast<size_t>(c) * n + r]; }
  Complex* data() { return a.data(); }
  static CMat Identity(int n) {
    CMat m(n);
    for (int i = 0; i < n; ++i) m.at(i, i) = 1.0;
    return m;
  }
};

inline CMat Mul(CMat& x, CMat& y) {
  CMat z(x.n);
  const Complex one = 1.0, zero = 0.0;
  cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, x.n, x.n, x.n, &one,
              x.data(), x.n, y.data(), y.n, &zero, z.data(), z.n);
  return z;
}

inline CMat ReadComplex(const Tensor& in, int64_t b, int n) {
  CMat m(n);
  Dispatch(MatFuncTypes(), in.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* p = static_cast<const T*>(in.data()) + b * n * n;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) m.at(r, c) = Complex(p[r * n + c]);
  });
  return m;
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_LINALG_COMPLEX_H_
