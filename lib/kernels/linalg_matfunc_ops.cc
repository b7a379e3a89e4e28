// Matrix functions, in complex double through
// LAPACK / BLAS (OpenBLAS), for float, double, complex64 and complex128:
//   MatrixExponential  scaling and squaring over the degree-13 Pade
//                      approximant (Higham 2005, as Eigen's MatrixExponential)
//   MatrixSquareRoot   the principal root on the complex Schur form (zgees)
//                      by the triangular recurrence; for real input with a
//                      negative real eigenvalue, where no real root exists,
//                      all NaN as TensorFlow's real Schur method gives
//   MatrixLogarithm    the principal logarithm on the Schur form by Parlett's
//                      recurrence (equal eigenvalues by the derivative term)
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "lib/kernels/linalg_complex.h"

using dfg::Complex;

extern "C" {
void zgees_(const char* jobvs, const char* sort, void* select, const int* n,
            Complex* a, const int* lda, int* sdim, Complex* w, Complex* vs,
            const int* ldvs, Complex* work, const int* lwork, double* rwork,
            int* bwork, int* info, size_t, size_t);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a,
            const int* lda, double* wr, double* wi, double* vl, const int* ldvl,
            double* vr, const int* ldvr, double* work, const int* lwork,
            int* info, size_t, size_t);
void zgesv_(const int* n, const int* nrhs, Complex* a, const int* lda,
            int* ipiv, Complex* b, const int* ldb, int* info);
}

namespace dfg {
namespace {

// X A^H for the unitary Q: Q T Q^H.
CMat MulAdjoint(CMat& x, CMat& q) {
  CMat z(x.n);
  const Complex one = 1.0, zero = 0.0;
  cblas_zgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, x.n, x.n, x.n, &one,
              x.data(), x.n, q.data(), q.n, &zero, z.data(), z.n);
  return z;
}

CMat Combine(double a, const CMat& x, double b, const CMat& y) {
  CMat z(x.n);
  for (size_t i = 0; i < z.a.size(); ++i) z.a[i] = a * x.a[i] + b * y.a[i];
  return z;
}

// A = Q T Q^H with T upper triangular.
void Schur(CMat& a, CMat* q) {
  const int n = a.n;
  int sdim = 0, info = 0, lwork = std::max(1, 4 * n);
  std::vector<Complex> w(n), work(lwork);
  std::vector<double> rwork(n);
  zgees_("V", "N", nullptr, &n, a.data(), &n, &sdim, w.data(), q->data(), &n,
         work.data(), &lwork, rwork.data(), nullptr, &info, 1, 1);
}

// exp(A): the [13/13] Pade approximant of A / 2^s, squared s times.
CMat Expm(CMat& a) {
  const int n = a.n;
  static const double b[] = {64764752532480000.0,
                             32382376266240000.0,
                             7771770303897600.0,
                             1187353796428800.0,
                             129060195264000.0,
                             10559470521600.0,
                             670442572800.0,
                             33522128640.0,
                             1323241920.0,
                             40840800.0,
                             960960.0,
                             16380.0,
                             182.0,
                             1.0};
  double norm = 0;
  for (int c = 0; c < n; ++c) {
    double col = 0;
    for (int r = 0; r < n; ++r) col += std::abs(a.at(r, c));
    norm = std::max(norm, col);
  }
  const double theta13 = 5.371920351148152;
  int s = norm > theta13
              ? static_cast<int>(std::ceil(std::log2(norm / theta13)))
              : 0;
  CMat x = a;
  for (Complex& v : x.a) v = std::ldexp(1.0, -s) * v;
  CMat eye = CMat::Identity(n);
  CMat x2 = Mul(x, x), x4 = Mul(x2, x2), x6 = Mul(x4, x2);
  CMat inner_u = Combine(b[13], x6, b[11], x4);
  inner_u = Combine(1.0, inner_u, b[9], x2);
  CMat t = Mul(x6, inner_u);
  CMat sum_u = Combine(b[7], x6, b[5], x4);
  sum_u = Combine(1.0, sum_u, b[3], x2);
  sum_u = Combine(1.0, sum_u, b[1], eye);
  sum_u = Combine(1.0, t, 1.0, sum_u);
  CMat u = Mul(x, sum_u);
  CMat inner_v = Combine(b[12], x6, b[10], x4);
  inner_v = Combine(1.0, inner_v, b[8], x2);
  CMat v = Mul(x6, inner_v);
  CMat sum_v = Combine(b[6], x6, b[4], x4);
  sum_v = Combine(1.0, sum_v, b[2], x2);
  sum_v = Combine(1.0, sum_v, b[0], eye);
  v = Combine(1.0, v, 1.0, sum_v);
  // (V - U) R = (V + U).
  CMat lhs = Combine(1.0, v, -1.0, u);
  CMat r = Combine(1.0, v, 1.0, u);
  std::vector<int> piv(n);
  int info = 0;
  zgesv_(&n, &n, lhs.data(), &n, piv.data(), r.data(), &n, &info);
  for (int i = 0; i < s; ++i) r = Mul(r, r);
  return r;
}

// The principal square root of the upper triangular T.
void SqrtTriangular(CMat& t) {
  const int n = t.n;
  for (int j = 0; j < n; ++j) {
    t.at(j, j) = std::sqrt(t.at(j, j));
    for (int i = j - 1; i >= 0; --i) {
      Complex s = t.at(i, j);
      for (int k = i + 1; k < j; ++k) s -= t.at(i, k) * t.at(k, j);
      t.at(i, j) = s / (t.at(i, i) + t.at(j, j));
    }
  }
}

// The principal logarithm of the upper triangular T (Parlett).
void LogTriangular(CMat& t) {
  const int n = t.n;
  CMat f(n);
  for (int i = 0; i < n; ++i) f.at(i, i) = std::log(t.at(i, i));
  for (int d = 1; d < n; ++d) {
    for (int i = 0; i + d < n; ++i) {
      const int j = i + d;
      const Complex diff = t.at(j, j) - t.at(i, i);
      Complex s = 0.0;
      for (int k = i + 1; k < j; ++k)
        s += t.at(i, k) * f.at(k, j) - f.at(i, k) * t.at(k, j);
      // F commutes with T; equal eigenvalues take log's derivative (exact
      // for a 2 x 2 Jordan block).
      f.at(i, j) = diff == 0.0
                       ? t.at(i, j) / t.at(i, i)
                       : (t.at(i, j) * (f.at(j, j) - f.at(i, i)) + s) / diff;
    }
  }
  t = f;
}

template <typename T>
T FromComplex(const Complex& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.real());
  } else {
    return T(v);
  }
}

