// UniformQuantizedDot (qint8 x qint8 -> qint32, requantized to the output
// scales) and UniformQuantizedDotHybrid (float lhs quantized per row as
// TFLite's AsymmetricQuantize does, qint8 rhs, float output), as TensorFlow's
// uniform_quantized_dot_ops.cc. Accumulation in int32 that wraps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "lib/kernels/quant_ops.h"

namespace dfg {
namespace {

Status CheckDotShapes(const Tensor& lhs, const Tensor& rhs) {
  if (lhs.dims() != 2) {
    return InvalidArgument("lhs rank must be 2, but given lhs shape {}",
                           lhs.shape().DebugString());
  }
  if (rhs.dims() != 2) {
    return InvalidArgument("rhs rank must be 2, but given rhs shape {}",
                           rhs.shape().DebugString());
  }
  if (lhs.dim_size(1) != rhs.dim_size(0)) {
    return InvalidArgument(
        "lhs.dim_size(1) and rhs.dim_size(0) must be equal, but given lhs "
        "shape {} and rhs shape {}",
        lhs.shape().DebugString(), rhs.shape().DebugString());
  }
  return Status::Ok();
}

// acc[b][c] = sum_d (lhs[b][d] - lz(b)) * (rhs[d][c] - rz(c)) in wrapping
// int32, handed to out(acc, b, c).
template <typename LZ, typename RZ, typename Out>
void Dot(const int8_t* lhs, const int8_t* rhs, int64_t batches, int64_t depth,
         int64_t channels, LZ lz, RZ rz, Out out) {
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t c = 0; c < channels; ++c) {
      uint32_t acc = 0;
      for (int64_t d = 0; d < depth; ++d) {
        acc += static_cast<uint32_t>((int32_t{lhs[b * depth + d]} - lz(b)) *
                                     (int32_t{rhs[d * channels + c]} - rz(c)));
      }
      out(static_cast<int32_t>(acc), b, c);
    }
  }
}

class UniformQuantizedDotOp : public OpKernel {
 public:
  explicit UniformQuantizedDotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_quantization_min_val", &lo_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_quantization_max_val", &hi_));
    int64_t lhs_axis = -1, rhs_axis = -1, out_axis = -1;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("lhs_quantization_axis", &lhs_axis));
    DFG_OP_REQUIRES(ctx, lhs_axis == -1,
                    InvalidArgument("lhs_quantization_axis Attr must be -1 "
                                    "(per-tensor)."));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("rhs_quantization_axis", &rhs_axis));
    DFG_OP_REQUIRES(ctx, rhs_axis == 1 || rhs_axis == -1,
                    InvalidArgument("rhs_quantization_axis Attr must be 1 "
                                    "(per-channel) or -1 (per-tensor)."));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("output_quantization_axis", &out_axis));
    DFG_OP_REQUIRES(ctx, out_axis == 1 || out_axis == -1,
                    InvalidArgument("output_quantization_axis Attr must be 1 "
                                    "(per-channel) or -1 (per-tensor)."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& out_s = ctx->input(6);
    const Tensor& out_z = ctx->input(7);
    DFG_OP_REQUIRES_OK(ctx, Check(ctx));
    const int64_t channels = rhs.dim_size(1);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({lhs.dim_size(0), channels}),
                                  &out));
    const float lhs_scale = ctx->input(2).flat<float>()[0];
    const int32_t lhs_zero = ctx->input(3).flat<int32_t>()[0];
    const Tensor& rhs_s = ctx->input(4);
    const Tensor& rhs_z = ctx->input(5);
    const bool rhs_per = rhs_s.dims() != 0, out_per = out_s.dims() != 0;
    const int64_t n = rhs_per ? channels : 1;
    std::vector<int32_t> mult(n), shift(n);
    for (int64_t c = 0; c < n; ++c) {
      const double m = static_cast<double>(lhs_scale) * rhs_s.flat<float>()[c] /
                       out_s.flat<float>()[out_per ? c : 0];
      DFG_OP_REQUIRES_OK(ctx, QuantizeMultiplier(m, &mult[c], &shift[c]));
    }
    int32_t* y = reinterpret_cast<int32_t*>(out->data());
    Dot(
        reinterpret_cast<const int8_t*>(lhs.data()),
        reinterpret_cast<const int8_t*>(rhs.data()), lhs.dim_size(0),
        lhs.dim_size(1), channels, [&](int64_t) { return lhs_zero; },
        [&](int64_t c) { return rhs_z.flat<int32_t>()[rhs_per ? c : 0]; },
        [&](int32_t acc, int64_t b, int64_t c) {
          const int64_t k = rhs_per ? c : 0;
          const int32_t r =
              MultiplyByQuantizedMultiplier(acc, mult[k], shift[k]) +
              out_z.flat<int32_t>()[out_per ? c : 0];
          y[b * channels + c] = static_cast<int32_t>(
              std::max<int64_t>(std::min<int64_t>(r, hi_), lo_));
        });
  }

 private:
  static Status Check(OpKernelContext* ctx) {
    const char* names[] = {"lhs", "rhs", "output"};
    for (int i = 0; i < 3; ++i) {
      if (!AllPositive(ctx->input(2 + 2 * i))) {
        return InvalidArgument("{} scales elements must be all positive.",
                               names[i]);
      }
    }
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFG_RETURN_IF_ERROR(CheckDotShapes(lhs, rhs));
    const Tensor& ls = ctx->input(2);
    const Tensor& lz = ctx->input(3);
    if (ls.shape() != lz.shape() || ls.dims() != 0) {
      return InvalidArgument(
          "lhs scales/zero_points must be all scalar tensors. Given: {}{}",
          ls.shape().DebugString(), lz.shape().DebugString());
    }
    const Tensor& rs = ctx->input(4);
    DFG_RETURN_IF_ERROR(
        CheckAxis(rhs, rs, ctx->input(5), rs.dims() == 0 ? -1 : 1));
    const Tensor& os = ctx->input(6);
    const Tensor out_shape(tensorflow::DT_QINT32,
                           TensorShape({lhs.dim_size(0), rhs.dim_size(1)}));
    DFG_RETURN_IF_ERROR(
        CheckAxis(out_shape, os, ctx->input(7), os.dims() == 0 ? -1 : 1));
    if (rs.dims() == 0 && os.dims() != 0) {
      return InvalidArgument(
          "If rhs is per-tensor quantized, output must be also per-tensor "
          "quantized. Given rhs scales and zero_points of shape {} but given "
          "output scales and zero_points of shape {}",
          rs.shape().DebugString(), os.shape().DebugString());
    }
    return Status::Ok();
  }

  int64_t lo_ = 0, hi_ = 0;
};

