// The uniform (scale, zero point) quantization ops of TensorFlow's
// uniform_quant_ops: UniformQuantize (floor(x * (1 / scale) + 0.5) + zero
// point, clamped), UniformDequantize ((q - zero point) * scale) and
// UniformRequantize (TFLite's fixed-point multiplier with single rounding).
// Per-tensor (axis -1: scalar scales and zero points) or per-axis (vectors
// along quantization_axis).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "lib/kernels/quant_ops.h"

namespace dfg {
namespace {

using UniformTypes = TypeList<QInt8, QUInt8, QInt32>;

// TensorFlow's QuantizationAxisAndShapeValid.
Status CheckAxis(const Tensor& data, const Tensor& scales,
                 const Tensor& zero_points, int64_t axis) {
  if (scales.shape() != zero_points.shape()) {
    return InvalidArgument(
        "scales and zero_points shape must be same, but given scales shape {} "
        "and zero_points shape {}",
        scales.shape().DebugString(), zero_points.shape().DebugString());
  }
  if (axis < -1 || axis >= data.dims()) {
    return InvalidArgument(
        "quantization_axis must be -1 or in range [0, input.rank), but given "
        "{}",
        axis);
  }
  if (axis == -1 && scales.dims() != 0) {
    return InvalidArgument(
        "If quantization_axis is -1, scales and zero_points must be scalar "
        "tensors, but given scales shape {} and zero_points shape {}",
        scales.shape().DebugString(), zero_points.shape().DebugString());
  }
  if (axis >= 0 &&
      !(scales.dims() == 1 && scales.dim_size(0) == data.dim_size(axis))) {
    return InvalidArgument(
        "If quantization_axis is not -1, scales and zero_points must be a "
        "tensor of rank 1 and the size must be equal to the "
        "input.dim_size(quantization_axis), but given quantization_axis {}, "
        "scales shape {} and zero_points shape {}",
        axis, scales.shape().DebugString(), zero_points.shape().DebugString());
  }
  return Status::Ok();
}

// Calls fn(i, channel) for every element, channel along `axis` (0 if -1).
template <typename Fn>
void ForEachChannel(const Tensor& t, int64_t axis, Fn&& fn) {
  int64_t depth = 1, inner = 1;
  if (axis >= 0) {
    depth = t.dim_size(axis);
    for (int d = axis + 1; d < t.dims(); ++d) inner *= t.dim_size(d);
  }
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    fn(i, depth == 0 ? 0 : (i / inner) % depth);
  }
}

Status ReadCommon(OpKernelConstruction* ctx, int64_t* axis, int64_t* lo,
                  int64_t* hi) {
  DFG_RETURN_IF_ERROR(ctx->GetAttr("quantization_min_val", lo));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("quantization_max_val", hi));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("quantization_axis", axis));
  if (*axis < -1) {
    return InvalidArgument("quantization_axis must be >= -1, given: {}", *axis);
  }
  return Status::Ok();
}

class UniformQuantizeOp : public OpKernel {
 public:
  explicit UniformQuantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadCommon(ctx, &axis_, &lo_, &hi_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& scales = ctx->input(1);
    const Tensor& zps = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckAxis(in, scales, zps, axis_));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const float* x = in.flat<float>().data();
    Dispatch(UniformTypes(), out->dtype(), [&](auto z) {
      using R = QRaw<decltype(z)>;
      R* y = reinterpret_cast<R*>(out->data());
      ForEachChannel(in, axis_, [&](int64_t i, int64_t c) {
        const float inv = 1.0f / scales.flat<float>()[c];
        const int32_t q = static_cast<int32_t>(std::floor(x[i] * inv + 0.5f)) +
                          zps.flat<int32_t>()[c];
        y[i] =
            static_cast<R>(std::max<int64_t>(std::min<int64_t>(q, hi_), lo_));
      });
    });
  }

 private:
  int64_t axis_ = -1, lo_ = 0, hi_ = 0;
};

class UniformDequantizeOp : public OpKernel {
 public:
  explicit UniformDequantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadCommon(ctx, &axis_, &lo_, &hi_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& scales = ctx->input(1);
    const Tensor& zps = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckAxis(in, scales, zps, axis_));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    float* y = out->flat<float>().data();
    Dispatch(UniformTypes(), in.dtype(), [&](auto z) {
      using R = QRaw<decltype(z)>;
      const R* x = reinterpret_cast<const R*>(in.data());
      ForEachChannel(in, axis_, [&](int64_t i, int64_t c) {
        const int32_t v = static_cast<int32_t>(x[i]) - zps.flat<int32_t>()[c];
        y[i] = static_cast<float>(v) * scales.flat<float>()[c];
      });
    });
  }

 private:
  int64_t axis_ = -1, lo_ = 0, hi_ = 0;
};

