// ResizeArea, ScaleAndTranslate(+Grad) and the gradients of the bilinear,
// nearest-neighbor and bicubic resizes (NHWC), as TensorFlow's
// image/resize_area_op, scale_and_translate_op and resize_*_op kernels.
//
// Float results follow TensorFlow's order of operations so that they match
// it to the last bit where the compiler allows: ResizeArea sums each row's
// covered pixels (partial end pixels weighted) before weighting the row;
// ScaleAndTranslate builds normalized per-axis spans of sampling-kernel
// weights, filters rows first into a float intermediate, then columns. Its
// gradient transposes the spans (weights of every output pixel a source
// pixel fed) and runs the same two passes over the incoming gradient.
#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/kernels/image_resizer.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

int64_t Clamp(int64_t v, int64_t limit) {
  return std::min(limit - 1, std::max<int64_t>(0, v));
}

// ---- ResizeArea ----------------------------------------------------------

// The share of input pixel `i` inside the output cell [lo, hi) (in input
// pixel units, `scale` = hi - lo), as resize_area_op's start/end scales.
float AreaShare(int64_t i, float lo, float hi, float scale) {
  if (i < lo) return i + 1 > hi ? scale : i + 1 - lo;
  return i + 1 > hi ? hi - i : 1.0f;
}

struct AreaSpan {
  int64_t start, end;  // input pixels [start, end) touch the output cell
  float start_share, last_share;
};

AreaSpan AreaSpanAt(int64_t o, float scale) {
  const float lo = o * scale, hi = (o + 1) * scale;
  AreaSpan s;
  s.start = static_cast<int64_t>(std::floor(lo));
  s.end = static_cast<int64_t>(std::ceil(hi));
  s.start_share = AreaShare(s.start, lo, hi, scale);
  s.last_share = AreaShare(s.end - 1, lo, hi, scale);
  return s;
}

class ResizeAreaOp : public OpKernel {
 public:
  explicit ResizeAreaOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    StatusOr<ResizeDims> dims =
        ResizeOutputSize(in, ctx->input(1), align_corners_);
    DFG_OP_REQUIRES_OK(ctx, dims.status());
    const ResizeDims& d = *dims;
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({d.batch, d.out_h, d.out_w, d.depth}), &out));
    if (out->NumElements() == 0) return;
    Dispatch(RealTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      Area(d, in.flat<T>().data(), out->flat<float>().data());
    });
  }

 private:
  template <typename T>
  static void Area(const ResizeDims& d, const T* in, float* out) {
    std::vector<AreaSpan> xs(d.out_w);
    for (int64_t x = 0; x < d.out_w; ++x) xs[x] = AreaSpanAt(x, d.scale_w);
    const float norm = 1.0 / (d.scale_h * d.scale_w);
    const int64_t row = d.in_w * d.depth;
    std::vector<const T*> rows;
    std::vector<float> row_w;
    for (int64_t b = 0; b < d.batch; ++b) {
      const T* img = in + b * d.in_h * row;
      for (int64_t y = 0; y < d.out_h; ++y) {
        const float lo = y * d.scale_h, hi = (y + 1) * d.scale_h;
        const int64_t y0 = static_cast<int64_t>(std::floor(lo));
        const int64_t y1 = static_cast<int64_t>(std::ceil(hi));
        rows.clear();
        row_w.clear();
        for (int64_t i = y0; i < y1; ++i) {
          row_w.push_back(AreaShare(i, lo, hi, d.scale_h));
          rows.push_back(img + Clamp(i, d.in_h) * row);
        }
        for (int64_t x = 0; x < d.out_w; ++x, out += d.depth) {
          const AreaSpan& s = xs[x];
          for (int64_t c = 0; c < d.depth; ++c) {
            float sum = 0;
            for (size_t i = 0; i < rows.size(); ++i) {
              const T* r = rows[i] + c;
              auto at = [&](int64_t px) {
                return static_cast<float>(Load(r[Clamp(px, d.in_w) * d.depth]));
              };
              float sum_y = at(s.start) * s.start_share;
              if (s.start + 1 != s.end) {
                for (int64_t px = s.start + 1; px < s.end - 1; ++px) {
                  sum_y += at(px);
                }
                sum_y += at(s.end - 1) * s.last_share;
              }
              sum += sum_y * row_w[i];
            }
            out[c] = sum * norm;
          }
        }
      }
    }
  }

  bool align_corners_ = false;
};

// ---- ScaleAndTranslate ---------------------------------------------------

