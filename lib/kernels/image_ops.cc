// ResizeBicubic, CropAndResize and ExtractImagePatches (NHWC), as
// TensorFlow's image/resize_bicubic_op, image/crop_and_resize_op and
// extract_image_patches_op.
//
// ResizeBicubic samples a 1025-entry table of cubic-convolution weights:
// Keys' a = -0.5 with half_pixel_centers (out-of-image taps get weight 0 and
// the rest are renormalized), the legacy a = -0.75 otherwise (edge pixels
// repeated). Each output is the x-weighted sum of four y-interpolated
// columns, in float, in TensorFlow's order of operations.
#include <cmath>
#include <cstring>
#include <limits>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/image_resizer.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

constexpr int64_t kTableSize = 1024;

std::vector<float> CubicTable(double a) {
  std::vector<float> t((kTableSize + 1) * 2);
  for (int64_t i = 0; i <= kTableSize; ++i) {
    float x = i * 1.0 / kTableSize;
    t[i * 2] = ((a + 2) * x - (a + 3)) * x * x + 1;
    x += 1.0;
    t[i * 2 + 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  }
  return t;
}

const std::vector<float>& CoeffsTable(bool keys) {
  static const std::vector<float> keys_table = CubicTable(-0.5);
  static const std::vector<float> legacy_table = CubicTable(-0.75);
  return keys ? keys_table : legacy_table;
}

int64_t Bound(int64_t v, int64_t limit) {
  return std::min(limit - 1, std::max<int64_t>(0, v));
}

using Taps = BicubicTaps;

Taps CubicTaps(float scale, int64_t out, int64_t limit, bool half_pixel) {
  const float in_f = half_pixel
                         ? (static_cast<float>(out) + 0.5f) * scale - 0.5f
                         : out * scale;
  const int64_t in = static_cast<int64_t>(std::floor(in_f));
  const float delta = in_f - in;
  const int64_t offset = std::lrint(delta * kTableSize);
  const std::vector<float>& t = CoeffsTable(half_pixel);
  Taps taps;
  const float w[4] = {t[offset * 2 + 1], t[offset * 2],
                      t[(kTableSize - offset) * 2],
                      t[(kTableSize - offset) * 2 + 1]};
  for (int i = 0; i < 4; ++i) {
    taps.index[i] = Bound(in - 1 + i, limit);
    taps.w[i] = w[i];
    if (half_pixel && taps.index[i] != in - 1 + i) taps.w[i] = 0.0f;
  }
  if (half_pixel) {
    const float sum = taps.w[0] + taps.w[1] + taps.w[2] + taps.w[3];
    if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv = 1.0f / sum;
      for (float& x : taps.w) x *= inv;
    }
  }
  return taps;
}

}  // namespace

BicubicTaps BicubicTapsAt(float scale, int64_t out, int64_t limit,
                          bool half_pixel) {
  return CubicTaps(scale, out, limit, half_pixel);
}

namespace {

class ResizeBicubicOp : public OpKernel {
 public:
  explicit ResizeBicubicOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_));
    DFG_OP_REQUIRES_OK(ctx, CheckResizeAttrs(align_corners_, half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    StatusOr<ResizeDims> dims =
        ResizeOutputSize(in, ctx->input(1), align_corners_);
    DFG_OP_REQUIRES_OK(ctx, dims.status());
    const int64_t batch = dims->batch, in_h = dims->in_h, in_w = dims->in_w,
                  depth = dims->depth;
    const int64_t s[2] = {dims->out_h, dims->out_w};
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(0, TensorShape({batch, s[0], s[1], depth}), &out));
    if (out->NumElements() == 0) return;
    const float scale_h = dims->scale_h, scale_w = dims->scale_w;
    std::vector<Taps> xs(s[1]);
    for (int64_t x = 0; x < s[1]; ++x) {
      xs[x] = CubicTaps(scale_w, x, in_w, half_pixel_);
    }
    Dispatch(RealTypes(), in.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* ip = in.flat<T>().data();
      float* op = out->flat<float>().data();
      const int64_t row = in_w * depth;
      for (int64_t b = 0; b < batch; ++b) {
        const T* img = ip + b * in_h * row;
        for (int64_t y = 0; y < s[0]; ++y) {
          const Taps ty = CubicTaps(scale_h, y, in_h, half_pixel_);
          const T* r[4];
          for (int i = 0; i < 4; ++i) r[i] = img + ty.index[i] * row;
          for (int64_t x = 0; x < s[1]; ++x) {
            const Taps& tx = xs[x];
            for (int64_t c = 0; c < depth; ++c, ++op) {
              float col[4];
              for (int j = 0; j < 4; ++j) {
                const int64_t k = tx.index[j] * depth + c;
                col[j] = static_cast<float>(Load(r[0][k])) * ty.w[0] +
                         static_cast<float>(Load(r[1][k])) * ty.w[1] +
                         static_cast<float>(Load(r[2][k])) * ty.w[2] +
                         static_cast<float>(Load(r[3][k])) * ty.w[3];
              }
              *op = col[0] * tx.w[0] + col[1] * tx.w[1] + col[2] * tx.w[2] +
                    col[3] * tx.w[3];
            }
          }
        }
      }
    });
  }

 private:
  bool align_corners_ = false, half_pixel_ = false;
};

