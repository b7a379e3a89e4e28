// Internal: what the linear algebra kernels (linalg_decomp_ops.cc,
// linalg_solve_ops.cc) share: LAPACK's Fortran entry points as OpenBLAS
// exports them, and a column-major double matrix with copies to and from
// the row-major [..., rows, cols] tensors (float32 / float64).
#ifndef DFG_LIB_KERNELS_LINALG_LAPACK_H_
#define DFG_LIB_KERNELS_LINALG_LAPACK_H_

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <vector>

#include "lib/kernels/kernel_util.h"

extern "C" {
// LAPACK's Fortran interface (gfortran: trailing hidden lengths for CHARs).
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv,
             int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv,
             double* work, const int* lwork, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv,
            double* b, const int* ldb, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda,
             int* info, size_t);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a,
             const int* lda, double* b, const int* ldb, int* info, size_t);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau,
             double* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a,
             const int* lda, const double* tau, double* work, const int* lwork,
             int* info);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a,
             const int* lda, double* w, double* work, const int* lwork,
             int* iwork, const int* liwork, int* info, size_t, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a,
             const int* lda, double* s, double* u, const int* ldu, double* vt,
             const int* ldvt, double* work, const int* lwork, int* iwork,
             int* info, size_t);
void dgelsd_(const int* m, const int* n, const int* nrhs, double* a,
             const int* lda, double* b, const int* ldb, double* s,
             const double* rcond, int* rank, double* work, const int* lwork,
             int* iwork, int* info);
}

namespace dfg {

using LinalgTypes = TypeList<float, double>;

// A column-major double matrix.
struct Mat {
  int rows = 0, cols = 0;
  std::vector<double> a;
  Mat(int r, int c) : rows(r), cols(c), a(static_cast<size_t>(r) * c, 0.0) {}
  double& at(int r, int c) { return a[static_cast<size_t>(c) * rows + r]; }
  double* data() { return a.data(); }
  int ld() const { return std::max(rows, 1); }
};

// Reads matrix `index` of a [..., rows, cols] tensor.
inline Mat ReadMat(const Tensor& t, int64_t index, int rows, int cols) {
  Mat m(rows, cols);
  const int64_t base = index * rows * cols;
  Dispatch(LinalgTypes(), t.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* p = static_cast<const T*>(t.data()) + base;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) m.at(r, c) = p[r * cols + c];
  });
  return m;
}

// Writes the top-left rows x cols of `m` (transposed when `transpose`) as
// matrix `index` of `t`.
inline void WriteMat(Mat& m, int rows, int cols, Tensor* t, int64_t index,
                     bool transpose = false) {
  Dispatch(LinalgTypes(), t->dtype(), [&](auto v) {
    using T = decltype(v);
    T* p = static_cast<T*>(t->data()) + index * rows * cols;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        p[r * cols + c] = static_cast<T>(transpose ? m.at(c, r) : m.at(r, c));
  });
}

// The shape [..., rows, cols] with the batch dims of `in`.
inline TensorShape BatchShape(const Tensor& in,
                              std::initializer_list<int64_t> tail) {
  TensorShape s;
  for (int d = 0; d < in.dims() - 2; ++d) s.AddDim(in.dim_size(d));
  for (int64_t n : tail) s.AddDim(n);
  return s;
}

inline Status CheckMatrix(const Tensor& t, int index, bool square) {
  if (t.dims() < 2) {
    return InvalidArgument("Input tensor {} must have rank >= 2, got {}", index,
                           t.dims());
  }
  if (square && t.dim_size(t.dims() - 1) != t.dim_size(t.dims() - 2)) {
    return InvalidArgument("Input matrix must be square.");
  }
  return Status::Ok();
}

inline int64_t NumMatrices(const Tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.dims() - 2; ++d) n *= t.dim_size(d);
  return n;
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_LINALG_LAPACK_H_
