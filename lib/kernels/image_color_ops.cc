// Colour ops on the innermost (channel) dim: RGBToHSV, HSVToRGB, AdjustHue,
// AdjustSaturation, AdjustContrastv2, and DrawBoundingBoxes(V2), as
// TensorFlow's image/colorspace_op, adjust_{hue,saturation,contrast}_op and
// draw_bounding_box_op CPU kernels.
//
// RGBToHSV/HSVToRGB follow the Eigen expressions of colorspace_op.h
// (half/bfloat16 computed in float, rounded once); AdjustHue and
// AdjustSaturation go through their kernels' own scalar HSV helpers, which
// differ from RGBToHSV in rounding. AdjustContrastv2 sums each image by
// repeated halving, as TensorFlow's CPU kernel does, so its means match to
// the bit.
#include <algorithm>
#include <cmath>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

Status CheckThreeChannels(const Tensor& in, int min_rank, const char* what) {
  if (in.dims() < min_rank) {
    return InvalidArgument("input must be {}{}", what,
                           in.shape().DebugString());
  }
  const int64_t channels = in.dim_size(in.dims() - 1);
  if (channels != 3) {
    return FailedPrecondition(
        "input must have 3 channels but input only has {} channels.", channels);
  }
  return Status::Ok();
}

template <typename C>
void RgbToHsv(const C* p, C* q) {
  const C r = p[0], g = p[1], b = p[2];
  const C v = std::max(r, std::max(g, b));
  const C range = v - std::min(r, std::min(g, b));
  const C s = v > C(0) ? range / v : C(0);
  const C norm = (C(1) / range) * (C(1) / C(6));
  C h = r == v   ? norm * (g - b)
        : g == v ? norm * (b - r) + C(2) / C(6)
                 : norm * (r - g) + C(4) / C(6);
  if (!(range > C(0))) h = C(0);
  if (h < C(0)) h = h + C(1);
  q[0] = h;
  q[1] = s;
  q[2] = v;
}

template <typename C>
C Clamp01(C x) {
  return std::min(std::max(x, C(0)), C(1));
}

template <typename C>
void HsvToRgb(const C* p, C* q) {
  const C h = p[0], s = p[1], v = p[2];
  const C dh = h * C(6);
  const C d[3] = {Clamp01(std::abs(dh - C(3)) - C(1)),
                  Clamp01(-std::abs(dh - C(2)) + C(2)),
                  Clamp01(-std::abs(dh - C(4)) + C(2))};
  const C one_s = -s + C(1);
  for (int i = 0; i < 3; ++i) q[i] = (one_s + s * d[i]) * v;
}

template <bool kToHsv>
class ColorSpaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES_OK(ctx, CheckThreeChannels(in, 1, "at least 1D"));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    Dispatch(FloatTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      const T* ip = in.flat<T>().data();
      T* op = out->flat<T>().data();
      for (int64_t i = 0; i < in.NumElements(); i += 3) {
        C a[3] = {Load(ip[i]), Load(ip[i + 1]), Load(ip[i + 2])}, b[3];
        if constexpr (kToHsv) {
          RgbToHsv(a, b);
        } else {
          HsvToRgb(a, b);
        }
        for (int k = 0; k < 3; ++k) op[i + k] = Store<T>(b[k]);
      }
    });
  }
};

// ---- AdjustHue / AdjustSaturation (float CPU kernels) --------------------

// Hue in [0, 6) and the min/max of the channels (adjust_hue_op's helper).
void RgbToHueRange(float r, float g, float b, float* h, float* lo, float* hi) {
  float mid;
  int cat;
  if (r < g) {
    if (b < r) {
      *hi = g, mid = r, *lo = b, cat = 1;
    } else if (b > g) {
      *hi = b, mid = g, *lo = r, cat = 3;
    } else {
      *hi = g, mid = b, *lo = r, cat = 2;
    }
  } else if (b < g) {
    *hi = r, mid = g, *lo = b, cat = 0;
  } else if (b > r) {
    *hi = b, mid = r, *lo = g, cat = 4;
  } else {
    *hi = r, mid = b, *lo = g, cat = 5;
  }
  if (*hi == *lo) {
    *h = 0;
    return;
  }
  const float ratio = (mid - *lo) / (*hi - *lo);
  *h = cat + ((cat & 1) == 0 ? ratio : 1 - ratio);
}

