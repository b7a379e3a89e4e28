// The fake-quantization ops of quantization-aware training graphs:
// FakeQuantWithMinMaxArgs / Vars / VarsPerChannel and their gradients, as
// TensorFlow's fake_quant_ops: the [min, max] range is nudged so that 0.0 is
// a quantized value, inputs are clamped to the nudged range and rounded to
// the nearest of the 2^num_bits levels. Each float expression is written in
// TensorFlow's order (the scalar Vars op divides by the scale, the others
// multiply by its separately computed inverse) so the results match it bit
// for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

struct Nudged {
  float min, max, scale, inverse;
};

// The zero point is kept in a uint16 as TensorFlow does (num_bits <= 16).
Nudged Nudge(float min, float max, int quant_min, int quant_max) {
  const float qmin = static_cast<float>(quant_min);
  const float qmax = static_cast<float>(quant_max);
  Nudged n;
  n.scale = (max - min) / (qmax - qmin);
  // Computed apart, not as 1 / scale, as TensorFlow does.
  n.inverse = (qmax - qmin) / (max - min);
  const float zero_from_min = qmin - min / n.scale;
  uint16_t zero;
  if (zero_from_min < qmin) {
    zero = static_cast<uint16_t>(quant_min);
  } else if (zero_from_min > qmax) {
    zero = static_cast<uint16_t>(quant_max);
  } else {
    zero = static_cast<uint16_t>(std::round(zero_from_min));
  }
  n.min = (qmin - zero) * n.scale;
  n.max = (qmax - zero) * n.scale;
  return n;
}

Status ReadBits(OpKernelConstruction* ctx, int* quant_min, int* quant_max) {
  int64_t num_bits = 0;
  bool narrow_range = false;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("num_bits", &num_bits));
  if (num_bits < 2 || num_bits > 16) {
    return InvalidArgument("num_bits must be between 2 and 16, inclusive");
  }
  DFG_RETURN_IF_ERROR(ctx->GetAttr("narrow_range", &narrow_range));
  *quant_min = narrow_range ? 1 : 0;
  *quant_max = (1 << num_bits) - 1;
  return Status::Ok();
}

// Rounds x to its level: the level count from the nudged zero (quant_zero)
// is rounded, then scaled back. The scalar-range Vars op divides by the
// scale, the others multiply by the inverse.
float Quantize(float x, const Nudged& n, bool divide) {
  const float quant_zero = std::floor(-n.min * n.inverse + 0.5f);
  const float shifted = std::max(std::min(x, n.max), n.min) - n.min;
  const float steps = divide ? shifted / n.scale : shifted * n.inverse;
  return std::floor(steps - quant_zero + 0.5f) * n.scale;
}

class FakeQuantArgsOpBase : public OpKernel {
 public:
  explicit FakeQuantArgsOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("min", &min_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("max", &max_));
    DFG_OP_REQUIRES(ctx, min_ < max_,
                    InvalidArgument("min has to be smaller than max, was: "
                                    "{} >= {}",
                                    min_, max_));
    DFG_OP_REQUIRES_OK(ctx, ReadBits(ctx, &quant_min_, &quant_max_));
  }

 protected:
  float min_ = 0, max_ = 0;
  int quant_min_ = 0, quant_max_ = 0;
};

class FakeQuantArgsOp : public FakeQuantArgsOpBase {
 public:
  using FakeQuantArgsOpBase::FakeQuantArgsOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const Nudged n = Nudge(min_, max_, quant_min_, quant_max_);
    const float* x = in.flat<float>().data();
    float* y = out->flat<float>().data();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      y[i] = Quantize(x[i], n, false);
    }
  }
};

Status SameSize(const Tensor& gradient, const Tensor& input) {
  if (gradient.shape() != input.shape()) {
    return InvalidArgument("gradient and input must be the same size");
  }
  return Status::Ok();
}

class FakeQuantArgsGradientOp : public FakeQuantArgsOpBase {
 public:
  using FakeQuantArgsOpBase::FakeQuantArgsOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& in = ctx->input(1);
    // TensorFlow's BinaryElementWiseOp checks the shapes first.
    DFG_OP_REQUIRES(
        ctx, grad.shape() == in.shape(),
        InvalidArgument("Inputs to operation {} of type {} must "
                        "have the same size and shape.  Input 0: "
                        "{} != input 1: {}",
                        name(), type_string(), grad.shape().DebugString(),
                        in.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const Nudged n = Nudge(min_, max_, quant_min_, quant_max_);
    const float* g = grad.flat<float>().data();
    const float* x = in.flat<float>().data();
    float* y = out->flat<float>().data();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      y[i] = g[i] * (x[i] >= n.min && x[i] <= n.max ? 1.0f : 0.0f);
    }
  }
};

