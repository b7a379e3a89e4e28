// What the resize kernels (ResizeBilinear, ResizeNearestNeighbor in
// resize_ops.cc; ResizeBicubic in image_ops.cc) check of their attrs and
// inputs before they compute, as TensorFlow's ImageResizerState
// (image_resizer_state.h), with its messages; and the bicubic taps the
// forward op and its gradient (image_ext_ops.cc) share.
#ifndef DFG_LIB_KERNELS_IMAGE_RESIZER_H_
#define DFG_LIB_KERNELS_IMAGE_RESIZER_H_

#include <cstdint>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// An NHWC input of batch x in_h x in_w x depth resized to out_h x out_w;
// scale_* as ResizeScale gives them.
struct ResizeDims {
  int64_t batch, in_h, in_w, depth, out_h, out_w;
  float scale_h, scale_w;
};

// The constructor's check: align_corners and half_pixel_centers exclude
// each other.
inline Status CheckResizeAttrs(bool align_corners, bool half_pixel_centers) {
  if (align_corners && half_pixel_centers) {
    return InvalidArgument(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  return Status::Ok();
}

// ValidateAndCalculateOutputSize: `input` 4-D with a non-empty image,
// `size` two positive int32s. Errors are kInvalidArgument.
inline StatusOr<ResizeDims> ResizeOutputSize(const Tensor& input,
                                             const Tensor& size,
                                             bool align_corners) {
  if (input.dims() != 4) {
    return InvalidArgument("input must be 4-dimensional{}",
                           input.shape().DebugString());
  }
  if (size.dims() != 1) {
    return InvalidArgument("shape_t must be 1-dimensional{}",
                           size.shape().DebugString());
  }
  if (size.NumElements() != 2) {
    return InvalidArgument("shape_t must have two elements{}",
                           size.shape().DebugString());
  }
  const std::vector<int64_t> s = IntValues(size);
  ResizeDims d{input.dim_size(0),
               input.dim_size(1),
               input.dim_size(2),
               input.dim_size(3),
               s[0],
               s[1],
               0,
               0};
  if (d.out_h <= 0 || d.out_w <= 0) {
    return InvalidArgument("output dimensions must be positive");
  }
  if (d.in_h <= 0 || d.in_w <= 0) {
    return InvalidArgument("input image must be of non-zero size");
  }
  d.scale_h = ResizeScale(d.in_h, d.out_h, align_corners);
  d.scale_w = ResizeScale(d.in_w, d.out_w, align_corners);
  return d;
}

// The four taps of ResizeBicubic (and its gradient) for output index `out`
// along an axis of `limit` input pixels (image_ops.cc): Keys' cubic with
// a = -0.5 and out-of-image taps dropped (half_pixel), a = -0.75 with edge
// pixels repeated otherwise.
struct BicubicTaps {
  float w[4];
  int64_t index[4];
};
BicubicTaps BicubicTapsAt(float scale, int64_t out, int64_t limit,
                          bool half_pixel);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_IMAGE_RESIZER_H_
