// Training-step gradients: EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad,
// LeakyReluGrad (TensorFlow's relu_op / softplus_op / softsign_op
// BinaryElementWiseOps) and FusedBatchNormGrad/V2/V3 (fused_batch_norm_op's
// CPU FusedBatchNormGrad and FusedBatchNormFreezeGrad functors).
//
// The element-wise grads compute in float for half/bfloat16 and round once.
// The batch-norm gradient works in U = float over [rest, channels]: with
// is_training, x_backprop = scale * rsqrt(var + eps) * (dy - mean(dy) -
// (x - mean) * mean(dy * (x - mean)) / (var + eps)); without, dy * scale *
// rsqrt(var + eps). Channel sums accumulate in double, which is at least as
// close to the exact sum as TensorFlow's pairwise float reduction.
#include <cmath>
#include <type_traits>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// ---- Activation gradients
// ----------------------------------------------------

enum class Act { kElu, kSelu, kSoftplus, kSoftsign, kLeakyRelu };

template <Act kAct>
class ActivationGradOp : public OpKernel {
 public:
  explicit ActivationGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (kAct == Act::kLeakyRelu) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& a = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, g.shape().IsSameSize(a.shape()),
        InvalidArgument("Inputs to operation {} of type {} must have the same "
                        "size and shape.  Input 0: {} != input 1: {}",
                        name(), type_string(), g.shape().DebugString(),
                        a.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, g.shape(), &out));
    using Types =
        std::conditional_t<kAct == Act::kLeakyRelu, RealTypes, FloatTypes>;
    Dispatch(Types(), g.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* gp = g.flat<T>().data();
      const T* ap = a.flat<T>().data();
      T* op = out->flat<T>().data();
      for (int64_t i = 0; i < out->NumElements(); ++i) {
        op[i] = Store<T>(Grad<T>(Load(gp[i]), Load(ap[i])));
      }
    });
  }

 private:
  template <typename T, typename C>
  C Grad(C g, C a) const {
    if constexpr (kAct == Act::kElu) {
      return a < C(0) ? (a + C(1)) * g : g;
    } else if constexpr (kAct == Act::kSelu) {
      const C scale = C(1.0507009873554804934193349852946);
      const C scale_alpha = C(1.7580993408473768599402175208123);
      return a < C(0) ? g * (a + scale_alpha) : g * scale;
    } else if constexpr (kAct == Act::kSoftplus) {
      return g / (std::exp(-a) + C(1));
    } else if constexpr (kAct == Act::kSoftsign) {
      const C d = std::abs(a) + C(1);
      return g / (d * d);
    } else {
      // alpha as T first (TensorFlow's static_cast<T>(alpha)).
      const C alpha = Load(Store<T>(alpha_));
      return a > C(0) ? g : g * alpha;
    }
  }

  float alpha_ = 0.2f;
};

// ---- FusedBatchNormGrad
// --------------------------------------------------------

struct BnLayout {
  int64_t channels, rest, inner;  // inner: elements per channel run
  bool channels_first;
};