// Real input with a negative real eigenvalue (no real square root).
bool HasNegativeRealEigenvalue(const Tensor& in, int64_t b, int n) {
  Mat m = ReadMat(in, b, n, n);
  std::vector<double> wr(n), wi(n);
  int info = 0, lwork = std::max(1, 4 * n), one = 1;
  std::vector<double> work(lwork);
  dgeev_("N", "N", &n, m.data(), &n, wr.data(), wi.data(), nullptr, &one,
         nullptr, &one, work.data(), &lwork, &info, 1, 1);
  for (int i = 0; i < n; ++i)
    if (wi[i] == 0 && wr[i] < 0) return true;
  return false;
}

enum class MatFunc { kExp, kSqrt, kLog };

template <MatFunc kFunc>
class MatrixFunctionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, true));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (n == 0) return;
    const bool real = in.dtype() == tensorflow::DT_FLOAT ||
                      in.dtype() == tensorflow::DT_DOUBLE;
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      CMat a = ReadComplex(in, b, n);
      CMat f(n);
      if (kFunc == MatFunc::kExp) {
        f = Expm(a);
      } else if (kFunc == MatFunc::kSqrt && real &&
                 HasNegativeRealEigenvalue(in, b, n)) {
        for (Complex& v : f.a) v = std::numeric_limits<double>::quiet_NaN();
      } else {
        CMat q(n);
        Schur(a, &q);
        if (kFunc == MatFunc::kSqrt) {
          SqrtTriangular(a);
        } else {
          LogTriangular(a);
        }
        CMat qt = Mul(q, a);
        f = MulAdjoint(qt, q);
      }
      Dispatch(MatFuncTypes(), in.dtype(), [&](auto v) {
        using T = decltype(v);
        T* p = static_cast<T*>(out->data()) + b * n * n;
        for (int r = 0; r < n; ++r)
          for (int c = 0; c < n; ++c) p[r * n + c] = FromComplex<T>(f.at(r, c));
      });
    }
  }
};

}  // namespace

void RegisterLinalgMatFuncKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", MatFuncTypes());
  r->Register<MatrixFunctionOp<MatFunc::kExp>>("MatrixExponential", {types});
  r->Register<MatrixFunctionOp<MatFunc::kSqrt>>("MatrixSquareRoot", {types});
  r->Register<MatrixFunctionOp<MatFunc::kLog>>(
      "MatrixLogarithm", {TypeConstraint("T", ComplexTypes())});
}

}  // namespace dfg
