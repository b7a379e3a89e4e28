// ExtractVolumePatches (NDHWC; each patch flattened plane, row, column,
// depth, zeros outside the volume) and ExtractGlimpse / ExtractGlimpseV2, as
// TensorFlow's CPU kernels (extract_volume_patches_op, attention_ops with
// Eigen's GlimpseExtractionOp).
//
// A glimpse is a height x width window of each image at an offset (y, x),
// turned into a pixel position as TensorFlow does (normalized: times the
// image size; centered: from the image center; the first version always
// and the second only when normalized and centered also move it back by
// half the window), then truncated toward zero. Where the window leaves the
// image the glimpse is filled with noise first: zeros, or, as TensorFlow,
// random values — uniform over the image's range, or normal with each
// channel's mean and deviation clipped to its range — which this kernel
// draws from its own generator (TensorFlow's are unseeded too).
#include <cmath>
#include <cstring>
#include <random>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

class ExtractVolumePatchesOp : public OpKernel {
 public:
  explicit ExtractVolumePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    for (auto [name, v] :
         {std::pair{"ksizes", &ksizes_}, std::pair{"strides", &strides_}}) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr(name, v));
      DFG_OP_REQUIRES(ctx, v->size() >= 5 && (*v)[0] == 1 && (*v)[4] == 1,
                      Unimplemented("Only support {} across space.", name));
      DFG_OP_REQUIRES(ctx, (*v)[1] >= 1 && (*v)[2] >= 1 && (*v)[3] >= 1,
                      OutOfRange("{} is out of range.", name));
    }
    std::string padding;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFG_OP_REQUIRES_OK(ctx, ParsePadding(padding, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 5,
                    InvalidArgument("input must be 5-dimensional{}",
                                    in.shape().DebugString()));
    const int64_t batch = in.dim_size(0), depth = in.dim_size(4);
    Window w[3];
    for (int i = 0; i < 3; ++i) {
      w[i] = Window{in.dim_size(i + 1), ksizes_[i + 1], 1, strides_[i + 1]};
      DFG_OP_REQUIRES_OK(ctx, ComputeWindow(padding_, &w[i]));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(0,
                             TensorShape({batch, w[0].out, w[1].out, w[2].out,
                                          w[0].k * w[1].k * w[2].k * depth}),
                             &out));
    if (out->NumElements() == 0) return;
    const int64_t run = depth * DataTypeSize(in.dtype());
    const char* src = static_cast<const char*>(in.data());
    char* dst = static_cast<char*>(out->data());
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t op = 0; op < w[0].out; ++op) {
        for (int64_t oy = 0; oy < w[1].out; ++oy) {
          for (int64_t ox = 0; ox < w[2].out; ++ox) {
            dst = CopyPatch(w, src, b, op, oy, ox, run, dst);
          }
        }
      }
    }
  }

 private:
  // Copies the patch of output (op, oy, ox) of image b to dst, one depth run
  // per cell (zeros outside); returns the end of what it wrote.
  static char* CopyPatch(const Window* w, const char* src, int64_t b,
                         int64_t op, int64_t oy, int64_t ox, int64_t run,
                         char* dst) {
    for (int64_t kp = 0; kp < w[0].k; ++kp) {
      const int64_t ip = op * w[0].stride - w[0].pad_before + kp;
      for (int64_t ky = 0; ky < w[1].k; ++ky) {
        const int64_t iy = oy * w[1].stride - w[1].pad_before + ky;
        for (int64_t kx = 0; kx < w[2].k; ++kx, dst += run) {
          const int64_t ix = ox * w[2].stride - w[2].pad_before + kx;
          if (ip < 0 || ip >= w[0].in || iy < 0 || iy >= w[1].in || ix < 0 ||
              ix >= w[2].in) {
            std::memset(dst, 0, run);
            continue;
          }
          const int64_t cell =
              ((b * w[0].in + ip) * w[1].in + iy) * w[2].in + ix;
          std::memcpy(dst, src + cell * run, run);
        }
      }
    }
    return dst;
  }

  std::vector<int64_t> ksizes_, strides_;
  Padding padding_ = Padding::kValid;
};

enum class Noise { kUniform, kGaussian, kZero };

