// MatMul: float/double/complex through OpenBLAS (cblas_?gemm), half and
// bfloat16 through float, integers with a plain cache-friendly loop.
#include <cblas.h>

#include <cstring>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

struct Dims {
  int64_t m, k, n;
  bool ta, tb;
};

template <typename T>
void Gemm(ThreadPoolInterface* pool, const Dims& d, const T* a, const T* b,
          T* c) {
  ParallelGemm(pool, d.ta, d.tb, d.m, d.n, d.k, a, d.ta ? d.m : d.k, b,
               d.tb ? d.k : d.n, c, d.n);
}
void Gemm(ThreadPoolInterface*, const Dims& d, const std::complex<float>* a,
          const std::complex<float>* b, std::complex<float>* c) {
  const std::complex<float> one(1), zero(0);
  UseSingleThreadedBlas();
  cblas_cgemm(CblasRowMajor, d.ta ? CblasTrans : CblasNoTrans,
              d.tb ? CblasTrans : CblasNoTrans, d.m, d.n, d.k, &one, a,
              d.ta ? d.m : d.k, b, d.tb ? d.k : d.n, &zero, c, d.n);
}
void Gemm(ThreadPoolInterface*, const Dims& d, const std::complex<double>* a,
          const std::complex<double>* b, std::complex<double>* c) {
  const std::complex<double> one(1), zero(0);
  UseSingleThreadedBlas();
  cblas_zgemm(CblasRowMajor, d.ta ? CblasTrans : CblasNoTrans,
              d.tb ? CblasTrans : CblasNoTrans, d.m, d.n, d.k, &one, a,
              d.ta ? d.m : d.k, b, d.tb ? d.k : d.n, &zero, c, d.n);
}

// C[m,n] = sum_k A(i,k) B(k,j), in CalcType, rows split over the pool.
template <typename T>
void NaiveGemm(ThreadPoolInterface* pool, const Dims& d, const T* a, const T* b,
               T* c) {
  using C = CalcType<T>;
  ParallelFor(pool, d.m, d.k * d.n * 2, [&](int64_t begin, int64_t end) {
    std::vector<C> row(d.n);
    for (int64_t i = begin; i < end; ++i) {
      std::fill(row.begin(), row.end(), C(0));
      for (int64_t k = 0; k < d.k; ++k) {
        const C av = Load(d.ta ? a[k * d.m + i] : a[i * d.k + k]);
        if (d.tb) {
          for (int64_t j = 0; j < d.n; ++j) row[j] += av * Load(b[j * d.k + k]);
        } else {
          const T* brow = b + k * d.n;
          for (int64_t j = 0; j < d.n; ++j) row[j] += av * Load(brow[j]);
        }
      }
      for (int64_t j = 0; j < d.n; ++j) c[i * d.n + j] = Store<T>(row[j]);
    }
  });
}

template <typename T>
void ToFloat(const T* in, int64_t n, std::vector<float>* out) {
  out->resize(n);
  for (int64_t i = 0; i < n; ++i) (*out)[i] = Load(in[i]);
}

template <typename T>
void MatMulTyped(OpKernelContext* ctx, const Dims& d, const Tensor& a,
                 const Tensor& b, Tensor* out) {
  const T* ap = static_cast<const T*>(a.data());
  const T* bp = static_cast<const T*>(b.data());
  T* cp = static_cast<T*>(out->data());
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::complex<float>> ||
                std::is_same_v<T, std::complex<double>>) {
    Gemm(ctx->intra_op_pool(), d, ap, bp, cp);
  } else if constexpr (kIsHalfLike<T>) {
    std::vector<float> af, bf, cf(d.m * d.n);
    ToFloat(ap, a.NumElements(), &af);
    ToFloat(bp, b.NumElements(), &bf);
    Gemm(ctx->intra_op_pool(), d, af.data(), bf.data(), cf.data());
    for (int64_t i = 0; i < d.m * d.n; ++i) cp[i] = Store<T>(cf[i]);
  } else {
    NaiveGemm(ctx->intra_op_pool(), d, ap, bp, cp);
  }
}

class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFG_OP_REQUIRES(ctx, a.dims() == 2,
                    InvalidArgument("In[0] is not a matrix. Instead it has "
                                    "shape {}",
                                    a.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, b.dims() == 2,
                    InvalidArgument("In[1] is not a matrix. Instead it has "
                                    "shape {}",
                                    b.shape().DebugString()));
    Dims d;
    d.ta = transpose_a_;
    d.tb = transpose_b_;
    d.m = a.dim_size(transpose_a_ ? 1 : 0);
    d.k = a.dim_size(transpose_a_ ? 0 : 1);
    d.n = b.dim_size(transpose_b_ ? 0 : 1);
    const int64_t kb = b.dim_size(transpose_b_ ? 1 : 0);
    DFG_OP_REQUIRES(
        ctx, d.k == kb,
        InvalidArgument("Matrix size-incompatible: In[0]: {}, In[1]: {}",
                        a.shape().DebugString(), b.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({d.m, d.n}), &out));
    if (out->NumElements() == 0) return;
    if (d.k == 0) {
      Dispatch(NumberTypes(), a.dtype(), [&](auto v) {
        using T = decltype(v);
        for (T& e : out->flat<T>()) e = Store<T>(CalcType<T>(0));
      });
      return;
    }
    Dispatch(NumberTypes(), a.dtype(),
             [&](auto v) { MatMulTyped<decltype(v)>(ctx, d, a, b, out); });
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

}  // namespace

void RegisterMatMulKernels(KernelRegistry* r) {
  // TensorFlow's CPU MatMul: the float, complex and 16-64 bit signed types.
  r->Register<MatMulOp>(
      "MatMul", {TypeConstraint("T", FloatTypes() +
                                         TypeList<int16_t, int32_t, int64_t>() +
                                         ComplexTypes())});
}

}  // namespace dfg
