// Op table: the image resize family beyond bilinear/nearest/bicubic
// (ResizeArea, ScaleAndTranslate) and the resize gradients, as TensorFlow's
// core/ops/image_ops.cc declares them.
//
// GPU kernels exist for the bilinear, nearest-neighbor and bicubic
// gradients only; ResizeArea and ScaleAndTranslate(Grad) are CPU-only.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

void RegisterResizeExtOps(OpTable& t) {
  t.Add(Op("ResizeArea")
            .Input("images: T")
            .Input("size: int32")
            .Output("resized_images: float")
            .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, "
                  "double, bfloat16}")
            .Attr("align_corners: bool = false")
            .Kernels("CPU"));
  t.Add(Op("ScaleAndTranslate")
            .Input("images: T")
            .Input("size: int32")
            .Input("scale: float")
            .Input("translation: float")
            .Output("resized_images: float")
            .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, "
                  "half, float, double}")
            .Attr("kernel_type: string = 'lanczos3'")
            .Attr("antialias: bool = true")
            .Kernels("CPU"));
  t.Add(Op("ScaleAndTranslateGrad")
            .Input("grads: T")
            .Input("original_image: T")
            .Input("scale: float")
            .Input("translation: float")
            .Output("output: T")
            .Attr("T: {float}")
            .Attr("kernel_type: string = 'lanczos3'")
            .Attr("antialias: bool = true")
            .Kernels("CPU"));
  t.Add(Op("ResizeBilinearGrad")
            .Input("grads: float")
            .Input("original_image: T")
            .Output("output: T")
            .Attr("T: {float, bfloat16, half, double}")
            .Attr("align_corners: bool = false")
            .Attr("half_pixel_centers: bool = false")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ResizeBicubicGrad")
            .Input("grads: float")
            .Input("original_image: T")
            .Output("output: T")
            .Attr("T: {float, double}")
            .Attr("align_corners: bool = false")
            .Attr("half_pixel_centers: bool = false")
            .Kernels("CPU", "GPU"));
  t.Add(Op("ResizeNearestNeighborGrad")
            .Input("grads: T")
            .Input("size: int32")
            .Output("output: T")
            .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
            .Attr("align_corners: bool = false")
            .Attr("half_pixel_centers: bool = false")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "size"));
}

}  // namespace

void RegisterImageNnOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterResizeExtOps(t);
}

}  // namespace dfg