class ExtractGlimpseOp : public OpKernel {
 public:
  explicit ExtractGlimpseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    version_ = ctx->def().op() == "ExtractGlimpse" ? 1 : 2;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("normalized", &normalized_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("centered", &centered_));
    bool uniform_noise = false;
    std::string noise;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("uniform_noise", &uniform_noise));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("noise", &noise));
    DFG_OP_REQUIRES(ctx,
                    !(uniform_noise && !noise.empty() && noise != "uniform"),
                    InvalidArgument("The uniform_noise and noise could not be "
                                    "specified at the same time"));
    if (noise.empty()) {
      noise_ = uniform_noise ? Noise::kUniform : Noise::kGaussian;
    } else {
      // TensorFlow appends the value without a space.
      DFG_OP_REQUIRES(
          ctx, noise == "uniform" || noise == "gaussian" || noise == "zero",
          InvalidArgument("The noise could only be uniform, gaussian, or zero, "
                          "got{}",
                          noise));
      noise_ = noise == "uniform"    ? Noise::kUniform
               : noise == "gaussian" ? Noise::kGaussian
                                     : Noise::kZero;
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& size = ctx->input(1);
    const Tensor& offsets = ctx->input(2);
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("input must be 4-dimensional (batch_size, "
                                    "height, width, depth){}",
                                    in.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, size.dims() == 1 && size.dim_size(0) == 2,
                    InvalidArgument("input must be a vector of size 2 (height, "
                                    "width){}",
                                    size.shape().DebugString()));
    const int64_t height = size.flat<int32_t>()[0];
    const int64_t width = size.flat<int32_t>()[1];
    for (int64_t s : {height, width}) {
      DFG_OP_REQUIRES(
          ctx, s >= 0,
          InvalidArgument("Expected a non-negative size, got {}", s));
    }
    const int64_t batch = in.dim_size(0);
    DFG_OP_REQUIRES(ctx, offsets.dims() == 2,
                    InvalidArgument("input must be a matrix{}",
                                    offsets.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, offsets.dim_size(0) == batch,
                    InvalidArgument("first dimension should be batch{}",
                                    offsets.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, offsets.dim_size(1) == 2,
                    InvalidArgument("second dimension should be of size 2 "
                                    "(y,x){}",
                                    offsets.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({batch, height, width, in.dim_size(3)}), &out));
    if (out->NumElements() == 0) return;
    for (int64_t b = 0; b < batch; ++b) {
      Glimpse(in, b, offsets.flat<float>()[2 * b],
              offsets.flat<float>()[2 * b + 1], height, width, out);
    }
  }

 private:
  // The glimpse of image b at offset (y, x).
  void Glimpse(const Tensor& in, int64_t b, float y, float x, int64_t height,
               int64_t width, Tensor* out) const {
    const int64_t in_h = in.dim_size(1), in_w = in.dim_size(2);
    const int64_t depth = in.dim_size(3);
    if (version_ == 1) {
      if (normalized_) {
        x *= in_w;
        y *= in_h;
      }
      if (centered_) {
        x = x / 2.0f + in_w / 2.0f;
        y = y / 2.0f + in_h / 2.0f;
      }
      x -= width / 2.0f;
      y -= height / 2.0f;
    } else if (normalized_) {
      x *= in_w;
      y *= in_h;
      if (centered_) {
        x = x / 2.0f + in_w / 2.0f - width / 2.0f;
        y = y / 2.0f + in_h / 2.0f - height / 2.0f;
      }
    } else if (centered_) {
      x += in_w / 2.0f;
      y += in_h / 2.0f;
    }
    Span cols = Clip(static_cast<int64_t>(x), width, in_w);
    Span rows = Clip(static_cast<int64_t>(y), height, in_h);
    const float* src = in.flat<float>().data() + b * in_h * in_w * depth;
    float* dst = out->flat<float>().data() + b * height * width * depth;
    if (rows.partial || cols.partial) {
      Fill(src, in_h * in_w, depth, height * width, dst);
      if (rows.size == 0 || cols.size == 0) return;
    }
    for (int64_t r = 0; r < rows.extent; ++r) {
      std::memcpy(dst + ((rows.base + r) * width + cols.base) * depth,
                  src + ((rows.src + r) * in_w + cols.src) * depth,
                  cols.extent * depth * sizeof(float));
    }
  }

  // One axis of Eigen's glimpse copy: `extent` cells from `src` in the image
  // to `base` in the glimpse; size: the glimpse's in-image extent before the
  // clip to the image.
  struct Span {
    int64_t src = 0, base = 0, extent = 0, size = 0;
    bool partial = false;
  };
  static Span Clip(int64_t offset, int64_t len, int64_t in) {
    Span s{offset, 0, len, len, false};
    if (offset < 0) {
      s.src = 0;
      s.size = std::max<int64_t>(0, len + offset);
      s.extent = s.size;
      s.base = len - s.size;
      s.partial = true;
    } else if (offset + len >= in) {
      s.size = std::max<int64_t>(0, in - offset);
      s.extent = s.size;
      s.partial = true;
    }
    s.extent = std::min(in, s.extent);
    return s;
  }

  // The noise a partial glimpse starts from (`cells` pixels of `depth`).
  void Fill(const float* src, int64_t pixels, int64_t depth, int64_t cells,
            float* dst) const {
    const int64_t n = cells * depth;
    if (noise_ == Noise::kZero) {
      std::fill(dst, dst + n, 0.0f);
      return;
    }
    std::mt19937 rng(std::random_device{}());
    if (noise_ == Noise::kUniform) {
      const auto [lo, hi] = std::minmax_element(src, src + pixels * depth);
      std::uniform_real_distribution<float> u(0.0f, 1.0f);
      for (int64_t i = 0; i < n; ++i) dst[i] = *lo + u(rng) * (*hi - *lo);
      return;
    }
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t c = 0; c < depth; ++c) {
      double sum = 0, sq = 0;
      float lo = src[c], hi = src[c];
      for (int64_t p = 0; p < pixels; ++p) {
        const float v = src[p * depth + c];
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      const double mean = sum / pixels;
      for (int64_t p = 0; p < pixels; ++p) {
        const double d = src[p * depth + c] - mean;
        sq += d * d;
      }
      const float sigma = static_cast<float>(std::sqrt(sq / pixels));
      for (int64_t i = 0; i < cells; ++i) {
        const float v = static_cast<float>(mean) + normal(rng) * sigma;
        dst[i * depth + c] = std::max(std::min(v, hi), lo);
      }
    }
  }

  int version_ = 2;
  bool normalized_ = true, centered_ = true;
  Noise noise_ = Noise::kUniform;
};

}  // namespace

void RegisterGlimpsePatchKernels(KernelRegistry* r) {
  r->Register<ExtractVolumePatchesOp>("ExtractVolumePatches",
                                      {TypeConstraint("T", RealTypes())});
  r->Register<ExtractGlimpseOp>("ExtractGlimpse", {});
  r->Register<ExtractGlimpseOp>("ExtractGlimpseV2", {});
}

}  // namespace dfg
