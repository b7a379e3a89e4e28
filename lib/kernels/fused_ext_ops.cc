// BatchNormWithGlobalNormalization and its gradient: TensorFlow's batch norm
// before FusedBatchNorm (deprecated at GraphDef version 9; TF1-era frozen
// models such as the 2015 Inception v3 graph carry it). NHWC with the depth
// last; the statistics are given, not computed:
//   y = (t - m) * rsqrt(v + epsilon) [* gamma] + beta
// As TensorFlow: half computes in float, rounding the per-depth factor.
#include <cmath>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

// The checks of both kernels: `x_names` are 4-D, the other inputs 1-D
// vectors of the depth (TensorFlow reads them unchecked past the depth).
Status ValidateGlobalNorm(OpKernelContext* ctx, std::vector<int> four_d,
                          const std::vector<const char*>& names) {
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const Tensor& t = ctx->input(i);
    const bool is_4d =
        std::find(four_d.begin(), four_d.end(), i) != four_d.end();
    if (t.dims() != (is_4d ? 4 : 1)) {
      return InvalidArgument("{} must be {}-dimensional{}", names[i],
                             is_4d ? 4 : 1, t.shape().DebugString());
    }
  }
  const int64_t depth = ctx->input(0).dim_size(3);
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const Tensor& t = ctx->input(i);
    if (t.dim_size(t.dims() - 1) != depth) {
      return InvalidArgument("{} must have {} elements in its last dimension{}",
                             names[i], depth, t.shape().DebugString());
    }
  }
  return Status::Ok();
}

template <typename T>
std::vector<CalcType<T>> Values(const Tensor& t) {
  std::vector<CalcType<T>> out;
  out.reserve(t.NumElements());
  for (const T& v : t.flat<T>()) out.push_back(Load(v));
  return out;
}

class BatchNormWithGlobalNormalizationOp : public OpKernel {
 public:
  explicit BatchNormWithGlobalNormalizationOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("variance_epsilon", &epsilon_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("scale_after_normalization", &scale_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(
        ctx, ValidateGlobalNorm(
                 ctx, {0}, {"input", "mean", "variance", "beta", "gamma"}));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, ctx->input(0).shape(), &out));
    Dispatch(TypeList<float, double, Half>(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      const std::vector<C> m = Values<T>(ctx->input(1)),
                           var = Values<T>(ctx->input(2)),
                           beta = Values<T>(ctx->input(3)),
                           gamma = Values<T>(ctx->input(4));
      const size_t depth = m.size();
      std::vector<C> factor(depth);
      for (size_t c = 0; c < depth; ++c) {
        // rsqrt(v + eps) [* gamma], evaluated once per depth in T.
        C f = Load(Store<T>(C(1) / std::sqrt(var[c] + C(epsilon_))));
        factor[c] = scale_ ? Load(Store<T>(f * gamma[c])) : f;
      }
      auto x = ctx->input(0).flat<T>();
      auto y = out->flat<T>();
      for (size_t i = 0; i < x.size(); ++i) {
        const size_t c = i % depth;
        y[i] = Store<T>((Load(x[i]) - m[c]) * factor[c] + beta[c]);
      }
    });
  }

 private:
  float epsilon_ = 0.0f;
  bool scale_ = false;
};

class BatchNormWithGlobalNormalizationGradOp : public OpKernel {
 public:
  explicit BatchNormWithGlobalNormalizationGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("variance_epsilon", &epsilon_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("scale_after_normalization", &scale_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, ValidateGlobalNorm(ctx, {0, 4},
                                               {"input", "mean", "variance",
                                                "gamma", "backprop"}));
    DFG_OP_REQUIRES(
        ctx, ctx->input(4).shape() == ctx->input(0).shape(),
        InvalidArgument("backprop must have the input's shape {}, got {}",
                        ctx->input(0).shape().DebugString(),
                        ctx->input(4).shape().DebugString()));
    Dispatch(TypeList<float, double, Half>(), ctx->input(0).dtype(),
             [&](auto v) { Run<decltype(v)>(ctx); });
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx) const {
    using C = CalcType<T>;
    const std::vector<C> m = Values<T>(ctx->input(1)),
                         var = Values<T>(ctx->input(2)),
                         gamma = Values<T>(ctx->input(3));
    const size_t depth = m.size();
    auto x = ctx->input(0).flat<T>();
    auto bp = ctx->input(4).flat<T>();
    std::vector<C> db(depth, C(0)), s2(depth, C(0)), s1(depth), dm(depth),
        dv(depth), dg(depth, C(0));
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t c = i % depth;
      // Rounded per step for half, as Eigen's half sums add in half.
      db[c] = Load(Store<T>(db[c] + Load(bp[i])));
      const C centered = Load(Store<T>(Load(x[i]) - m[c]));
      s2[c] = Load(Store<T>(s2[c] + Load(Store<T>(Load(bp[i]) * centered))));
    }
    for (size_t c = 0; c < depth; ++c) {
      s1[c] = C(1) / std::sqrt(var[c] + C(epsilon_));
      const C scale = scale_ ? s1[c] * gamma[c] : s1[c];
      dm[c] = -db[c] * scale;
      if (scale_) dg[c] = s2[c] * s1[c];
      // -1/2 (v + eps)^(-3/2) [* gamma]
      const C s3 = s1[c] * C(-0.5) / (var[c] + C(epsilon_));
      dv[c] = s2[c] * (scale_ ? s3 * gamma[c] : s3);
    }
    Tensor* dx = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, ctx->input(0).shape(), &dx));
    auto dxf = dx->flat<T>();
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t c = i % depth;
      const C scale = scale_ ? s1[c] * gamma[c] : s1[c];
      dxf[i] = Store<T>(Load(bp[i]) * Load(Store<T>(scale)));
    }
    const std::vector<C>* vecs[] = {&dm, &dv, &db, &dg};
    for (int k = 0; k < 4; ++k) {
      Tensor* t = nullptr;
      DFG_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(1 + k, ctx->input(1).shape(), &t));
      auto f = t->flat<T>();
      for (size_t c = 0; c < depth; ++c) f[c] = Store<T>((*vecs[k])[c]);
    }
  }

  float epsilon_ = 0.0f;
  bool scale_ = false;
};

}  // namespace

void RegisterFusedExtUnaryKernels(KernelRegistry* r);
void RegisterFusedExtConvKernels(KernelRegistry* r);
void RegisterCtcKernels(KernelRegistry* r);

void RegisterFusedExtKernels(KernelRegistry* r) {
  RegisterFusedExtUnaryKernels(r);
  RegisterFusedExtConvKernels(r);
  RegisterCtcKernels(r);
  const auto types = TypeConstraint("T", TypeList<float, double, Half>());
  r->Register<BatchNormWithGlobalNormalizationOp>(
      "BatchNormWithGlobalNormalization", {types});
  r->Register<BatchNormWithGlobalNormalizationGradOp>(
      "BatchNormWithGlobalNormalizationGrad", {types});
}

}  // namespace dfg
