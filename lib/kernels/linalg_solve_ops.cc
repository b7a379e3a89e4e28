// Solvers and orthogonal decompositions over batches of matrices, through
// LAPACK / BLAS: MatrixSolve, MatrixTriangularSolve (batch dims broadcast),
// MatrixSolveLs (fast: regularized normal equations by Cholesky; else the
// minimum-norm least-squares solution, which ignores the regularizer as
// TensorFlow's does), Qr, SelfAdjointEigV2, Svd.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/linalg_lapack.h"

namespace dfg {
namespace {

class MatrixSolveOp : public OpKernel {
 public:
  explicit MatrixSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(a, 0, false));
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(rhs, 1, false));
    DFG_OP_REQUIRES(ctx, SameBatch(a, rhs),
                    InvalidArgument("All input tensors must have the same "
                                    "outer dimensions."));
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(a, 0, true));
    const int n = static_cast<int>(a.dim_size(a.dims() - 1));
    const int k = static_cast<int>(rhs.dim_size(rhs.dims() - 1));
    DFG_OP_REQUIRES(ctx, rhs.dim_size(rhs.dims() - 2) == n,
                    InvalidArgument("Input matrix and rhs are incompatible."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs.shape(), &out));
    if (n == 0 || k == 0) return;
    std::vector<int> piv(n);
    for (int64_t b = 0; b < NumMatrices(a); ++b) {
      Mat m = ReadMat(a, b, n, n);
      if (adjoint_) {
        Mat t(n, n);
        for (int r = 0; r < n; ++r)
          for (int c = 0; c < n; ++c) t.at(r, c) = m.at(c, r);
        m = t;
      }
      Mat x = ReadMat(rhs, b, n, k);
      int info = 0;
      dgesv_(&n, &k, m.data(), &n, piv.data(), x.data(), &n, &info);
      DFG_OP_REQUIRES(ctx, info == 0,
                      InvalidArgument("Input matrix is not invertible."));
      WriteMat(x, n, k, out, b);
    }
  }

  static bool SameBatch(const Tensor& a, const Tensor& b) {
    if (a.dims() != b.dims()) return false;
    for (int d = 0; d < a.dims() - 2; ++d)
      if (a.dim_size(d) != b.dim_size(d)) return false;
    return true;
  }

 private:
  bool adjoint_ = false;
};

// Batch dims broadcast (TensorFlow's MatMul-style BCast of the leading dims).
class MatrixTriangularSolveOp : public OpKernel {
 public:
  explicit MatrixTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("lower", &lower_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(a, 0, false));
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(rhs, 1, false));
    TensorShape ab, bb;
    for (int d = 0; d < a.dims() - 2; ++d) ab.AddDim(a.dim_size(d));
    for (int d = 0; d < rhs.dims() - 2; ++d) bb.AddDim(rhs.dim_size(d));
    const BCast bcast(ab, bb);
    DFG_OP_REQUIRES(
        ctx, bcast.valid,
        InvalidArgument("In[0] and In[1] must have compatible "
                        "batch dimensions: {} vs. {}",
                        a.shape().DebugString(), rhs.shape().DebugString()));
    const int n = static_cast<int>(a.dim_size(a.dims() - 1));
    DFG_OP_REQUIRES(ctx, a.dim_size(a.dims() - 2) == n,
                    InvalidArgument("In[0] matrices in the last dimensions "
                                    "must be square ({} =/= {})",
                                    a.dim_size(a.dims() - 2), n));
    const int k = static_cast<int>(rhs.dim_size(rhs.dims() - 1));
    DFG_OP_REQUIRES(
        ctx, rhs.dim_size(rhs.dims() - 2) == n,
        InvalidArgument("In[0] mismatch In[1] shape: {} vs. {}: "
                        "{} {} {} {}",
                        n, rhs.dim_size(rhs.dims() - 2),
                        a.shape().DebugString(), rhs.shape().DebugString(),
                        lower_, adjoint_));
    TensorShape shape = bcast.output_shape;
    shape.AddDim(n);
    shape.AddDim(k);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (n == 0 || k == 0) return;
    const int64_t batches = shape.num_elements() / (int64_t{n} * k);
    for (int64_t b = 0; b < batches; ++b) {
      Mat m = ReadMat(a, BatchIndex(bcast.x_strides, bcast.dims, b), n, n);
      Mat x = ReadMat(rhs, BatchIndex(bcast.y_strides, bcast.dims, b), n, k);
      // Only the named triangle is read; a zero pivot gives inf / NaN as in
      // TensorFlow (no singularity check).
      cblas_dtrsm(CblasColMajor, CblasLeft, lower_ ? CblasLower : CblasUpper,
                  adjoint_ ? CblasTrans : CblasNoTrans, CblasNonUnit, n, k, 1.0,
                  m.data(), n, x.data(), n);
      WriteMat(x, n, k, out, b);
    }
  }

 private:
  // The operand's matrix index for output batch b (its per-dim strides over
  // the collapsed broadcast dims).
  static int64_t BatchIndex(const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& dims, int64_t b) {
    int64_t index = 0;
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      index += (b % dims[d]) * strides[d];
      b /= dims[d];
    }
    return index;
  }

  bool lower_ = true, adjoint_ = false;
};

