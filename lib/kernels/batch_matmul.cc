// BatchMatMul (equal batch dims), BatchMatMulV2 / V3 (NumPy-broadcast batch
// dims). float/double: strided GEMMs through BatchedGemm (blas_threads.h),
// an operand broadcast over the batch folded into one GEMM where the layout
// allows (x [b, m, k] times a shared y is one [b*m, k] GEMM); other types a
// plain loop per batch entry.
#include <cblas.h>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

struct Mat {
  int64_t m, k, n;
  bool ax, ay;
};

// The types BLAS does not cover; adjoint conjugates complex operands.
template <typename T>
void MatMulOne(const Mat& d, const T* x, const T* y, T* z) {
  const int64_t lda = d.ax ? d.m : d.k, ldb = d.ay ? d.k : d.n;
  {
    using C = CalcType<T>;
    auto conj = [](C v) {
      if constexpr (requires { std::conj(v); } && !std::is_arithmetic_v<C>) {
        return std::conj(v);
      } else {
        return v;
      }
    };
    for (int64_t i = 0; i < d.m; ++i) {
      for (int64_t j = 0; j < d.n; ++j) {
        C sum = C(0);
        for (int64_t p = 0; p < d.k; ++p) {
          C a = Load(d.ax ? x[p * lda + i] : x[i * lda + p]);
          C b = Load(d.ay ? y[j * ldb + p] : y[p * ldb + j]);
          if (d.ax) a = conj(a);
          if (d.ay) b = conj(b);
          sum += a * b;
        }
        z[i * d.n + j] = Store<T>(sum);
      }
    }
  }
}