void HueRangeToRgb(float h, float lo, float hi, float* q) {
  const int cat = static_cast<int>(h);
  float ratio = h - cat;
  if ((cat & 1) != 0) ratio = 1 - ratio;
  const float mid = lo + ratio * (hi - lo);
  static const int kOrder[6][3] = {{2, 1, 0}, {1, 2, 0}, {0, 2, 1},
                                   {0, 1, 2}, {1, 0, 2}, {2, 0, 1}};
  const float v[3] = {lo, mid, hi};
  const int* o = kOrder[cat >= 0 && cat < 6 ? cat : 5];
  for (int i = 0; i < 3; ++i) q[i] = v[o[i]];
}

// adjust_saturation_op's rgb_to_hsv / hsv_to_rgb.
void SatRgbToHsv(float r, float g, float b, float* h, float* s, float* v) {
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0;
  const float norm = 1.0f / (6.0f * range);
  float hh = r == vv   ? norm * (g - b)
             : g == vv ? static_cast<float>(norm * (b - r) + 2.0 / 6.0)
                       : static_cast<float>(norm * (r - g) + 4.0 / 6.0);
  if (range <= 0.0) hh = 0;
  if (hh < 0.0) hh = hh + 1;
  *v = vv;
  *h = hh;
}

void SatHsvToRgb(float h, float s, float v, float* q) {
  const float c = s * v, m = v - c, dh = h * 6;
  const int cat = static_cast<int>(dh);
  float f = dh;
  while (f <= 0) f += 2.0f;
  while (f >= 2.0f) f -= 2.0f;
  const float x = c * (1 - std::abs(f - 1));
  float rgb[3] = {0, 0, 0};
  static const int kPlace[6][3] = {{0, 1, 2}, {1, 0, 2}, {2, 0, 1},
                                   {2, 1, 0}, {1, 2, 0}, {0, 2, 1}};
  if (cat >= 0 && cat < 6) {
    // kPlace[cat][i]: 0 puts c, 1 puts x, 2 puts 0 in channel i.
    const float vals[3] = {c, x, 0};
    for (int i = 0; i < 3; ++i) rgb[i] = vals[kPlace[cat][i]];
  }
  for (int i = 0; i < 3; ++i) q[i] = rgb[i] + m;
}

template <bool kHue>
class AdjustHsvOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& arg = ctx->input(1);
    DFG_OP_REQUIRES(ctx, in.dims() >= 3,
                    InvalidArgument("input must be at least 3-D, got shape{}",
                                    in.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, arg.dims() == 0,
        InvalidArgument("{} must be scalar: {}", kHue ? "delta" : "scale",
                        arg.shape().DebugString()));
    const int64_t channels = in.dim_size(in.dims() - 1);
    DFG_OP_REQUIRES(ctx, channels == 3,
                    InvalidArgument("input must have 3 channels but instead "
                                    "has {} channels.",
                                    channels));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const float a = arg.scalar<float>();
    const float* p = in.flat<float>().data();
    float* q = out->flat<float>().data();
    for (int64_t i = 0; i < in.NumElements(); i += 3) {
      if constexpr (kHue) {
        float h, lo, hi;
        RgbToHueRange(p[i], p[i + 1], p[i + 2], &h, &lo, &hi);
        h += a * 6;
        while (h < 0) h += 6;
        while (h >= 6) h -= 6;
        HueRangeToRgb(h, lo, hi, q + i);
      } else {
        float h, s, v;
        SatRgbToHsv(p[i], p[i + 1], p[i + 2], &h, &s, &v);
        s = std::min(1.0f, std::max(0.0f, s * a));
        SatHsvToRgb(h, s, v, q + i);
      }
    }
  }
};

// ---- AdjustContrast ------------------------------------------------------

