// DecodeGif, DecodeWebP, DecodeJxl and EncodeJpegVariableQuality
// (TensorFlow's core/kernels/image/decode_image_op.cc with gif_io.h, libwebp
// and libjxl, and encode_jpeg_op.cc). The decoders also take JPEG contents,
// as TensorFlow's do (its DecodeImageV2Op serves them all).
#include <dlfcn.h>
#include <jxl/decode.h>
#include <webp/decode.h>

#include <cstring>
#include <limits>
#include <type_traits>

#include "lib/kernels/gif_io.h"
#include "lib/kernels/image_decode_util.h"
#include "lib/kernels/jpeg_io.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

const char* FormatName(const std::string& d) {
  if (d.compare(0, 3, "\xff\xd8\xff") == 0) return "JPEG";
  if (d.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) == 0) return "PNG";
  if (d.compare(0, 2, "BM") == 0) return "BMP";
  if (d.size() >= 12 && d.compare(0, 4, "RIFF") == 0 &&
      d.compare(8, 4, "WEBP") == 0) {
    return "WebP";
  }
  return nullptr;
}

class DecodeGifOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    auto contents = DecodeContents(ctx->input(0));
    DFG_OP_REQUIRES_OK(ctx, contents.status());
    const std::string& input = **contents;
    if (input.compare(0, 3, "\xff\xd8\xff") == 0) return Jpeg(ctx, input);
    if (input.compare(0, 3, "GIF") != 0) {
      const char* format = FormatName(input);
      DFG_OP_REQUIRES(ctx, format != nullptr,
                      InvalidArgument("Unknown image file format. One of "
                                      "JPEG, JPEG XL, PNG, GIF, BMP, WebP "
                                      "required."));
      // TensorFlow's DecodeGif also decodes PNG and BMP as one RGB frame;
      // their decoders are private to image_codec_ops.cc.
      ctx->SetStatus(Unimplemented(
          "DecodeGif of {} contents is not supported by dfg", format));
      return;
    }
    Tensor* out = nullptr;
    Status alloc;
    const Status s = DecodeGifImage(
        input, /*expand_animations=*/true, [&](int f, int h, int w, int c) {
          alloc = ctx->allocate_output(0, TensorShape({f, h, w, c}), &out);
          return alloc.ok() ? out->flat<uint8_t>().data() : nullptr;
        });
    DFG_OP_REQUIRES_OK(ctx, alloc);
    DFG_OP_REQUIRES(ctx, s.ok(),
                    InvalidArgument("Invalid GIF data (size {}), {}",
                                    input.size(), s.message()));
  }

 private:
  // A JPEG is one RGB frame [1, height, width, 3].
  static void Jpeg(OpKernelContext* ctx, const std::string& input) {
    JpegDecodeFlags flags;
    flags.components = 3;
    Tensor* out = nullptr;
    const bool ok = DecodeJpeg(input, flags, [&](int w, int h, int c) {
      Status s = ctx->allocate_output(0, TensorShape({1, h, w, c}), &out);
      return s.ok() ? out->flat<uint8_t>().data() : nullptr;
    });
    DFG_OP_REQUIRES(ctx, ok,
                    InvalidArgument("jpeg::Uncompress failed. Invalid JPEG "
                                    "data or crop window."));
  }
};

