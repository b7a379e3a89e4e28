// Op table: the pooling and convolution gradients beyond MaxPoolGrad,
// AvgPoolGrad and Conv2DBackprop* (max-pool gradients with argmax and of
// second order, the 3-D pooling and convolution gradients), morphological
// dilation, fractional pooling, volume patches and glimpses, and the gamma
// gradients IgammaGradA / RandomGammaGrad (TensorFlow's core/ops/nn_ops.cc,
// image_ops.cc, math_ops.cc, random_ops.cc). Signatures as TensorFlow's
// OpDefs.
#include <string>

#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

constexpr const char* kRealDefault = "T: realnumbertype = DT_FLOAT";
constexpr const char* kPadding = "padding: {'SAME', 'VALID'}";
constexpr const char* kFormat = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";
constexpr const char* kFormat3d = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'";

void RegisterMaxPoolGrads(OpTable& t) {
  for (const char* name :
       {"MaxPoolGradV2", "MaxPoolGradGrad", "MaxPoolGradGradV2"}) {
    const std::string_view n(name);
    const bool v2 = n.ends_with("V2");
    OpBuilder op = Op(name);
    op.Input("orig_input: T").Input("orig_output: T").Input("grad: T");
    if (v2) op.Input("ksize: int32").Input("strides: int32");
    op.Output("output: T");
    if (!v2) op.Attr("ksize: list(int) >= 4").Attr("strides: list(int) >= 4");
    op.Attr(kPadding)
        .Attr(kFormat)
        .Attr(n == "MaxPoolGradV2" ? kRealDefault : "T: realnumbertype")
        .Kernels("CPU", "GPU");
    if (v2) op.HostMemory("GPU", "ksize", "strides");
    t.Add(op);
  }
  t.Add(Op("MaxPoolWithArgmax")
            .Input("input: T")
            .Output("output: T")
            .Output("argmax: Targmax")
            .Attr("ksize: list(int) >= 4")
            .Attr("strides: list(int) >= 4")
            .Attr("Targmax: {int32, int64} = DT_INT64")
            .Attr(kPadding)
            .Attr("include_batch_in_index: bool = false")
            .Attr("T: realnumbertype")
            .Kernels("CPU", "GPU"));
  t.Add(Op("MaxPoolGradWithArgmax")
            .Input("input: T")
            .Input("grad: T")
            .Input("argmax: Targmax")
            .Output("output: T")
            .Attr("ksize: list(int) >= 4")
            .Attr("strides: list(int) >= 4")
            .Attr(kPadding)
            .Attr("include_batch_in_index: bool = false")
            .Attr("Targmax: {int32, int64}")
            .Attr("T: realnumbertype")
            .Kernels("CPU", "GPU"));
}

