// EncodePng, DecodePng (PNG input only) and ImageSummary (TensorFlow's
// core/kernels/encode_png_op.cc, decode_image_op.cc, summary_image_op.cc,
// lib/png/png_io.cc): images written by libpng with
// TensorFlow's settings (zlib level, memory level 9, default filters, no
// metadata), so the bytes match. ImageSummary rescales float images to
// uint8 as TensorFlow does (by 255/max, or by 127/max|x| around 128 when
// negative values occur; non-finite pixels take bad_color) and emits up to
// max_images Summary.Image values.
#include <png.h>

#include <cmath>
#include <cstring>
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

class EncodePngOp : public OpKernel {
 public:
  explicit EncodePngOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("compression", &compression_));
    DFG_OP_REQUIRES(ctx, compression_ >= -1 && compression_ <= 9,
                    InvalidArgument("compression should be in [-1,9], got {}",
                                    compression_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    DFG_OP_REQUIRES(ctx, image.dims() == 3,
                    InvalidArgument("image must be 3-dimensional{}",
                                    image.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, image.NumElements() < std::numeric_limits<int32_t>::max(),
        FailedPrecondition("image cannot have >= int32 max elements"));
    const int64_t channels = image.dim_size(2);
    DFG_OP_REQUIRES(ctx, channels >= 1 && channels <= 4,
                    InvalidArgument("image must have 1, 2, 3, or 4 channels, "
                                    "got {}",
                                    channels));
    const int bits = image.dtype() == DT_UINT8 ? 8 : 16;
    const int64_t width = image.dim_size(1);
    std::string png;
    DFG_OP_REQUIRES(
        ctx,
        WritePng(image.data(), static_cast<int>(width),
                 static_cast<int>(image.dim_size(0)),
                 static_cast<int>(width * channels * bits / 8),
                 static_cast<int>(channels), bits, compression_, &png),
        Internal("PNG encoding failed"));
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(png)));
  }

 private:
  int64_t compression_ = -1;
};

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

struct PngReader {
  std::string_view data;
};

void ReadFromString(png_structp png, png_bytep out, png_size_t size) {
  auto* r = static_cast<PngReader*>(png_get_io_ptr(png));
  if (r->data.size() < size) png_error(png, "premature end of data");
  std::memcpy(out, r->data.data(), size);
  r->data.remove_prefix(size);
}

// TensorFlow's CommonInitDecode conversions: alpha added, taken from tRNS or
// stripped as `channels` asks; 16 bits cut to 8 (or 8 later widened to 16
// by x257); palettes expanded; gray <-> RGB (Rec. 601 weights).
bool ReadPng(std::string_view bytes, int* channels, int bits,
             std::vector<uint8_t>* out, int64_t* height, int64_t* width) {
  PngReader reader{bytes};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr,
                                           PngError, PngWarning);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, &reader, ReadFromString);
  png_read_info(png, info);
  png_uint_32 w = 0, h = 0;
  int depth = 0, color = 0;
  png_get_IHDR(png, info, &w, &h, &depth, &color, nullptr, nullptr, nullptr);
  const bool trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  if (*channels == 0) {
    *channels = color == PNG_COLOR_TYPE_PALETTE ? (trns ? 4 : 3)
                                                : png_get_channels(png, info);
  }
  const bool has_alpha = (color & PNG_COLOR_MASK_ALPHA) != 0;
  if (*channels % 2 == 0) {
    if (!has_alpha && trns) {
      png_set_tRNS_to_alpha(png);
    } else if (!has_alpha) {
      png_set_add_alpha(png, (1 << depth) - 1, PNG_FILLER_AFTER);
    }
  } else if (has_alpha || trns) {
    png_set_strip_alpha(png);
  }
  if (depth > 8 && bits <= 8) png_set_strip_16(png);
  const bool widen = depth <= 8 && bits == 16;
  png_set_packing(png);
  const int passes = png_set_interlace_handling(png);
  if (bits > 8) png_set_swap(png);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  const bool is_gray = (color & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (*channels < 3 && !is_gray) png_set_rgb_to_gray(png, 1, 0.299, 0.587);
  if (*channels >= 3 && is_gray) png_set_gray_to_rgb(png);
  png_read_update_info(png, info);
  const size_t row_bytes = static_cast<size_t>(w) * *channels * (bits / 8);
  out->assign(row_bytes * h, 0);
  for (int p = 0; p < passes; ++p) {
    for (png_uint_32 y = 0; y < h; ++y) {
      png_read_row(png, out->data() + y * row_bytes, nullptr);
    }
  }
  png_read_end(png, info);
  png_destroy_read_struct(&png, &info, nullptr);
  if (widen) {  // each row's 8-bit samples v become v * 257, in place
    const size_t n = static_cast<size_t>(w) * *channels;
    for (png_uint_32 y = 0; y < h; ++y) {
      uint8_t* row = out->data() + y * row_bytes;
      for (size_t i = n; i-- > 0;) {
        const uint16_t v = static_cast<uint16_t>(row[i] * 257);
        std::memcpy(row + 2 * i, &v, 2);
      }
    }
  }
  *height = h;
  *width = w;
  return true;
}

// DecodePng is TensorFlow's any-format image decoder; dfg reads PNG only.
class DecodePngOp : public OpKernel {
 public:
  explicit DecodePngOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("channels", &channels_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    DFG_OP_REQUIRES(ctx, contents.dims() == 0,
                    InvalidArgument("`contents` must be scalar but got shape{}",
                                    contents.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx,
        channels_ == 0 || channels_ == 1 || channels_ == 3 || channels_ == 4,
        InvalidArgument("`channels` must be 0, 1, 3 or 4 but got {}",
                        channels_));
    const std::string& bytes = contents.flat<std::string>()[0];
    DFG_OP_REQUIRES(ctx, !bytes.empty(), InvalidArgument("Input is empty."));
    static const char kPngMagic[] = "\x89PNG\r\n\x1a\n";
    DFG_OP_REQUIRES(ctx, bytes.compare(0, 8, kPngMagic, 8) == 0,
                    InvalidArgument("Unknown image file format. One of JPEG, "
                                    "JPEG XL, PNG, GIF, BMP, WebP required."));
    const int bits = output_type(0) == DT_UINT8 ? 8 : 16;
    int channels = static_cast<int>(channels_);
    std::vector<uint8_t> pixels;
    int64_t h = 0, w = 0;
    DFG_OP_REQUIRES(ctx, ReadPng(bytes, &channels, bits, &pixels, &h, &w),
                    InvalidArgument("Invalid PNG data, size {}", bytes.size()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {h, w, channels}, &out));
    std::memcpy(out->data(), pixels.data(), out->TotalBytes());
  }

 private:
  int64_t channels_ = 0;
};

}  // namespace

void RegisterPngSummaryKernels(KernelRegistry* r) {
  r->Register<DecodePngOp>("DecodePng");
  r->Register<EncodePngOp>("EncodePng");
  r->Register<ImageSummaryOp>("ImageSummary");
}

}  // namespace dfg
