// Image codecs: DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeBmp,
// DecodeImage (JPEG, PNG, BMP and GIF contents), ExtractJpegShape, EncodeJpeg
// and EncodePng, as
// TensorFlow's image/decode_image_op (DecodeImageV2Op), encode_*_op and
// extract_jpeg_shape_op, over libjpeg-turbo (jpeg_io.cc) and libpng with
// TensorFlow's png_io transformations.
//
// GIF contents are decoded by gif_io.h. As in TensorFlow, each decode op
// takes any of the formats it recognizes.
#include <png.h>
#include <setjmp.h>

#include <cstdlib>
#include <cstring>
#include <limits>

#include "lib/kernels/gif_io.h"
#include "lib/kernels/image_decode_util.h"
#include "lib/kernels/jpeg_io.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

enum class Format { kUnknown, kJpeg, kPng, kGif, kBmp };

Format Classify(std::string_view d) {
  if (d.substr(0, 3) == "\xff\xd8\xff") return Format::kJpeg;
  if (d.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) {
    return Format::kPng;
  }
  if (d.substr(0, 4) == "GIF8") return Format::kGif;
  if (d.substr(0, 2) == "BM") return Format::kBmp;
  return Format::kUnknown;
}

// ---- PNG -----------------------------------------------------------------

struct PngReader {
  const uint8_t* data;
  size_t left;
};

void PngRead(png_structp png, png_bytep out, png_size_t n) {
  PngReader* r = static_cast<PngReader*>(png_get_io_ptr(png));
  if (r->left < n)
    png_error(png, "More bytes requested to read than available");
  std::memcpy(out, r->data, n);
  r->data += n;
  r->left -= n;
}

void PngWarning(png_structp, png_const_charp) {}
void PngError(png_structp png, png_const_charp) { longjmp(png_jmpbuf(png), 1); }

struct PngImage {
  int width = 0, height = 0, channels = 0;
  bool synthesize_16 = false;
};

