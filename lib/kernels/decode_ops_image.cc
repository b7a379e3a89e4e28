// DecodeGif, DecodeWebP, DecodeJxl and EncodeJpegVariableQuality
// (TensorFlow's core/kernels/image/decode_image_op.cc with
// core/lib/gif/gif_io.cc, libwebp and libjxl, and encode_jpeg_op.cc). Both
// decoders also take JPEG contents, as TensorFlow's do (its DecodeImageV2Op
// serves them all). GIF frames are composed as TensorFlow composes them: each
// frame starts from the previous one, pixels of the frame's transparent color
// keep what is there (black on the first frame), disposal methods are ignored,
// and the canvas is the largest frame's width and height.
#include <gif_lib.h>
#include <jxl/decode.h>
#include <webp/decode.h>

#include <cstring>
#include <limits>

#include "lib/kernels/jpeg_io.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

struct GifInput {
  const uint8_t* data;
  size_t left;
};

int ReadGifBytes(GifFileType* gif, GifByteType* out, int n) {
  auto* in = static_cast<GifInput*>(gif->UserData);
  const size_t count = std::min<size_t>(n, in->left);
  std::memcpy(out, in->data, count);
  in->data += count;
  in->left -= count;
  return static_cast<int>(count);
}

std::string GifError(int code) {
  const char* s = GifErrorString(code);
  return s != nullptr ? s : "Unknown error";
}

// Writes frame k of `gif` into `dst` (height x width x 3), over `prev` (the
// frame before, null for the first).
Status ComposeFrame(GifFileType* gif, int k, int width, int height,
                    const uint8_t* prev, uint8_t* dst) {
  const SavedImage& image = gif->SavedImages[k];
  const GifImageDesc& desc = image.ImageDesc;
  GraphicsControlBlock gcb;
  DGifSavedExtensionToGCB(gif, k, &gcb);
  const size_t frame_bytes = static_cast<size_t>(width) * height * 3;
  if (prev != nullptr) std::memcpy(dst, prev, frame_bytes);
  int left = desc.Left, top = desc.Top;
  int right = desc.Left + desc.Width, bottom = desc.Top + desc.Height;
  if (desc.Left != 0 || desc.Top != 0 || desc.Width != width ||
      desc.Height != height) {
    if (prev == nullptr) std::memset(dst, 0, frame_bytes);
    left = std::max(left, 0);
    top = std::max(top, 0);
    right = std::min(right, width);
    bottom = std::min(bottom, height);
  }
  const ColorMapObject* map =
      desc.ColorMap != nullptr ? desc.ColorMap : gif->SColorMap;
  if (map == nullptr) return InvalidArgument("missing color map");
  for (int64_t i = top; i < bottom; ++i) {
    for (int64_t j = left; j < right; ++j) {
      const GifByteType c =
          image.RasterBits[(i - desc.Top) * desc.Width + (j - desc.Left)];
      uint8_t* p = dst + (i * width + j) * 3;
      if (c == gcb.TransparentColor) {
        if (prev == nullptr) p[0] = p[1] = p[2] = 0;
        continue;
      }
      if (c >= map->ColorCount) {
        return InvalidArgument(
            "found color index {} outside of color map range {}", c,
            map->ColorCount);
      }
      p[0] = map->Colors[c].Red;
      p[1] = map->Colors[c].Green;
      p[2] = map->Colors[c].Blue;
    }
  }
  return Status::Ok();
}

