// Op table (RegisterQuantOps): the quantization ops beyond QuantizeV2 /
// Dequantize and the uTensor-era quantized ops registered with the math and
// nn tables: fake quantization's gradients and per-channel forms,
// QuantizeAndDequantize V1-V4, requantization. Signatures as TensorFlow's
// OpDefs.
#include <string>

#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

constexpr char kFloats[] = "T: {bfloat16, half, float, double}";

void RegisterFakeQuant(OpTable& t) {
  t.Add(Op("FakeQuantWithMinMaxArgsGradient")
            .Input("gradients: float")
            .Input("inputs: float")
            .Output("backprops: float")
            .Attr("min: float = -6.0")
            .Attr("max: float = 6.0")
            .Attr("num_bits: int = 8")
            .Attr("narrow_range: bool = false")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"FakeQuantWithMinMaxVarsGradient",
                           "FakeQuantWithMinMaxVarsPerChannelGradient"}) {
    t.Add(Op(name)
              .Input("gradients: float")
              .Input("inputs: float")
              .Input("min: float")
              .Input("max: float")
              .Output("backprops_wrt_input: float")
              .Output("backprop_wrt_min: float")
              .Output("backprop_wrt_max: float")
              .Attr("num_bits: int = 8")
              .Attr("narrow_range: bool = false")
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("FakeQuantWithMinMaxVarsPerChannel")
            .Input("inputs: float")
            .Input("min: float")
            .Input("max: float")
            .Output("outputs: float")
            .Attr("num_bits: int = 8")
            .Attr("narrow_range: bool = false")
            .Kernels("CPU", "GPU"));
}

