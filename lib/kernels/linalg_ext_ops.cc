// The rest of TensorFlow's dense linear algebra over batches of matrices:
// CholeskyGrad (and its deprecated BatchCholeskyGrad), SelfAdjointEig /
// BatchSelfAdjointEig (the V1 layout: eigenvalues in row 0, eigenvectors as
// columns below) and Lu (partial pivoting, TensorFlow's packed L\U and row
// permutation).
//
// CholeskyGrad and SelfAdjointEig go through LAPACK / BLAS in double
// (linalg_lapack.h); Lu is a plain loop over the element type so that float
// and complex inputs pivot as TensorFlow's Eigen PartialPivLU does on the
// same values.
#include <cblas.h>

#include <cmath>
#include <complex>
#include <string>

#include "lib/kernels/linalg_lapack.h"

namespace dfg {
namespace {

// What TensorFlow's LinearAlgebraOp checks before any op-specific test: rank
// >= 2 for the first input, the same rank and batch dims for the second.
Status CheckBatchInputs(const Tensor& a, const Tensor& b) {
  DFG_RETURN_IF_ERROR(CheckMatrix(a, 0, false));
  if (a.dims() != b.dims()) {
    return InvalidArgument("All input tensors must have the same rank.");
  }
  bool same = true;
  for (int d = 0; same && d < a.dims() - 2; ++d)
    same = a.dim_size(d) == b.dim_size(d);
  if (!same) {
    return InvalidArgument(
        "All input tensors must have the same outer dimensions.");
  }
  return Status::Ok();
}

// dA from L (A = L L^T) and dL, both read from their lower triangles:
// sym(L^-T Phi(L^T dL) L^-1), Phi keeping the lower triangle with its
// diagonal halved (Murray, "Differentiation of the Cholesky decomposition").
class CholeskyGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& l = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckBatchInputs(l, grad));
    const int n = static_cast<int>(l.dim_size(l.dims() - 1));
    DFG_OP_REQUIRES(
        ctx,
        l.dim_size(l.dims() - 2) == grad.dim_size(grad.dims() - 2) &&
            n == grad.dim_size(grad.dims() - 1),
        InvalidArgument("Inputs (L and grad) must have the same shape."));
    DFG_OP_REQUIRES(ctx, l.dim_size(l.dims() - 2) == n,
                    InvalidArgument("Inputs must be a square matrices."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, l.shape(), &out));
    if (n == 0) return;
    for (int64_t b = 0; b < NumMatrices(l); ++b) {
      Mat lm = ReadMat(l, b, n, n);
      Mat g = ReadMat(grad, b, n, n);
      for (int r = 0; r < n; ++r)
        for (int c = r + 1; c < n; ++c) lm.at(r, c) = g.at(r, c) = 0.0;
      // P = L^T tril(G), then Phi(P).
      cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasTrans,
                  CblasNonUnit, n, n, 1.0, lm.data(), n, g.data(), n);
      for (int r = 0; r < n; ++r) {
        for (int c = r + 1; c < n; ++c) g.at(r, c) = 0.0;
        g.at(r, r) *= 0.5;
      }
      // S = L^-T P L^-1.
      cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasTrans,
                  CblasNonUnit, n, n, 1.0, lm.data(), n, g.data(), n);
      cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans,
                  CblasNonUnit, n, n, 1.0, lm.data(), n, g.data(), n);
      Mat s(n, n);
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
          s.at(r, c) = 0.5 * (g.at(r, c) + g.at(c, r));
      WriteMat(s, n, n, out, b);
    }
  }
};