// A still WebP image as [1, height, width, 3 or 4 (with alpha)].
class DecodeWebPOp : public OpKernel {
 public:
  explicit DecodeWebPOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("channels", &channels_));
    DFG_OP_REQUIRES_OK(ctx, CheckDecodeChannels(channels_));
  }

  void Compute(OpKernelContext* ctx) override {
    auto contents = DecodeContents(ctx->input(0));
    DFG_OP_REQUIRES_OK(ctx, contents.status());
    const std::string& input = **contents;
    const char* format = FormatName(input);
    if (format == nullptr && input.compare(0, 3, "GIF") == 0) format = "GIF";
    DFG_OP_REQUIRES(ctx, format != nullptr,
                    InvalidArgument("Unknown image file format. One of JPEG, "
                                    "JPEG XL, PNG, GIF, BMP, WebP required."));
    if (std::string_view(format) == "JPEG") return Jpeg(ctx, input);
    DFG_OP_REQUIRES(ctx, std::string_view(format) == "WebP",
                    Unimplemented("DecodeWebP of {} contents is not supported "
                                  "by dfg",
                                  format));
    DFG_OP_REQUIRES(ctx, channels_ != 1,
                    InvalidArgument("WebP only supports 3 or 4 channels"));
    const auto* data = reinterpret_cast<const uint8_t*>(input.data());
    WebPBitstreamFeatures features;
    DFG_OP_REQUIRES(
        ctx, WebPGetFeatures(data, input.size(), &features) == VP8_STATUS_OK,
        InvalidArgument("Failed to decode WebP header."));
    DFG_OP_REQUIRES(ctx, !features.has_animation,
                    Unimplemented("animated WebP is not supported by dfg"));
    const int c = features.has_alpha ? 4 : 3;
    DFG_OP_REQUIRES(
        ctx, channels_ == 0 || channels_ == c,
        InvalidArgument("Number of channels requested does not match input"));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({1, features.height, features.width, c}), &out));
    uint8_t* dst = out->flat<uint8_t>().data();
    const size_t size = out->NumElements();
    const int stride = features.width * c;
    const bool ok =
        (c == 4 ? WebPDecodeRGBAInto(data, input.size(), dst, size, stride)
                : WebPDecodeRGBInto(data, input.size(), dst, size, stride)) !=
        nullptr;
    DFG_OP_REQUIRES(ctx, ok, InvalidArgument("Failed to decode WebP image."));
  }

 private:
  // A JPEG through DecodeWebP: [height, width, channels] as DecodeJpeg.
  void Jpeg(OpKernelContext* ctx, const std::string& input) const {
    DFG_OP_REQUIRES(ctx, channels_ != 4,
                    InvalidArgument("JPEG does not support 4 channels"));
    JpegDecodeFlags flags;
    flags.components = channels_;
    Tensor* out = nullptr;
    const bool ok = DecodeJpeg(input, flags, [&](int w, int h, int c) {
      Status s = ctx->allocate_output(0, TensorShape({h, w, c}), &out);
      return s.ok() ? out->flat<uint8_t>().data() : nullptr;
    });
    DFG_OP_REQUIRES(ctx, ok,
                    InvalidArgument("jpeg::Uncompress failed. Invalid JPEG "
                                    "data or crop window."));
  }

  int32_t channels_ = 0;
};

// libjxl, opened when the first DecodeJxl kernel is built rather than
// linked: linked, it came into every dfg process with Highway (which
// calibrates a timer as it loads), lcms2 and brotli, ~5 ms of each start, for
// an op few graphs have. DFG_JXL_SONAME is the soname CMake found.
struct JxlLibrary {
  decltype(&JxlDecoderCreate) create = nullptr;
  decltype(&JxlDecoderDestroy) destroy = nullptr;
  decltype(&JxlDecoderSubscribeEvents) subscribe_events = nullptr;
  decltype(&JxlDecoderSetInput) set_input = nullptr;
  decltype(&JxlDecoderCloseInput) close_input = nullptr;
  decltype(&JxlDecoderProcessInput) process_input = nullptr;
  decltype(&JxlDecoderGetBasicInfo) get_basic_info = nullptr;
  decltype(&JxlDecoderSetImageOutBuffer) set_image_out_buffer = nullptr;
};

StatusOr<const JxlLibrary*> OpenJxl() {
  static const StatusOr<const JxlLibrary*>* opened =
      new StatusOr<const JxlLibrary*>([]() -> StatusOr<const JxlLibrary*> {
        // Kept open for the process, as a linked library is.
        void* handle = dlopen(DFG_JXL_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
          return Unavailable("DecodeJxl needs libjxl ({}): {}", DFG_JXL_SONAME,
                             dlerror());
        }
        auto* lib = new JxlLibrary;
        const char* missing = nullptr;
        auto bind = [&](auto* fn, const char* name) {
          *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(
              dlsym(handle, name));
          if (*fn == nullptr && missing == nullptr) missing = name;
        };
        bind(&lib->create, "JxlDecoderCreate");
        bind(&lib->destroy, "JxlDecoderDestroy");
        bind(&lib->subscribe_events, "JxlDecoderSubscribeEvents");
        bind(&lib->set_input, "JxlDecoderSetInput");
        bind(&lib->close_input, "JxlDecoderCloseInput");
        bind(&lib->process_input, "JxlDecoderProcessInput");
        bind(&lib->get_basic_info, "JxlDecoderGetBasicInfo");
        bind(&lib->set_image_out_buffer, "JxlDecoderSetImageOutBuffer");
        if (missing != nullptr) {
          delete lib;
          return Unavailable("DecodeJxl: {} has no {}", DFG_JXL_SONAME,
                             missing);
        }
        return lib;
      }());
  return *opened;
}

bool IsJxl(const std::string& d) {
  return d.compare(0, 2, "\xff\x0a") == 0 ||
         d.compare(0, 12, std::string("\0\0\0\x0cJXL \r\n\x87\n", 12)) == 0;
}