Status CheckCropInputs(const Tensor& image, const Tensor& boxes,
                       const Tensor& box_index, const Tensor& crop_size) {
  if (image.dims() != 4) {
    return InvalidArgument("input image must be 4-D{}",
                           image.shape().DebugString());
  }
  if (image.dim_size(1) <= 0 || image.dim_size(2) <= 0) {
    return InvalidArgument("image dimensions must be positive");
  }
  if (boxes.dims() != 2) {
    return InvalidArgument("boxes must be 2-D, got: {}",
                           boxes.shape().DebugString());
  }
  if (box_index.dims() != 1) {
    return InvalidArgument("box_indices must be rank 1 but is shape {}",
                           box_index.shape().DebugString());
  }
  if (boxes.NumElements() != 0 || box_index.NumElements() != 0) {
    if (boxes.dim_size(1) != 4) {
      return InvalidArgument("boxes must have 4 columns");
    }
    if (box_index.dim_size(0) != boxes.dim_size(0)) {
      return InvalidArgument("box_index has incompatible shape");
    }
  }
  if (crop_size.dims() != 1) {
    return InvalidArgument("crop_size must be 1-D{}",
                           crop_size.shape().DebugString());
  }
  if (crop_size.dim_size(0) != 2) {
    return InvalidArgument("crop_size must have two elements{}",
                           crop_size.shape().DebugString());
  }
  return Status::Ok();
}

class CropAndResizeOp : public OpKernel {
 public:
  explicit CropAndResizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string method;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("method", &method));
    DFG_OP_REQUIRES(
        ctx, method == "bilinear" || method == "nearest",
        InvalidArgument("method must be 'bilinear' or 'nearest'{}", method));
    bilinear_ = method == "bilinear";
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("extrapolation_value", &extrapolation_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_index = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx,
                       CheckCropInputs(image, boxes, box_index, ctx->input(3)));
    const auto crop = ctx->input(3).flat<int32_t>();
    DFG_OP_REQUIRES(ctx, crop[0] > 0 && crop[1] > 0,
                    InvalidArgument("crop dimensions must be positive"));
    const int64_t num_boxes = box_index.dim_size(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({num_boxes, crop[0], crop[1], image.dim_size(3)}),
            &out));
    const auto bi = box_index.flat<int32_t>();
    for (int64_t b = 0; b < num_boxes; ++b) {
      DFG_OP_REQUIRES(ctx, bi[b] >= 0 && bi[b] < image.dim_size(0),
                      OutOfRange("box_index has values outside [0, "
                                 "batch_size)"));
    }
    for (float v : boxes.flat<float>()) {
      DFG_OP_REQUIRES(ctx, std::isfinite(v),
                      InvalidArgument("Boxes contains at least one element "
                                      "that is not finite"));
    }
    Dispatch(RealTypes(), image.dtype(), [&](auto z) {
      using T = decltype(z);
      for (int64_t b = 0; b < num_boxes; ++b) {
        CropOne<T>(image, boxes.flat<float>().data() + 4 * b, bi[b], crop[0],
                   crop[1],
                   out->flat<float>().data() +
                       b * crop[0] * crop[1] * image.dim_size(3));
      }
    });
  }

 private:
  template <typename T>
  void CropOne(const Tensor& image, const float* box, int64_t b_in,
               int64_t crop_h, int64_t crop_w, float* out) const {
    const int64_t ih = image.dim_size(1), iw = image.dim_size(2),
                  depth = image.dim_size(3);
    const T* img = image.flat<T>().data() + b_in * ih * iw * depth;
    auto at = [&](int64_t y, int64_t x, int64_t d) {
      return static_cast<float>(Load(img[(y * iw + x) * depth + d]));
    };
    const float y1 = box[0], x1 = box[1], y2 = box[2], x2 = box[3];
    const float hs = crop_h > 1 ? (y2 - y1) * (ih - 1) / (crop_h - 1) : 0;
    const float ws = crop_w > 1 ? (x2 - x1) * (iw - 1) / (crop_w - 1) : 0;
    for (int64_t y = 0; y < crop_h; ++y) {
      const float in_y =
          crop_h > 1 ? y1 * (ih - 1) + y * hs : 0.5 * (y1 + y2) * (ih - 1);
      for (int64_t x = 0; x < crop_w; ++x, out += depth) {
        const float in_x =
            crop_w > 1 ? x1 * (iw - 1) + x * ws : 0.5 * (x1 + x2) * (iw - 1);
        if (in_y < 0 || in_y > ih - 1 || in_x < 0 || in_x > iw - 1) {
          std::fill(out, out + depth, extrapolation_);
          continue;
        }
        if (!bilinear_) {
          const int64_t cy = static_cast<int64_t>(std::round(in_y));
          const int64_t cx = static_cast<int64_t>(std::round(in_x));
          for (int64_t d = 0; d < depth; ++d) out[d] = at(cy, cx, d);
          continue;
        }
        const int64_t top = static_cast<int64_t>(std::floor(in_y));
        const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
        const float y_lerp = in_y - top;
        const int64_t left = static_cast<int64_t>(std::floor(in_x));
        const int64_t right = static_cast<int64_t>(std::ceil(in_x));
        const float x_lerp = in_x - left;
        for (int64_t d = 0; d < depth; ++d) {
          const float tl = at(top, left, d), tr = at(top, right, d);
          const float bl = at(bottom, left, d), br = at(bottom, right, d);
          const float t = tl + (tr - tl) * x_lerp;
          const float bt = bl + (br - bl) * x_lerp;
          out[d] = t + (bt - t) * y_lerp;
        }
      }
    }
  }

  bool bilinear_ = true;
  float extrapolation_ = 0.0f;
};

