// QuantizedResizeBilinear as TensorFlow's quantized_resize_bilinear_op.cc:
// quint8 in 7-bit fixed point (int16 steps), float in float; qint32 (a
// 30-bit fixed point whose rounding this does not reproduce yet) has no
// kernel here; the lerp weights from the source position
// (half-pixel centers or not) and the range passed through. And
// QuantizedInstanceNorm (per image and channel normalization of quint8).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "lib/kernels/image_resizer.h"
#include "lib/kernels/quant_ops.h"

namespace dfg {
namespace {

struct Taps {
  std::vector<int64_t> lower, upper;
  std::vector<float> lerp;
  std::vector<int64_t> ilerp;
};

// Source taps of every output index; `step` scales the indices (channels).
Taps MakeTaps(int64_t out, int64_t in, float scale, bool half_pixel,
              int resolution, int64_t step) {
  Taps t;
  t.lower.resize(out);
  t.upper.resize(out);
  t.lerp.resize(out);
  t.ilerp.resize(out);
  for (int64_t i = 0; i < out; ++i) {
    const float pos =
        half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : i * scale;
    const float floor = std::floor(pos);
    const int64_t upper =
        std::min(static_cast<int64_t>(std::ceil(pos)), in - 1);
    const int64_t lower =
        std::min(std::max(static_cast<int64_t>(floor), int64_t{0}), upper);
    t.lower[i] = lower * step;
    t.upper[i] = upper * step;
    t.lerp[i] = pos - floor;
    t.ilerp[i] = static_cast<int64_t>((pos - floor) * (1 << resolution));
  }
  return t;
}

// ComputeLerp in fixed point: kRes fractional bits; Calc is the width
// TensorFlow keeps the intermediate sums in (int16 for quint8).
template <int kRes, typename Calc>
int64_t FixedLerp(int64_t tl, int64_t tr, int64_t bl, int64_t br, int64_t xl,
                  int64_t yl) {
  constexpr int64_t kOne = int64_t{1} << kRes;
  const Calc top = static_cast<Calc>(tl * kOne + (tr - tl) * xl);
  const Calc bottom = static_cast<Calc>(bl * kOne + (br - bl) * xl);
  const Calc out = static_cast<Calc>(top + (bottom - top) / kOne * yl);
  return static_cast<int32_t>((out + kOne / 2) / kOne);
}

class QuantizedResizeBilinearOp : public OpKernel {
 public:
  explicit QuantizedResizeBilinearOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_));
    DFG_OP_REQUIRES_OK(ctx, CheckResizeAttrs(align_corners_, half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    auto dims_or = ResizeOutputSize(in, ctx->input(1), align_corners_);
    DFG_OP_REQUIRES_OK(ctx, dims_or.status());
    const ResizeDims d = *dims_or;
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({d.batch, d.out_h, d.out_w, d.depth}), &out));
    if (out->NumElements() == 0) return;  // TensorFlow sets no range then
    if (d.out_h == d.in_h && d.out_w == d.in_w) {
      std::memcpy(out->data(), in.data(), in.TotalBytes());
    } else if (in.dtype() == tensorflow::DT_QUINT8) {
      Resize<uint8_t>(in, d, 7, out,
                      [](auto... v) { return FixedLerp<7, int16_t>(v...); });
    } else {
      ResizeFloat(in, d, out);
    }
    ctx->set_output(1, Tensor::Scalar(ctx->input(2).flat<float>()[0]));
    ctx->set_output(2, Tensor::Scalar(ctx->input(3).flat<float>()[0]));
  }

 private:
  // Calls fn(out index, lower row, upper row, x taps index, y taps index).
  template <typename Fn>
  void Each(const ResizeDims& d, const Taps& ys, Fn&& fn) const {
    const int64_t row = d.in_w * d.depth;
    int64_t o = 0;
    for (int64_t b = 0; b < d.batch; ++b) {
      const int64_t base = b * d.in_h * row;
      for (int64_t y = 0; y < d.out_h; ++y) {
        for (int64_t x = 0; x < d.out_w; ++x) {
          for (int64_t c = 0; c < d.depth; ++c) {
            fn(o++, base + ys.lower[y] * row + c, base + ys.upper[y] * row + c,
               x, y);
          }
        }
      }
    }
  }

  template <typename R, typename Lerp>
  void Resize(const Tensor& in, const ResizeDims& d, int res, Tensor* out,
              Lerp lerp) const {
    const Taps xs =
        MakeTaps(d.out_w, d.in_w, d.scale_w, half_pixel_, res, d.depth);
    const Taps ys = MakeTaps(d.out_h, d.in_h, d.scale_h, half_pixel_, res, 1);
    const R* p = reinterpret_cast<const R*>(in.data());
    R* q = reinterpret_cast<R*>(out->data());
    Each(d, ys, [&](int64_t o, int64_t lo, int64_t up, int64_t x, int64_t y) {
      q[o] = static_cast<R>(
          lerp(int64_t{p[lo + xs.lower[x]]}, int64_t{p[lo + xs.upper[x]]},
               int64_t{p[up + xs.lower[x]]}, int64_t{p[up + xs.upper[x]]},
               xs.ilerp[x], ys.ilerp[y]));
    });
  }

  void ResizeFloat(const Tensor& in, const ResizeDims& d, Tensor* out) const {
    const Taps xs =
        MakeTaps(d.out_w, d.in_w, d.scale_w, half_pixel_, 0, d.depth);
    const Taps ys = MakeTaps(d.out_h, d.in_h, d.scale_h, half_pixel_, 0, 1);
    const float* p = in.flat<float>().data();
    float* q = out->flat<float>().data();
    Each(d, ys, [&](int64_t o, int64_t lo, int64_t up, int64_t x, int64_t y) {
      const float tl = p[lo + xs.lower[x]], tr = p[lo + xs.upper[x]];
      const float bl = p[up + xs.lower[x]], br = p[up + xs.upper[x]];
      const float top = tl + (tr - tl) * xs.lerp[x];
      const float bottom = bl + (br - bl) * xs.lerp[x];
      q[o] = top + (bottom - top) * ys.lerp[y];
    });
  }

  bool align_corners_ = false, half_pixel_ = false;
};