class MatrixSolveLsOp : public OpKernel {
 public:
  explicit MatrixSolveLsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("fast", &fast_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(a, 0, false));
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(rhs, 1, false));
    DFG_OP_REQUIRES(ctx, MatrixSolveOp::SameBatch(a, rhs),
                    InvalidArgument("All input tensors must have the same "
                                    "outer dimensions."));
    const int m = static_cast<int>(a.dim_size(a.dims() - 2));
    const int n = static_cast<int>(a.dim_size(a.dims() - 1));
    const int k = static_cast<int>(rhs.dim_size(rhs.dims() - 1));
    DFG_OP_REQUIRES(ctx, rhs.dim_size(rhs.dims() - 2) == m,
                    InvalidArgument("Input matrix and rhs are incompatible."));
    const double l2 = *static_cast<const double*>(ctx->input(2).data());
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, BatchShape(a, {n, k}), &out));
    if (n == 0 || k == 0) return;
    for (int64_t b = 0; b < NumMatrices(a); ++b) {
      Mat am = ReadMat(a, b, m, n);
      Mat bm = ReadMat(rhs, b, m, k);
      Mat x(n, k);
      if (fast_) {
        DFG_OP_REQUIRES(
            ctx, SolveNormal(am, bm, l2, &x),
            InvalidArgument("Input matrix was rank deficient or "
                            "ill-conditioned. Try setting fast=False or "
                            "provide a larger l2_regularizer > 0."));
      } else {
        SolveMinNorm(am, bm, &x);
      }
      WriteMat(x, n, k, out, b);
    }
  }

 private:
  // (A^T A + l2 I)^-1 A^T B when m >= n, else A^T (A A^T + l2 I)^-1 B.
  static bool SolveNormal(Mat& a, Mat& b, double l2, Mat* x) {
    const int m = a.rows, n = a.cols, k = b.cols;
    const bool tall = m >= n;
    const int g = tall ? n : m;
    Mat gram(g, g), y(g, k);
    cblas_dgemm(CblasColMajor, tall ? CblasTrans : CblasNoTrans,
                tall ? CblasNoTrans : CblasTrans, g, g, tall ? m : n, 1.0,
                a.data(), a.ld(), a.data(), a.ld(), 0.0, gram.data(), g);
    for (int i = 0; i < g; ++i) gram.at(i, i) += l2;
    if (tall) {
      cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n, k, m, 1.0,
                  a.data(), a.ld(), b.data(), b.ld(), 0.0, y.data(), g);
    } else {
      y = b;
    }
    int info = 0;
    dpotrf_("L", &g, gram.data(), &g, &info, 1);
    if (info != 0) return false;
    dpotrs_("L", &g, &k, gram.data(), &g, y.data(), &g, &info, 1);
    if (tall) {
      *x = y;
    } else {
      cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n, k, m, 1.0,
                  a.data(), a.ld(), y.data(), g, 0.0, x->data(), n);
    }
    return true;
  }

  static void SolveMinNorm(Mat& a, Mat& b, Mat* x) {
    const int m = a.rows, n = a.cols, k = b.cols;
    const int ldb = std::max({m, n, 1});
    Mat bx(ldb, k);
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < k; ++c) bx.at(r, c) = b.at(r, c);
    std::vector<double> s(std::max(1, std::min(m, n)));
    const double rcond = -1.0;
    int rank = 0, info = 0, lwork = -1, liwork = 0;
    double wsize = 0;
    int isize = 0;
    dgelsd_(&m, &n, &k, a.data(), &m, bx.data(), &ldb, s.data(), &rcond, &rank,
            &wsize, &lwork, &isize, &info);
    lwork = static_cast<int>(wsize) + 1;
    liwork = std::max(isize, 1);
    std::vector<double> work(lwork);
    std::vector<int> iwork(liwork);
    dgelsd_(&m, &n, &k, a.data(), &m, bx.data(), &ldb, s.data(), &rcond, &rank,
            work.data(), &lwork, iwork.data(), &info);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < k; ++c) x->at(r, c) = bx.at(r, c);
  }

  bool fast_ = true;
};

}  // namespace

void RegisterLinalgFactorKernels(KernelRegistry* r);

void RegisterLinalgSolveKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", LinalgTypes());
  // The Batch* names are the deprecated aliases of the same kernels.
  for (const std::string p : {"", "Batch"}) {
    r->Register<MatrixSolveOp>(p + "MatrixSolve", {types});
    r->Register<MatrixTriangularSolveOp>(p + "MatrixTriangularSolve", {types});
    r->Register<MatrixSolveLsOp>(p + "MatrixSolveLs", {types});
  }
  RegisterLinalgFactorKernels(r);
}

}  // namespace dfg