// [..., n + 1, n]: ascending eigenvalues of the lower triangle in row 0, the
// eigenvectors as the columns of the n rows below.
class SelfAdjointEigV1Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, true));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, BatchShape(in, {n + 1, n}), &out));
    if (n == 0) return;
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      Mat a = ReadMat(in, b, n, n);
      Mat w(n, 1);
      int info = 0, lwork = -1, liwork = -1, isize = 0;
      double wsize = 0;
      dsyevd_("V", "L", &n, a.data(), &n, w.data(), &wsize, &lwork, &isize,
              &liwork, &info, 1, 1);
      lwork = static_cast<int>(wsize) + 1;
      liwork = std::max(isize, 1);
      std::vector<double> work(lwork);
      std::vector<int> iwork(liwork);
      dsyevd_("V", "L", &n, a.data(), &n, w.data(), work.data(), &lwork,
              iwork.data(), &liwork, &info, 1, 1);
      Mat packed(n + 1, n);
      for (int c = 0; c < n; ++c) {
        packed.at(0, c) = w.at(c, 0);
        for (int r = 0; r < n; ++r) packed.at(r + 1, c) = a.at(r, c);
      }
      WriteMat(packed, n + 1, n, out, b);
    }
  }
};

template <typename T>
double PivotScore(const T& v) {
  return std::abs(v);
}

// P A = L U in place on a row-major n x n matrix: the pivot of column k is
// the first entry of largest magnitude at or below the diagonal (Eigen's
// choice); a zero column is left as is. perm[i] is the row of A that row i
// of L U equals. Returns false when a pivot is exactly zero.
template <typename T>
bool PartialPivotLu(T* a, int n, std::vector<int64_t>* perm) {
  perm->resize(n);
  for (int i = 0; i < n; ++i) (*perm)[i] = i;
  bool invertible = true;
  for (int k = 0; k < n; ++k) {
    int p = k;
    double best = PivotScore(a[k * n + k]);
    for (int r = k + 1; r < n; ++r) {
      const double s = PivotScore(a[r * n + k]);
      if (s > best) best = s, p = r;
    }
    if (best == 0) {
      invertible = false;
      continue;
    }
    if (p != k) {
      for (int c = 0; c < n; ++c) std::swap(a[k * n + c], a[p * n + c]);
      std::swap((*perm)[k], (*perm)[p]);
    }
    const T pivot = a[k * n + k];
    for (int r = k + 1; r < n; ++r) {
      const T f = a[r * n + k] / pivot;
      a[r * n + k] = f;
      for (int c = k + 1; c < n; ++c) a[r * n + c] -= f * a[k * n + c];
    }
  }
  return invertible;
}

using LuTypes =
    TypeList<float, double, std::complex<float>, std::complex<double>>;

class LuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, in.dims() >= 2,
        InvalidArgument("Input tensor must have rank >= 2, got {}", in.dims()));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    DFG_OP_REQUIRES(ctx, in.dim_size(in.dims() - 2) == n,
                    InvalidArgument("Input matrix must be square."));
    Tensor* lu = nullptr;
    Tensor* perm = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &lu));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, BatchShape(in, {n}), &perm));
    if (n == 0) return;
    std::vector<int64_t> p;
    bool ok = true;
    Dispatch(LuTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* src = static_cast<const T*>(in.data());
      T* dst = static_cast<T*>(lu->data());
      std::copy(src, src + in.NumElements(), dst);
      for (int64_t b = 0; b < NumMatrices(in); ++b) {
        ok = PartialPivotLu(dst + b * n * n, n, &p) && ok;
        for (int i = 0; i < n; ++i) {
          if (perm->dtype() == tensorflow::DT_INT32) {
            static_cast<int32_t*>(perm->data())[b * n + i] =
                static_cast<int32_t>(p[i]);
          } else {
            static_cast<int64_t*>(perm->data())[b * n + i] = p[i];
          }
        }
      }
    });
    DFG_OP_REQUIRES(ctx, ok, InvalidArgument("Input is not invertible."));
  }
};

}  // namespace

void RegisterLinalgExtMiscKernels(KernelRegistry* r);

void RegisterLinalgExtKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", LinalgTypes());
  r->Register<CholeskyGradOp>("CholeskyGrad", {types});
  r->Register<CholeskyGradOp>("BatchCholeskyGrad", {types});
  r->Register<SelfAdjointEigV1Op>("SelfAdjointEig", {types});
  r->Register<SelfAdjointEigV1Op>("BatchSelfAdjointEig", {types});
  r->Register<LuOp>(
      "Lu", {TypeConstraint("T", LuTypes()),
             TypeConstraint("output_idx_type", TypeList<int32_t, int64_t>())});
  RegisterLinalgExtMiscKernels(r);
}

}  // namespace dfg
