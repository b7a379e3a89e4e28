// ImageProjectiveTransformV2/V3 and the CropAndResize gradients
// (CropAndResizeGradImage, CropAndResizeGradBoxes), NHWC, as TensorFlow's
// image/image_ops (ProjectiveGenerator, scipy's fill modes) and
// image/crop_and_resize_op CPU kernels, in their float arithmetic.
#include <cmath>
#include <limits>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// ---- ImageProjectiveTransform ----------------------------------------------

enum class Fill { kReflect, kWrap, kConstant, kNearest };

float ClampCoord(float v, int64_t len) {
  const float hi = static_cast<float>(len - 1);
  return v < 0.0f ? 0.0f : (v > hi ? hi : v);
}

// MapCoordinate: an output coordinate outside [0, len - 1] mapped back in.
float MapCoordinate(Fill mode, float in, int64_t len) {
  switch (mode) {
    case Fill::kReflect:
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          if (in < sz2) in = sz2 * static_cast<int64_t>(-in / sz2) + in;
          in = in < -len ? in + sz2 : -in - 1;
        }
      } else if (in > len - 1) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          in -= sz2 * static_cast<int64_t>(in / sz2);
          if (in >= len) in = sz2 - in - 1;
        }
      }
      return ClampCoord(in, len);
    case Fill::kWrap:
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in += len * (static_cast<int64_t>(-in / sz) + 1);
        }
      } else if (in > len - 1) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in -= len * static_cast<int64_t>(in / sz);
        }
      }
      return ClampCoord(in, len);
    case Fill::kNearest:
      return ClampCoord(in, len);
    default:
      return in;
  }
}

class ProjectiveTransformOp : public OpKernel {
 public:
  explicit ProjectiveTransformOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string interp, mode;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("interpolation", &interp));
    DFG_OP_REQUIRES(ctx, interp == "NEAREST" || interp == "BILINEAR",
                    InvalidArgument("Invalid interpolation {}. Supported "
                                    "types: NEAREST, BILINEAR",
                                    interp));
    bilinear_ = interp == "BILINEAR";
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("fill_mode", &mode));
    static const std::pair<const char*, Fill> kModes[] = {
        {"REFLECT", Fill::kReflect},
        {"WRAP", Fill::kWrap},
        {"CONSTANT", Fill::kConstant},
        {"NEAREST", Fill::kNearest}};
    bool known = false;
    for (const auto& [name, m] : kModes) {
      if (mode == name) fill_ = m, known = true;
    }
    DFG_OP_REQUIRES(ctx, known,
                    InvalidArgument("Invalid mode {}. Supported types: "
                                    "REFLECT, WRAP, CONSTANT, NEAREST",
                                    mode));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const Tensor& tf = ctx->input(1);
    DFG_OP_REQUIRES(ctx, images.dims() == 4,
                    InvalidArgument("Input images must have rank 4"));
    DFG_OP_REQUIRES(
        ctx,
        tf.dims() == 2 &&
            (tf.dim_size(0) == images.dim_size(0) || tf.dim_size(0) == 1) &&
            tf.dim_size(1) == 8,
        InvalidArgument("Input transform should be num_images x 8 or 1 x 8"));
    const Tensor& shape = ctx->input(2);
    DFG_OP_REQUIRES(ctx, shape.dims() == 1,
                    InvalidArgument("output shape must be 1-dimensional{}",
                                    shape.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, shape.NumElements() == 2,
                    InvalidArgument("output shape must have two elements{}",
                                    shape.shape().DebugString()));
    const int64_t h = shape.flat<int32_t>()[0], w = shape.flat<int32_t>()[1];
    DFG_OP_REQUIRES(ctx, h > 0 && w > 0,
                    InvalidArgument("output dimensions must be positive"));
    float fill_value = 0.0f;
    if (ctx->num_inputs() > 3) {
      const Tensor& f = ctx->input(3);
      DFG_OP_REQUIRES(ctx, f.dims() == 0,
                      InvalidArgument("fill_value must be a scalar{}",
                                      f.shape().DebugString()));
      fill_value = f.scalar<float>();
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({images.dim_size(0), h, w, images.dim_size(3)}),
                 &out));
    if (out->NumElements() == 0) return;
    Dispatch(RealTypes(), images.dtype(), [&](auto v) {
      using T = decltype(v);
      Transform<T>(images, tf.flat<float>().data(), tf.dim_size(0) == 1,
                   Store<T>(fill_value), out);
    });
  }

 private:
  template <typename T>
  void Transform(const Tensor& images, const float* transforms, bool shared,
                 T fill, Tensor* out) const {
    const int64_t n = out->dim_size(0), h = out->dim_size(1),
                  w = out->dim_size(2), c = out->dim_size(3);
    const int64_t ih = images.dim_size(1), iw = images.dim_size(2);
    const T* in = images.flat<T>().data();
    T* o = out->flat<T>().data();
    for (int64_t b = 0; b < n; ++b) {
      const float* t = transforms + (shared ? 0 : 8 * b);
      const T* img = in + b * ih * iw * c;
      auto read = [&](int64_t y, int64_t x, int64_t ch) {
        return 0 <= y && y < ih && 0 <= x && x < iw ? img[(y * iw + x) * c + ch]
                                                    : fill;
      };
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t x = 0; x < w; ++x, o += c) {
          const float proj = t[6] * x + t[7] * y + 1.f;
          if (proj == 0) {
            std::fill(o, o + c, fill);
            continue;
          }
          const float in_x = (t[0] * x + t[1] * y + t[2]) / proj;
          const float in_y = (t[3] * x + t[4] * y + t[5]) / proj;
          // CONSTANT leaves the coordinates as they are: neighbours outside
          // the image read as the fill value (TensorFlow 2.21 no longer
          // fills every output whose source point is outside).
          const float mx = MapCoordinate(fill_, in_x, iw);
          const float my = MapCoordinate(fill_, in_y, ih);
          for (int64_t ch = 0; ch < c; ++ch) {
            o[ch] = bilinear_ ? Bilinear<T>(read, my, mx, ch)
                              : read(static_cast<int64_t>(std::round(my)),
                                     static_cast<int64_t>(std::round(mx)), ch);
          }
        }
      }
    }
  }

  template <typename T, typename Read>
  static T Bilinear(const Read& read, float y, float x, int64_t ch) {
    const float y0 = std::floor(y), x0 = std::floor(x);
    const float y1 = y0 + 1, x1 = x0 + 1;
    auto at = [&](float yy, float xx) {
      return static_cast<float>(
          Load(read(static_cast<int64_t>(yy), static_cast<int64_t>(xx), ch)));
    };
    const float top = (x1 - x) * at(y0, x0) + (x - x0) * at(y0, x1);
    const float bottom = (x1 - x) * at(y1, x0) + (x - x0) * at(y1, x1);
    return Store<T>((y1 - y) * top + (y - y0) * bottom);
  }

  bool bilinear_ = false;
  Fill fill_ = Fill::kConstant;
};

