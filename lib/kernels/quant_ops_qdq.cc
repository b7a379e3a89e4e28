// QuantizeAndDequantize (V1, V2, V3, V4) and V4Grad, as TensorFlow's
// quantize_and_dequantize_op: the input range (given, or the tensor's own
// min/max per slice) is widened so that 0 stays exact and one side fills the
// signed or unsigned num_bits range; values are scaled, rounded (half to
// even, or half up = floor(x + 0.5)), and scaled back, all in T. With a given
// range the input is clamped to the adjusted range first. Per-channel (axis
// >= 0) works on the [outer, depth, inner] view of the input.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using QdqTypes = TypeList<float, double>;

struct QdqParams {
  bool signed_input = true;
  int64_t num_bits = 8;
  bool range_given = false;
  bool narrow_range = false;
  bool half_up = false;
};

// Slice [outer, depth, inner] of a tensor for `axis` (-1: one slice).
struct Slices {
  int64_t outer = 1, depth = 1, inner = 1;
};

Slices SliceOf(const Tensor& t, int64_t axis) {
  Slices s;
  if (axis < 0) {
    s.inner = t.NumElements();
    return s;
  }
  for (int64_t d = 0; d < axis; ++d) s.outer *= t.dim_size(d);
  s.depth = t.dim_size(axis);
  for (int64_t d = axis + 1; d < t.dims(); ++d) s.inner *= t.dim_size(d);
  return s;
}

// TensorFlow's ComputeQuantizationRange: widens [min, max] and returns the
// scale and its inverse.
template <typename T>
void QuantizationRange(const QdqParams& p, T* min, T* max, T* scale,
                       T* inverse) {
  const int64_t bits = p.num_bits;
  const int64_t min_q = p.signed_input
                            ? (p.narrow_range ? -(int64_t{1} << (bits - 1)) + 1
                                              : -(int64_t{1} << (bits - 1)))
                            : 0;
  const int64_t max_q = p.signed_input ? (int64_t{1} << (bits - 1)) - 1
                                       : (int64_t{1} << bits) - 1;
  const T from_min =
      min_q * *min > 0 ? min_q / *min : std::numeric_limits<T>::max();
  const T from_max =
      max_q * *max > 0 ? max_q / *max : std::numeric_limits<T>::max();
  if (from_min < from_max) {
    *scale = from_min;
    *inverse = *min / min_q;
    *max = max_q * *inverse;
  } else {
    *scale = from_max;
    *inverse = *max / max_q;
    *min = min_q * *inverse;
  }
}

template <typename T>
void QuantizeSlice(const QdqParams& p, const T* in, T* out, const Slices& s,
                   int64_t c, T min, T max) {
  if (!p.range_given) {
    min = std::numeric_limits<T>::infinity();
    max = -std::numeric_limits<T>::infinity();
    for (int64_t o = 0; o < s.outer; ++o) {
      const T* x = in + (o * s.depth + c) * s.inner;
      for (int64_t i = 0; i < s.inner; ++i) {
        min = std::min(min, x[i]);
        max = std::max(max, x[i]);
      }
    }
  }
  T scale, inverse;
  QuantizationRange(p, &min, &max, &scale, &inverse);
  for (int64_t o = 0; o < s.outer; ++o) {
    const int64_t base = (o * s.depth + c) * s.inner;
    for (int64_t i = 0; i < s.inner; ++i) {
      T v = in[base + i];
      if (p.range_given) v = std::max(std::min(v, max), min);
      v *= scale;
      v = p.half_up ? std::floor(v + T(0.5)) : std::nearbyint(v);
      out[base + i] = v * inverse;
    }
  }
}

// Runs the op on `input` with the ranges (scalars for axis -1, vectors
// otherwise; unused unless range_given).
void RunQdq(const QdqParams& p, const Tensor& input, const Tensor& min_t,
            const Tensor& max_t, int64_t axis, Tensor* output) {
  const Slices s = SliceOf(input, axis);
  Dispatch(QdqTypes(), input.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* in = input.flat<T>().data();
    T* out = output->flat<T>().data();
    for (int64_t c = 0; c < s.depth; ++c) {
      const T lo = p.range_given ? min_t.flat<T>()[c] : T(0);
      const T hi = p.range_given ? max_t.flat<T>()[c] : T(0);
      QuantizeSlice<T>(p, in, out, s, c, lo, hi);
    }
  });
}

template <typename T>
std::string Num(const Tensor& t) {
  return fmt::format("{}", t.flat<T>()[0]);
}

