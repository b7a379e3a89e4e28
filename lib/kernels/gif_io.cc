// GIF decoding with giflib, frames composed as TensorFlow's
// core/lib/gif/gif_io.cc composes them (see gif_io.h).
#include "lib/kernels/gif_io.h"

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <memory>

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

}  // namespace

Status DecodeGifImage(
    std::string_view data, bool expand_animations,
    const std::function<uint8_t*(int, int, int, int)>& allocate) {
  GifInput in{reinterpret_cast<const uint8_t*>(data.data()), data.size()};
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
  int width = 0, height = 0;
  for (int k = 0; k < gif->ImageCount; ++k) {
    width = std::max(width, gif->SavedImages[k].ImageDesc.Width);
    height = std::max(height, gif->SavedImages[k].ImageDesc.Height);
  }
  const int frames = expand_animations ? gif->ImageCount : 1;
  uint8_t* dst = allocate(frames, height, width, 3);
  if (dst == nullptr) return Cancelled("allocation refused");
  const size_t frame_bytes = static_cast<size_t>(width) * height * 3;
  for (int k = 0; k < frames; ++k) {
    DFG_RETURN_IF_ERROR(ComposeFrame(
        gif, k, width, height, k > 0 ? dst + (k - 1) * frame_bytes : nullptr,
        dst + k * frame_bytes));
  }
  return Status::Ok();
}

}  // namespace dfg