// ---- CropAndResize gradients -----------------------------------------------

Status CheckBoxes(const Tensor& boxes, const Tensor& box_index,
                  int64_t* num_boxes) {
  *num_boxes = 0;
  if (boxes.NumElements() == 0 && box_index.NumElements() == 0) {
    return Status::Ok();
  }
  if (boxes.dims() != 2) {
    return InvalidArgument("boxes must be 2-D{}", boxes.shape().DebugString());
  }
  *num_boxes = boxes.dim_size(0);
  if (boxes.dim_size(1) != 4) {
    return InvalidArgument("boxes must have 4 columns");
  }
  if (box_index.dims() != 1) {
    return InvalidArgument("box_index must be 1-D{}",
                           box_index.shape().DebugString());
  }
  if (box_index.dim_size(0) != *num_boxes) {
    return InvalidArgument("box_index has incompatible shape");
  }
  return Status::Ok();
}

Status CheckGrads(const Tensor& grads) {
  if (grads.dims() != 4) {
    return InvalidArgument("grads image must be 4-D{}",
                           grads.shape().DebugString());
  }
  if (grads.dim_size(1) <= 0 || grads.dim_size(2) <= 0) {
    return InvalidArgument("grads dimensions must be positive");
  }
  return Status::Ok();
}

Status CheckBoxIndexRange(const Tensor& box_index, int64_t batch) {
  for (int32_t b : box_index.flat<int32_t>()) {
    if (b < 0 || b >= batch) {
      return OutOfRange("box_index has values outside [0, batch_size)");
    }
  }
  return Status::Ok();
}

// The sampling grid of one box along one axis (crop_and_resize_op).
struct Axis {
  float start, scale, mid;
  int64_t crop, size;
  float At(int64_t i) const { return crop > 1 ? start + i * scale : mid; }
};

Axis MakeAxis(float a, float b, int64_t crop, int64_t size) {
  Axis ax;
  ax.crop = crop;
  ax.size = size;
  ax.scale = crop > 1 ? (b - a) * (size - 1) / (crop - 1) : 0;
  ax.start = a * (size - 1);
  ax.mid = 0.5 * (a + b) * (size - 1);
  return ax;
}