void RegisterPool3DGrads(OpTable& t) {
  t.Add(Op("MaxPool3DGrad")
            .Input("orig_input: TInput")
            .Input("orig_output: TInput")
            .Input("grad: T")
            .Output("output: T")
            .Attr("ksize: list(int) >= 5")
            .Attr("strides: list(int) >= 5")
            .Attr(kPadding)
            .Attr(kFormat3d)
            .Attr("T: {half, bfloat16, float} = DT_FLOAT")
            .Attr("TInput: {half, bfloat16, float} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
  t.Add(Op("MaxPool3DGradGrad")
            .Input("orig_input: T")
            .Input("orig_output: T")
            .Input("grad: T")
            .Output("output: T")
            .Attr("ksize: list(int) >= 5")
            .Attr("strides: list(int) >= 5")
            .Attr(kPadding)
            .Attr(kFormat3d)
            .Attr("T: realnumbertype")
            .Kernels("CPU", "GPU"));
  t.Add(Op("AvgPool3DGrad")
            .Input("orig_input_shape: int32")
            .Input("grad: T")
            .Output("output: T")
            .Attr("ksize: list(int) >= 5")
            .Attr("strides: list(int) >= 5")
            .Attr(kPadding)
            .Attr(kFormat3d)
            .Attr("T: {half, bfloat16, float, double}")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "orig_input_shape"));
}

void RegisterConv3DGrads(OpTable& t) {
  for (const char* name : {"Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"}) {
    const bool input = std::string_view(name) == "Conv3DBackpropInputV2";
    OpBuilder op = Op(name);
    if (input) {
      op.Input("input_sizes: Tshape").Input("filter: T");
    } else {
      op.Input("input: T").Input("filter_sizes: int32");
    }
    op.Input("out_backprop: T")
        .Output("output: T")
        .Attr("T: {half, bfloat16, float, double}")
        .Attr("strides: list(int) >= 5")
        .Attr(kPadding)
        .Attr(kFormat3d)
        .Attr("dilations: list(int) = [1, 1, 1, 1, 1]");
    if (input) op.Attr("Tshape: {int32, int64} = DT_INT32");
    op.Kernels("CPU", "GPU")
        .HostMemory("GPU", input ? "input_sizes" : "filter_sizes");
    t.Add(op);
  }
  // Deprecated at GraphDef version 10 (op_registry_deprecation.cc).
  for (const char* name : {"Conv3DBackpropInput", "Conv3DBackpropFilter"}) {
    t.Add(Op(name)
              .Input("input: T")
              .Input("filter: T")
              .Input("out_backprop: T")
              .Output("output: T")
              .Attr("T: {half, float, double}")
              .Attr("strides: list(int) >= 5")
              .Attr(kPadding)
              .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
              .Kernels("CPU", "GPU"));
  }
}

void RegisterDilations(OpTable& t) {
  for (const char* name :
       {"Dilation2D", "Dilation2DBackpropInput", "Dilation2DBackpropFilter"}) {
    const std::string_view n(name);
    OpBuilder op = Op(name);
    op.Input("input: T").Input("filter: T");
    if (n == "Dilation2D") {
      op.Output("output: T");
    } else {
      op.Input("out_backprop: T")
          .Output(n.ends_with("Input") ? "in_backprop: T"
                                       : "filter_backprop: T");
    }
    op.Attr("T: realnumbertype")
        .Attr("strides: list(int) >= 4")
        .Attr("rates: list(int) >= 4")
        .Attr(kPadding)
        .Kernels("CPU", "GPU");
    t.Add(op);
  }
}

void RegisterFractionalPools(OpTable& t) {
  constexpr const char* kTypes = "T: {float, double, int32, int64}";
  for (const char* name : {"FractionalMaxPool", "FractionalAvgPool"}) {
    t.Add(Op(name)
              .Input("value: T")
              .Output("output: T")
              .Output("row_pooling_sequence: int64")
              .Output("col_pooling_sequence: int64")
              .Attr("pooling_ratio: list(float) >= 4")
              .Attr("pseudo_random: bool = false")
              .Attr("overlapping: bool = false")
              .Attr("deterministic: bool = false")
              .Attr("seed: int = 0")
              .Attr("seed2: int = 0")
              .Attr(kTypes)
              .Kernels("CPU"));
  }
  t.Add(Op("FractionalMaxPoolGrad")
            .Input("orig_input: T")
            .Input("orig_output: T")
            .Input("out_backprop: T")
            .Input("row_pooling_sequence: int64")
            .Input("col_pooling_sequence: int64")
            .Output("output: T")
            .Attr("overlapping: bool = false")
            .Attr(kTypes)
            .Kernels("CPU"));
  t.Add(Op("FractionalAvgPoolGrad")
            .Input("orig_input_tensor_shape: int64")
            .Input("out_backprop: T")
            .Input("row_pooling_sequence: int64")
            .Input("col_pooling_sequence: int64")
            .Output("output: T")
            .Attr("overlapping: bool = false")
            .Attr(kTypes)
            .Kernels("CPU"));
}

void RegisterPatchesAndGlimpses(OpTable& t) {
  t.Add(Op("ExtractVolumePatches")
            .Input("input: T")
            .Output("patches: T")
            .Attr("ksizes: list(int) >= 5")
            .Attr("strides: list(int) >= 5")
            .Attr("T: realnumbertype")
            .Attr(kPadding)
            .Kernels("CPU", "GPU"));
  for (const char* name : {"ExtractGlimpse", "ExtractGlimpseV2"}) {
    t.Add(Op(name)
              .Input("input: float")
              .Input("size: int32")
              .Input("offsets: float")
              .Output("glimpse: float")
              .Attr("centered: bool = true")
              .Attr("normalized: bool = true")
              .Attr("uniform_noise: bool = true")
              .Attr("noise: string = 'uniform'")
              .Kernels("CPU"));
  }
}

void RegisterGammaGrads(OpTable& t) {
  t.Add(Op("IgammaGradA")
            .Input("a: T")
            .Input("x: T")
            .Output("z: T")
            .Attr("T: {float, double}")
            .Kernels("CPU", "GPU"));
  t.Add(Op("RandomGammaGrad")
            .Input("alpha: T")
            .Input("sample: T")
            .Output("output: T")
            .Attr("T: {float, double}")
            .Kernels("CPU"));
}

}  // namespace

void RegisterNnGradExtOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterMaxPoolGrads(t);
  RegisterPool3DGrads(t);
  RegisterConv3DGrads(t);
  RegisterDilations(t);
  RegisterFractionalPools(t);
  RegisterPatchesAndGlimpses(t);
  RegisterGammaGrads(t);
}

}  // namespace dfg