enum class SamplingKernel {
  kLanczos1,
  kLanczos3,
  kLanczos5,
  kGaussian,
  kBox,
  kTriangle,
  kKeysCubic,
  kMitchellCubic,
  kUnknown
};

SamplingKernel SamplingKernelFromName(const std::string& s) {
  static const std::pair<const char*, SamplingKernel> kNames[] = {
      {"lanczos1", SamplingKernel::kLanczos1},
      {"lanczos3", SamplingKernel::kLanczos3},
      {"lanczos5", SamplingKernel::kLanczos5},
      {"gaussian", SamplingKernel::kGaussian},
      {"box", SamplingKernel::kBox},
      {"triangle", SamplingKernel::kTriangle},
      {"keyscubic", SamplingKernel::kKeysCubic},
      {"mitchellcubic", SamplingKernel::kMitchellCubic}};
  for (const auto& [name, k] : kNames) {
    if (s == name) return k;
  }
  return SamplingKernel::kUnknown;
}

float KernelRadius(SamplingKernel k) {
  switch (k) {
    case SamplingKernel::kLanczos3:
      return 3.0f;
    case SamplingKernel::kLanczos5:
      return 5.0f;
    case SamplingKernel::kGaussian:
      return 1.5f;
    case SamplingKernel::kKeysCubic:
    case SamplingKernel::kMitchellCubic:
      return 2.0f;
    default:
      return 1.0f;
  }
}

// The kernel's value at distance x >= 0, in float as sampling_kernels.h
// (the Gaussian's exponent in double, as there).
float KernelValue(SamplingKernel k, float x) {
  constexpr float kPi = 3.14159265359f;
  const float r = KernelRadius(k);
  switch (k) {
    case SamplingKernel::kLanczos1:
    case SamplingKernel::kLanczos3:
    case SamplingKernel::kLanczos5:
      if (x > r) return 0.0f;
      if (x <= 1e-3f) return 1.0f;
      return r * std::sin(kPi * x) * std::sin(kPi * x / r) /
             (kPi * kPi * x * x);
    case SamplingKernel::kGaussian: {
      if (x >= r) return 0.0f;
      const float sigma = r / 3.0f;
      return std::exp(-x * x / (2.0 * sigma * sigma));
    }
    case SamplingKernel::kBox:
      return x < 0.5f ? 1.0f : x == 0.5f ? 0.5f : 0.0f;
    case SamplingKernel::kTriangle:
      return x < 1.0f ? 1.0f - x : 0.0f;
    case SamplingKernel::kKeysCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case SamplingKernel::kMitchellCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) {
        return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x +
               16.0f / 9.0f;
      }
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
    default:
      return 0.0f;
  }
}

// Per output index: the first source index and span_size weights (zero
// beyond the real span).
struct Spans {
  int64_t span_size = 0;
  std::vector<int64_t> starts;
  std::vector<float> weights;
};

Spans ComputeSpans(SamplingKernel k, int64_t out_size, int64_t in_size,
                   float scale, float translate, bool antialias) {
  const float inv_scale = 1.0 / scale;
  const float inv_translate = -inv_scale * translate;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float radius = KernelRadius(k) * kernel_scale;
  Spans s;
  s.span_size =
      std::min<int64_t>(2 * static_cast<int>(std::ceil(radius)) + 1, in_size);
  s.starts.assign(out_size, 0);
  s.weights.assign(s.span_size * out_size, 0.0f);
  const float one_over_kernel_scale = 1.0f / kernel_scale;
  std::vector<float> w;
  for (int64_t x = 0; x < out_size; ++x) {
    const float sample = (x + 0.5f) * inv_scale + inv_translate;
    if (sample < 0 || sample > in_size) continue;  // outside: empty span
    const int64_t start =
        Clamp(static_cast<int64_t>(std::ceil(sample - radius - 0.5f)), in_size);
    const int64_t end =
        Clamp(static_cast<int64_t>(std::floor(sample + radius - 0.5f)),
              in_size) +
        1;
    float total = 0.0f;
    w.clear();
    for (int64_t src = start; src < end; ++src) {
      const float pos = static_cast<float>(src) + 0.5f - sample;
      w.push_back(KernelValue(k, std::abs(pos * one_over_kernel_scale)));
      total += w.back();
    }
    if (std::abs(total) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv_total = 1.0f / total;
      for (size_t j = 0; j < w.size(); ++j) {
        s.weights[x * s.span_size + j] = w[j] * inv_total;
      }
    }
    s.starts[x] = start;
  }
  return s;
}