template <int kVersion>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
    DFG_OP_REQUIRES(ctx,
                    ctx->input_type(0) == ctx->input_type(1) &&
                        ctx->input_type(0) == ctx->output_type(0),
                    Unimplemented("BatchMatMulV3 with mixed types is not "
                                  "supported"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    DFG_OP_REQUIRES(ctx, x.dims() >= 2,
                    InvalidArgument("In[0] ndims must be >= 2: {}", x.dims()));
    DFG_OP_REQUIRES(ctx, y.dims() >= 2,
                    InvalidArgument("In[1] ndims must be >= 2: {}", y.dims()));
    Mat d;
    d.ax = adj_x_;
    d.ay = adj_y_;
    const int xr = x.dims(), yr = y.dims();
    d.m = x.dim_size(adj_x_ ? xr - 1 : xr - 2);
    d.k = x.dim_size(adj_x_ ? xr - 2 : xr - 1);
    d.n = y.dim_size(adj_y_ ? yr - 2 : yr - 1);
    DFG_OP_REQUIRES(
        ctx, d.k == y.dim_size(adj_y_ ? yr - 1 : yr - 2),
        InvalidArgument("Matrix size-incompatible: In[0]: {}, In[1]: {}",
                        x.shape().DebugString(), y.shape().DebugString()));
    // Batch dims, right-aligned and broadcast.
    const int br = std::max(xr, yr) - 2;
    std::vector<int64_t> xb(br, 1), yb(br, 1), ob(br);
    for (int i = 0; i < xr - 2; ++i) xb[br - (xr - 2) + i] = x.dim_size(i);
    for (int i = 0; i < yr - 2; ++i) yb[br - (yr - 2) + i] = y.dim_size(i);
    TensorShape shape;
    for (int i = 0; i < br; ++i) {
      const bool ok = kVersion == 1
                          ? xr == yr && xb[i] == yb[i]
                          : xb[i] == yb[i] || xb[i] == 1 || yb[i] == 1;
      DFG_OP_REQUIRES(
          ctx, ok,
          InvalidArgument("In[0] and In[1] must have compatible "
                          "batch dimensions: {} vs. {}",
                          x.shape().DebugString(), y.shape().DebugString()));
      ob[i] = std::max(xb[i], yb[i]);
      shape.AddDim(ob[i]);
    }
    shape.AddDim(d.m);
    shape.AddDim(d.n);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    Dispatch(NumberTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* xp = static_cast<const T*>(x.data());
      const T* yp = static_cast<const T*>(y.data());
      T* zp = static_cast<T*>(out->data());
      if (d.k == 0) {
        std::fill(zp, zp + out->NumElements(), Store<T>(CalcType<T>(0)));
        return;
      }
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        RunBatchedGemm(ctx->intra_op_pool(), Plan(d, xb, yb, ob), xp, yp, zp);
      } else {
        Loop(ctx->intra_op_pool(), d, xb, yb, ob, xp, yp, zp);
      }
    });
  }

 private:
  // The batch as strided GEMMs: a batch dim of size 1 in one operand
  // broadcasts it (stride 0).
  static BatchedGemm Plan(const Mat& d, const std::vector<int64_t>& xb,
                          const std::vector<int64_t>& yb,
                          const std::vector<int64_t>& ob) {
    BatchedGemm g;
    g.m = d.m;
    g.n = d.n;
    g.k = d.k;
    g.trans_a = d.ax;
    g.trans_b = d.ay;
    g.lda = d.ax ? d.m : d.k;
    g.ldb = d.ay ? d.k : d.n;
    g.ldc = d.n;
    const int br = static_cast<int>(ob.size());
    g.batch = ob;
    g.a_strides.resize(br);
    g.b_strides.resize(br);
    g.c_strides.resize(br);
    int64_t xs = d.m * d.k, ys = d.k * d.n, zs = d.m * d.n;
    for (int i = br - 1; i >= 0; --i) {
      g.a_strides[i] = xb[i] == 1 ? 0 : xs;
      g.b_strides[i] = yb[i] == 1 ? 0 : ys;
      g.c_strides[i] = zs;
      xs *= xb[i];
      ys *= yb[i];
      zs *= ob[i];
    }
    g.Simplify();
    return g;
  }

  // Other types: one plain loop GEMM per batch entry.
  template <typename T>
  static void Loop(ThreadPoolInterface* pool, const Mat& d,
                   const std::vector<int64_t>& xb,
                   const std::vector<int64_t>& yb,
                   const std::vector<int64_t>& ob, const T* xp, const T* yp,
                   T* zp) {
    const int br = static_cast<int>(ob.size());
    int64_t batches = 1;
    for (int64_t b : ob) batches *= b;
    ParallelFor(pool, batches, d.m * d.n * d.k * 2,
                [&](int64_t b0, int64_t b1) {
                  for (int64_t b = b0; b < b1; ++b) {
                    int64_t rem = b, xo = 0, yo = 0, xs = 1, ys = 1;
                    for (int i = br - 1; i >= 0; --i) {
                      const int64_t idx = rem % ob[i];
                      rem /= ob[i];
                      xo += (xb[i] == 1 ? 0 : idx) * xs;
                      yo += (yb[i] == 1 ? 0 : idx) * ys;
                      xs *= xb[i];
                      ys *= yb[i];
                    }
                    MatMulOne(d, xp + xo * d.m * d.k, yp + yo * d.k * d.n,
                              zp + b * d.m * d.n);
                  }
                });
  }

  bool adj_x_ = false, adj_y_ = false;
};

}  // namespace

void RegisterBatchMatMulKernels(KernelRegistry* r) {
  // TensorFlow's CPU kernels: the float, complex and 16-64 bit signed types;
  // V3 with Ta, Tb and Tout the same but half (its mixed bfloat16/int8 forms
  // are not in dfg).
  const auto types =
      FloatTypes() + TypeList<int16_t, int32_t, int64_t>() + ComplexTypes();
  r->Register<BatchMatMulOp<1>>("BatchMatMul", {TypeConstraint("T", types)});
  r->Register<BatchMatMulOp<2>>("BatchMatMulV2", {TypeConstraint("T", types)});
  for (DataType t : DataTypes(types)) {
    if (t == tensorflow::DT_HALF) continue;  // no half V3 in TensorFlow
    r->Register<BatchMatMulOp<3>>(
        "BatchMatMulV3",
        {KernelTypeConstraint{"Ta", {t}}, KernelTypeConstraint{"Tb", {t}},
         KernelTypeConstraint{"Tout", {t}}});
  }
}

}  // namespace dfg
