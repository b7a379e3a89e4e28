// The uniform (scale, zero point) quantization ops of TensorFlow's
// uniform_quant_ops: UniformQuantize (floor(x * (1 / scale) + 0.5) + zero
// point, clamped), UniformDequantize ((q - zero point) * scale) and
// UniformRequantize (TFLite's fixed-point multiplier with single rounding),
// UniformQuantizedAdd (both operands requantized to the output scales, added
// with broadcasting) and UniformQuantizedClipByValue.
// Per-tensor (axis -1: scalar scales and zero points) or per-axis (vectors
// along quantization_axis).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "lib/kernels/quant_ops.h"

namespace dfg {

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

bool AllPositive(const Tensor& t) {
  for (float s : t.flat<float>()) {
    if (!(s > 0)) return false;
  }
  return true;
}

namespace {

using UniformTypes = TypeList<QInt8, QUInt8, QInt32>;

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

// TensorFlow's EvalRequantize on int32 values `x` of `in`'s shape: per
// tensor when both axes are -1, else per channel along the one given (the
// other side's scalar scale and zero point broadcast). `out_z` null: zero
// output zero points.
Status RequantizeValues(const Tensor& in, const std::vector<int32_t>& x,
                        const Tensor& in_s, const Tensor& in_z,
                        const Tensor& out_s, const Tensor* out_z,
                        int64_t in_axis, int64_t out_axis, int64_t lo,
                        int64_t hi, std::vector<int32_t>* y) {
  const int64_t axis = in_axis >= 0 ? in_axis : out_axis;
  const int64_t depth = axis >= 0 ? in.dim_size(axis) : 1;
  const bool in_per = in_s.dims() == 1, out_per = out_s.dims() == 1;
  std::vector<int32_t> mult(depth), shift(depth);
  for (int64_t c = 0; c < depth; ++c) {
    const double m = static_cast<double>(in_s.flat<float>()[in_per ? c : 0]) /
                     out_s.flat<float>()[out_per ? c : 0];
    DFG_RETURN_IF_ERROR(QuantizeMultiplier(m, &mult[c], &shift[c]));
  }
  ForEachChannel(in, axis, [&](int64_t i, int64_t c) {
    const int32_t v = x[i] - in_z.flat<int32_t>()[in_per ? c : 0];
    const int32_t oz =
        out_z == nullptr ? 0 : out_z->flat<int32_t>()[out_per ? c : 0];
    const int32_t r = MultiplyByQuantizedMultiplier(v, mult[c], shift[c]) + oz;
    (*y)[i] =
        static_cast<int32_t>(std::max<int64_t>(std::min<int64_t>(r, hi), lo));
  });
  return Status::Ok();
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
    DFG_OP_REQUIRES(ctx, AllPositive(in_s) && AllPositive(out_s),
                    InvalidArgument("input/output scales elements must be all "
                                    "positive."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    std::vector<int32_t> y(in.NumElements());
    Dispatch(TypeList<QInt8, QInt32>(), in.dtype(), [&](auto z) {
      using R = QRaw<decltype(z)>;
      std::vector<int32_t> x(in.NumElements());
      std::copy_n(reinterpret_cast<const R*>(in.data()), x.size(), x.data());
      ctx->SetStatus(RequantizeValues(in, x, in_s, in_z, out_s, &out_z,
                                      in_axis_, out_axis_, lo_, hi_, &y));
    });
    std::copy(y.begin(), y.end(), reinterpret_cast<int8_t*>(out->data()));
  }

 private:
  int64_t lo_ = 0, hi_ = 0, in_axis_ = -1, out_axis_ = -1;
};

// The broadcast shape of UniformQuantizedAdd (a scalar side takes the other's
// shape).
Status AddShape(const TensorShape& a, const TensorShape& b, TensorShape* out) {
  if (a.dims() == 0 || b.dims() == 0) {
    *out = a.dims() == 0 ? b : a;
    return Status::Ok();
  }
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ai = a.dims() - rank + i, bi = b.dims() - rank + i;
    const int64_t x = ai >= 0 ? a.dim_size(ai) : 1;
    const int64_t y = bi >= 0 ? b.dim_size(bi) : 1;
    if (x != 1 && y != 1 && x != y) {
      return InvalidArgument("Cannot Add tensors of shapes: {}{}",
                             a.DebugString(), b.DebugString());
    }
    dims[i] = x == 1 ? y : x;
  }
  *out = TensorShape(std::span<const int64_t>(dims));
  return Status::Ok();
}

// Index into `t` (right-aligned, size-1 dims broadcast) of output index i.
int64_t BroadcastIndex(const TensorShape& out, const Tensor& t, int64_t i) {
  int64_t idx = 0, inner = 1;
  for (int d = out.dims() - 1; d >= 0; --d) {
    const int64_t pos = i % out.dim_size(d);
    i /= out.dim_size(d);
    const int td = d - (out.dims() - t.dims());
    if (td < 0) continue;
    idx += (t.dim_size(td) == 1 ? 0 : pos) * inner;
    inner *= t.dim_size(td);
  }
  return idx;
}

class UniformQuantizedAddOp : public OpKernel {
 public:
  explicit UniformQuantizedAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_quantization_min_val", &lo_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_quantization_max_val", &hi_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("lhs_quantization_axis", &axes_[0]));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("rhs_quantization_axis", &axes_[1]));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("output_quantization_axis", &axes_[2]));
    DFG_OP_REQUIRES(
        ctx, axes_[0] >= -1 && axes_[1] >= -1 && axes_[2] >= -1,
        InvalidArgument("lhs, rhs and output quantization_axis must be -1 or "
                        "within [0, dims)"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx,
                       CheckAxis(lhs, ctx->input(2), ctx->input(3), axes_[0]));
    DFG_OP_REQUIRES_OK(ctx,
                       CheckAxis(rhs, ctx->input(4), ctx->input(5), axes_[1]));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, AddShape(lhs.shape(), rhs.shape(), &shape));
    const Tensor& out_s = ctx->input(6);
    const Tensor& out_z = ctx->input(7);
    DFG_OP_REQUIRES_OK(ctx, CheckAxis(Tensor(tensorflow::DT_QINT32, shape),
                                      out_s, out_z, axes_[2]));
    for (int side = 0; side < 2; ++side) {
      const Tensor& t = side == 0 ? lhs : rhs;
      DFG_OP_REQUIRES(
          ctx,
          !(axes_[side] >= 0 && axes_[2] >= 0) ||
              t.dims() - axes_[side] == shape.dims() - axes_[2],
          InvalidArgument("If {} and output is both per-axis quantized, the "
                          "quantization axis must match.",
                          side == 0 ? "lhs" : "rhs"));
    }
    DFG_OP_REQUIRES(ctx,
                    AllPositive(ctx->input(2)) && AllPositive(ctx->input(4)) &&
                        AllPositive(out_s),
                    InvalidArgument("lhs/rhs/output scales elements must be "
                                    "all positive."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::vector<int32_t> a, b;
    DFG_OP_REQUIRES_OK(
        ctx,
        ToOutputScale(lhs, 2, axes_[0] >= 0 && axes_[2] >= 0 ? axes_[0] : -1,
                      ctx, &a));
    DFG_OP_REQUIRES_OK(ctx, ToOutputScale(rhs, 4, axes_[2], ctx, &b));
    int32_t* y = reinterpret_cast<int32_t*>(out->data());
    ForEachChannel(*out, axes_[2], [&](int64_t i, int64_t c) {
      const int64_t r = int64_t{a[BroadcastIndex(shape, lhs, i)]} +
                        b[BroadcastIndex(shape, rhs, i)] +
                        out_z.flat<int32_t>()[c];
      y[i] = static_cast<int32_t>(
          std::clamp<int64_t>(static_cast<int32_t>(r), lo_, hi_));
    });
  }

 private:
  // Requantizes one operand (inputs `first`, first + 1: its scales and zero
  // points) to the output scales with zero output zero points.
  Status ToOutputScale(const Tensor& t, int first, int64_t out_axis,
                       OpKernelContext* ctx, std::vector<int32_t>* v) const {
    std::vector<int32_t> x(t.NumElements());
    std::copy_n(reinterpret_cast<const int32_t*>(t.data()), x.size(), x.data());
    v->resize(x.size());
    return RequantizeValues(t, x, ctx->input(first), ctx->input(first + 1),
                            ctx->input(6), nullptr, axes_[first == 2 ? 0 : 1],
                            out_axis, std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max(), v);
  }

  int64_t lo_ = 0, hi_ = 0;
  int64_t axes_[3] = {-1, -1, -1};
};