// TensorFlow's gif::Decode; the error text follows "Invalid GIF data (size
// n), ".
Status DecodeGifFrames(const std::string& input, OpKernelContext* ctx) {
  GifInput in{reinterpret_cast<const uint8_t*>(input.data()), input.size()};
  int err = D_GIF_SUCCEEDED;
  GifFileType* gif = DGifOpen(&in, &ReadGifBytes, &err);
  std::unique_ptr<GifFileType, void (*)(GifFileType*)> guard(
      gif, [](GifFileType* g) {
        int e;
        if (g != nullptr) DGifCloseFile(g, &e);
      });
  if (err != D_GIF_SUCCEEDED) {
    return InvalidArgument("failed to open gif file: {}", GifError(err));
  }
  if (DGifSlurp(gif) != GIF_OK) {
    // TensorFlow goes on with the frames read unless none was.
    if (gif->ImageCount <= 0 ||
        gif->SavedImages[gif->ImageCount - 1].RasterBits == nullptr) {
      return InvalidArgument("failed to slurp gif file: {}",
                             GifError(gif->Error));
    }
  }
  if (gif->ImageCount <= 0) {
    return InvalidArgument("gif file does not contain any image");
  }
  const int frames = gif->ImageCount;
  int width = 0, height = 0;
  for (int k = 0; k < frames; ++k) {
    width = std::max(width, gif->SavedImages[k].ImageDesc.Width);
    height = std::max(height, gif->SavedImages[k].ImageDesc.Height);
  }
  Tensor* out = nullptr;
  DFG_RETURN_IF_ERROR(
      ctx->allocate_output(0, TensorShape({frames, height, width, 3}), &out));
  uint8_t* dst = out->flat<uint8_t>().data();
  const size_t frame_bytes = static_cast<size_t>(width) * height * 3;
  for (int k = 0; k < frames; ++k) {
    DFG_RETURN_IF_ERROR(ComposeFrame(
        gif, k, width, height, k > 0 ? dst + (k - 1) * frame_bytes : nullptr,
        dst + k * frame_bytes));
  }
  return Status::Ok();
}

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
    const Tensor& contents = ctx->input(0);
    DFG_OP_REQUIRES(ctx, contents.dims() == 0,
                    InvalidArgument("`contents` must be scalar but got shape{}",
                                    contents.shape().DebugString()));
    const std::string& input = contents.scalar<std::string>();
    DFG_OP_REQUIRES(ctx, !input.empty(), InvalidArgument("Input is empty."));
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
    const Status s = DecodeGifFrames(input, ctx);
    DFG_OP_REQUIRES(ctx, s.ok() || s.code() != Code::kInvalidArgument,
                    InvalidArgument("Invalid GIF data (size {}), {}",
                                    input.size(), s.message()));
    DFG_OP_REQUIRES_OK(ctx, s);
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
    DFG_OP_REQUIRES(
        ctx,
        channels_ == 0 || channels_ == 1 || channels_ == 3 || channels_ == 4,
        InvalidArgument("`channels` must be 0, 1, 3 or 4 but got {}",
                        channels_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    DFG_OP_REQUIRES(ctx, contents.dims() == 0,
                    InvalidArgument("`contents` must be scalar but got shape{}",
                                    contents.shape().DebugString()));
    const std::string& input = contents.scalar<std::string>();
    DFG_OP_REQUIRES(ctx, !input.empty(), InvalidArgument("Input is empty."));
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

bool IsJxl(const std::string& d) {
  return d.compare(0, 2, "\xff\x0a") == 0 ||
         d.compare(0, 12, std::string("\0\0\0\x0cJXL \r\n\x87\n", 12)) == 0;
}

// A JPEG XL image as [height, width, color channels (+1 with alpha)].
class DecodeJxlOp : public OpKernel {
 public:
  explicit DecodeJxlOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("channels", &channels_));
    DFG_OP_REQUIRES(
        ctx,
        channels_ == 0 || channels_ == 1 || channels_ == 3 || channels_ == 4,
        InvalidArgument("`channels` must be 0, 1, 3 or 4 but got {}",
                        channels_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    DFG_OP_REQUIRES(ctx, contents.dims() == 0,
                    InvalidArgument("`contents` must be scalar but got shape{}",
                                    contents.shape().DebugString()));
    const std::string& input = contents.scalar<std::string>();
    DFG_OP_REQUIRES(ctx, !input.empty(), InvalidArgument("Input is empty."));
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
        JxlDecoderCreate(nullptr), JxlDecoderDestroy);
    DFG_OP_REQUIRES(ctx,
                    JxlDecoderSubscribeEvents(
                        dec.get(), JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE) ==
                        JXL_DEC_SUCCESS,
                    Internal("JxlDecoderSubscribeEvents failed"));
    JxlDecoderSetInput(dec.get(),
                       reinterpret_cast<const uint8_t*>(input.data()),
                       input.size());
    JxlDecoderCloseInput(dec.get());
    Tensor* out = nullptr;
    JxlPixelFormat format{0, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    while (true) {
      const JxlDecoderStatus status = JxlDecoderProcessInput(dec.get());
      if (status == JXL_DEC_BASIC_INFO) {
        JxlBasicInfo info;
        JxlDecoderGetBasicInfo(dec.get(), &info);
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
            JxlDecoderSetImageOutBuffer(dec.get(), &format, out->data(),
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