// TFLite's QuantizeMultiplier: m = q * 2^shift, q in [0.5, 1) as Q31.
Status QuantizeMultiplier(double m, int32_t* q, int32_t* shift) {
  if (!std::isfinite(m) || m <= 0) {
    return InvalidArgument(
        "double_multiplier must be a poisitive finite number. Given {}", m);
  }
  int exp = 0;
  const double frac = std::frexp(m, &exp);
  int64_t fixed = static_cast<int64_t>(std::round(frac * (1LL << 31)));
  if (fixed == (1LL << 31)) {
    fixed /= 2;
    ++exp;
  }
  if (exp < -31) {
    exp = 0;
    fixed = 0;
  }
  if (exp > 30) {
    exp = 30;
    fixed = (1LL << 31) - 1;
  }
  *q = static_cast<int32_t>(fixed);
  *shift = exp;
  return Status::Ok();
}

int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t q, int shift) {
  const int64_t total_shift = 31 - shift;
  const int64_t round = int64_t{1} << (total_shift - 1);
  const int64_t r = (x * static_cast<int64_t>(q) + round) >> total_shift;
  return static_cast<int32_t>(
      std::clamp<int64_t>(r, std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max()));
}

class UniformRequantizeOp : public OpKernel {
 public:
  explicit UniformRequantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_quantization_min_val", &lo_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_quantization_max_val", &hi_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("input_quantization_axis", &in_axis_));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("output_quantization_axis", &out_axis_));
    DFG_OP_REQUIRES(ctx, in_axis_ >= -1,
                    InvalidArgument("input_quantization_axis must be >= -1, "
                                    "given: {}",
                                    in_axis_));
    DFG_OP_REQUIRES(ctx, out_axis_ >= -1,
                    InvalidArgument("output_quantization_axis must be >= -1, "
                                    "given: {}",
                                    out_axis_));
    DFG_OP_REQUIRES(
        ctx, !(in_axis_ >= 0 && out_axis_ >= 0) || in_axis_ == out_axis_,
        InvalidArgument("If input and output is both per-axis quantized, the "
                        "quantization axis must be same."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& in_s = ctx->input(1);
    const Tensor& in_z = ctx->input(2);
    const Tensor& out_s = ctx->input(3);
    const Tensor& out_z = ctx->input(4);
    DFG_OP_REQUIRES_OK(ctx, CheckAxis(in, in_s, in_z, in_axis_));
    DFG_OP_REQUIRES_OK(ctx, CheckAxis(in, out_s, out_z, out_axis_));
    bool positive = true;
    for (float s : in_s.flat<float>()) positive = positive && s > 0;
    for (float s : out_s.flat<float>()) positive = positive && s > 0;
    DFG_OP_REQUIRES(ctx, positive,
                    InvalidArgument("input/output scales elements must be all "
                                    "positive."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t axis = in_axis_ >= 0 ? in_axis_ : out_axis_;
    const int64_t depth = axis >= 0 ? in.dim_size(axis) : 1;
    const bool in_per = in_s.dims() == 1, out_per = out_s.dims() == 1;
    std::vector<int32_t> mult(depth), shift(depth);
    for (int64_t c = 0; c < depth; ++c) {
      const double m = static_cast<double>(in_s.flat<float>()[in_per ? c : 0]) /
                       out_s.flat<float>()[out_per ? c : 0];
      DFG_OP_REQUIRES_OK(ctx, QuantizeMultiplier(m, &mult[c], &shift[c]));
    }
    int8_t* y = reinterpret_cast<int8_t*>(out->data());
    Dispatch(TypeList<QInt8, QInt32>(), in.dtype(), [&](auto z) {
      using R = QRaw<decltype(z)>;
      const R* x = reinterpret_cast<const R*>(in.data());
      ForEachChannel(in, axis, [&](int64_t i, int64_t c) {
        const int32_t v =
            static_cast<int32_t>(x[i]) - in_z.flat<int32_t>()[in_per ? c : 0];
        const int32_t r = MultiplyByQuantizedMultiplier(v, mult[c], shift[c]) +
                          out_z.flat<int32_t>()[out_per ? c : 0];
        y[i] = static_cast<int8_t>(
            std::max<int64_t>(std::min<int64_t>(r, hi_), lo_));
      });
    });
  }

 private:
  int64_t lo_ = 0, hi_ = 0, in_axis_ = -1, out_axis_ = -1;
};

}  // namespace

void RegisterQuantUniformKernels(KernelRegistry* r) {
  r->Register<UniformQuantizeOp>("UniformQuantize",
                                 {TypeConstraint("Tin", TypeList<float>()),
                                  TypeConstraint("Tout", UniformTypes())});
  r->Register<UniformDequantizeOp>("UniformDequantize",
                                   {TypeConstraint("Tin", UniformTypes()),
                                    TypeConstraint("Tout", TypeList<float>())});
  r->Register<UniformRequantizeOp>(
      "UniformRequantize", {TypeConstraint("Tin", TypeList<QInt8, QInt32>()),
                            TypeConstraint("Tout", TypeList<QInt8>())});
}

}  // namespace dfg
