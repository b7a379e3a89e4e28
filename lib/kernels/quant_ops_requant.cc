// Requantization of 32-bit accumulators down to 8 bits, as TensorFlow's
// requantize.cc, requantization_range_op.cc, quantize_down_and_shrink_range.cc
// and the oneDNN per-channel kernels it registers for the CPU
// (RequantizePerChannel, RequantizationRangePerChannel).
//
// qint32 -> quint8 runs TensorFlow's fixed-point path (16.16 arithmetic in
// int64); qint32 -> qint8 dequantizes and requantizes in float as its Eigen
// expressions do. The per-channel requantization is oneDNN's scaled reorder:
// float(x) * scale[c], rounded half to even and saturated.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "lib/kernels/quant_ops.h"

namespace dfg {
namespace {

Status RankZero(OpKernelContext* ctx, int i, const char* name, float* v) {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0) {
    return InvalidArgument("`{}` must be rank 0 but is rank {}", name,
                           t.dims());
  }
  *v = t.flat<float>()[0];
  return Status::Ok();
}

// RequantizeManyInNewRangeUsingEigen<qint32, quint8>.
void Requantize32To8(const int32_t* in, int64_t n, float min_in, float max_in,
                     float min_out, float max_out, uint8_t* out) {
  constexpr int kShift = 16;
  const float in_range = max_in - min_in;
  const float out_range = max_out - min_out;
  const float recip_out_range =
      out_range == 0.0 ? 0.0 : static_cast<float>(255.0 / out_range);
  const float in_rezero = static_cast<float>((min_in + max_in) / 2.0);
  const int64_t range_scale =
      out_range == 0.0
          ? 0
          : static_cast<int64_t>(255.0 * (1 << kShift) * in_range / out_range);
  const int64_t in_offset = static_cast<int64_t>(
      in_rezero * recip_out_range * static_cast<float>(1 << kShift));
  const int64_t out_offset =
      out_range == 0.0
          ? 0
          : std::lround((1 << kShift) * (min_out * 255.0) / out_range);
  const int64_t add = in_offset - out_offset + (int64_t{1} << (kShift - 1));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = ((int64_t{in[i]} * range_scale) >> 32) + add;
    out[i] = static_cast<uint8_t>(std::clamp<int64_t>(v >> kShift, 0, 255));
  }
}

// Requantizes `in` (qint32) into `out` (quint8 or qint8).
void RequantizeTensor(const Tensor& in, float min_in, float max_in,
                      float min_out, float max_out, Tensor* out) {
  const int32_t* x = reinterpret_cast<const int32_t*>(in.data());
  const int64_t n = in.NumElements();
  if (n == 0) return;
  if (out->dtype() == tensorflow::DT_QUINT8) {
    Requantize32To8(x, n, min_in, max_in, min_out, max_out,
                    reinterpret_cast<uint8_t*>(out->data()));
    return;
  }
  const Dequantizer<int32_t> dq(min_in, max_in);
  const Requantizer<int8_t> rq(min_out, max_out);
  int8_t* y = reinterpret_cast<int8_t*>(out->data());
  for (int64_t i = 0; i < n; ++i) y[i] = rq(dq(x[i]));
}

class RequantizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    float min_in = 0, max_in = 0, min_out = 0, max_out = 0;
    DFG_OP_REQUIRES_OK(ctx, RankZero(ctx, 1, "input_min", &min_in));
    DFG_OP_REQUIRES_OK(ctx, RankZero(ctx, 2, "input_max", &max_in));
    DFG_OP_REQUIRES_OK(ctx, RankZero(ctx, 3, "requested_output_min", &min_out));
    DFG_OP_REQUIRES_OK(ctx, RankZero(ctx, 4, "requested_output_max", &max_out));
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    DFG_OP_REQUIRES(
        ctx, min_out <= 0.0f,
        InvalidArgument("requested_output_min must be <= 0, but got {}",
                        min_out));
    DFG_OP_REQUIRES(ctx, max_out >= min_out,
                    InvalidArgument("requested_output_max must be >= "
                                    "requested_output_min, but got {} and {}",
                                    max_out, min_out));
    RequantizeTensor(in, min_in, max_in, min_out, max_out, out);
    ctx->set_output(1, Tensor::Scalar(min_out));
    ctx->set_output(2, Tensor::Scalar(max_out));
  }
};