// png_io's CommonInitDecode transformations for `channels` (0: as stored)
// and 8 or 16 bits; then reads every row into buffer(image).
template <typename Alloc>
bool DecodePngData(std::string_view data, int channels, int bits,
                   Alloc&& buffer, PngImage* img) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr,
                                           PngError, PngWarning);
  if (png == nullptr) return false;
  png_infop info = nullptr;
  PngReader reader{reinterpret_cast<const uint8_t*>(data.data()), data.size()};
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    return false;
  }
  info = png_create_info_struct(png);
  png_set_read_fn(png, &reader, PngRead);
  png_read_info(png, info);
  png_uint_32 w = 0, h = 0;
  int depth = 0, color = 0;
  png_get_IHDR(png, info, &w, &h, &depth, &color, nullptr, nullptr, nullptr);
  const bool trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  // The channel count lives in *img (memory), safe across the longjmp.
  img->channels = channels != 0 ? channels
                  : color == PNG_COLOR_TYPE_PALETTE
                      ? (trns ? 4 : 3)
                      : png_get_channels(png, info);
  const bool alpha = (color & PNG_COLOR_MASK_ALPHA) != 0;
  if ((img->channels & 1) == 0) {
    if (!alpha && trns) {
      png_set_tRNS_to_alpha(png);
    } else if (!alpha) {
      png_set_add_alpha(png, (1 << depth) - 1, PNG_FILLER_AFTER);
    }
  } else if (alpha || trns) {
    png_set_strip_alpha(png);
  }
  if (depth > 8 && bits <= 8) png_set_strip_16(png);
  img->synthesize_16 = depth <= 8 && bits == 16;
  png_set_packing(png);
  const int passes = png_set_interlace_handling(png);
  if (bits > 8) png_set_swap(png);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  const bool gray = (color & PNG_COLOR_MASK_COLOR) == 0;
  if (gray && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (img->channels < 3) {
    if (!gray) png_set_rgb_to_gray(png, 1, 0.299, 0.587);
  } else if (gray) {
    png_set_gray_to_rgb(png);
  }
  png_read_update_info(png, info);
  img->width = static_cast<int>(w);
  img->height = static_cast<int>(h);
  const int64_t total = static_cast<int64_t>(w) * h;
  if (img->width != static_cast<int64_t>(w) || img->width <= 0 ||
      img->width >= (1 << 27) || img->height != static_cast<int64_t>(h) ||
      img->height <= 0 || img->height >= (1 << 27) ||
      total >= (int64_t{1} << 29)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  uint8_t* out = buffer(*img);
  const int row_bytes = img->channels * img->width * (bits / 8);
  for (int p = 0; p < passes; ++p) {
    png_bytep row = out;
    for (int y = 0; y < img->height; ++y, row += row_bytes) {
      png_read_row(png, row, nullptr);
    }
  }
  png_read_end(png, info);
  png_destroy_read_struct(&png, &info, nullptr);
  if (img->synthesize_16) {
    // Each row's 8-bit samples (read at the 16-bit row stride) widened in
    // place to v * 257, last first.
    const int n = img->width * img->channels;
    for (int y = 0; y < img->height; ++y) {
      uint8_t* r = out + static_cast<int64_t>(y) * row_bytes;
      uint16_t* r16 = reinterpret_cast<uint16_t*>(r);
      for (int x = n; x-- > 0;) r16[x] = r[x] * 257;
    }
  }
  return true;
}

void PngWrite(png_structp png, png_bytep data, png_size_t n) {
  static_cast<std::string*>(png_get_io_ptr(png))
      ->append(reinterpret_cast<const char*>(data), n);
}
void PngFlush(png_structp) {}

bool EncodePngData(const void* image, int width, int height, int channels,
                   int bits, int compression, std::string* out) {
  if (width == 0 || height == 0) return false;
  static const int kColor[5] = {-1, PNG_COLOR_TYPE_GRAY,
                                PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGB_ALPHA};
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr,
                                            PngError, PngWarning);
  if (png == nullptr) return false;
  png_infop info = nullptr;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info ? &info : nullptr);
    return false;
  }
  info = png_create_info_struct(png);
  png_set_write_fn(png, out, PngWrite, PngFlush);
  // zlib's Z_DEFAULT_COMPRESSION (-1) and MAX_MEM_LEVEL (9), as png_io
  // sets them (zlib.h itself is lib/io's).
  png_set_compression_level(png, compression < 0 ? -1 : compression);
  png_set_compression_mem_level(png, 9);
  png_set_IHDR(png, info, width, height, bits, kColor[channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (bits > 8) png_set_swap(png);
  const int row_bytes = width * channels * (bits / 8);
  const png_byte* row = static_cast<const png_byte*>(image);
  for (int y = 0; y < height; ++y, row += row_bytes) {
    png_write_row(png, const_cast<png_bytep>(row));
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

// ---- Decode ops ----------------------------------------------------------

class DecodeImageOp : public OpKernel {
 public:
  explicit DecodeImageOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    op_ = ctx->def().op();
    if (op_ == "DecodeJpeg" || op_ == "DecodeAndCropJpeg") {
      DFG_OP_REQUIRES_OK(ctx, JpegAttrs(ctx));
    }
    if (op_ == "DecodePng" || op_ == "DecodeImage") {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    }
    if (op_ == "DecodeImage") {
      DFG_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("expand_animations", &expand_animations_));
    }
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("channels", &channels_));
    DFG_OP_REQUIRES_OK(ctx, CheckDecodeChannels(channels_));
  }

  void Compute(OpKernelContext* ctx) override {
    auto contents = DecodeContents(ctx->input(0));
    DFG_OP_REQUIRES_OK(ctx, contents.status());
    const std::string& input = **contents;
    switch (Classify(input)) {
      case Format::kJpeg:
        return Jpeg(ctx, input);
      case Format::kPng:
        return Png(ctx, input);
      case Format::kBmp:
        return Bmp(ctx, input);
      case Format::kGif:
        return Gif(ctx, input);
      default:
        ctx->SetStatus(InvalidArgument(
            "Unknown image file format. One of JPEG, PNG, GIF, BMP required."));
    }
  }

 private:
  Status JpegAttrs(OpKernelConstruction* ctx) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("ratio", &flags_.ratio));
    if (flags_.ratio != 1 && flags_.ratio != 2 && flags_.ratio != 4 &&
        flags_.ratio != 8) {
      return InvalidArgument("ratio must be 1, 2, 4, or 8, got {}",
                             flags_.ratio);
    }
    DFG_RETURN_IF_ERROR(
        ctx->GetAttr("fancy_upscaling", &flags_.fancy_upscaling));
    DFG_RETURN_IF_ERROR(
        ctx->GetAttr("try_recover_truncated", &flags_.try_recover_truncated));
    DFG_RETURN_IF_ERROR(
        ctx->GetAttr("acceptable_fraction", &flags_.min_fraction));
    std::string dct;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("dct_method", &dct));
    if (!dct.empty() && dct != "INTEGER_FAST" && dct != "INTEGER_ACCURATE") {
      return InvalidArgument(
          "dct_method must be one of {{'', 'INTEGER_FAST', "
          "'INTEGER_ACCURATE'}}");
    }
    flags_.integer_accurate = dct == "INTEGER_ACCURATE";
    return Status::Ok();
  }

  void Jpeg(OpKernelContext* ctx, const std::string& input) const {
    DFG_OP_REQUIRES(ctx, channels_ == 0 || channels_ == 1 || channels_ == 3,
                    InvalidArgument("JPEG does not support 4 channels"));
    JpegDecodeFlags flags = flags_;
    flags.components = channels_;
    if (op_ == "DecodeAndCropJpeg") {
      const Tensor& w = ctx->input(1);
      DFG_OP_REQUIRES(ctx, w.dims() == 1,
                      InvalidArgument("crop_window must be 1-D, got shape {}",
                                      w.shape().DebugString()));
      DFG_OP_REQUIRES(ctx, w.dim_size(0) == 4,
                      InvalidArgument("crop_size must have four elements {}",
                                      w.shape().DebugString()));
      const auto v = w.flat<int32_t>();
      flags.crop = true;
      flags.crop_y = v[0], flags.crop_x = v[1];
      flags.crop_height = v[2], flags.crop_width = v[3];
    }
    Tensor* out = nullptr;
    std::vector<uint8_t> staging;
    const bool ok = DecodeJpeg(input, flags, [&](int w, int h, int c) {
      Status s = ctx->allocate_output(0, TensorShape({h, w, c}), &out);
      if (!s.ok()) return static_cast<uint8_t*>(nullptr);
      if (dtype_ == tensorflow::DT_UINT8) return out->flat<uint8_t>().data();
      staging.resize(static_cast<size_t>(h) * w * c);
      return staging.data();
    });
    DFG_OP_REQUIRES(ctx, ok,
                    InvalidArgument("jpeg::Uncompress failed. Invalid JPEG "
                                    "data or crop window."));
    if (dtype_ == tensorflow::DT_UINT16) {
      uint16_t* o = out->flat<uint16_t>().data();
      for (size_t i = 0; i < staging.size(); ++i) o[i] = staging[i] * 256;
    } else if (dtype_ == tensorflow::DT_FLOAT) {
      const float scale = 1. / 255;
      float* o = out->flat<float>().data();
      for (size_t i = 0; i < staging.size(); ++i) o[i] = staging[i] * scale;
    }
  }

  void Png(OpKernelContext* ctx, const std::string& input) const {
    const int bits = dtype_ == tensorflow::DT_UINT8 ? 8 : 16;
    Tensor* out = nullptr;
    std::vector<uint16_t> staging;
    Status alloc;
    PngImage img;
    const bool ok = DecodePngData(
        input, channels_, bits,
        [&](const PngImage& im) -> uint8_t* {
          alloc = ctx->allocate_output(
              0, TensorShape({im.height, im.width, im.channels}), &out);
          if (!alloc.ok() || dtype_ == tensorflow::DT_FLOAT) {
            staging.resize(static_cast<size_t>(im.height) * im.width *
                           im.channels);
            return reinterpret_cast<uint8_t*>(staging.data());
          }
          return static_cast<uint8_t*>(out->data());
        },
        &img);
    DFG_OP_REQUIRES_OK(ctx, alloc);
    DFG_OP_REQUIRES(ctx, ok,
                    InvalidArgument("Invalid PNG data, size {}", input.size()));
    if (dtype_ == tensorflow::DT_FLOAT) {
      const float scale = 1. / 65535;
      float* o = out->flat<float>().data();
      for (size_t i = 0; i < staging.size(); ++i) o[i] = staging[i] * scale;
    }
  }

  // DecodeBmpV2: uncompressed 8/24/32-bit BMP (DecodeBmp and DecodeImage
  // only), bottom-up unless the height is negative, BGR(A) swapped to
  // RGB(A), widened to the requested channels (alpha 255).
  void Bmp(OpKernelContext* ctx, const std::string& input) const {
    DFG_OP_REQUIRES(
        ctx, channels_ != 1,
        InvalidArgument("`channels` must be 0, 3 or 4 for BMP, but got {}",
                        channels_));
    DFG_OP_REQUIRES(ctx, op_ != "DecodeAndCropJpeg",
                    InvalidArgument("DecodeAndCropJpeg operation can run on "
                                    "JPEG only, but detected BMP."));
    DFG_OP_REQUIRES(ctx, op_ == "DecodeBmp" || op_ == "DecodeImage",
                    InvalidArgument("Trying to decode BMP format using a wrong "
                                    "op. Use `decode_bmp` or `decode_image` "
                                    "instead. Op used: {}",
                                    op_));
    DFG_OP_REQUIRES(ctx, input.size() >= 32,
                    InvalidArgument("Incomplete bmp content, requires at least "
                                    "32 bytes to find the header size, width, "
                                    "height, and bpp, got {} bytes",
                                    input.size()));
    auto i32 = [&](size_t at) {
      int32_t v;
      std::memcpy(&v, input.data() + at, 4);
      return v;
    };
    int16_t bpp;
    std::memcpy(&bpp, input.data() + 28, 2);
    const int32_t header = i32(10), width = i32(18), height = i32(22);
    const int in_ch = bpp / 8;
    DFG_OP_REQUIRES(ctx, in_ch == 1 || in_ch == 3 || in_ch == 4,
                    InvalidArgument("Number of channels inherent in the image "
                                    "must be 1, 3 or 4, was {}",
                                    in_ch));
    const int out_ch = channels_ != 0 ? channels_ : in_ch;
    DFG_OP_REQUIRES(ctx, width > 0, InvalidArgument("Width must be positive"));
    DFG_OP_REQUIRES(ctx, height != 0,
                    InvalidArgument("Height must be nonzero"));
    DFG_OP_REQUIRES(ctx, header >= 0,
                    InvalidArgument("header size must be nonnegative"));
    const int64_t rows = std::abs(static_cast<int64_t>(height));
    DFG_OP_REQUIRES(
        ctx, width * rows < std::numeric_limits<int32_t>::max() / 8,
        InvalidArgument("Total possible pixel bytes must be less than 2^30"));
    const int64_t row_size = (in_ch * width + 3) / 4 * 4;
    const int64_t diff =
        static_cast<int64_t>(input.size()) - header - row_size * rows;
    DFG_OP_REQUIRES(ctx, diff == 0,
                    InvalidArgument("Input size should match (header_size + "
                                    "row_size * abs_height) but they differ "
                                    "by {}",
                                    diff));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({rows, width, out_ch}), &out));
    std::vector<uint8_t> pixels(rows * width * out_ch);
    const uint8_t* src =
        reinterpret_cast<const uint8_t*>(input.data()) + header;
    for (int64_t y = 0; y < rows; ++y) {
      const uint8_t* row = src + (height < 0 ? y : rows - 1 - y) * row_size;
      for (int64_t x = 0; x < width; ++x) {
        const uint8_t* p = row + x * in_ch;
        uint8_t* q = pixels.data() + (y * width + x) * out_ch;
        const uint8_t rgba[4] = {in_ch == 1 ? p[0] : p[2],
                                 in_ch == 1 ? p[0] : p[1], p[0],
                                 in_ch == 4 ? p[3] : uint8_t{255}};
        std::copy(rgba, rgba + out_ch, q);
      }
    }
    StoreBytes(pixels, out);
  }

  // TensorFlow's GIF branch of DecodeImageV2Op: DecodeImage gives [frames,
  // h, w, 3] (one 3-D frame without expand_animations), DecodePng and
  // DecodeJpeg one 3-D frame of a still GIF.
  void Gif(OpKernelContext* ctx, const std::string& input) const {
    DFG_OP_REQUIRES(ctx, op_ != "DecodeAndCropJpeg",
                    InvalidArgument("DecodeAndCropJpeg operation can run on "
                                    "JPEG only, but detected GIF."));
    DFG_OP_REQUIRES(ctx, op_ != "DecodeBmp",
                    InvalidArgument("Trying to decode GIF format using "
                                    "DecodeBmp op. Use `decode_gif` or "
                                    "`decode_image` instead."));
    DFG_OP_REQUIRES(
        ctx, channels_ == 0 || channels_ == 3,
        InvalidArgument("channels must be 0 or 3 for GIF, got {}", channels_));
    const bool image = op_ == "DecodeImage";
    Tensor* out = nullptr;
    Status alloc;
    std::vector<uint8_t> pixels;
    const Status s = DecodeGifImage(
        input, !image || expand_animations_, [&](int f, int h, int w, int c) {
          if (!image && f > 1) {
            alloc = InvalidArgument(
                "Got {} frames, but animated gifs can only be decoded by "
                "tf.io.decode_gif or tf.io.decode_image",
                f);
            return static_cast<uint8_t*>(nullptr);
          }
          const TensorShape shape = image && expand_animations_
                                        ? TensorShape({f, h, w, c})
                                        : TensorShape({h, w, c});
          alloc = ctx->allocate_output(0, shape, &out);
          pixels.resize(static_cast<size_t>(f) * h * w * c);
          return alloc.ok() ? pixels.data() : nullptr;
        });
    DFG_OP_REQUIRES_OK(ctx, alloc);
    DFG_OP_REQUIRES(ctx, s.ok(),
                    InvalidArgument("Invalid GIF data (size {}), {}",
                                    input.size(), s.message()));
    StoreBytes(pixels, out);
  }

  // uint8 samples as the op's dtype (uint16: v * 256, float: v / 255).
  void StoreBytes(const std::vector<uint8_t>& v, Tensor* out) const {
    if (dtype_ == tensorflow::DT_UINT8) {
      std::copy(v.begin(), v.end(), out->flat<uint8_t>().begin());
    } else if (dtype_ == tensorflow::DT_UINT16) {
      uint16_t* o = out->flat<uint16_t>().data();
      for (size_t i = 0; i < v.size(); ++i) o[i] = v[i] * 256;
    } else {
      const float scale = 1. / 255;
      float* o = out->flat<float>().data();
      for (size_t i = 0; i < v.size(); ++i) o[i] = v[i] * scale;
    }
  }

  std::string op_;
  int channels_ = 0;
  DataType dtype_ = tensorflow::DT_UINT8;
  bool expand_animations_ = true;
  JpegDecodeFlags flags_;
};

class ExtractJpegShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    DFG_OP_REQUIRES(ctx, contents.dims() == 0,
                    InvalidArgument("contents must be scalar, got shape {}",
                                    contents.shape().DebugString()));
    int h = 0, w = 0, c = 0;
    DFG_OP_REQUIRES(ctx, JpegShape(contents.scalar<std::string>(), &h, &w, &c),
                    InvalidArgument("Invalid JPEG data, size {}",
                                    contents.scalar<std::string>().size()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &out));
    Dispatch(TypeList<int32_t, int64_t>(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      auto o = out->flat<T>();
      o[0] = h, o[1] = w, o[2] = c;
    });
  }
};

// ---- Encode ops ----------------------------------------------------------

class EncodePngOp : public OpKernel {
 public:
  explicit EncodePngOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("compression", &compression_));
    DFG_OP_REQUIRES(ctx, -1 <= compression_ && compression_ <= 9,
                    InvalidArgument("compression should be in [-1,9], got {}",
                                    compression_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    DFG_OP_REQUIRES(ctx, image.dims() >= 3,
                    InvalidArgument("images must be ast least rank 3",
                                    image.shape().DebugString()));
    DFG_OP_REQUIRES(ctx,
                    image.NumElements() < std::numeric_limits<int32_t>::max(),
                    InvalidArgument("image cannot have >= int32 max elements"));
    const int64_t channels = image.dim_size(image.dims() - 1);
    DFG_OP_REQUIRES(
        ctx, channels >= 1 && channels <= 4,
        InvalidArgument("image must have 1, 2, 3, or 4 channels, got {}",
                        channels));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    const int bits = image.dtype() == tensorflow::DT_UINT8 ? 8 : 16;
    DFG_OP_REQUIRES(
        ctx,
        EncodePngData(image.data(), image.dim_size(image.dims() - 2),
                      image.dim_size(image.dims() - 3), channels, bits,
                      compression_, &out->scalar<std::string>()),
        Internal("PNG encoding failed"));
  }

 private:
  int compression_ = -1;
};