// TFLite's AsymmetricQuantize of one row into qint8 [-128, 127]: the range
// [min(0, row min), max(0, row max)] with the zero point nudged to a level.
void AsymmetricQuantize(const float* x, int64_t n, int8_t* q, float* scale,
                        int32_t* zero) {
  float lo = 0, hi = 0;
  if (n > 0) {
    lo = *std::min_element(x, x + n);
    hi = *std::max_element(x, x + n);
  }
  const double rmin = std::min(0.0f, lo), rmax = std::max(0.0f, hi);
  const double qmin = -128, qmax = 127;
  float inv = 0;
  *scale = static_cast<float>((rmax - rmin) / (qmax - qmin));
  if (rmax - rmin != 0) inv = static_cast<float>((qmax - qmin) / (rmax - rmin));
  if (*scale == 0 || !std::isfinite(inv)) {
    std::fill_n(q, n, 0);
    *scale = 1.0f;
    *zero = 0;
    return;
  }
  const double s = *scale;
  const double from_min = qmin - rmin / s, from_max = qmax - rmax / s;
  const double err_min = std::fabs(qmin) + std::fabs(rmin / s);
  const double err_max = std::fabs(qmax) + std::fabs(rmax / s);
  const double z = err_min < err_max ? from_min : from_max;
  *zero = z <= qmin   ? -128
          : z >= qmax ? 127
                      : static_cast<int8_t>(std::round(z));
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v =
        static_cast<int32_t>(std::floor(x[i] * inv + 0.5f)) + *zero;
    q[i] = static_cast<int8_t>(std::clamp(v, -128, 127));
  }
}

class UniformQuantizedDotHybridOp : public OpKernel {
 public:
  explicit UniformQuantizedDotHybridOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    int64_t rhs_axis = -1;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("rhs_quantization_axis", &rhs_axis));
    DFG_OP_REQUIRES(ctx, rhs_axis == 1 || rhs_axis == -1,
                    InvalidArgument("rhs_quantization_axis Attr must be 1 "
                                    "(per-channel) or -1 (per-tensor)."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& rhs_s = ctx->input(2);
    const Tensor& rhs_z = ctx->input(3);
    DFG_OP_REQUIRES_OK(ctx, CheckDotShapes(lhs, rhs));
    DFG_OP_REQUIRES_OK(
        ctx, CheckAxis(rhs, rhs_s, rhs_z, rhs_s.dims() == 0 ? -1 : 1));
    DFG_OP_REQUIRES(ctx, AllPositive(rhs_s),
                    InvalidArgument("rhs scales elements must be all "
                                    "positive."));
    const int64_t batches = lhs.dim_size(0), depth = lhs.dim_size(1);
    const int64_t channels = rhs.dim_size(1);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batches, channels}), &out));
    std::vector<int8_t> q(lhs.NumElements());
    std::vector<float> scales(batches);
    std::vector<int32_t> zeros(batches);
    const float* x = lhs.flat<float>().data();
    for (int64_t b = 0; b < batches; ++b) {
      AsymmetricQuantize(x + b * depth, depth, q.data() + b * depth, &scales[b],
                         &zeros[b]);
    }
    const bool per = rhs_s.dims() != 0;
    float* y = out->flat<float>().data();
    Dot(
        q.data(), reinterpret_cast<const int8_t*>(rhs.data()), batches, depth,
        channels, [&](int64_t b) { return zeros[b]; },
        [&](int64_t c) { return rhs_z.flat<int32_t>()[per ? c : 0]; },
        [&](int32_t acc, int64_t b, int64_t c) {
          y[b * channels + c] = static_cast<float>(acc) * scales[b] *
                                rhs_s.flat<float>()[per ? c : 0];
        });
  }
};

}  // namespace

void RegisterQuantUniformDotKernels(KernelRegistry* r) {
  r->Register<UniformQuantizedDotOp>(
      "UniformQuantizedDot", {TypeConstraint("Tin", TypeList<QInt8>()),
                              TypeConstraint("Tout", TypeList<QInt32>())});
  r->Register<UniformQuantizedDotHybridOp>(
      "UniformQuantizedDotHybrid", {TypeConstraint("Tlhs", TypeList<float>()),
                                    TypeConstraint("Trhs", TypeList<QInt8>()),
                                    TypeConstraint("Tout", TypeList<float>())});
}

}  // namespace dfg
