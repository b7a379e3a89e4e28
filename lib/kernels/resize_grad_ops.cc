// ResizeBilinearGrad, ResizeNearestNeighborGrad and ResizeBicubicGrad
// (NHWC), as TensorFlow's image/resize_*_op gradient kernels: each incoming
// gradient pixel is scattered onto the input pixels its forward output read,
// with the forward op's weights.
//
// The bilinear gradient accumulates in T (float for half/bfloat16, rounded
// once at the end, as TensorFlow does); the nearest-neighbor gradient adds
// in T itself, so integer gradients wrap as TensorFlow's do.
#include <cmath>
#include <limits>

#include "lib/kernels/image_resizer.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// ImageResizerGradientState: grads [b, rh, rw, c] (float) and the forward
// input's shape give the output [b, oh, ow, c] and the forward scales.
struct GradDims {
  int64_t batch, depth, resized_h, resized_w, orig_h, orig_w;
  float scale_h, scale_w;
};

StatusOr<GradDims> GradState(OpKernelContext* ctx, bool align_corners,
                             bool half_pixel) {
  DFG_RETURN_IF_ERROR(CheckResizeAttrs(align_corners, half_pixel));
  const Tensor& grads = ctx->input(0);
  if (grads.dims() != 4) {
    return InvalidArgument("input_grad must be 4-dimensional{}",
                           grads.shape().DebugString());
  }
  GradDims d;
  d.batch = grads.dim_size(0);
  d.depth = grads.dim_size(3);
  d.resized_h = grads.dim_size(1);
  d.resized_w = grads.dim_size(2);
  if (d.resized_h <= 0 || d.resized_w <= 0) {
    return InvalidArgument("resized dimensions must be positive");
  }
  const TensorShape& orig = ctx->input(1).shape();
  if (orig.dims() != 4) {
    return InvalidArgument("original_image must be 4-dimensional{}",
                           orig.DebugString());
  }
  d.orig_h = orig.dim_size(1);
  d.orig_w = orig.dim_size(2);
  if (d.orig_h <= 0 || d.orig_w <= 0) {
    return InvalidArgument("original dimensions must be positive");
  }
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (d.orig_h >= kMax || d.orig_w >= kMax) {
    return InvalidArgument("original sizes must be between 0 and max int32");
  }
  d.scale_h = ResizeScale(d.orig_h, d.resized_h, align_corners);
  d.scale_w = ResizeScale(d.orig_w, d.resized_w, align_corners);
  return d;
}

class ResizeGradOp : public OpKernel {
 public:
  explicit ResizeGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_));
    bicubic_ = ctx->def().op() == "ResizeBicubicGrad";
  }

  void Compute(OpKernelContext* ctx) override {
    StatusOr<GradDims> dims = GradState(ctx, align_corners_, half_pixel_);
    DFG_OP_REQUIRES_OK(ctx, dims.status());
    const GradDims& d = *dims;
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({d.batch, d.orig_h, d.orig_w, d.depth}), &out));
    const float* g = ctx->input(0).flat<float>().data();
    Dispatch(FloatTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      std::vector<C> acc(out->NumElements(), C(0));
      if (bicubic_) {
        Bicubic(d, g, acc.data());
      } else {
        Bilinear(d, g, acc.data());
      }
      T* o = out->flat<T>().data();
      for (size_t i = 0; i < acc.size(); ++i) o[i] = Store<T>(acc[i]);
    });
  }

 private:
  float Source(int64_t o, float scale) const {
    return half_pixel_ ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                       : o * scale;
  }

  template <typename C>
  void Bilinear(const GradDims& d, const float* g, C* out) const {
    for (int64_t b = 0; b < d.batch; ++b) {
      C* img = out + b * d.orig_h * d.orig_w * d.depth;
      for (int64_t y = 0; y < d.resized_h; ++y) {
        const float in_y = Source(y, d.scale_h);
        const int64_t top =
            std::max<int64_t>(static_cast<int64_t>(std::floor(in_y)), 0);
        const int64_t bottom = std::min<int64_t>(
            static_cast<int64_t>(std::ceil(in_y)), d.orig_h - 1);
        const float ly = in_y - std::floor(in_y), iy = 1.0f - ly;
        for (int64_t x = 0; x < d.resized_w; ++x, g += d.depth) {
          const float in_x = Source(x, d.scale_w);
          const int64_t left =
              std::max<int64_t>(static_cast<int64_t>(std::floor(in_x)), 0);
          const int64_t right = std::min<int64_t>(
              static_cast<int64_t>(std::ceil(in_x)), d.orig_w - 1);
          const float lx = in_x - std::floor(in_x), ix = 1.0f - lx;
          C* tl = img + (top * d.orig_w + left) * d.depth;
          C* tr = img + (top * d.orig_w + right) * d.depth;
          C* bl = img + (bottom * d.orig_w + left) * d.depth;
          C* br = img + (bottom * d.orig_w + right) * d.depth;
          for (int64_t c = 0; c < d.depth; ++c) {
            tl[c] += C(g[c] * iy * ix);
            tr[c] += C(g[c] * iy * lx);
            bl[c] += C(g[c] * ly * ix);
            br[c] += C(g[c] * ly * lx);
          }
        }
      }
    }
  }

  template <typename C>
  void Bicubic(const GradDims& d, const float* g, C* out) const {
    std::vector<BicubicTaps> xs(d.resized_w);
    for (int64_t x = 0; x < d.resized_w; ++x) {
      xs[x] = BicubicTapsAt(d.scale_w, x, d.orig_w, half_pixel_);
    }
    for (int64_t b = 0; b < d.batch; ++b) {
      C* img = out + b * d.orig_h * d.orig_w * d.depth;
      for (int64_t y = 0; y < d.resized_h; ++y) {
        const BicubicTaps ty =
            BicubicTapsAt(d.scale_h, y, d.orig_h, half_pixel_);
        for (int64_t x = 0; x < d.resized_w; ++x, g += d.depth) {
          const BicubicTaps& tx = xs[x];
          for (int64_t c = 0; c < d.depth; ++c) {
            const C v = g[c];
            for (int i = 0; i < 4; ++i) {
              C* r = img + ty.index[i] * d.orig_w * d.depth + c;
              for (int j = 0; j < 4; ++j) {
                r[tx.index[j] * d.depth] += C(v * ty.w[i] * tx.w[j]);
              }
            }
          }
        }
      }
    }
  }

  bool align_corners_ = false, half_pixel_ = false, bicubic_ = false;
};

class ResizeNearestNeighborGradOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& size = ctx->input(1);
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("input must be 4-dimensional{}",
                                    in.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, size.dims() == 1,
                    InvalidArgument("shape_t must be 1-dimensional{}",
                                    size.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, size.NumElements() == 2,
                    InvalidArgument("shape_t must have two elements{}",
                                    size.shape().DebugString()));
    const int64_t out_h = size.flat<int32_t>()[0];
    const int64_t out_w = size.flat<int32_t>()[1];
    DFG_OP_REQUIRES(ctx, out_h > 0 && out_w > 0,
                    InvalidArgument("shape_t's elements must be positive"));
    const int64_t batch = in.dim_size(0), in_h = in.dim_size(1),
                  in_w = in.dim_size(2), depth = in.dim_size(3);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, out_h, out_w, depth}),
                                  &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> ys =
        Indices(in_h, out_h, ResizeScale(out_h, in_h, align_corners_));
    const std::vector<int64_t> xs =
        Indices(in_w, out_w, ResizeScale(out_w, in_w, align_corners_));
    Dispatch(RealTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* g = in.flat<T>().data();
      T* o = out->flat<T>().data();
      std::fill(o, o + out->NumElements(), Store<T>(0));
      for (int64_t b = 0; b < batch; ++b) {
        T* img = o + b * out_h * out_w * depth;
        for (int64_t y = 0; y < in_h; ++y) {
          for (int64_t x = 0; x < in_w; ++x, g += depth) {
            T* dst = img + (ys[y] * out_w + xs[x]) * depth;
            for (int64_t c = 0; c < depth; ++c) {
              dst[c] = Store<T>(Load(dst[c]) + Load(g[c]));
            }
          }
        }
      }
    });
  }

 private:
  // For each of the n gradient positions, the forward input index it read.
  std::vector<int64_t> Indices(int64_t n, int64_t limit, float scale) const {
    std::vector<int64_t> idx(n);
    for (int64_t i = 0; i < n; ++i) {
      const float src =
          half_pixel_ ? (static_cast<float>(i) + 0.5f) * scale : i * scale;
      int64_t k = align_corners_ ? static_cast<int64_t>(std::round(src))
                                 : static_cast<int64_t>(std::floor(src));
      k = std::min(k, limit - 1);
      idx[i] = half_pixel_ ? std::max<int64_t>(k, 0) : k;
    }
    return idx;
  }

  bool align_corners_ = false, half_pixel_ = false;
};

}  // namespace

void RegisterResizeGradKernels(KernelRegistry* r) {
  r->Register<ResizeGradOp>("ResizeBilinearGrad",
                            {TypeConstraint("T", FloatTypes())});
  r->Register<ResizeGradOp>("ResizeBicubicGrad",
                            {TypeConstraint("T", TypeList<float, double>())});
  r->Register<ResizeNearestNeighborGradOp>("ResizeNearestNeighborGrad",
                                           {TypeConstraint("T", RealTypes())});
}

}  // namespace dfg