// The checks of a given range. V2/V4 first require scalars and then, with
// an axis, rank 1: TensorFlow 2.21 refuses every per-channel given range
// there, and so does this.
Status CheckGivenRange(const Tensor& input, const Tensor& min_t,
                       const Tensor& max_t, int64_t axis, bool v2) {
  if (v2) {
    if (min_t.dims() != 0)
      return InvalidArgument("input_min must be a scalar.");
    if (max_t.dims() != 0)
      return InvalidArgument("input_max must be a scalar.");
  }
  if (axis != -1) {
    for (const auto& [t, name] :
         {std::pair<const Tensor*, const char*>{&min_t, "input_min_tensor"},
          {&max_t, "input_max_tensor"}}) {
      if (t->dims() != 1) {
        return InvalidArgument(
            "Shape must be rank 1 for {} when the axis is specified", name);
      }
    }
    const int64_t depth = input.dim_size(axis);
    for (const auto& [t, name] :
         {std::pair<const Tensor*, const char*>{&min_t, "input_min_tensor"},
          {&max_t, "input_max_tensor"}}) {
      if (t->dim_size(0) != depth) {
        return InvalidArgument(
            "{} has incorrect size, was {} expected {} to match dim {} of the "
            "input {}",
            name, t->dim_size(0), depth, axis, t->shape().DebugString());
      }
    }
    return Status::Ok();
  }
  if (min_t.NumElements() != 1 || max_t.NumElements() != 1) {
    return InvalidArgument("input_min and input_max must have one element");
  }
  bool ok = true;
  std::string lo, hi;
  Dispatch(QdqTypes(), input.dtype(), [&](auto z) {
    using T = decltype(z);
    ok = min_t.flat<T>()[0] <= max_t.flat<T>()[0];
    lo = Num<T>(min_t);
    hi = Num<T>(max_t);
  });
  if (!ok) {
    return InvalidArgument("Invalid range: input_min {} > input_max {}", lo,
                           hi);
  }
  return Status::Ok();
}

// QuantizeAndDequantizeV2 and V4 (same kernel in TensorFlow).
class QdqV2Op : public OpKernel {
 public:
  explicit QdqV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("signed_input", &p_.signed_input));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_bits", &p_.num_bits));
    DFG_OP_REQUIRES(
        ctx, p_.num_bits > 0 && p_.num_bits < (p_.signed_input ? 62 : 63),
        InvalidArgument("num_bits is out of range: {} with signed_input_ {}",
                        p_.num_bits, p_.signed_input ? 1 : 0));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("range_given", &p_.range_given));
    std::string round_mode;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("round_mode", &round_mode));
    DFG_OP_REQUIRES(ctx,
                    round_mode == "HALF_UP" || round_mode == "HALF_TO_EVEN",
                    InvalidArgument("Round mode string must be 'HALF_UP' or "
                                    "'HALF_TO_EVEN', is '{}'",
                                    round_mode));
    p_.half_up = round_mode == "HALF_UP";
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("narrow_range", &p_.narrow_range));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, axis_ >= -1,
        InvalidArgument("Axis must be at least -1. Found {}", axis_));
    DFG_OP_REQUIRES(ctx, axis_ == -1 || axis_ < input.dims(),
                    InvalidArgument("Shape must be at least rank {} but is "
                                    "rank {}",
                                    axis_ + 1, input.dims()));
    Tensor* output = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (p_.range_given) {
      DFG_OP_REQUIRES_OK(ctx, CheckGivenRange(input, ctx->input(1),
                                              ctx->input(2), axis_, true));
    }
    RunQdq(p_, input, ctx->input(1), ctx->input(2), axis_, output);
  }

 private:
  QdqParams p_;
  int64_t axis_ = -1;
};

class QdqV3Op : public OpKernel {
 public:
  explicit QdqV3Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("signed_input", &p_.signed_input));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("range_given", &p_.range_given));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("narrow_range", &p_.narrow_range));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFG_OP_REQUIRES(ctx, -input.dims() <= axis_ && axis_ < input.dims(),
                    InvalidArgument("Axis requested is larger than input "
                                    "dimensions. Axis: {} Input Dimensions: {}",
                                    axis_, input.dims()));
    DFG_OP_REQUIRES(
        ctx, axis_ >= -1,
        InvalidArgument("Axis must be at least -1. Found {}", axis_));
    Tensor* output = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const Tensor& bits = ctx->input(3);
    DFG_OP_REQUIRES(ctx, bits.dims() == 0,
                    InvalidArgument("Invalid shape. The `num_bits` tensor "
                                    "should be a scalar. Got dimensions: {}",
                                    bits.dims()));
    QdqParams p = p_;
    p.num_bits = bits.flat<int32_t>()[0];
    DFG_OP_REQUIRES(
        ctx, p.num_bits > 0 && p.num_bits < (p.signed_input ? 62 : 63),
        InvalidArgument("num_bits is out of range: {} with `signed_input_` {}",
                        p.num_bits, p.signed_input ? 1 : 0));
    if (p.range_given) {
      DFG_OP_REQUIRES_OK(ctx, CheckGivenRange(input, ctx->input(1),
                                              ctx->input(2), axis_, false));
    }
    RunQdq(p, input, ctx->input(1), ctx->input(2), axis_, output);
  }

 private:
  QdqParams p_;
  int64_t axis_ = -1;
};