// The float range the int32 values of `in` actually use, with 0 in it.
void ActualRange(const Tensor& in, float min_in, float max_in, float* lo,
                 float* hi) {
  const int32_t* x = reinterpret_cast<const int32_t*>(in.data());
  int32_t qmin = std::numeric_limits<int32_t>::max();
  int32_t qmax = std::numeric_limits<int32_t>::min();
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    qmin = std::min(qmin, x[i]);
    qmax = std::max(qmax, x[i]);
  }
  *lo = std::min(0.0f, QuantizedToFloat<int32_t>(qmin, min_in, max_in));
  *hi = QuantizedToFloat<int32_t>(qmax, min_in, max_in);
}

class RequantizationRangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES(ctx, ctx->input(1).NumElements() > 0,
                    InvalidArgument("Input min must not be empty."));
    DFG_OP_REQUIRES(ctx, ctx->input(2).NumElements() > 0,
                    InvalidArgument("Input max must not be empty."));
    float lo, hi;
    ActualRange(ctx->input(0), ctx->input(1).flat<float>()[0],
                ctx->input(2).flat<float>()[0], &lo, &hi);
    ctx->set_output(0, Tensor::Scalar(lo));
    ctx->set_output(1, Tensor::Scalar(hi));
  }
};

class QuantizeDownAndShrinkRangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    float min_in = 0, max_in = 0;
    DFG_OP_REQUIRES_OK(ctx, RankZero(ctx, 1, "input_min", &min_in));
    DFG_OP_REQUIRES_OK(ctx, RankZero(ctx, 2, "input_max", &max_in));
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    float lo, hi;
    ActualRange(in, min_in, max_in, &lo, &hi);
    RequantizeTensor(in, min_in, max_in, lo, hi, out);
    ctx->set_output(1, Tensor::Scalar(lo));
    ctx->set_output(2, Tensor::Scalar(hi));
  }
};

class RequantizePerChannelOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& min_t = ctx->input(1);
    const Tensor& max_t = ctx->input(2);
    const int64_t depth = min_t.NumElements();
    DFG_OP_REQUIRES(ctx, max_t.NumElements() == depth,
                    InvalidArgument("input_max has incorrect size, expected {} "
                                    "was {}",
                                    depth, max_t.NumElements()));
    DFG_OP_REQUIRES(ctx, ctx->input(3).NumElements() == 1,
                    InvalidArgument("requested_output_min must be a scalar"));
    DFG_OP_REQUIRES(ctx, ctx->input(4).NumElements() == 1,
                    InvalidArgument("requested_output_max must be a scalar"));
    const float req_min = ctx->input(3).flat<float>()[0];
    const float req_max = ctx->input(4).flat<float>()[0];
    const bool to_s8 = output_type(0) == tensorflow::DT_QINT8;
    DFG_OP_REQUIRES(ctx, !to_s8 || req_min < 0.0f,
                    InvalidArgument("If out_type is QINT8, "
                                    "requested_output_max must be non "
                                    "negative, got {}",
                                    req_min));
    // TensorFlow's message lacks the space in "operatorsupports".
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("Current RequantizePerChannel operator"
                                    "supports 4D tensors only."));
    DFG_OP_REQUIRES(ctx, in.dim_size(3) == depth,
                    InvalidArgument("input must have as many channels as "
                                    "input_min has elements: {} vs {}",
                                    in.dim_size(3), depth));
    const float factor = to_s8 ? 127.0f : 255.0f;
    const float req = std::max(std::fabs(req_min), std::fabs(req_max));
    std::vector<float> scales(depth);
    for (int64_t c = 0; c < depth; ++c) {
      const float m = std::max(std::fabs(min_t.flat<float>()[c]),
                               std::fabs(max_t.flat<float>()[c]));
      scales[c] = factor * (m / req / 2147483648.0f);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int32_t* x = reinterpret_cast<const int32_t*>(in.data());
    const float lo = to_s8 ? -128.0f : 0.0f, hi = to_s8 ? 127.0f : 255.0f;
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const float v = std::nearbyint(std::min(
          std::max(static_cast<float>(x[i]) * scales[i % depth], lo), hi));
      if (to_s8) {
        reinterpret_cast<int8_t*>(out->data())[i] = static_cast<int8_t>(v);
      } else {
        reinterpret_cast<uint8_t*>(out->data())[i] = static_cast<uint8_t>(v);
      }
    }
    ctx->set_output(1, Tensor::Scalar(req_min));
    ctx->set_output(2, Tensor::Scalar(req_max));
  }
};