Status ContrastInputs(OpKernelContext* ctx, int64_t* batch, int64_t* pixels,
                      int64_t* channels) {
  const Tensor& in = ctx->input(0);
  if (in.dims() < 3) {
    return InvalidArgument("input must be at least 3-D, got shape{}",
                           in.shape().DebugString());
  }
  if (ctx->input(1).dims() != 0) {
    return InvalidArgument("contrast_factor must be scalar: {}",
                           ctx->input(1).shape().DebugString());
  }
  *pixels = in.dim_size(in.dims() - 3) * in.dim_size(in.dims() - 2);
  *channels = in.dim_size(in.dims() - 1);
  *batch =
      *pixels * *channels == 0 ? 0 : in.NumElements() / (*pixels * *channels);
  return Status::Ok();
}

// The per-channel sums of one [pixels, channels] image, folded in halves:
// the right half added onto the left until one pixel is left.
void FoldedSums(const float* img, int64_t pixels, int64_t channels,
                std::vector<float>* scratch, float* sums) {
  scratch->assign(img, img + pixels * channels);
  int64_t remaining = pixels;
  while (remaining > 1) {
    const int64_t right = remaining / 2, left = remaining - right;
    float* s = scratch->data();
    for (int64_t k = 0; k < right * channels; ++k)
      s[k] += s[left * channels + k];
    remaining = left;
  }
  std::copy(scratch->data(), scratch->data() + channels, sums);
}

// AdjustContrastv2 (the float CPU kernel). The v1 op is left out: it was
// removed in GraphDef version 2 and TensorFlow refuses it in any graph since.
class AdjustContrastv2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    int64_t batch = 0, pixels = 0, channels = 0;
    DFG_OP_REQUIRES_OK(ctx, ContrastInputs(ctx, &batch, &pixels, &channels));
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    const float factor = ctx->input(1).scalar<float>();
    const float* p = in.flat<float>().data();
    float* q = out->flat<float>().data();
    std::vector<float> mean(channels), scratch;
    const int64_t plane = pixels * channels;
    for (int64_t b = 0; b < batch; ++b, p += plane, q += plane) {
      FoldedSums(p, pixels, channels, &scratch, mean.data());
      const float scale = 1.0f / pixels;
      for (float& m : mean) m *= scale;
      for (int64_t k = 0; k < plane; ++k) {
        const float m = mean[k % channels];
        q[k] = m + factor * (p[k] - m);
      }
    }
  }
};

// ---- DrawBoundingBoxes ---------------------------------------------------

std::vector<std::vector<float>> ColorTable(OpKernelContext* ctx,
                                           int64_t depth) {
  std::vector<std::vector<float>> table;
  if (ctx->num_inputs() == 3 && ctx->input(2).NumElements() != 0) {
    const Tensor& c = ctx->input(2);
    const auto v = c.flat<float>();
    for (int64_t i = 0; i < c.dim_size(0); ++i) {
      table.emplace_back(v.begin() + i * c.dim_size(1),
                         v.begin() + i * c.dim_size(1) + depth);
    }
    return table;
  }
  table = {{1, 1, 0, 1},     {0, 0, 1, 1},     {1, 0, 0, 1},   {0, 1, 0, 1},
           {0.5, 0, 0.5, 1}, {0.5, 0.5, 0, 1}, {0.5, 0, 0, 1}, {0, 0, 0.5, 1},
           {0, 1, 1, 1},     {1, 0, 1, 1}};
  if (depth == 1) {
    for (auto& c : table) c[0] = 1;
  }
  return table;
}