// The transposed spans: for each forward input index, the forward outputs
// it fed, with their weights summed per output.
Spans GradSpans(const Spans& fwd, int64_t fwd_out_size, int64_t fwd_in_size) {
  std::vector<std::vector<std::pair<int64_t, float>>> parts(fwd_in_size);
  for (int64_t o = 0; o < fwd_out_size; ++o) {
    for (int64_t j = 0; j < fwd.span_size; ++j) {
      const int64_t i = fwd.starts[o] + j;
      const float w = fwd.weights[o * fwd.span_size + j];
      if (w != 0.0f && i < fwd_in_size) parts[i].emplace_back(o, w);
    }
  }
  Spans g;
  for (const auto& p : parts) {
    if (!p.empty()) {
      g.span_size = std::max(g.span_size, p.back().first - p.front().first + 1);
    }
  }
  g.starts.assign(fwd_in_size, 0);
  g.weights.assign(g.span_size * fwd_in_size, 0.0f);
  for (int64_t i = 0; i < fwd_in_size; ++i) {
    if (parts[i].empty()) continue;
    g.starts[i] = parts[i].front().first;
    for (const auto& [o, w] : parts[i]) {
      g.weights[i * g.span_size + o - g.starts[i]] += w;
    }
  }
  return g;
}

// out[b, y, x, c] = sum over rows, then columns, of the weighted source
// (batch x in_h x in_w x depth) into out_h x out_w.
template <typename T>
void GatherSpans(const Spans& rows, const Spans& cols, const T* src,
                 int64_t batch, int64_t in_h, int64_t in_w, int64_t depth,
                 int64_t out_h, int64_t out_w, float* out) {
  const int64_t in_row = in_w * depth;
  std::vector<float> mid(out_h * in_row);
  for (int64_t b = 0; b < batch; ++b, src += in_h * in_row) {
    for (int64_t y = 0; y < out_h; ++y) {
      float* m = mid.data() + y * in_row;
      std::fill(m, m + in_row, 0.0f);
      const int64_t start = rows.starts[y];
      const int64_t n = std::min(start + rows.span_size, in_h) - start;
      for (int64_t j = 0; j < n; ++j) {
        const float w = rows.weights[y * rows.span_size + j];
        const T* s = src + (start + j) * in_row;
        for (int64_t k = 0; k < in_row; ++k) {
          m[k] += w * static_cast<float>(Load(s[k]));
        }
      }
    }
    for (int64_t y = 0; y < out_h; ++y) {
      const float* m = mid.data() + y * in_row;
      for (int64_t x = 0; x < out_w; ++x, out += depth) {
        const int64_t start = cols.starts[x];
        const int64_t n = std::min(start + cols.span_size, in_w) - start;
        std::fill(out, out + depth, 0.0f);
        for (int64_t j = 0; j < n; ++j) {
          const float w = cols.weights[x * cols.span_size + j];
          const float* p = m + (start + j) * depth;
          for (int64_t c = 0; c < depth; ++c) out[c] += w * p[c];
        }
      }
    }
  }
}

// scale / translation: two floats (row, column).
Status ReadPair(const Tensor& t, float* a, float* b) {
  if (t.dims() != 1) {
    return InvalidArgument("t must be 1-dimensional{}",
                           t.shape().DebugString());
  }
  if (t.NumElements() != 2) {
    return InvalidArgument("t must have two elements{}",
                           t.shape().DebugString());
  }
  *a = t.flat<float>()[0];
  *b = t.flat<float>()[1];
  return Status::Ok();
}