class CropAndResizeGradImageOp : public OpKernel {
 public:
  explicit CropAndResizeGradImageOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string method;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("method", &method));
    DFG_OP_REQUIRES(
        ctx, method == "bilinear" || method == "nearest",
        InvalidArgument("method must be 'bilinear' or 'nearest'{}", method));
    bilinear_ = method == "bilinear";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_index = ctx->input(2);
    const Tensor& size = ctx->input(3);
    DFG_OP_REQUIRES_OK(ctx, CheckGrads(grads));
    int64_t num_boxes = 0;
    DFG_OP_REQUIRES_OK(ctx, CheckBoxes(boxes, box_index, &num_boxes));
    DFG_OP_REQUIRES(ctx, grads.dim_size(0) == num_boxes,
                    InvalidArgument("boxes and grads have incompatible shape"));
    DFG_OP_REQUIRES(ctx, size.dims() == 1,
                    InvalidArgument("image_size must be 1-D{}",
                                    size.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, size.dim_size(0) == 4,
                    InvalidArgument("image_size must have 4 elements{}",
                                    size.shape().DebugString()));
    const auto s = size.flat<int32_t>();
    DFG_OP_REQUIRES(ctx, s[1] > 0 && s[2] > 0,
                    InvalidArgument("image dimensions must be positive"));
    DFG_OP_REQUIRES(ctx, grads.dim_size(3) == s[3],
                    InvalidArgument("image_size and grads are incompatible"));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(0, TensorShape({s[0], s[1], s[2], s[3]}), &out));
    DFG_OP_REQUIRES_OK(ctx, CheckBoxIndexRange(box_index, s[0]));
    // Sums in double for a double image (each term rounded to float first,
    // as TensorFlow casts them), in float otherwise.
    Dispatch(FloatTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      std::vector<C> acc(out->NumElements(), C(0));
      Scatter<T>(grads, boxes.flat<float>().data(),
                 box_index.flat<int32_t>().data(), s[1], s[2], acc.data());
      T* o = out->flat<T>().data();
      for (size_t i = 0; i < acc.size(); ++i) o[i] = Store<T>(acc[i]);
    });
  }

 private:
  // acc += term as TensorFlow's T arithmetic does it: each term cast to T,
  // and for half each sum rounded to half.
  template <typename T, typename C>
  static void Add(C* acc, float term) {
    if constexpr (kIsHalfLike<T>) {
      *acc = Load(Store<T>(*acc + Load(Store<T>(term))));
    } else {
      *acc += C(term);
    }
  }

  template <typename T, typename C>
  void Scatter(const Tensor& grads, const float* boxes, const int32_t* index,
               int64_t ih, int64_t iw, C* acc) const {
    const int64_t n = grads.dim_size(0), ch = grads.dim_size(1),
                  cw = grads.dim_size(2), depth = grads.dim_size(3);
    const float* g = grads.flat<float>().data();
    for (int64_t b = 0; b < n; ++b) {
      const float* box = boxes + 4 * b;
      const Axis ay = MakeAxis(box[0], box[2], ch, ih);
      const Axis ax = MakeAxis(box[1], box[3], cw, iw);
      C* img = acc + index[b] * ih * iw * depth;
      for (int64_t y = 0; y < ch; ++y) {
        const float in_y = ay.At(y);
        if (in_y < 0 || in_y > ih - 1) continue;
        const int64_t top = static_cast<int64_t>(std::floor(in_y));
        const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
        const float ly = in_y - top;
        for (int64_t x = 0; x < cw; ++x) {
          const float in_x = ax.At(x);
          if (in_x < 0 || in_x > iw - 1) continue;
          const float* gp = g + ((b * ch + y) * cw + x) * depth;
          auto px = [&](int64_t yy, int64_t xx) {
            return img + (yy * iw + xx) * depth;
          };
          if (!bilinear_) {
            C* p = px(std::lround(in_y), std::lround(in_x));
            for (int64_t d = 0; d < depth; ++d) Add<T>(&p[d], gp[d]);
            continue;
          }
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float lx = in_x - left;
          for (int64_t d = 0; d < depth; ++d) {
            const float dtop = (1 - ly) * gp[d];
            Add<T>(&px(top, left)[d], (1 - lx) * dtop);
            Add<T>(&px(top, right)[d], lx * dtop);
            const float dbottom = ly * gp[d];
            Add<T>(&px(bottom, left)[d], (1 - lx) * dbottom);
            Add<T>(&px(bottom, right)[d], lx * dbottom);
          }
        }
      }
    }
  }

  bool bilinear_ = true;
};