Status CheckDrawInputs(OpKernelContext* ctx) {
  const Tensor& images = ctx->input(0);
  const Tensor& boxes = ctx->input(1);
  if (images.dims() != 4) {
    return InvalidArgument("The rank of the images should be 4");
  }
  if (boxes.dims() != 3) {
    return InvalidArgument("The rank of the boxes tensor should be 3");
  }
  if (images.dim_size(0) != boxes.dim_size(0)) {
    return InvalidArgument("The batch sizes should be the same");
  }
  const int64_t depth = images.dim_size(3);
  if (depth != 4 && depth != 1 && depth != 3) {
    return InvalidArgument(
        "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)");
  }
  if (boxes.dim_size(2) != 4) {
    return InvalidArgument(
        "The size of the third dimension of the box must be 4. Received: {}",
        boxes.dim_size(2));
  }
  if (ctx->num_inputs() == 3) {
    const Tensor& c = ctx->input(2);
    if (c.dims() != 2) {
      return InvalidArgument("colors must be a 2-D matrix{}",
                             c.shape().DebugString());
    }
    if (c.dim_size(1) < depth) {
      return InvalidArgument(
          "colors must have equal or more channels than the image provided: "
          "{}",
          c.shape().DebugString());
    }
  }
  return Status::Ok();
}

class DrawBoundingBoxesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, CheckDrawInputs(ctx));
    const Tensor& images = ctx->input(0);
    const int64_t depth = images.dim_size(3);
    const std::vector<std::vector<float>> colors = ColorTable(ctx, depth);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, images.shape(), &out));
    CopyElements(images, 0, out, 0, images.NumElements());
    Dispatch(TypeList<float, Half>(), images.dtype(),
             [&](auto v) { Draw<decltype(v)>(ctx->input(1), colors, out); });
  }

 private:
  template <typename T>
  static void Draw(const Tensor& boxes,
                   const std::vector<std::vector<float>>& colors, Tensor* out) {
    const int64_t h = out->dim_size(1), w = out->dim_size(2),
                  depth = out->dim_size(3), n = boxes.dim_size(1);
    const float* bx = boxes.flat<float>().data();
    T* img = out->flat<T>().data();
    for (int64_t b = 0; b < out->dim_size(0); ++b) {
      T* canvas = img + b * h * w * depth;
      for (int64_t i = 0; i < n; ++i) {
        const float* box = bx + (b * n + i) * 4;
        const std::vector<float>& color = colors[i % colors.size()];
        const int64_t r0 = static_cast<float>(box[0]) * (h - 1);
        const int64_t r1 = static_cast<float>(box[2]) * (h - 1);
        const int64_t c0 = static_cast<float>(box[1]) * (w - 1);
        const int64_t c1 = static_cast<float>(box[3]) * (w - 1);
        if (r0 > r1 || c0 > c1) continue;                      // inverted
        if (r0 >= h || r1 < 0 || c0 >= w || c1 < 0) continue;  // outside
        const int64_t r0c = std::max<int64_t>(r0, 0), r1c = std::min(r1, h - 1);
        const int64_t c0c = std::max<int64_t>(c0, 0), c1c = std::min(c1, w - 1);
        auto paint = [&](int64_t r, int64_t c) {
          for (int64_t k = 0; k < depth; ++k) {
            canvas[(r * w + c) * depth + k] = Store<T>(color[k]);
          }
        };
        for (int64_t c = c0c; c <= c1c; ++c) {
          if (r0 >= 0) paint(r0, c);
          if (r1 < h) paint(r1, c);
        }
        for (int64_t r = r0c; r <= r1c; ++r) {
          if (c0 >= 0) paint(r, c0);
          if (c1 < w) paint(r, c1);
        }
      }
    }
  }
};

}  // namespace

void RegisterImageColorKernels(KernelRegistry* r) {
  r->Register<ColorSpaceOp<true>>("RGBToHSV",
                                  {TypeConstraint("T", FloatTypes())});
  r->Register<ColorSpaceOp<false>>("HSVToRGB",
                                   {TypeConstraint("T", FloatTypes())});
  const auto f32 = TypeConstraint("T", TypeList<float>());
  r->Register<AdjustHsvOp<true>>("AdjustHue", {f32});
  r->Register<AdjustHsvOp<false>>("AdjustSaturation", {f32});
  r->Register<AdjustContrastv2Op>("AdjustContrastv2", {f32});
  const auto draw = TypeConstraint("T", TypeList<float, Half>());
  r->Register<DrawBoundingBoxesOp>("DrawBoundingBoxes", {draw});
  r->Register<DrawBoundingBoxesOp>("DrawBoundingBoxesV2", {draw});
}

}  // namespace dfg
