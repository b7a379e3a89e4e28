// LeakyRelu, LRN, TopKV2, Cumsum and Cumprod.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const TensorShape shape = x.shape();
    const void* xd = x.data();
    Tensor* y = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, shape, &y));
    Dispatch(FloatTypes(), y->dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      const C alpha = static_cast<C>(alpha_);
      UnaryCompute(ctx->intra_op_pool(), static_cast<const T*>(xd),
                   static_cast<T*>(y->data()), y->NumElements(),
                   [alpha](C a) { return a > C(0) ? a : a * alpha; });
    });
  }

 private:
  float alpha_ = 0.2f;
};

class LrnOp : public OpKernel {
 public:
  explicit LrnOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("depth_radius", &radius_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("bias", &bias_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("beta", &beta_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DFG_OP_REQUIRES(ctx, x.dims() == 4,
                    InvalidArgument("in must be 4-dimensional"));
    Tensor* y = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const int64_t depth = x.dim_size(3);
    if (depth == 0) return;
    const int64_t rows = x.NumElements() / depth;
    Dispatch(FloatTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* xp = static_cast<const T*>(x.data());
      T* yp = static_cast<T*>(y->data());
      ForRange(ctx->intra_op_pool(), rows, depth * (2 * radius_ + 10),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const T* row = xp + r * depth;
                   for (int64_t c = 0; c < depth; ++c) {
                     const int64_t lo = std::max<int64_t>(0, c - radius_);
                     const int64_t hi =
                         std::min<int64_t>(depth, c + radius_ + 1);
                     float sum = 0;
                     for (int64_t j = lo; j < hi; ++j) {
                       const float e = Load(row[j]);
                       sum += e * e;
                     }
                     const float denom = std::pow(bias_ + alpha_ * sum, beta_);
                     yp[r * depth + c] = Store<T>(Load(row[c]) / denom);
                   }
                 }
               });
    });
  }

 private:
  int64_t radius_ = 5;
  float bias_ = 1, alpha_ = 1, beta_ = 0.5;
};

class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("sorted", &sorted_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& kt = ctx->input(1);
    DFG_OP_REQUIRES(ctx, kt.dims() == 0,
                    InvalidArgument("k must be scalar, got shape {}",
                                    kt.shape().DebugString()));
    const int64_t k = IntValues(kt)[0];
    DFG_OP_REQUIRES(ctx, k >= 0, InvalidArgument("Need k >= 0, got {}", k));
    DFG_OP_REQUIRES(ctx, x.dims() >= 1,
                    InvalidArgument("input must be >= 1-D, got shape {}",
                                    x.shape().DebugString()));
    const int64_t n = x.dim_size(x.dims() - 1);
    DFG_OP_REQUIRES(ctx, n >= k,
                    InvalidArgument("input must have at least k columns. Had "
                                    "{}, needed {}",
                                    n, k));
    TensorShape shape = x.shape();
    shape.set_dim(x.dims() - 1, k);
    Tensor *values = nullptr, *indices = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &values));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &indices));
    if (k == 0 || values->NumElements() == 0) return;
    const int64_t rows = x.NumElements() / n;
    Dispatch(RealTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* xp = static_cast<const T*>(x.data());
      T* vp = static_cast<T*>(values->data());
      std::vector<int64_t> order(n);
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = xp + r * n;
        std::iota(order.begin(), order.end(), 0);
        // Larger first; ties keep the lower index first.
        auto before = [&](int64_t a, int64_t b) {
          const auto va = Load(row[a]), vb = Load(row[b]);
          return va > vb || (va == vb && a < b);
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          before);
        for (int64_t j = 0; j < k; ++j) {
          vp[r * k + j] = row[order[j]];
          if (indices->dtype() == tensorflow::DT_INT64) {
            indices->flat<int64_t>()[r * k + j] = order[j];
          } else {
            indices->flat<int32_t>()[r * k + j] =
                static_cast<int32_t>(order[j]);
          }
        }
      }
    });
  }

 private:
  bool sorted_ = true;
};

template <bool kProd>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& at = ctx->input(1);
    DFG_OP_REQUIRES(ctx, at.dims() == 0,
                    InvalidArgument("ScanOp: axis must be a scalar, not {}",
                                    at.shape().DebugString()));
    int64_t axis = IntValues(at)[0];
    const int rank = x.dims();
    DFG_OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                    InvalidArgument("ScanOp: Expected scan axis in the range "
                                    "[{}, {}), but got {}",
                                    -rank, rank, axis));
    if (axis < 0) axis += rank;
    Tensor* y = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (y->NumElements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
    for (int d = axis + 1; d < rank; ++d) inner *= x.dim_size(d);
    const int64_t n = x.dim_size(axis);
    Dispatch(NumberTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      const T* xp = static_cast<const T*>(x.data());
      T* yp = static_cast<T*>(y->data());
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          C acc = kProd ? C(1) : C(0);
          for (int64_t s = 0; s < n; ++s) {
            const int64_t j = reverse_ ? n - 1 - s : s;
            const int64_t at_j = (o * n + j) * inner + i;
            const C e = Load(xp[at_j]);
            if (!exclusive_) acc = kProd ? acc * e : acc + e;
            yp[at_j] = Store<T>(acc);
            if (exclusive_) acc = kProd ? acc * e : acc + e;
          }
        }
      }
    });
  }

 private:
  bool exclusive_ = false, reverse_ = false;
};

}  // namespace

void RegisterNnExtKernels(KernelRegistry* r) {
  r->Register<LeakyReluOp>("LeakyRelu", {TypeConstraint("T", FloatTypes())});
  r->Register<LrnOp>("LRN", {TypeConstraint("T", TypeList<float, Half>())});
  r->Register<TopKOp>("TopKV2", {TypeConstraint("T", RealTypes())});
  r->Register<ScanOp<false>>("Cumsum", {TypeConstraint("T", NumberTypes())});
  r->Register<ScanOp<true>>("Cumprod", {TypeConstraint("T", NumberTypes())});
}

}  // namespace dfg