class UniformQuantizedClipByValueOp : public OpKernel {
 public:
  explicit UniformQuantizedClipByValueOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("quantization_axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& min = ctx->input(1);
    const Tensor& max = ctx->input(2);
    const Tensor& scales = ctx->input(3);
    DFG_OP_REQUIRES_OK(ctx, CheckAxis(x, scales, ctx->input(4), axis_));
    for (const auto& [t, name] :
         {std::pair<const Tensor*, const char*>{&min, "min"}, {&max, "max"}}) {
      DFG_OP_REQUIRES(ctx, t->shape() == scales.shape(),
                      InvalidArgument("Input {} shape must be same as "
                                      "scales/zero_points. Given {} of shape "
                                      "{} and scales/zero_points of shape {}",
                                      name, name, t->shape().DebugString(),
                                      scales.shape().DebugString()));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int32_t* in = reinterpret_cast<const int32_t*>(x.data());
    const int32_t* lo = reinterpret_cast<const int32_t*>(min.data());
    const int32_t* hi = reinterpret_cast<const int32_t*>(max.data());
    int32_t* y = reinterpret_cast<int32_t*>(out->data());
    ForEachChannel(x, axis_, [&](int64_t i, int64_t c) {
      y[i] = std::min(std::max(in[i], lo[c]), hi[c]);
    });
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

void RegisterQuantUniformKernels(KernelRegistry* r) {
  r->Register<UniformQuantizeOp>("UniformQuantize",
                                 {TypeConstraint("Tin", TypeList<float>()),
                                  TypeConstraint("Tout", UniformTypes())});
  r->Register<UniformDequantizeOp>("UniformDequantize",
                                   {TypeConstraint("Tin", UniformTypes()),
                                    TypeConstraint("Tout", TypeList<float>())});
  const auto qint32 = TypeConstraint("T", TypeList<QInt32>());
  r->Register<UniformQuantizedAddOp>("UniformQuantizedAdd", {qint32});
  r->Register<UniformQuantizedClipByValueOp>("UniformQuantizedClipByValue",
                                             {qint32});
  r->Register<UniformRequantizeOp>(
      "UniformRequantize", {TypeConstraint("Tin", TypeList<QInt8, QInt32>()),
                            TypeConstraint("Tout", TypeList<QInt8>())});
}

}  // namespace dfg