class RequantizationRangePerChannelOp : public OpKernel {
 public:
  explicit RequantizationRangePerChannelOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("clip_value_max", &clip_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& min_t = ctx->input(1);
    const Tensor& max_t = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, Check(in, min_t, max_t));
    const int64_t depth = max_t.NumElements();
    const int32_t* x = reinterpret_cast<const int32_t*>(in.data());
    float out_max = std::numeric_limits<float>::min();
    bool non_negative = true;
    for (int64_t c = 0; c < depth; ++c) {
      int32_t lo = std::numeric_limits<int32_t>::max();
      int32_t hi = std::numeric_limits<int32_t>::min();
      for (int64_t i = c; i < in.NumElements(); i += depth) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
      }
      const int32_t abs_max = std::max(std::abs(lo), std::abs(hi));
      const float scale = std::max(std::fabs(min_t.flat<float>()[c]),
                                   std::fabs(max_t.flat<float>()[c]));
      const float range = scale * static_cast<float>(abs_max) / 2147483648.0f;
      if (lo < 0) non_negative = false;
      out_max = std::max(out_max, range);
    }
    if (out_max > clip_) out_max = clip_;
    ctx->set_output(0, Tensor::Scalar(non_negative ? 0.0f : -out_max));
    ctx->set_output(1, Tensor::Scalar(out_max));
  }

 private:
  static Status Check(const Tensor& in, const Tensor& min_t,
                      const Tensor& max_t) {
    const int64_t depth = max_t.NumElements();
    const int64_t min_n = min_t.dims() > 0 ? min_t.dim_size(0) : 1;
    const int64_t max_n = max_t.dims() > 0 ? max_t.dim_size(0) : 1;
    if (min_n != depth) {
      return InvalidArgument("input_min has incorrect size, expected {} was {}",
                             depth, min_n);
    }
    if (max_n != depth) {
      return InvalidArgument("input_max has incorrect size, expected {} was {}",
                             depth, max_n);
    }
    if (min_t.NumElements() != depth) {
      return InvalidArgument(
          "input_min must have the same number of elements as input_max, got "
          "{} and {}",
          min_t.NumElements(), depth);
    }
    if (in.NumElements() == 0) {
      return InvalidArgument("input must not be empty");
    }
    if (in.dims() != 4) return InvalidArgument("input must be in NHWC format");
    if (in.dim_size(3) != depth) {
      return InvalidArgument(
          "input must have same number of channels as length of input_min: {} "
          "vs {}",
          in.dim_size(3), depth);
    }
    return Status::Ok();
  }

  float clip_ = std::numeric_limits<float>::infinity();
};

}  // namespace

void RegisterQuantRequantKernels(KernelRegistry* r) {
  const auto qint32 = TypeConstraint("Tinput", TypeList<QInt32>());
  r->Register<RequantizeOp>(
      "Requantize",
      {qint32, TypeConstraint("out_type", TypeList<QUInt8, QInt8>())});
  r->Register<RequantizationRangeOp>("RequantizationRange", {qint32});
  r->Register<QuantizeDownAndShrinkRangeOp>(
      "QuantizeDownAndShrinkRange",
      {qint32, TypeConstraint("out_type", TypeList<QUInt8>())});
  r->Register<RequantizePerChannelOp>(
      "RequantizePerChannel",
      {TypeConstraint("T", TypeList<QInt32>()),
       TypeConstraint("out_type", TypeList<QUInt8, QInt8>())});
  r->Register<RequantizationRangePerChannelOp>(
      "RequantizationRangePerChannel",
      {TypeConstraint("T", TypeList<QInt32>())});
}

}  // namespace dfg