class EncodeJpegOp : public OpKernel {
 public:
  explicit EncodeJpegOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("format", &format_));
    DFG_OP_REQUIRES(
        ctx, format_.empty() || format_ == "grayscale" || format_ == "rgb",
        InvalidArgument("format must be '', grayscale or rgb, got {}",
                        format_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("quality", &flags_.quality));
    DFG_OP_REQUIRES(
        ctx, 0 <= flags_.quality && flags_.quality <= 100,
        InvalidArgument("quality must be in [0,100], got {}", flags_.quality));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("progressive", &flags_.progressive));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("optimize_size", &flags_.optimize_size));
    DFG_OP_REQUIRES_OK(
        ctx, ctx->GetAttr("chroma_downsampling", &flags_.chroma_downsampling));
    std::string unit;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("density_unit", &unit));
    DFG_OP_REQUIRES(
        ctx, unit == "in" || unit == "cm",
        InvalidArgument("density_unit must be 'in' or 'cm'{}", unit));
    flags_.density_unit = unit == "in" ? 1 : 2;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("x_density", &flags_.x_density));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("y_density", &flags_.y_density));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("xmp_metadata", &flags_.xmp_metadata));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    DFG_OP_REQUIRES(ctx, image.dims() == 3,
                    InvalidArgument("image must be 3-dimensional{}",
                                    image.shape().DebugString()));
    DFG_OP_REQUIRES(ctx,
                    image.NumElements() < std::numeric_limits<int32_t>::max(),
                    InvalidArgument("Cannot encode images with >= max int32 "
                                    "elements"));
    const int64_t c = image.dim_size(2);
    JpegEncodeFlags flags = flags_;
    if (format_.empty()) {
      DFG_OP_REQUIRES(ctx, c == 1 || c == 3,
                      InvalidArgument("image must have 1 or 3 channels, got {}",
                                      image.shape().DebugString()));
      flags.channels = static_cast<int>(c);
    } else {
      flags.channels = format_ == "grayscale" ? 1 : 3;
      DFG_OP_REQUIRES(
          ctx, flags.channels == c,
          InvalidArgument("format {} expects {} channels, got {}", format_,
                          flags.channels, image.shape().DebugString()));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    DFG_OP_REQUIRES(
        ctx,
        EncodeJpeg(image.flat<uint8_t>().data(), image.dim_size(1),
                   image.dim_size(0), flags, &out->scalar<std::string>()),
        Internal("JPEG encoding failed"));
  }

 private:
  std::string format_;
  JpegEncodeFlags flags_;
};

}  // namespace

void RegisterImageCodecKernels(KernelRegistry* r) {
  for (const char* op : {"DecodeJpeg", "DecodeAndCropJpeg", "DecodePng",
                         "DecodeImage", "DecodeBmp"}) {
    r->Register<DecodeImageOp>(op, {});
  }
  r->Register<ExtractJpegShapeOp>("ExtractJpegShape", {});
  r->Register<EncodePngOp>("EncodePng", {});
  r->Register<EncodeJpegOp>("EncodeJpeg", {});
}

}  // namespace dfg