class ScaleAndTranslateOp : public OpKernel {
 public:
  explicit ScaleAndTranslateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("antialias", &antialias_));
    std::string name;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("kernel_type", &name));
    kernel_ = SamplingKernelFromName(name);
    DFG_OP_REQUIRES(ctx, kernel_ != SamplingKernel::kUnknown,
                    InvalidArgument("Unrecognized kernel type: {}", name));
    grad_ = ctx->def().op() == "ScaleAndTranslateGrad";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    int64_t out_h = 0, out_w = 0;
    DFG_OP_REQUIRES_OK(ctx, grad_ ? GradSize(ctx, &out_h, &out_w)
                                  : ForwardSize(ctx, &out_h, &out_w));
    float scale[2], shift[2];
    Tensor* out = nullptr;
    if (grad_) {
      DFG_OP_REQUIRES_OK(ctx, Allocate(ctx, in, out_h, out_w, &out));
    }
    DFG_OP_REQUIRES_OK(ctx, ReadPair(ctx->input(2), &scale[0], &scale[1]));
    DFG_OP_REQUIRES(ctx, scale[0] > 0 && scale[1] > 0,
                    InvalidArgument("Scale must be greater than zero."));
    DFG_OP_REQUIRES_OK(ctx, ReadPair(ctx->input(3), &shift[0], &shift[1]));
    if (!grad_) DFG_OP_REQUIRES_OK(ctx, Allocate(ctx, in, out_h, out_w, &out));
    if (out->NumElements() == 0) return;
    const int64_t in_h = in.dim_size(1), in_w = in.dim_size(2);
    Spans rows, cols;
    if (grad_) {
      // `in` is the gradient of the forward output; `out` has the forward
      // input's size.
      rows = GradSpans(
          ComputeSpans(kernel_, in_h, out_h, scale[0], shift[0], antialias_),
          in_h, out_h);
      cols = GradSpans(
          ComputeSpans(kernel_, in_w, out_w, scale[1], shift[1], antialias_),
          in_w, out_w);
    } else {
      rows = ComputeSpans(kernel_, out_h, in_h, scale[0], shift[0], antialias_);
      cols = ComputeSpans(kernel_, out_w, in_w, scale[1], shift[1], antialias_);
    }
    Dispatch(RealTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      GatherSpans(rows, cols, in.flat<T>().data(), in.dim_size(0), in_h, in_w,
                  in.dim_size(3), out_h, out_w, out->flat<float>().data());
    });
  }

 private:
  static Status Allocate(OpKernelContext* ctx, const Tensor& in, int64_t h,
                         int64_t w, Tensor** out) {
    return ctx->allocate_output(
        0, TensorShape({in.dim_size(0), h, w, in.dim_size(3)}), out);
  }

  static Status ForwardSize(OpKernelContext* ctx, int64_t* h, int64_t* w) {
    const Tensor& in = ctx->input(0);
    const Tensor& size = ctx->input(1);
    if (in.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional{}",
                             in.shape().DebugString());
    }
    if (size.dims() != 1) {
      return InvalidArgument("output_shape_t must be 1-dimensional{}",
                             size.shape().DebugString());
    }
    if (size.NumElements() != 2) {
      return InvalidArgument("output_shape_t must have two elements{}",
                             size.shape().DebugString());
    }
    *h = size.flat<int32_t>()[0];
    *w = size.flat<int32_t>()[1];
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (in.dim_size(1) >= kMax || in.dim_size(2) >= kMax) {
      return InvalidArgument("input sizes must be between 0 and max int32");
    }
    if (*h <= 0 || *w <= 0) {
      return InvalidArgument("output dimensions must be positive");
    }
    if (in.dim_size(3) <= 0) {
      return InvalidArgument("image must have at least one channel");
    }
    if (in.dim_size(1) <= 0 || in.dim_size(2) <= 0) {
      return InvalidArgument("input image must be of non-zero size");
    }
    return Status::Ok();
  }

  static Status GradSize(OpKernelContext* ctx, int64_t* h, int64_t* w) {
    const Tensor& grads = ctx->input(0);
    const Tensor& orig = ctx->input(1);
    if (grads.dims() != 4) {
      return InvalidArgument("input_grad must be 4-dimensional{}",
                             grads.shape().DebugString());
    }
    if (orig.dims() != 4) {
      return InvalidArgument("original_image must be 4-dimensional{}",
                             orig.shape().DebugString());
    }
    *h = orig.dim_size(1);
    *w = orig.dim_size(2);
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (*h >= kMax || *w >= kMax) {
      return InvalidArgument("original sizes must be between 0 and max int32");
    }
    return Status::Ok();
  }

  SamplingKernel kernel_ = SamplingKernel::kLanczos3;
  bool antialias_ = true, grad_ = false;
};

}  // namespace

void RegisterResizeGradKernels(KernelRegistry* r);

void RegisterImageExtKernels(KernelRegistry* r) {
  r->Register<ResizeAreaOp>("ResizeArea", {TypeConstraint("T", RealTypes())});
  r->Register<ScaleAndTranslateOp>("ScaleAndTranslate",
                                   {TypeConstraint("T", RealTypes())});
  r->Register<ScaleAndTranslateOp>("ScaleAndTranslateGrad",
                                   {TypeConstraint("T", TypeList<float>())});
  RegisterResizeGradKernels(r);
}

}  // namespace dfg