class ExtractImagePatchesOp : public OpKernel {
 public:
  explicit ExtractImagePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    for (auto [name, v] :
         {std::pair{"ksizes", &ksizes_}, std::pair{"strides", &strides_},
          std::pair{"rates", &rates_}}) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr(name, v));
      // TensorFlow concatenates these messages without spaces.
      DFG_OP_REQUIRES(ctx, v->size() >= 4 && (*v)[0] == 1 && (*v)[3] == 1,
                      Unimplemented("Only support{}across space.", name));
      DFG_OP_REQUIRES(ctx, (*v)[1] >= 1 && (*v)[2] >= 1,
                      OutOfRange("{}is out of range.", name));
    }
    std::string padding;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFG_OP_REQUIRES_OK(ctx, ParsePadding(padding, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("input must be 4-dimensional{}",
                                    in.shape().DebugString()));
    const int64_t batch = in.dim_size(0), depth = in.dim_size(3);
    Window w[2];
    for (int i = 0; i < 2; ++i) {
      const int64_t k = ksizes_[i + 1], rate = rates_[i + 1];
      // The window is the dilated kernel, stepped as a dense one.
      w[i] = Window{in.dim_size(i + 1), k + (k - 1) * (rate - 1), 1,
                    strides_[i + 1]};
      DFG_OP_REQUIRES_OK(ctx, ComputeWindow(padding_, &w[i]));
    }
    const int64_t kh = ksizes_[1], kw = ksizes_[2];
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({batch, w[0].out, w[1].out, kh * kw * depth}),
                 &out));
    if (out->NumElements() == 0) return;
    const int64_t in_h = in.dim_size(1), in_w = in.dim_size(2);
    const int64_t elem = DataTypeSize(in.dtype());
    const char* src = static_cast<const char*>(in.data());
    char* dst = static_cast<char*>(out->data());
    const int64_t run = depth * elem;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t oy = 0; oy < w[0].out; ++oy) {
        for (int64_t ox = 0; ox < w[1].out; ++ox) {
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy =
                oy * w[0].stride - w[0].pad_before + ky * rates_[1];
            for (int64_t kx = 0; kx < kw; ++kx, dst += run) {
              const int64_t ix =
                  ox * w[1].stride - w[1].pad_before + kx * rates_[2];
              if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) {
                std::memset(dst, 0, run);
              } else {
                std::memcpy(dst, src + ((b * in_h + iy) * in_w + ix) * run,
                            run);
              }
            }
          }
        }
      }
    }
  }

 private:
  std::vector<int64_t> ksizes_, strides_, rates_;
  Padding padding_ = Padding::kValid;
};

}  // namespace

void RegisterImageKernels(KernelRegistry* r) {
  r->Register<ResizeBicubicOp>("ResizeBicubic",
                               {TypeConstraint("T", RealTypes())});
  r->Register<CropAndResizeOp>("CropAndResize",
                               {TypeConstraint("T", RealTypes())});
  r->Register<ExtractImagePatchesOp>("ExtractImagePatches",
                                     {TypeConstraint("T", RealTypes())});
}

}  // namespace dfg