// The Vars ops: min and max are inputs, one pair (scalars) or one per channel
// of the last dimension (PerChannel: vectors).
class FakeQuantVarsOpBase : public OpKernel {
 public:
  FakeQuantVarsOpBase(OpKernelConstruction* ctx, bool per_channel,
                      bool gradient)
      : OpKernel(ctx), per_channel_(per_channel), gradient_(gradient) {
    DFG_OP_REQUIRES_OK(ctx, ReadBits(ctx, &quant_min_, &quant_max_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int first = gradient_ ? 1 : 0;
    const Tensor& in = ctx->input(first);
    if (gradient_) DFG_OP_REQUIRES_OK(ctx, SameSize(ctx->input(0), in));
    const Tensor& min = ctx->input(first + 1);
    const Tensor& max = ctx->input(first + 2);
    DFG_OP_REQUIRES(ctx, !per_channel_ || in.dims() > 0,
                    InvalidArgument("inputs must be at least rank 1"));
    const int64_t depth = per_channel_ ? in.dim_size(in.dims() - 1) : 1;
    DFG_OP_REQUIRES_OK(ctx, CheckRange(min, max, depth));
    const int64_t rows = depth == 0 ? 0 : in.NumElements() / depth;
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const float* x = in.flat<float>().data();
    float* y = out->flat<float>().data();
    // A [0, 0] range gives zeros (the gradient passes through).
    const auto zero_range = [&](int64_t c) {
      return min.flat<float>()[c] == 0.0f && max.flat<float>()[c] == 0.0f;
    };
    if (!gradient_) {
      for (int64_t c = 0; c < depth; ++c) {
        const Nudged n = Nudge(min.flat<float>()[c], max.flat<float>()[c],
                               quant_min_, quant_max_);
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = r * depth + c;
          y[i] = zero_range(c) ? 0.0f : Quantize(x[i], n, !per_channel_);
        }
      }
      return;
    }
    const TensorShape range_shape =
        per_channel_ ? TensorShape({depth}) : TensorShape();
    Tensor *dmin = nullptr, *dmax = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, range_shape, &dmin));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, range_shape, &dmax));
    const float* g = ctx->input(0).flat<float>().data();
    for (int64_t c = 0; c < depth; ++c) {
      const Nudged n = Nudge(min.flat<float>()[c], max.flat<float>()[c],
                             quant_min_, quant_max_);
      float below = 0, above = 0;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = r * depth + c;
        if (zero_range(c)) {
          y[i] = g[i];
          continue;
        }
        y[i] = g[i] * (x[i] >= n.min && x[i] <= n.max ? 1.0f : 0.0f);
        below += g[i] * (x[i] < n.min ? 1.0f : 0.0f);
        above += g[i] * (x[i] > n.max ? 1.0f : 0.0f);
      }
      dmin->flat<float>()[c] = below;
      dmax->flat<float>()[c] = above;
    }
  }

 private:
  Status CheckRange(const Tensor& min, const Tensor& max, int64_t depth) const {
    const int rank = per_channel_ ? 1 : 0;
    for (const auto& [t, name] :
         {std::pair<const Tensor*, const char*>{&min, "min"}, {&max, "max"}}) {
      if (t->dims() != rank) {
        return InvalidArgument("`{}` must be rank {} but is rank {}", name,
                               rank, t->dims());
      }
      if (per_channel_ && t->dim_size(0) != depth) {
        return InvalidArgument("{} has incorrect size, expected {} was {}",
                               name, depth, t->dim_size(0));
      }
    }
    return Status::Ok();
  }

  bool per_channel_, gradient_;
  int quant_min_ = 0, quant_max_ = 0;
};

template <bool kPerChannel, bool kGradient>
class FakeQuantVarsOp : public FakeQuantVarsOpBase {
 public:
  explicit FakeQuantVarsOp(OpKernelConstruction* ctx)
      : FakeQuantVarsOpBase(ctx, kPerChannel, kGradient) {}
};

}  // namespace

void RegisterQuantFakeKernels(KernelRegistry* r) {
  r->Register<FakeQuantArgsOp>("FakeQuantWithMinMaxArgs");
  r->Register<FakeQuantArgsGradientOp>("FakeQuantWithMinMaxArgsGradient");
  r->Register<FakeQuantVarsOp<false, false>>("FakeQuantWithMinMaxVars");
  r->Register<FakeQuantVarsOp<false, true>>("FakeQuantWithMinMaxVarsGradient");
  r->Register<FakeQuantVarsOp<true, false>>(
      "FakeQuantWithMinMaxVarsPerChannel");
  r->Register<FakeQuantVarsOp<true, true>>(
      "FakeQuantWithMinMaxVarsPerChannelGradient");
}

}  // namespace dfg
