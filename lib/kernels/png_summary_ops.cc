// ImageSummary (TensorFlow's core/kernels/summary_image_op.cc,
// lib/png/png_io.cc): images written by libpng with
// TensorFlow's settings (zlib level, memory level 9, default filters, no
// metadata), so the bytes match. ImageSummary rescales float images to
// uint8 as TensorFlow does (by 255/max, or by 127/max|x| around 128 when
// negative values occur; non-finite pixels take bad_color) and emits up to
// max_images Summary.Image values.
#include <png.h>

#include <cmath>
#include <limits>

#include "lib/kernels/kernel_util.h"
#include "lib/proto/summary.pb.h"

namespace dfg {
namespace {

using tensorflow::DT_UINT8;

// zlib's Z_DEFAULT_COMPRESSION and MAX_MEM_LEVEL (zlib.h is lib/io's).
constexpr int kZlibDefaultLevel = -1;
constexpr int kZlibMaxMemLevel = 9;

void AppendToString(png_structp png, png_bytep data, png_size_t size) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), size);
}

void NoFlush(png_structp) {}

[[noreturn]] void PngError(png_structp png, png_const_charp) {
  png_longjmp(png, 1);
}

void PngWarning(png_structp, png_const_charp) {}

// Rows of `height` x `row_bytes`; false when libpng fails.
bool WritePng(const void* image, int width, int height, int row_bytes,
              int channels, int bits, int compression, std::string* out) {
  out->clear();
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr,
                                            PngError, PngWarning);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  static const int kColor[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                               PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_write_fn(png, out, AppendToString, NoFlush);
  png_set_compression_level(png,
                            compression < 0 ? kZlibDefaultLevel : compression);
  png_set_compression_mem_level(png, kZlibMaxMemLevel);
  png_set_IHDR(png, info, width, height, bits, kColor[channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (bits > 8) png_set_swap(png);  // 16-bit samples are stored big-endian
  auto* row = static_cast<png_bytep>(const_cast<void*>(image));
  for (int y = 0; y < height; ++y, row += row_bytes) png_write_row(png, row);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

// One float image (hw pixels x depth) as uint8, TensorFlow's way: the
// arithmetic in T (so half rounds as half does), then truncation.
template <typename T>
std::vector<uint8_t> Normalize(const T* v, int64_t hw, int64_t depth,
                               const uint8_t* bad_color) {
  auto finite_pixel = [&](int64_t i) {
    for (int64_t j = 0; j < depth; ++j) {
      if (!std::isfinite(static_cast<float>(Load(v[i * depth + j])))) {
        return false;
      }
    }
    return true;
  };
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (int64_t i = 0; i < hw; ++i) {
    if (!finite_pixel(i)) continue;
    for (int64_t j = 0; j < depth; ++j) {
      const float x = static_cast<float>(Load(v[i * depth + j]));
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  const float kZero = 1e-6f;
  float scale_f, offset_f;
  if (lo < 0) {
    const float m = std::max(std::abs(lo), std::abs(hi));
    scale_f = m < kZero ? 0.0f : 127.0f / m;
    offset_f = 128.0f;
  } else {
    scale_f = hi < kZero ? 0.0f : 255.0f / hi;
    offset_f = 0.0f;
  }
  const T scale = Store<T>(scale_f), offset = Store<T>(offset_f);
  std::vector<uint8_t> out(hw * depth);
  for (int64_t i = 0; i < hw; ++i) {
    const bool ok = finite_pixel(i);
    for (int64_t j = 0; j < depth; ++j) {
      if (!ok) {
        out[i * depth + j] = bad_color[j];
        continue;
      }
      // Two roundings to T, as Eigen's v * scale + offset in T does.
      const T product = Store<T>(Load(v[i * depth + j]) * Load(scale));
      const T sum = Store<T>(Load(product) + Load(offset));
      out[i * depth + j] = static_cast<uint8_t>(Load(sum));
    }
  }
  return out;
}

class ImageSummaryOp : public OpKernel {
 public:
  explicit ImageSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("max_images", &max_images_));
    TensorProto proto;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_color", &proto));
    auto bad = Tensor::FromProto(proto);
    DFG_OP_REQUIRES_OK(ctx, bad.status());
    bad_color_ = *std::move(bad);
    DFG_OP_REQUIRES(ctx, bad_color_.dtype() == DT_UINT8,
                    InvalidArgument("bad_color must be uint8, got {}",
                                    DataTypeString(bad_color_.dtype())));
    DFG_OP_REQUIRES(ctx, bad_color_.dims() == 1,
                    InvalidArgument("bad_color must be a vector, got shape {}",
                                    bad_color_.shape().DebugString()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, tag.dims() == 0,
                    InvalidArgument("Tags must be a scalar"));
    DFG_OP_REQUIRES(ctx,
                    t.dims() == 4 && (t.dim_size(3) == 1 ||
                                      t.dim_size(3) == 3 || t.dim_size(3) == 4),
                    InvalidArgument("Tensor must be 4-D with last dim 1, 3, or "
                                    "4, not {}",
                                    t.shape().DebugString()));
    const int64_t batch = t.dim_size(0), h = t.dim_size(1), w = t.dim_size(2);
    const int64_t depth = t.dim_size(3), hw = h * w;
    DFG_OP_REQUIRES(ctx, hw > 0 && depth > 0,
                    InvalidArgument("input tensor must have non-zero dims. "
                                    "Found: {}",
                                    t.shape().DebugString()));
    if (t.dtype() != DT_UINT8) {
      DFG_OP_REQUIRES(ctx, bad_color_.dim_size(0) >= depth,
                      InvalidArgument("expected depth <= bad_color.size, got "
                                      "depth = {}, bad_color.size = {}",
                                      depth, bad_color_.dim_size(0)));
    }
    tensorflow::Summary s;
    const std::string& base = tag.flat<std::string>()[0];
    const int64_t n = std::min<int64_t>(max_images_, batch);
    for (int64_t i = 0; i < n; ++i) {
      std::vector<uint8_t> pixels;
      Dispatch(
          TypeList<uint8_t, float, double, Half>(), t.dtype(), [&](auto z) {
            using T = decltype(z);
            const T* img = t.flat<T>().data() + i * hw * depth;
            if constexpr (std::is_same_v<T, uint8_t>) {
              pixels.assign(img, img + hw * depth);
            } else {
              pixels =
                  Normalize(img, hw, depth, bad_color_.flat<uint8_t>().data());
            }
          });
      auto* value = s.add_value();
      value->set_tag(max_images_ > 1 ? fmt::format("{}/image/{}", base, i)
                                     : base + "/image");
      auto* image = value->mutable_image();
      image->set_height(static_cast<int>(h));
      image->set_width(static_cast<int>(w));
      image->set_colorspace(static_cast<int>(depth));
      DFG_OP_REQUIRES(
          ctx,
          WritePng(pixels.data(), static_cast<int>(w), static_cast<int>(h),
                   static_cast<int>(w * depth), static_cast<int>(depth), 8, -1,
                   image->mutable_encoded_image_string()),
          Internal("PNG encoding failed"));
    }
    std::string out;
    s.SerializeToString(&out);
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(out)));
  }

 private:
  int64_t max_images_ = 3;
  Tensor bad_color_;
};

}  // namespace

void RegisterPngSummaryKernels(KernelRegistry* r) {
  r->Register<ImageSummaryOp>("ImageSummary");
}

}  // namespace dfg