// A JPEG XL image as [height, width, color channels (+1 with alpha)].
class DecodeJxlOp : public OpKernel {
 public:
  explicit DecodeJxlOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("channels", &channels_));
    DFG_OP_REQUIRES_OK(ctx, CheckDecodeChannels(channels_));
    auto jxl = OpenJxl();
    DFG_OP_REQUIRES_OK(ctx, jxl.status());
    jxl_ = *jxl;
  }

  void Compute(OpKernelContext* ctx) override {
    auto contents = DecodeContents(ctx->input(0));
    DFG_OP_REQUIRES_OK(ctx, contents.status());
    const std::string& input = **contents;
    if (!IsJxl(input)) {
      const char* format = FormatName(input);
      if (format == nullptr && input.compare(0, 3, "GIF") == 0) format = "GIF";
      DFG_OP_REQUIRES(ctx, format != nullptr,
                      InvalidArgument("Unknown image file format. One of "
                                      "JPEG, JPEG XL, PNG, GIF, BMP, WebP "
                                      "required."));
      ctx->SetStatus(Unimplemented(
          "DecodeJxl of {} contents is not supported by dfg", format));
      return;
    }
    std::unique_ptr<JxlDecoder, void (*)(JxlDecoder*)> dec(
        jxl_->create(nullptr), jxl_->destroy);
    DFG_OP_REQUIRES(ctx,
                    jxl_->subscribe_events(
                        dec.get(), JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE) ==
                        JXL_DEC_SUCCESS,
                    Internal("JxlDecoderSubscribeEvents failed"));
    jxl_->set_input(dec.get(), reinterpret_cast<const uint8_t*>(input.data()),
                    input.size());
    jxl_->close_input(dec.get());
    Tensor* out = nullptr;
    JxlPixelFormat format{0, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    while (true) {
      const JxlDecoderStatus status = jxl_->process_input(dec.get());
      if (status == JXL_DEC_BASIC_INFO) {
        JxlBasicInfo info;
        jxl_->get_basic_info(dec.get(), &info);
        const int c = info.num_color_channels + (info.alpha_bits > 0 ? 1 : 0);
        DFG_OP_REQUIRES(ctx, channels_ == 0 || channels_ == c,
                        InvalidArgument("Number of channels requested does "
                                        "not match input"));
        format.num_channels = c;
        DFG_OP_REQUIRES_OK(
            ctx,
            ctx->allocate_output(
                0, TensorShape({int64_t(info.ysize), int64_t(info.xsize), c}),
                &out));
      } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
        DFG_OP_REQUIRES(
            ctx,
            jxl_->set_image_out_buffer(dec.get(), &format, out->data(),
                                       out->NumElements()) == JXL_DEC_SUCCESS,
            InvalidArgument("Failed to decode JXL image"));
      } else if (status == JXL_DEC_FULL_IMAGE || status == JXL_DEC_SUCCESS) {
        DFG_OP_REQUIRES(ctx, out != nullptr,
                        InvalidArgument("Failed to decode JXL header"));
        return;
      } else {
        ctx->SetStatus(out == nullptr
                           ? InvalidArgument("Failed to decode JXL header")
                           : InvalidArgument("Failed to decode JXL image"));
        return;
      }
    }
  }

 private:
  int32_t channels_ = 0;
  const JxlLibrary* jxl_ = nullptr;  // the process's
};

class EncodeJpegVariableQualityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    DFG_OP_REQUIRES(ctx, image.dims() == 3,
                    InvalidArgument("image must be 3-dimensional{}",
                                    image.shape().DebugString()));
    DFG_OP_REQUIRES(ctx,
                    image.NumElements() < std::numeric_limits<int32_t>::max(),
                    InvalidArgument("Cannot encode images with >= max int32 "
                                    "elements"));
    const Tensor& quality = ctx->input(1);
    DFG_OP_REQUIRES(ctx, quality.dims() == 0,
                    InvalidArgument("quality must be a scalar: {}",
                                    quality.shape().DebugString()));
    JpegEncodeFlags flags;  // TensorFlow's defaults but for the quality
    flags.quality = quality.scalar<int32_t>();
    DFG_OP_REQUIRES(
        ctx, 0 <= flags.quality && flags.quality <= 100,
        InvalidArgument("quality must be in [0,100], got {}", flags.quality));
    const int64_t c = image.dim_size(2);
    DFG_OP_REQUIRES(ctx, c == 1 || c == 3,
                    InvalidArgument("image must have 1 or 3 channels, got {}",
                                    image.shape().DebugString()));
    flags.channels = static_cast<int>(c);
    Tensor out(tensorflow::DT_STRING, TensorShape());
    DFG_OP_REQUIRES(
        ctx,
        EncodeJpeg(image.flat<uint8_t>().data(), image.dim_size(1),
                   image.dim_size(0), flags, &out.scalar<std::string>()),
        Internal("JPEG encoding failed"));
    ctx->set_output(0, std::move(out));
  }
};

}  // namespace

void RegisterImageDecodeKernels(KernelRegistry* r) {
  r->Register<DecodeGifOp>("DecodeGif");
  r->Register<DecodeWebPOp>("DecodeWebP");
  r->Register<DecodeJxlOp>("DecodeJxl");
  r->Register<EncodeJpegVariableQualityOp>("EncodeJpegVariableQuality");
}

}  // namespace dfg