// The deprecated V1: the range is in attrs, rounding half to even.
class QdqV1Op : public OpKernel {
 public:
  explicit QdqV1Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("signed_input", &p_.signed_input));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_bits", &p_.num_bits));
    DFG_OP_REQUIRES(
        ctx, p_.num_bits > 0 && p_.num_bits < (p_.signed_input ? 62 : 63),
        InvalidArgument("num_bits is out of range: {} with signed_input_ {}",
                        p_.num_bits, p_.signed_input ? 1 : 0));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("range_given", &p_.range_given));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("input_min", &min_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("input_max", &max_));
    DFG_OP_REQUIRES(ctx, !p_.range_given || min_ <= max_,
                    InvalidArgument("Invalid range: input_min {} > input_max "
                                    "{}",
                                    min_, max_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* output = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    Tensor lo(input.dtype(), TensorShape()), hi(input.dtype(), TensorShape());
    Dispatch(QdqTypes(), input.dtype(), [&](auto z) {
      using T = decltype(z);
      lo.flat<T>()[0] = static_cast<T>(min_);
      hi.flat<T>()[0] = static_cast<T>(max_);
    });
    RunQdq(p_, input, lo, hi, -1, output);
  }

 private:
  QdqParams p_;
  float min_ = 0, max_ = 0;
};

// The straight-through gradient: gradients where input is within the given
// [min, max] (per channel for axis >= 0), zero backprops for the range.
class QdqV4GradOp : public OpKernel {
 public:
  explicit QdqV4GradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& input = ctx->input(1);
    Tensor* backprop = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &backprop));
    DFG_OP_REQUIRES_OK(ctx, Check(ctx, grad, input));
    const Tensor& min_t = ctx->input(2);
    const Tensor& max_t = ctx->input(3);
    Tensor *dmin = nullptr, *dmax = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, min_t.shape(), &dmin));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, min_t.shape(), &dmax));
    if (axis_ == -1) {
      DFG_OP_REQUIRES(ctx, min_t.dims() == 0,
                      InvalidArgument("input_min must be a scalar if axis is "
                                      "unspecified"));
      DFG_OP_REQUIRES(ctx, max_t.dims() == 0,
                      InvalidArgument("input_max must be a scalar if axis is "
                                      "unspecified"));
    }
    const Slices s = SliceOf(input, axis_);
    Dispatch(QdqTypes(), input.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* g = grad.flat<T>().data();
      const T* x = input.flat<T>().data();
      T* y = backprop->flat<T>().data();
      for (int64_t c = 0; c < s.depth; ++c) {
        const T lo = min_t.flat<T>()[c], hi = max_t.flat<T>()[c];
        for (int64_t o = 0; o < s.outer; ++o) {
          const int64_t base = (o * s.depth + c) * s.inner;
          for (int64_t i = 0; i < s.inner; ++i) {
            const T v = x[base + i];
            y[base + i] = g[base + i] * (v >= lo && v <= hi ? T(1) : T(0));
          }
        }
      }
      for (T& v : dmin->flat<T>()) v = T(0);
      for (T& v : dmax->flat<T>()) v = T(0);
    });
  }

 private:
  Status Check(OpKernelContext* ctx, const Tensor& grad,
               const Tensor& input) const {
    if (axis_ < -1) {
      return InvalidArgument("Axis must be at least -1. Found {}", axis_);
    }
    if (axis_ != -1 && axis_ >= input.dims()) {
      return InvalidArgument(
          "Axis should be -1 or 0 or a positive value less than {}but given "
          "axis value was {}",
          input.dims(), axis_);
    }
    if (grad.shape() != input.shape()) {
      return InvalidArgument("gradient and input must be the same size");
    }
    const int64_t depth = axis_ == -1 ? 1 : input.dim_size(axis_);
    for (int i : {2, 3}) {
      const Tensor& t = ctx->input(i);
      if (t.dims() > 1) {
        return InvalidArgument(
            "Input {} tensor must have dimension 0 or 1. Received {}.",
            i == 2 ? "min" : "max", t.dims());
      }
      if (axis_ != -1 && (t.dims() == 0 || t.dim_size(0) != depth)) {
        return InvalidArgument("{} has incorrect size, expected {} was {}",
                               i == 2 ? "min" : "max", depth,
                               t.dims() == 0 ? int64_t{1} : t.dim_size(0));
      }
    }
    return Status::Ok();
  }

  int64_t axis_ = -1;
};

}  // namespace

void RegisterQuantQdqKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", QdqTypes());
  r->Register<QdqV1Op>("QuantizeAndDequantize", {types});
  r->Register<QdqV2Op>("QuantizeAndDequantizeV2", {types});
  r->Register<QdqV3Op>("QuantizeAndDequantizeV3", {types});
  r->Register<QdqV2Op>("QuantizeAndDequantizeV4", {types});
  r->Register<QdqV4GradOp>("QuantizeAndDequantizeV4Grad", {types});
}

}  // namespace dfg