class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    std::string format;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    DFG_OP_REQUIRES(ctx,
                    format == "NHWC" || format == "NCHW" || format == "NDHWC" ||
                        format == "NCDHW",
                    InvalidArgument("Invalid data format"));
    channels_first_ = format == "NCHW" || format == "NCDHW";
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, Check(ctx));
    const int c_axis = channels_first_ ? 1 : x.dims() - 1;
    BnLayout l{x.dim_size(c_axis), 0, 1, channels_first_};
    l.rest = l.channels == 0 ? 0 : x.NumElements() / l.channels;
    for (int i = c_axis + 1; i < x.dims(); ++i) l.inner *= x.dim_size(i);
    DFG_OP_REQUIRES_OK(ctx, CheckChannels(ctx, l.channels));
    DFG_OP_REQUIRES(
        ctx, is_training_ || !channels_first_,
        InvalidArgument("The implementation of FusedBatchNormGrad with "
                        "is_training=False only support NHWC tensor format "
                        "for now."));
    Tensor *dx = nullptr, *dscale = nullptr, *doffset = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    const TensorShape vec({l.channels});
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, vec, &dscale));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, vec, &doffset));
    for (int i = 3; i < 5; ++i) {
      Tensor* empty = nullptr;
      DFG_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(i, TensorShape({0}), &empty));
    }
    Dispatch(FloatTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      Grad<T>(ctx, dy.flat<T>().data(), x.flat<T>().data(), l,
              dx->flat<T>().data(), dscale->flat<float>().data(),
              doffset->flat<float>().data());
    });
  }

 private:
  Status Check(OpKernelContext* ctx) const {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    if (dy.dims() != 4 && dy.dims() != 5) {
      return InvalidArgument("input must be 4 or 5-dimensional{}",
                             dy.shape().DebugString());
    }
    if (x.dims() != 4 && x.dims() != 5) {
      return InvalidArgument("input must be 4 or 5-dimensional{}",
                             x.shape().DebugString());
    }
    static const char* const kWhat[] = {"", "", "scale", "saved mean",
                                        "saved variance"};
    for (int i = 2; i < 5; ++i) {
      if (ctx->input(i).dims() != 1) {
        return InvalidArgument("{} must be 1-dimensional{}", kWhat[i],
                               ctx->input(i).shape().DebugString());
      }
    }
    if (x.shape() != dy.shape()) {
      return InvalidArgument(
          "x and y_backprop must have same shape, but x has shape {} and "
          "y_backprop has shape {}",
          x.shape().DebugString(), dy.shape().DebugString());
    }
    return Status::Ok();
  }

  static Status CheckChannels(OpKernelContext* ctx, int64_t channels) {
    static const char* const kWhat[] = {"", "", "scale", "reserve_space_1",
                                        "reserve_space_2"};
    for (int i = 2; i < 5; ++i) {
      if (ctx->input(i).NumElements() != channels) {
        return InvalidArgument(
            "{} must have the same number of elements as the channels of x, "
            "got {} and {}",
            kWhat[i], ctx->input(i).NumElements(), channels);
      }
    }
    return Status::Ok();
  }

  int64_t Channel(const BnLayout& l, int64_t i) const {
    return l.channels_first ? (i / l.inner) % l.channels : i % l.channels;
  }

  template <typename T>
  void Grad(OpKernelContext* ctx, const T* dy, const T* x, const BnLayout& l,
            T* dx, float* dscale, float* doffset) const {
    const float* scale = ctx->input(2).flat<float>().data();
    const float* mean = ctx->input(3).flat<float>().data();
    const float* var = ctx->input(4).flat<float>().data();
    const int64_t n = l.rest * l.channels, c = l.channels;
    std::vector<float> coef0(c);
    for (int64_t k = 0; k < c; ++k)
      coef0[k] = 1.0f / std::sqrt(var[k] + epsilon_);
    // Per channel: sum(dy), sum(dy * (x - mean)).
    std::vector<double> sum_dy(c, 0.0), sum_dyxc(c, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = Channel(l, i);
      const float g = static_cast<float>(Load(dy[i]));
      const float xc = static_cast<float>(Load(x[i])) - mean[k];
      sum_dy[k] += g;
      sum_dyxc[k] += static_cast<double>(g) * xc;
    }
    for (int64_t k = 0; k < c; ++k) {
      doffset[k] = n == 0 ? 0.0f : static_cast<float>(sum_dy[k]);
      dscale[k] = n == 0 ? 0.0f : static_cast<float>(sum_dyxc[k] * coef0[k]);
    }
    if (n == 0) return;
    const float rest_inv = 1.0f / static_cast<float>(l.rest);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = Channel(l, i);
      const float g = static_cast<float>(Load(dy[i]));
      if (!is_training_) {
        dx[i] = Store<T>(g * (coef0[k] * scale[k]));
        continue;
      }
      const float xc = static_cast<float>(Load(x[i])) - mean[k];
      const float dy_mean = static_cast<float>(sum_dy[k]) * rest_inv;
      const float coef2 =
          coef0[k] * coef0[k] * (static_cast<float>(sum_dyxc[k]) / l.rest);
      dx[i] = Store<T>((scale[k] * coef0[k]) * ((g - dy_mean) - xc * coef2));
    }
  }

  float epsilon_ = 1e-4f;
  bool channels_first_ = false, is_training_ = true;
};

}  // namespace

void RegisterNnGradExtKernels(KernelRegistry* r) {
  const auto floats = TypeConstraint("T", FloatTypes());
  r->Register<ActivationGradOp<Act::kElu>>("EluGrad", {floats});
  r->Register<ActivationGradOp<Act::kSelu>>("SeluGrad", {floats});
  r->Register<ActivationGradOp<Act::kSoftplus>>("SoftplusGrad", {floats});
  r->Register<ActivationGradOp<Act::kSoftsign>>("SoftsignGrad", {floats});
  r->Register<ActivationGradOp<Act::kLeakyRelu>>(
      "LeakyReluGrad", {TypeConstraint("T", RealTypes())});
  r->Register<FusedBatchNormGradOp>("FusedBatchNormGrad",
                                    {TypeConstraint("T", TypeList<float>())});
  const auto bn = TypeConstraint("T", TypeList<float, Half, BFloat16>());
  r->Register<FusedBatchNormGradOp>("FusedBatchNormGradV2", {bn});
  r->Register<FusedBatchNormGradOp>("FusedBatchNormGradV3", {bn});
}

}  // namespace dfg