class CropAndResizeGradBoxesOp : public OpKernel {
 public:
  explicit CropAndResizeGradBoxesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string method;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("method", &method));
    DFG_OP_REQUIRES(ctx, method == "bilinear",
                    InvalidArgument("method must be 'bilinear'{}", method));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& image = ctx->input(1);
    const Tensor& boxes = ctx->input(2);
    const Tensor& box_index = ctx->input(3);
    DFG_OP_REQUIRES_OK(ctx, CheckGrads(grads));
    DFG_OP_REQUIRES(ctx, image.dims() == 4,
                    InvalidArgument("input image must be 4-D{}",
                                    image.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, image.dim_size(1) > 0 && image.dim_size(2) > 0,
                    InvalidArgument("image dimensions must be positive"));
    DFG_OP_REQUIRES(ctx, image.dim_size(3) == grads.dim_size(3),
                    InvalidArgument("image, grads depth differ"));
    int64_t num_boxes = 0;
    DFG_OP_REQUIRES_OK(ctx, CheckBoxes(boxes, box_index, &num_boxes));
    DFG_OP_REQUIRES(ctx, grads.dim_size(0) == num_boxes,
                    InvalidArgument("boxes and grads have incompatible shape"));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({num_boxes, 4}), &out));
    DFG_OP_REQUIRES_OK(ctx, CheckBoxIndexRange(box_index, image.dim_size(0)));
    Dispatch(RealTypes(), image.dtype(), [&](auto v) {
      Boxes<decltype(v)>(grads, image, boxes.flat<float>().data(),
                         box_index.flat<int32_t>().data(),
                         out->flat<float>().data());
    });
  }

 private:
  template <typename T>
  static void Boxes(const Tensor& grads, const Tensor& image,
                    const float* boxes, const int32_t* index, float* out) {
    const int64_t n = grads.dim_size(0), ch = grads.dim_size(1),
                  cw = grads.dim_size(2), depth = grads.dim_size(3);
    const int64_t ih = image.dim_size(1), iw = image.dim_size(2);
    const float* g = grads.flat<float>().data();
    const float hr = ch > 1 ? static_cast<float>(ih - 1) / (ch - 1) : 0;
    const float wr = cw > 1 ? static_cast<float>(iw - 1) / (cw - 1) : 0;
    for (int64_t b = 0; b < n; ++b) {
      const float* box = boxes + 4 * b;
      float* gb = out + 4 * b;
      std::fill(gb, gb + 4, 0.0f);
      const T* img = image.flat<T>().data() + index[b] * ih * iw * depth;
      const float hs = ch > 1 ? (box[2] - box[0]) * hr : 0;
      const float ws = cw > 1 ? (box[3] - box[1]) * wr : 0;
      for (int64_t y = 0; y < ch; ++y) {
        const float in_y =
            ch > 1 ? box[0] * (ih - 1) + y * hs
                   : static_cast<float>(0.5 * (box[0] + box[2]) * (ih - 1));
        if (in_y < 0 || in_y > ih - 1) continue;
        const int64_t top = static_cast<int64_t>(std::floor(in_y));
        const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
        const float ly = in_y - top;
        for (int64_t x = 0; x < cw; ++x) {
          const float in_x =
              cw > 1 ? box[1] * (iw - 1) + x * ws
                     : static_cast<float>(0.5 * (box[1] + box[3]) * (iw - 1));
          if (in_x < 0 || in_x > iw - 1) continue;
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float lx = in_x - left;
          for (int64_t d = 0; d < depth; ++d) {
            auto at = [&](int64_t yy, int64_t xx) {
              return static_cast<float>(Load(img[(yy * iw + xx) * depth + d]));
            };
            const float tl = at(top, left), tr = at(top, right);
            const float bl = at(bottom, left), br = at(bottom, right);
            const float top_grad = g[((b * ch + y) * cw + x) * depth + d];
            const float gy = ((1 - lx) * (bl - tl) + lx * (br - tr)) * top_grad;
            const float gx = ((1 - ly) * (tr - tl) + ly * (br - bl)) * top_grad;
            if (ch > 1) {
              gb[0] += gy * (ih - 1 - y * hr);
              gb[2] += gy * (y * hr);
            } else {
              gb[0] = gb[0] + gy * 0.5 * (ih - 1);
              gb[2] = gb[2] + gy * 0.5 * (ih - 1);
            }
            if (cw > 1) {
              gb[1] += gx * (iw - 1 - x * wr);
              gb[3] += gx * (x * wr);
            } else {
              gb[1] = gb[1] + gx * 0.5 * (iw - 1);
              gb[3] = gb[3] + gx * 0.5 * (iw - 1);
            }
          }
        }
      }
    }
  }
};

}  // namespace

void RegisterImageTransformKernels(KernelRegistry* r) {
  const auto types = TypeConstraint(
      "dtype",
      TypeList<uint8_t, int32_t, int64_t, Half, BFloat16, float, double>());
  r->Register<ProjectiveTransformOp>("ImageProjectiveTransformV2", {types});
  r->Register<ProjectiveTransformOp>("ImageProjectiveTransformV3", {types});
  r->Register<CropAndResizeGradImageOp>(
      "CropAndResizeGradImage",
      {TypeConstraint("T", TypeList<Half, float, double>())});
  r->Register<CropAndResizeGradBoxesOp>("CropAndResizeGradBoxes",
                                        {TypeConstraint("T", RealTypes())});
}

}  // namespace dfg
