// The checks every image decoder kernel shares (DecodeJpeg/Png/Gif/Bmp/
// Image, DecodeWebP, DecodeJxl): the `channels` attr and the `contents`
// input, with TensorFlow's error texts.
#ifndef DFG_LIB_KERNELS_IMAGE_DECODE_UTIL_H_
#define DFG_LIB_KERNELS_IMAGE_DECODE_UTIL_H_

#include <string>

#include "lib/kernels/op_kernel.h"

namespace dfg {

inline Status CheckDecodeChannels(int64_t channels) {
  if (channels == 0 || channels == 1 || channels == 3 || channels == 4) {
    return Status::Ok();
  }
  return InvalidArgument("`channels` must be 0, 1, 3 or 4 but got {}",
                         channels);
}

// The encoded bytes of a scalar, non-empty `contents` input.
inline StatusOr<const std::string*> DecodeContents(const Tensor& contents) {
  if (contents.dims() != 0) {
    return InvalidArgument("`contents` must be scalar but got shape{}",
                           contents.shape().DebugString());
  }
  const std::string& input = contents.scalar<std::string>();
  if (input.empty()) return InvalidArgument("Input is empty.");
  return &input;
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_IMAGE_DECODE_UTIL_H_
