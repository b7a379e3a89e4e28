// Op table: the image resize family beyond bilinear/nearest/bicubic
// (ResizeArea, ScaleAndTranslate) and the resize gradients (TensorFlow's
// core/ops/image_ops.cc); the FFTs (spectral_ops.cc) and the complex-number
// element ops (math_ops.cc).
//
// GPU kernels exist for the bilinear, nearest-neighbor and bicubic
// gradients, the FFTs and the complex ops; ResizeArea and
// ScaleAndTranslate(Grad) are CPU-only.
#include <string>
#include <string_view>

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

void RegisterFftOps(OpTable& t) {
  constexpr const char* kComplex =
      "Tcomplex: {complex64, complex128} = DT_COMPLEX64";
  constexpr const char* kReal = "Treal: {float, double} = DT_FLOAT";
  for (const char* suffix : {"", "2D", "3D"}) {
    for (const char* kind : {"FFT", "IFFT"}) {
      t.Add(Op(std::string(kind) + suffix)
                .Input("input: Tcomplex")
                .Output("output: Tcomplex")
                .Attr(kComplex)
                .Kernels("CPU", "GPU"));
    }
    t.Add(Op(std::string("RFFT") + suffix)
              .Input("input: Treal")
              .Input("fft_length: int32")
              .Output("output: Tcomplex")
              .Attr(kReal)
              .Attr(kComplex)
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "fft_length"));
    t.Add(Op(std::string("IRFFT") + suffix)
              .Input("input: Tcomplex")
              .Input("fft_length: int32")
              .Output("output: Treal")
              .Attr(kReal)
              .Attr(kComplex)
              .Kernels("CPU", "GPU")
              .HostMemory("GPU", "fft_length"));
  }
}