void RegisterQuantizeAndDequantize(OpTable& t) {
  t.Add(Op("QuantizeAndDequantize")
            .Input("input: T")
            .Output("output: T")
            .Attr("signed_input: bool = true")
            .Attr("num_bits: int = 8")
            .Attr("range_given: bool = false")
            .Attr("input_min: float = 0.0")
            .Attr("input_max: float = 0.0")
            .Attr(kFloats)
            .Kernels("CPU", "GPU"));
  for (const char* name :
       {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"}) {
    t.Add(Op(name)
              .Input("input: T")
              .Input("input_min: T")
              .Input("input_max: T")
              .Output("output: T")
              .Attr("signed_input: bool = true")
              .Attr("num_bits: int = 8")
              .Attr("range_given: bool = false")
              .Attr(kFloats)
              .Attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'")
              .Attr("narrow_range: bool = false")
              .Attr("axis: int = -1")
              .Kernels("CPU", "GPU"));
  }
  t.Add(Op("QuantizeAndDequantizeV3")
            .Input("input: T")
            .Input("input_min: T")
            .Input("input_max: T")
            .Input("num_bits: int32")
            .Output("output: T")
            .Attr("signed_input: bool = true")
            .Attr("range_given: bool = true")
            .Attr(kFloats)
            .Attr("narrow_range: bool = false")
            .Attr("axis: int = -1")
            .Kernels("CPU", "GPU"));
  t.Add(Op("QuantizeAndDequantizeV4Grad")
            .Input("gradients: T")
            .Input("input: T")
            .Input("input_min: T")
            .Input("input_max: T")
            .Output("input_backprop: T")
            .Output("input_min_backprop: T")
            .Output("input_max_backprop: T")
            .Attr(kFloats)
            .Attr("axis: int = -1")
            .Kernels("CPU", "GPU"));
}

void RegisterRequantization(OpTable& t) {
  t.Add(Op("RequantizePerChannel")
            .Input("input: T")
            .Input("input_min: float")
            .Input("input_max: float")
            .Input("requested_output_min: float")
            .Input("requested_output_max: float")
            .Output("output: out_type")
            .Output("output_min: float")
            .Output("output_max: float")
            .Attr("T: quantizedtype = DT_QINT32")
            .Attr("out_type: quantizedtype = DT_QUINT8")
            .Kernels("CPU"));
  t.Add(Op("RequantizationRangePerChannel")
            .Input("input: T")
            .Input("input_min: float")
            .Input("input_max: float")
            .Output("output_min: float")
            .Output("output_max: float")
            .Attr("T: quantizedtype = DT_QINT32")
            .Attr("clip_value_max: float")
            .Kernels("CPU"));
  t.Add(Op("QuantizeDownAndShrinkRange")
            .Input("input: Tinput")
            .Input("input_min: float")
            .Input("input_max: float")
            .Output("output: out_type")
            .Output("output_min: float")
            .Output("output_max: float")
            .Attr("Tinput: quantizedtype")
            .Attr("out_type: quantizedtype")
            .Kernels("CPU"));
}

// The quantized inference ops beyond those of the nn and math tables.
void RegisterQuantizedNn(OpTable& t) {
  t.Add(Op("QuantizedAvgPool")
            .Input("input: T")
            .Input("min_input: float")
            .Input("max_input: float")
            .Output("output: T")
            .Output("min_output: float")
            .Output("max_output: float")
            .Attr("T: quantizedtype")
            .Attr("ksize: list(int)")
            .Attr("strides: list(int)")
            .Attr("padding: {'SAME', 'VALID'}")
            .Kernels("CPU"));
  t.Add(Op("QuantizedReshape")
            .Input("tensor: T")
            .Input("shape: Tshape")
            .Input("input_min: float")
            .Input("input_max: float")
            .Output("output: T")
            .Output("output_min: float")
            .Output("output_max: float")
            .Attr("T: type")
            .Attr("Tshape: {int32, int64} = DT_INT32")
            .Kernels("CPU"));
  t.Add(Op("QuantizedConcat")
            .Input("concat_dim: int32")
            .Input("values: N * T")
            .Input("input_mins: N * float")
            .Input("input_maxes: N * float")
            .Output("output: T")
            .Output("output_min: float")
            .Output("output_max: float")
            .Attr("N: int >= 2")
            .Attr("T: type")
            .Kernels("CPU"));
  t.Add(Op("QuantizedMul")
            .Input("x: T1")
            .Input("y: T2")
            .Input("min_x: float")
            .Input("max_x: float")
            .Input("min_y: float")
            .Input("max_y: float")
            .Output("z: Toutput")
            .Output("min_z: float")
            .Output("max_z: float")
            .Attr("T1: quantizedtype")
            .Attr("T2: quantizedtype")
            .Attr("Toutput: quantizedtype = DT_QINT32")
            .Kernels("CPU"));
  OpBuilder bn("QuantizedBatchNormWithGlobalNormalization");
  for (const char* in : {"t", "m", "v", "beta", "gamma"}) {
    bn.Input(std::string(in) + ": Tinput")
        .Input(std::string(in) + "_min: float")
        .Input(std::string(in) + "_max: float");
  }
  t.Add(bn.Output("result: out_type")
            .Output("result_min: float")
            .Output("result_max: float")
            .Attr("Tinput: quantizedtype")
            .Attr("out_type: quantizedtype")
            .Attr("variance_epsilon: float")
            .Attr("scale_after_normalization: bool")
            .Kernels("CPU"));
  t.Add(Op("QuantizedResizeBilinear")
            .Input("images: T")
            .Input("size: int32")
            .Input("min: float")
            .Input("max: float")
            .Output("resized_images: T")
            .Output("out_min: float")
            .Output("out_max: float")
            .Attr("T: {quint8, qint32, float}")
            .Attr("align_corners: bool = false")
            .Attr("half_pixel_centers: bool = false")
            .Kernels("CPU"));
  t.Add(Op("QuantizedInstanceNorm")
            .Input("x: T")
            .Input("x_min: float")
            .Input("x_max: float")
            .Output("y: T")
            .Output("y_min: float")
            .Output("y_max: float")
            .Attr("T: quantizedtype")
            .Attr("output_range_given: bool = false")
            .Attr("given_y_min: float = 0")
            .Attr("given_y_max: float = 0")
            .Attr("variance_epsilon: float = 1e-05")
            .Attr("min_separation: float = 0.001")
            .Kernels("CPU"));
  t.Add(Op("QuantizedBiasAdd")
            .Input("input: T1")
            .Input("bias: T2")
            .Input("min_input: float")
            .Input("max_input: float")
            .Input("min_bias: float")
            .Input("max_bias: float")
            .Output("output: out_type")
            .Output("min_out: float")
            .Output("max_out: float")
            .Attr("T1: quantizedtype")
            .Attr("T2: quantizedtype")
            .Attr("out_type: quantizedtype")
            .Kernels("CPU"));
}

// Uniform (scale, zero point) quantization.
void RegisterUniform(OpTable& t) {
  for (const char* name : {"UniformQuantize", "UniformDequantize"}) {
    const bool quantize = std::string(name) == "UniformQuantize";
    t.Add(
        Op(name)
            .Input("input: Tin")
            .Input("scales: float")
            .Input("zero_points: int32")
            .Output("output: Tout")
            .Attr(quantize ? "Tin: {float}" : "Tin: {qint8, quint8, qint32}")
            .Attr(quantize ? "Tout: {qint8, quint8, qint32}" : "Tout: {float}")
            .Attr("quantization_axis: int = -1")
            .Attr("quantization_min_val: int")
            .Attr("quantization_max_val: int")
            .Kernels("CPU"));
  }
  OpBuilder add("UniformQuantizedAdd");
  add.Input("lhs: T").Input("rhs: T");
  add.Input("lhs_scales: float")
      .Input("lhs_zero_points: int32")
      .Input("rhs_scales: float")
      .Input("rhs_zero_points: int32")
      .Input("output_scales: float")
      .Input("output_zero_points: int32")
      .Output("output: T");
  for (const char* side : {"lhs", "rhs", "output"}) {
    add.Attr(std::string(side) + "_quantization_axis: int = -1")
        .Attr(std::string(side) + "_quantization_min_val: int")
        .Attr(std::string(side) + "_quantization_max_val: int");
  }
  t.Add(add.Attr("T: {qint32}").Kernels("CPU"));
  OpBuilder dot("UniformQuantizedDot");
  dot.Input("lhs: Tin")
      .Input("rhs: Tin")
      .Input("lhs_scales: float")
      .Input("lhs_zero_points: int32")
      .Input("rhs_scales: float")
      .Input("rhs_zero_points: int32")
      .Input("output_scales: float")
      .Input("output_zero_points: int32")
      .Output("output: Tout")
      .Attr("Tin: {qint8}")
      .Attr("Tout: {qint32}");
  for (const char* side : {"lhs", "rhs", "output"}) {
    dot.Attr(std::string(side) + "_quantization_axis: int = -1")
        .Attr(std::string(side) + "_quantization_min_val: int")
        .Attr(std::string(side) + "_quantization_max_val: int");
  }
  t.Add(dot.Kernels("CPU"));
  t.Add(Op("UniformQuantizedDotHybrid")
            .Input("lhs: Tlhs")
            .Input("rhs: Trhs")
            .Input("rhs_scales: float")
            .Input("rhs_zero_points: int32")
            .Output("output: Tout")
            .Attr("Tlhs: {float}")
            .Attr("Trhs: {qint8}")
            .Attr("Tout: {float}")
            .Attr("rhs_quantization_axis: int = -1")
            .Attr("rhs_quantization_min_val: int")
            .Attr("rhs_quantization_max_val: int")
            .Kernels("CPU"));
  t.Add(Op("UniformQuantizedClipByValue")
            .Input("operand: T")
            .Input("min: T")
            .Input("max: T")
            .Input("scales: float")
            .Input("zero_points: int32")
            .Output("output: T")
            .Attr("T: {qint32}")
            .Attr("quantization_axis: int = -1")
            .Attr("quantization_min_val: int")
            .Attr("quantization_max_val: int")
            .Kernels("CPU"));
  t.Add(Op("UniformRequantize")
            .Input("input: Tin")
            .Input("input_scales: float")
            .Input("input_zero_points: int32")
            .Input("output_scales: float")
            .Input("output_zero_points: int32")
            .Output("output: Tout")
            .Attr("Tin: {qint8, qint32}")
            .Attr("Tout: {qint8, qint32}")
            .Attr("input_quantization_axis: int = -1")
            .Attr("input_quantization_min_val: int")
            .Attr("input_quantization_max_val: int")
            .Attr("output_quantization_axis: int = -1")
            .Attr("output_quantization_min_val: int")
            .Attr("output_quantization_max_val: int")
            .Kernels("CPU"));
}

}  // namespace

void RegisterQuantOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterFakeQuant(t);
  RegisterQuantizeAndDequantize(t);
  RegisterRequantization(t);
  RegisterQuantizedNn(t);
  RegisterUniform(t);
}

}  // namespace dfg
