// Orthogonal factorizations over batches of matrices, through LAPACK: Qr
// (dgeqrf + dorgqr), SelfAdjointEigV2 (dsyevd on the lower triangle,
// eigenvalues ascending), Svd (dgesdd, singular values descending, v not
// transposed). Outputs a flag turns off (compute_uv, compute_v) are the
// scalar TensorFlow allocates for them (0 here; TensorFlow leaves it
// uninitialized).
#include <algorithm>
#include <string>

#include "lib/kernels/linalg_lapack.h"

namespace dfg {
namespace {

class QrOp : public OpKernel {
 public:
  explicit QrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("full_matrices", &full_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, false));
    const int m = static_cast<int>(in.dim_size(in.dims() - 2));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    const int k = std::min(m, n);
    const int qcols = full_ ? m : k;
    Tensor* q = nullptr;
    Tensor* r = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, BatchShape(in, {m, qcols}), &q));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, BatchShape(in, {qcols, n}), &r));
    if (m == 0 || n == 0) {
      // Q of an m x 0 input with full_matrices is the identity.
      for (int64_t b = 0; b < NumMatrices(in) && m > 0 && qcols > 0; ++b) {
        Mat eye(m, qcols);
        for (int i = 0; i < std::min(m, qcols); ++i) eye.at(i, i) = 1.0;
        WriteMat(eye, m, qcols, q, b);
      }
      return;
    }
    const int width = std::max(n, qcols);
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      Mat a0 = ReadMat(in, b, m, n);
      Mat a(m, width);
      std::copy(a0.a.begin(), a0.a.end(), a.a.begin());
      std::vector<double> tau(k);
      int info = 0, lwork = std::max(1, width * 64);
      std::vector<double> work(lwork);
      dgeqrf_(&m, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info);
      Mat rm(qcols, n);
      for (int i = 0; i < std::min(qcols, m); ++i)
        for (int j = i; j < n; ++j) rm.at(i, j) = a.at(i, j);
      WriteMat(rm, qcols, n, r, b);
      dorgqr_(&m, &qcols, &k, a.data(), &m, tau.data(), work.data(), &lwork,
              &info);
      WriteMat(a, m, qcols, q, b);
    }
  }

 private:
  bool full_ = false;
};

class SelfAdjointEigOp : public OpKernel {
 public:
  explicit SelfAdjointEigOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("compute_v", &compute_v_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, true));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    Tensor* e = nullptr;
    Tensor* v = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, BatchShape(in, {n}), &e));
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(1, compute_v_ ? in.shape() : TensorShape(), &v));
    if (!compute_v_) ZeroScalar(v);
    if (n == 0) return;
    const char* jobz = compute_v_ ? "V" : "N";
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      Mat a = ReadMat(in, b, n, n);
      Mat w(n, 1);
      int info = 0, lwork = -1, liwork = -1, isize = 0;
      double wsize = 0;
      dsyevd_(jobz, "L", &n, a.data(), &n, w.data(), &wsize, &lwork, &isize,
              &liwork, &info, 1, 1);
      lwork = static_cast<int>(wsize) + 1;
      liwork = std::max(isize, 1);
      std::vector<double> work(lwork);
      std::vector<int> iwork(liwork);
      dsyevd_(jobz, "L", &n, a.data(), &n, w.data(), work.data(), &lwork,
              iwork.data(), &liwork, &info, 1, 1);
      WriteMat(w, 1, n, e, b, /*transpose=*/true);
      if (compute_v_) WriteMat(a, n, n, v, b);
    }
  }

  static void ZeroScalar(Tensor* t) {
    Dispatch(LinalgTypes(), t->dtype(),
             [&](auto z) { *static_cast<decltype(z)*>(t->data()) = 0; });
  }

 private:
  bool compute_v_ = true;
};

class SvdOp : public OpKernel {
 public:
  explicit SvdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("compute_uv", &compute_uv_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("full_matrices", &full_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckMatrix(in, 0, false));
    const int m = static_cast<int>(in.dim_size(in.dims() - 2));
    const int n = static_cast<int>(in.dim_size(in.dims() - 1));
    const int k = std::min(m, n);
    const int ucols = full_ ? m : k, vcols = full_ ? n : k;
    Tensor* s = nullptr;
    Tensor* u = nullptr;
    Tensor* v = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, BatchShape(in, {k}), &s));
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            1, compute_uv_ ? BatchShape(in, {m, ucols}) : TensorShape(), &u));
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            2, compute_uv_ ? BatchShape(in, {n, vcols}) : TensorShape(), &v));
    if (!compute_uv_) {
      SelfAdjointEigOp::ZeroScalar(u);
      SelfAdjointEigOp::ZeroScalar(v);
    }
    if (m == 0 || n == 0) {
      // No singular values: full U and V are identities.
      for (int64_t b = 0; compute_uv_ && b < NumMatrices(in); ++b) {
        Mat ue(m, ucols), ve(n, vcols);
        for (int i = 0; i < std::min(m, ucols); ++i) ue.at(i, i) = 1.0;
        for (int i = 0; i < std::min(n, vcols); ++i) ve.at(i, i) = 1.0;
        WriteMat(ue, m, ucols, u, b);
        WriteMat(ve, n, vcols, v, b);
      }
      return;
    }
    const char* jobz = !compute_uv_ ? "N" : (full_ ? "A" : "S");
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      Mat a = ReadMat(in, b, m, n);
      Mat sv(k, 1), um(m, ucols), vt(vcols, n);
      int info = 0, lwork = -1;
      double wsize = 0;
      std::vector<int> iwork(8 * k);
      const int ldvt = std::max(vcols, 1);
      dgesdd_(jobz, &m, &n, a.data(), &m, sv.data(), um.data(), &m, vt.data(),
              &ldvt, &wsize, &lwork, iwork.data(), &info, 1);
      lwork = static_cast<int>(wsize) + 1;
      std::vector<double> work(lwork);
      dgesdd_(jobz, &m, &n, a.data(), &m, sv.data(), um.data(), &m, vt.data(),
              &ldvt, work.data(), &lwork, iwork.data(), &info, 1);
      WriteMat(sv, 1, k, s, b, /*transpose=*/true);
      if (compute_uv_) {
        WriteMat(um, m, ucols, u, b);
        WriteMat(vt, n, vcols, v, b, /*transpose=*/true);
      }
    }
  }

 private:
  bool compute_uv_ = true, full_ = false;
};

}  // namespace

void RegisterLinalgFactorKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", LinalgTypes());
  r->Register<QrOp>("Qr", {types});
  // The Batch* names are the deprecated aliases of the same kernels.
  for (const std::string p : {"", "Batch"}) {
    r->Register<SelfAdjointEigOp>(p + "SelfAdjointEigV2", {types});
    r->Register<SvdOp>(p + "Svd", {types});
  }
}

}  // namespace dfg
