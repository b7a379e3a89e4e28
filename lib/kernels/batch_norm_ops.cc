// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3 (forward): inference
// with the given mean/variance, or training with the batch statistics
// (y normalized by the biased variance; batch_variance output Bessel-
// corrected, blended with the running values by exponential_avg_factor).
#include <cmath>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

std::vector<float> ToFloats(const Tensor& t) {
  std::vector<float> out;
  Dispatch(FloatTypes(), t.dtype(), [&](auto v) {
    using T = decltype(v);
    for (const T& e : t.flat<T>()) out.push_back(static_cast<float>(Load(e)));
  });
  return out;
}

Tensor FromFloats(DataType dtype, const std::vector<float>& v) {
  Tensor t(dtype, TensorShape({static_cast<int64_t>(v.size())}));
  Dispatch(FloatTypes(), dtype, [&](auto e) {
    using T = decltype(e);
    auto f = t.flat<T>();
    for (size_t i = 0; i < v.size(); ++i) f[i] = Store<T>(v[i]);
  });
  return t;
}

class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    if (ctx->HasAttr("exponential_avg_factor")) {
      DFG_OP_REQUIRES_OK(ctx,
                         ctx->GetAttr("exponential_avg_factor", &avg_factor_));
    }
    std::string format = "NHWC";
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    DFG_OP_REQUIRES(ctx,
                    format == "NHWC" || format == "NCHW" || format == "NDHWC" ||
                        format == "NCDHW",
                    InvalidArgument("Invalid data format"));
    channels_first_ = format == "NCHW" || format == "NCDHW";
    rank_ = format.size();
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DFG_OP_REQUIRES(ctx, x.dims() == rank_,
                    InvalidArgument("input must be {}-dimensional{}", rank_,
                                    x.shape().DebugString()));
    static const char* const kNames[] = {
        "", "scale", "offset", "estimated_mean", "estimated_variance"};
    for (int i = 1; i <= 4; ++i) {
      DFG_OP_REQUIRES(ctx, ctx->input(i).dims() == 1,
                      InvalidArgument("{} must be 1-dimensional{}", kNames[i],
                                      ctx->input(i).shape().DebugString()));
    }
    const int cdim = channels_first_ ? 1 : rank_ - 1;
    const int64_t channels = x.dim_size(cdim);
    for (int i = 1; i <= 2; ++i) {
      DFG_OP_REQUIRES(
          ctx, ctx->input(i).NumElements() == channels,
          InvalidArgument("{} must have the same number of elements as the "
                          "channels of x, got {} and {}",
                          kNames[i], ctx->input(i).NumElements(), channels));
    }
    if (!is_training_ || avg_factor_ != 1.0f) {
      for (int i = 3; i <= 4; ++i) {
        DFG_OP_REQUIRES(ctx, ctx->input(i).NumElements() == channels,
                        InvalidArgument("When is_training=false, {} must have "
                                        "the same number of elements as the "
                                        "channels of x, got {} and {}",
                                        i == 3 ? "mean" : "variance",
                                        ctx->input(i).NumElements(), channels));
      }
    }
    int64_t inner = 1;
    for (int d = cdim + 1; d < rank_; ++d) inner *= x.dim_size(d);
    const int64_t outer =
        channels * inner == 0 ? 0 : x.NumElements() / (channels * inner);
    const std::vector<float> scale = ToFloats(ctx->input(1));
    const std::vector<float> offset = ToFloats(ctx->input(2));
    std::vector<float> mean = ToFloats(ctx->input(3));
    std::vector<float> var = ToFloats(ctx->input(4));
    std::vector<float> saved_mean = mean, saved_var = var;
    Tensor* y = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    Dispatch(FloatTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* xp = static_cast<const T*>(x.data());
      if (is_training_) {
        BatchStats(xp, outer, channels, inner, &saved_mean, &saved_var);
        mean = saved_mean;
        var = saved_var;
      }
      Normalize(ctx, xp, outer, channels, inner, mean, var, scale, offset,
                static_cast<T*>(y->data()));
    });
    if (is_training_) {
      const int64_t n = outer * inner;
      const float adjust = n > 1 ? static_cast<float>(n) / (n - 1) : 1.0f;
      const std::vector<float> old_mean = ToFloats(ctx->input(3));
      const std::vector<float> old_var = ToFloats(ctx->input(4));
      for (int64_t c = 0; c < channels; ++c) {
        float m = saved_mean[c], s = saved_var[c] * adjust;
        if (avg_factor_ != 1.0f) {
          m = (1 - avg_factor_) * old_mean[c] + avg_factor_ * m;
          s = (1 - avg_factor_) * old_var[c] + avg_factor_ * s;
        }
        mean[c] = m;
        var[c] = s;
      }
    }
    const DataType u = ctx->input(1).dtype();
    ctx->set_output(1, FromFloats(u, mean));
    ctx->set_output(2, FromFloats(u, var));
    ctx->set_output(3, FromFloats(u, saved_mean));
    ctx->set_output(4, FromFloats(u, saved_var));
    if (ctx->num_outputs() > 5) ctx->set_output(5, FromFloats(u, {}));
  }

 private:
  template <typename T>
  static void BatchStats(const T* x, int64_t outer, int64_t channels,
                         int64_t inner, std::vector<float>* mean,
                         std::vector<float>* var) {
    std::vector<double> sum(channels, 0.0), sq(channels, 0.0);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < channels; ++c) {
        const T* p = x + (o * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) sum[c] += Load(p[i]);
      }
    }
    const double n = static_cast<double>(outer * inner);
    mean->assign(channels, 0.0f);
    var->assign(channels, 0.0f);
    if (n == 0) return;
    for (int64_t c = 0; c < channels; ++c) sum[c] /= n;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < channels; ++c) {
        const T* p = x + (o * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const double d = Load(p[i]) - sum[c];
          sq[c] += d * d;
        }
      }
    }
    for (int64_t c = 0; c < channels; ++c) {
      (*mean)[c] = static_cast<float>(sum[c]);
      (*var)[c] = static_cast<float>(sq[c] / n);
    }
  }

  template <typename T>
  void Normalize(OpKernelContext* ctx, const T* x, int64_t outer,
                 int64_t channels, int64_t inner,
                 const std::vector<float>& mean, const std::vector<float>& var,
                 const std::vector<float>& scale,
                 const std::vector<float>& offset, T* y) const {
    // y = x * a + b with a = scale / sqrt(var + eps), b = offset - mean * a.
    std::vector<float> a(channels), b(channels);
    for (int64_t c = 0; c < channels; ++c) {
      a[c] = scale[c] / std::sqrt(var[c] + epsilon_);
      b[c] = offset[c] - mean[c] * a[c];
    }
    if (inner == 1) {  // channels last: one contiguous row per pixel
      ForRange(ctx->intra_op_pool(), outer, channels * 2,
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const T* __restrict src = x + r * channels;
                   T* __restrict dst = y + r * channels;
                   for (int64_t c = 0; c < channels; ++c) {
                     dst[c] = Store<T>(static_cast<float>(Load(src[c])) * a[c] +
                                       b[c]);
                   }
                 }
               });
      return;
    }
    ForRange(ctx->intra_op_pool(), outer * channels, inner * 2,
             [&](int64_t r0, int64_t r1) {
               for (int64_t r = r0; r < r1; ++r) {
                 const int64_t c = r % channels;
                 const T* __restrict src = x + r * inner;
                 T* __restrict dst = y + r * inner;
                 for (int64_t i = 0; i < inner; ++i) {
                   dst[i] =
                       Store<T>(static_cast<float>(Load(src[i])) * a[c] + b[c]);
                 }
               }
             });
  }

  float epsilon_ = 1e-4f;
  float avg_factor_ = 1.0f;
  bool is_training_ = true;
  bool channels_first_ = false;
  int rank_ = 4;
};

}  // namespace

void RegisterBatchNormKernels(KernelRegistry* r) {
  // TensorFlow's CPU kernels: V1 float; V2 and V3 float, half and bfloat16
  // with float statistics (U).
  r->Register<FusedBatchNormOp>("FusedBatchNorm",
                                {TypeConstraint("T", TypeList<float>())});
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"}) {
    r->Register<FusedBatchNormOp>(
        op, {TypeConstraint("T", TypeList<float, Half, BFloat16>()),
             TypeConstraint("U", TypeList<float>())});
  }
}

}  // namespace dfg