void RegisterComplexOps(OpTable& t) {
  t.Add(Op("Complex")
            .Input("real: T")
            .Input("imag: T")
            .Output("out: Tout")
            .Attr("T: {float, double} = DT_FLOAT")
            .Attr("Tout: {complex64, complex128} = DT_COMPLEX64")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"Real", "Imag", "Angle"}) {
    t.Add(Op(name)
              .Input("input: T")
              .Output("output: Tout")
              .Attr("T: {complex64, complex128} = DT_COMPLEX64")
              .Attr("Tout: {float, double} = DT_FLOAT")
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("ComplexAbs")
            .Input("x: T")
            .Output("y: Tout")
            .Attr("T: {complex64, complex128} = DT_COMPLEX64")
            .Attr("Tout: {float, double} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
  t.Add(Op("Conj")
            .Input("input: T")
            .Output("output: T")
            .Attr("T: {complex64, complex128, variant} = DT_COMPLEX64")
            .Kernels("CPU", "GPU"));
}

void RegisterColorOps(OpTable& t) {
  for (const char* name : {"RGBToHSV", "HSVToRGB"}) {
    t.Add(Op(name)
              .Input("images: T")
              .Output("output: T")
              .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("AdjustHue")
            .Input("images: T")
            .Input("delta: float")
            .Output("output: T")
            .Attr("T: {half, float} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
  t.Add(Op("AdjustSaturation")
            .Input("images: T")
            .Input("scale: float")
            .Output("output: T")
            .Attr("T: {half, float} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
  t.Add(Op("DrawBoundingBoxes")
            .Input("images: T")
            .Input("boxes: float")
            .Output("output: T")
            .Attr("T: {float, half} = DT_FLOAT")
            .Kernels("CPU"));
  t.Add(Op("DrawBoundingBoxesV2")
            .Input("images: T")
            .Input("boxes: float")
            .Input("colors: float")
            .Output("output: T")
            .Attr("T: {float, half} = DT_FLOAT")
            .Kernels("CPU"));
}

void RegisterCodecOps(OpTable& t) {
  t.Add(Op("EncodeJpeg")
            .Input("image: uint8")
            .Output("contents: string")
            .Attr("format: {'', 'grayscale', 'rgb'} = ''")
            .Attr("quality: int = 95")
            .Attr("progressive: bool = false")
            .Attr("optimize_size: bool = false")
            .Attr("chroma_downsampling: bool = true")
            .Attr("density_unit: {'in', 'cm'} = 'in'")
            .Attr("x_density: int = 300")
            .Attr("y_density: int = 300")
            .Attr("xmp_metadata: string = ''")
            .Kernels("CPU"));
}

void RegisterNmsOps(OpTable& t) {
  t.Add(Op("NonMaxSuppression")
            .Input("boxes: float")
            .Input("scores: float")
            .Input("max_output_size: int32")
            .Output("selected_indices: int32")
            .Attr("iou_threshold: float = 0.5")
            .Kernels("CPU"));
  t.Add(Op("NonMaxSuppressionV2")
            .Input("boxes: T")
            .Input("scores: T")
            .Input("max_output_size: int32")
            .Input("iou_threshold: T_threshold")
            .Output("selected_indices: int32")
            .Attr("T: {half, float} = DT_FLOAT")
            .Attr("T_threshold: {half, float} = DT_FLOAT")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "max_output_size", "iou_threshold"));
  t.Add(Op("NonMaxSuppressionWithOverlaps")
            .Input("overlaps: float")
            .Input("scores: float")
            .Input("max_output_size: int32")
            .Input("overlap_threshold: float")
            .Input("score_threshold: float")
            .Output("selected_indices: int32")
            .Kernels("CPU"));
}

void RegisterTransformOps(OpTable& t) {
  constexpr const char* kTypes =
      "dtype: {uint8, int32, int64, half, bfloat16, float, double}";
  t.Add(Op("ImageProjectiveTransformV2")
            .Input("images: dtype")
            .Input("transforms: float")
            .Input("output_shape: int32")
            .Output("transformed_images: dtype")
            .Attr(kTypes)
            .Attr("interpolation: string")
            .Attr("fill_mode: string = 'CONSTANT'")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "output_shape"));
  t.Add(Op("ImageProjectiveTransformV3")
            .Input("images: dtype")
            .Input("transforms: float")
            .Input("output_shape: int32")
            .Input("fill_value: float")
            .Output("transformed_images: dtype")
            .Attr(kTypes)
            .Attr("interpolation: string")
            .Attr("fill_mode: string = 'CONSTANT'")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "output_shape", "fill_value"));
  t.Add(Op("CropAndResizeGradImage")
            .Input("grads: float")
            .Input("boxes: float")
            .Input("box_ind: int32")
            .Input("image_size: int32")
            .Output("output: T")
            .Attr("T: {float, half, double}")
            .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "image_size"));
  t.Add(Op("CropAndResizeGradBoxes")
            .Input("grads: float")
            .Input("image: T")
            .Input("boxes: float")
            .Input("box_ind: int32")
            .Output("output: float")
            .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, "
                  "double}")
            .Attr("method: {'bilinear'} = 'bilinear'")
            .Kernels("CPU", "GPU"));
}

void RegisterNnGradOps(OpTable& t) {
  constexpr const char* kFloat = "T: {half, bfloat16, float, double}";
  for (const char* name : {"EluGrad", "SeluGrad"}) {
    t.Add(Op(name)
              .Input("gradients: T")
              .Input("outputs: T")
              .Output("backprops: T")
              .Attr(kFloat)
              .Kernels("CPU", "GPU"));
  }
  for (const char* name : {"SoftplusGrad", "SoftsignGrad"}) {
    t.Add(Op(name)
              .Input("gradients: T")
              .Input("features: T")
              .Output("backprops: T")
              .Attr(kFloat)
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("LeakyReluGrad")
            .Input("gradients: T")
            .Input("features: T")
            .Output("backprops: T")
            .Attr("alpha: float = 0.2")
            .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
  t.Add(Op("FusedBatchNormGrad")
            .Input("y_backprop: T")
            .Input("x: T")
            .Input("scale: T")
            .Input("reserve_space_1: T")
            .Input("reserve_space_2: T")
            .Output("x_backprop: T")
            .Output("scale_backprop: T")
            .Output("offset_backprop: T")
            .Output("reserve_space_3: T")
            .Output("reserve_space_4: T")
            .Attr("T: {float}")
            .Attr("epsilon: float = 0.0001")
            .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .Attr("is_training: bool = true")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    const bool v3 = std::string_view(name) == "FusedBatchNormGradV3";
    OpBuilder op = Op(name);
    op.Input("y_backprop: T")
        .Input("x: T")
        .Input("scale: float")
        .Input("reserve_space_1: U")
        .Input("reserve_space_2: U");
    if (v3) op.Input("reserve_space_3: U");
    op.Output("x_backprop: T")
        .Output("scale_backprop: U")
        .Output("offset_backprop: U")
        .Output(v3 ? "reserve_space_4: U" : "reserve_space_3: U")
        .Output(v3 ? "reserve_space_5: U" : "reserve_space_4: U")
        .Attr("T: {half, bfloat16, float}")
        .Attr("U: {float}")
        .Attr("epsilon: float = 0.0001")
        .Attr(v3 ? "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'"
                 : "data_format: {'NHWC', 'NCHW'} = 'NHWC'")
        .Attr("is_training: bool = true")
        .Kernels("CPU", "GPU");
    t.Add(op);
  }
}

}  // namespace

void RegisterImageNnOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterResizeExtOps(t);
  RegisterFftOps(t);
  RegisterComplexOps(t);
  RegisterColorOps(t);
  RegisterCodecOps(t);
  RegisterNmsOps(t);
  RegisterTransformOps(t);
  RegisterNnGradOps(t);
}

}  // namespace dfg
