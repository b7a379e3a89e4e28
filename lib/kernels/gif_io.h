// GIF decoding as TensorFlow's gif::Decode (core/lib/gif/gif_io.cc) does
// it: each frame starts from the previous one, pixels of the frame's
// transparent color keep what is there (black on the first frame), disposal
// methods are ignored, and the canvas is the largest frame's width and
// height. Used by DecodeGif and by the GIF contents of DecodeImage,
// DecodePng and DecodeJpeg.
#ifndef DFG_LIB_KERNELS_GIF_IO_H_
#define DFG_LIB_KERNELS_GIF_IO_H_

#include <cstdint>
#include <functional>
#include <string_view>

#include "lib/base/status.h"

namespace dfg {

// Decodes `data`: allocate(frames, height, width, 3) returns the row-major
// buffer of every frame (nullptr to give up: kCancelled); with
// expand_animations false only the first frame is decoded (frames == 1).
// Errors (kInvalidArgument, TensorFlow's texts, which callers prefix with
// "Invalid GIF data (size <n>), "): "failed to open gif file: <reason>",
// "failed to slurp gif file: <reason>", "gif file does not contain any
// image", "found color index <i> outside of color map range <n>", "missing
// color map".
Status DecodeGifImage(
    std::string_view data, bool expand_animations,
    const std::function<uint8_t*(int, int, int, int)>& allocate);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_GIF_IO_H_
