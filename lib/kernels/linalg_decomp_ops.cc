// Dense linear algebra over batches of matrices (the last two dims), through
// LAPACK / BLAS as OpenBLAS ships them: MatrixInverse, MatrixDeterminant,
// LogMatrixDeterminant, Cholesky, MatrixSolve, MatrixTriangularSolve,
// MatrixSolveLs, Qr, SelfAdjointEigV2, Svd. float32 and float64.
//
// Every matrix is copied into a column-major double buffer (LAPACK's layout)
// and the result rounded back once: float inputs get double-precision
// factorizations, at least as accurate as TensorFlow's float Eigen ones.
// Decompositions are unique up to signs of vectors (Qr's Householder
// convention matches LAPACK's; eigen / singular vectors may differ in sign
// from TensorFlow's Eigen).
#include <cmath>
#include <limits>
#include <string>

#include "lib/kernels/linalg_lapack.h"

namespace dfg {
namespace {

// LU with partial pivoting in place; returns the number of row swaps, or -1
// when a pivot is exactly zero.
int LuFactor(Mat& m, std::vector<int>* piv) {
  const int n = m.rows;
  piv->assign(std::max(n, 1), 0);
  int info = 0;
  if (n > 0) dgetrf_(&n, &n, m.data(), &n, piv->data(), &info);
  if (info > 0) return -1;
  int swaps = 0;
  for (int i = 0; i < n; ++i) swaps += (*piv)[i] != i + 1;
  return swaps;
}

class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, true));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (n == 0) return;
    std::vector<int> piv;
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      Mat m = ReadMat(in, b, n, n);
      DFG_OP_REQUIRES(ctx, LuFactor(m, &piv) >= 0,
                      InvalidArgument("Input is not invertible."));
      int info = 0, lwork = std::max(1, n * 64);
      std::vector<double> work(lwork);
      dgetri_(&n, m.data(), &n, piv.data(), work.data(), &lwork, &info);
      WriteMat(m, n, n, out, b, adjoint_);  // inv(A^T) = inv(A)^T
    }
  }

 private:
  bool adjoint_ = false;
};

// Determinant (kLog: sign and log|det|) from the LU factors.
template <bool kLog>
class DeterminantOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, true));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    const TensorShape shape = BatchShape(in, {});
    Tensor* out0 = nullptr;
    Tensor* out1 = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out0));
    if (kLog) DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &out1));
    std::vector<int> piv;
    for (int64_t b = 0; b < shape.num_elements(); ++b) {
      Mat m = ReadMat(in, b, n, n);
      const int swaps = LuFactor(m, &piv);
      double sign = swaps % 2 == 0 ? 1.0 : -1.0, log_abs = 0.0;
      for (int i = 0; i < n; ++i) {
        const double u = m.at(i, i);
        if (u < 0) sign = -sign;
        log_abs += std::log(std::fabs(u));
      }
      if (swaps < 0) sign = 0.0;  // a zero pivot: LAPACK stopped counting
      Dispatch(LinalgTypes(), in.dtype(), [&](auto v) {
        using T = decltype(v);
        if constexpr (kLog) {
          static_cast<T*>(out0->data())[b] = static_cast<T>(sign);
          static_cast<T*>(out1->data())[b] = static_cast<T>(log_abs);
        } else {
          static_cast<T*>(out0->data())[b] =
              static_cast<T>(sign * std::exp(log_abs));
        }
      });
    }
  }
};

// L with A = L L^T from A's lower triangle; zeros above. A matrix that is
// not positive definite gives NaNs (TensorFlow's CPU kernel does not fail).
class CholeskyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, true));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (n == 0) return;
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      Mat m = ReadMat(in, b, n, n);
      int info = 0;
      dpotrf_("L", &n, m.data(), &n, &info, 1);
      for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
          if (info != 0) {
            m.at(r, c) = std::numeric_limits<double>::quiet_NaN();
          } else if (c > r) {
            m.at(r, c) = 0.0;
          }
        }
      }
      WriteMat(m, n, n, out, b);
    }
  }
};

}  // namespace

// linalg_solve_ops.cc: the solvers and the orthogonal decompositions.
void RegisterLinalgSolveKernels(KernelRegistry* r);

void RegisterLinalgDecompKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", LinalgTypes());
  // The Batch* names are the deprecated aliases of the same kernels.
  for (const std::string p : {"", "Batch"}) {
    r->Register<MatrixInverseOp>(p + "MatrixInverse", {types});
    r->Register<DeterminantOp<false>>(p + "MatrixDeterminant", {types});
    r->Register<CholeskyOp>(p + "Cholesky", {types});
  }
  r->Register<DeterminantOp<true>>("LogMatrixDeterminant", {types});
  RegisterLinalgSolveKernels(r);
}

}  // namespace dfg