// QuantizedInstanceNorm (quint8 NHWC) as TensorFlow's unoptimized x86 path:
// per image and channel the mean and variance over H x W (in order, float),
// x scaled by the input step, normalized, and quantized into the output
// range (the normalized min / max unless given, at least min_separation
// wide).
class QuantizedInstanceNormOp : public OpKernel {
 public:
  explicit QuantizedInstanceNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("variance_epsilon", &epsilon_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("min_separation", &separation_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_range_given", &given_));
    if (given_) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("given_y_min", &y_min_));
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("given_y_max", &y_max_));
      DFG_OP_REQUIRES(ctx, y_min_ < y_max_,
                      InvalidArgument("given_y_min must be less than "
                                      "given_y_max : {} >= {}",
                                      y_min_, y_max_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    for (int i : {1, 2}) {
      DFG_OP_REQUIRES(
          ctx, ctx->input(i).dims() == 0,
          InvalidArgument("`{}` must be rank 0 but is rank {}",
                          i == 1 ? "x_min" : "x_max", ctx->input(i).dims()));
    }
    const float lo = ctx->input(1).flat<float>()[0];
    const float hi = ctx->input(2).flat<float>()[0];
    DFG_OP_REQUIRES(ctx, lo < hi,
                    InvalidArgument("input_min must be less than input_max : "
                                    "{} >= {}",
                                    lo, hi));
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("input must be 4-dimensional"));
    const float step = (hi - lo) / 255.0f;
    const int64_t n = in.dim_size(0), hw = in.dim_size(1) * in.dim_size(2);
    const int64_t c = in.dim_size(3);
    const uint8_t* x = reinterpret_cast<const uint8_t*>(in.data());
    std::vector<float> normed(in.NumElements());
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t base = b * hw * c + ch;
        float sum = 0;
        for (int64_t i = 0; i < hw; ++i) sum += x[base + i * c];
        const float mean = sum / hw;
        float var = 0;
        for (int64_t i = 0; i < hw; ++i) {
          const float d = step * (x[base + i * c] - mean);
          var += d * d;
        }
        var /= hw;
        const float inv = 1.0f / std::sqrt(var + epsilon_);
        for (int64_t i = 0; i < hw; ++i) {
          normed[base + i * c] = step * (x[base + i * c] - mean) * inv;
        }
      }
    }
    float y_lo = y_min_, y_hi = y_max_;
    if (!given_) {
      y_lo = std::numeric_limits<float>::infinity();
      y_hi = -std::numeric_limits<float>::infinity();
      for (float v : normed) {
        y_lo = std::min(y_lo, v);
        y_hi = std::max(y_hi, v);
      }
    }
    if (y_hi - y_lo < separation_) y_hi = y_lo + separation_;
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const Requantizer<uint8_t> rq(y_lo, y_hi);
    uint8_t* y = reinterpret_cast<uint8_t*>(out->data());
    for (size_t i = 0; i < normed.size(); ++i) y[i] = rq(normed[i]);
    ctx->set_output(1, Tensor::Scalar(y_lo));
    ctx->set_output(2, Tensor::Scalar(y_hi));
  }

 private:
  float epsilon_ = 1e-5f, separation_ = 1e-3f, y_min_ = 0, y_max_ = 0;
  bool given_ = false;
};

}  // namespace

void RegisterQuantImageKernels(KernelRegistry* r) {
  r->Register<QuantizedResizeBilinearOp>(
      "QuantizedResizeBilinear",
      {TypeConstraint("T", TypeList<QUInt8, float>())});
  r->Register<QuantizedInstanceNormOp>(
      "QuantizedInstanceNorm", {TypeConstraint("T", TypeList<QUInt8>())});
}

}  // namespace dfg
