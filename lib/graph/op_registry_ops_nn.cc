// Op table: neural-network ops (convolutions, pooling, activations, batch
// norm, losses), image ops and recurrent cells (TensorFlow's core/ops/
// {nn,image,rnn}_ops.cc), with the quantized NN ops of uTensor graphs.
//
// GPU kernels: convolutions, pooling and activations exist for the float
// types only; image decoding and the quantized ops are CPU-only.
#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

constexpr const char* kFloat = "{half, bfloat16, float, double}";
constexpr const char* kPaddingExplicit =
    "padding: {'SAME', 'VALID', 'EXPLICIT'}";
constexpr const char* kPadding = "padding: {'SAME', 'VALID'}";
constexpr const char* kExplicitPaddings = "explicit_paddings: list(int) = []";
constexpr const char* kDataFormat = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";
constexpr const char* kDataFormat3d =
    "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'";

std::string TypeAttr(const char* types) { return std::string("T: ") + types; }

void RegisterConvolutions(OpTable& t) {
  t.Add(Op("Conv2D")
            .Input("input: T")
            .Input("filter: T")
            .Output("output: T")
            .Attr("T: {half, bfloat16, float, double, int32}")
            .Attr("strides: list(int)")
            .Attr("use_cudnn_on_gpu: bool = true")
            .Attr(kPaddingExplicit)
            .Attr(kExplicitPaddings)
            .Attr(kDataFormat)
            .Attr("dilations: list(int) = [1, 1, 1, 1]")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", kFloat));
  t.Add(Op("Conv2DBackpropInput")
            .Input("input_sizes: int32")
            .Input("filter: T")
            .Input("out_backprop: T")
            .Output("output: T")
            .Attr("T: {half, bfloat16, float, double, int32}")
            .Attr("strides: list(int)")
            .Attr("use_cudnn_on_gpu: bool = true")
            .Attr(kPaddingExplicit)
            .Attr(kExplicitPaddings)
            .Attr(kDataFormat)
            .Attr("dilations: list(int) = [1, 1, 1, 1]")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", kFloat)
            .HostMemory("GPU", "input_sizes"));
  t.Add(Op("Conv2DBackpropFilter")
            .Input("input: T")
            .Input("filter_sizes: int32")
            .Input("out_backprop: T")
            .Output("output: T")
            .Attr(TypeAttr(kFloat))
            .Attr("strides: list(int)")
            .Attr("use_cudnn_on_gpu: bool = true")
            .Attr(kPaddingExplicit)
            .Attr(kExplicitPaddings)
            .Attr(kDataFormat)
            .Attr("dilations: list(int) = [1, 1, 1, 1]")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "filter_sizes"));
  t.Add(Op("DepthwiseConv2dNative")
            .Input("input: T")
            .Input("filter: T")
            .Output("output: T")
            .Attr(TypeAttr(kFloat))
            .Attr("strides: list(int)")
            .Attr(kPaddingExplicit)
            .Attr(kExplicitPaddings)
            .Attr(kDataFormat)
            .Attr("dilations: list(int) = [1, 1, 1, 1]")
            .Kernels("CPU", "GPU"));
  t.Add(Op("Conv3D")
            .Input("input: T")
            .Input("filter: T")
            .Output("output: T")
            .Attr(TypeAttr(kFloat))
            .Attr("strides: list(int) >= 5")
            .Attr(kPadding)
            .Attr(kDataFormat3d)
            .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
            .Kernels("CPU", "GPU"));
  // The signature of the TensorFlow versions that wrote the corpus' graphs
  // (fused args of type T; newer versions type them with a TArgs list).
  // TArgs, num_host_args and filter_format are accepted (with defaults, so
  // that older graphs stay valid) for the nodes newer TensorFlow writes and
  // that dfg's remapper writes for TensorFlow workers: TArgs = num_args * T.
  t.Add(Op("_FusedConv2D")
            .Input("input: T")
            .Input("filter: T")
            .Input("args: num_args * T")
            .Output("output: T")
            .Attr("T: {half, float, double}")
            .Attr("TArgs: list(type) = []")
            .Attr("num_args: int >= 0")
            .Attr("num_host_args: int >= 0 = 0")
            .Attr("filter_format: string = 'HWIO'")
            .Attr("strides: list(int)")
            .Attr(kPaddingExplicit)
            .Attr(kExplicitPaddings)
            .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .Attr("dilations: list(int) = [1, 1, 1, 1]")
            .Attr("use_cudnn_on_gpu: bool = true")
            .Attr("fused_ops: list(string) = []")
            .Attr("epsilon: float = 0.0001")
            .Attr("leakyrelu_alpha: float = 0.2")
            .Kernels("CPU", "GPU"));
  t.Add(Op("BiasAdd")
            .Input("value: T")
            .Input("bias: T")
            .Output("output: T")
            .Attr("T: numbertype")
            .Attr(kDataFormat)
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", "{half, bfloat16, float, double, int32}"));
  t.Add(Op("BiasAddV1")
            .Input("value: T")
            .Input("bias: T")
            .Output("output: T")
            .Attr("T: numbertype")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", "{half, bfloat16, float, double, int32}"));
  t.Add(Op("BiasAddGrad")
            .Input("out_backprop: T")
            .Output("output: T")
            .Attr("T: numbertype")
            .Attr(kDataFormat)
            .Kernels("CPU", "GPU"));
}

void RegisterPooling(OpTable& t) {
  constexpr const char* kMaxPoolTypes =
      "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
      "uint16, "
      "qint8} = DT_FLOAT";
  constexpr const char* kVectC =
      "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'";
  t.Add(Op("MaxPool")
            .Input("input: T")
            .Output("output: T")
            .Attr(kMaxPoolTypes)
            .Attr("ksize: list(int) >= 4")
            .Attr("strides: list(int) >= 4")
            .Attr(kPaddingExplicit)
            .Attr(kExplicitPaddings)
            .Attr(kVectC)
            .Kernels("CPU", "GPU"));
  t.Add(Op("MaxPoolV2")
            .Input("input: T")
            .Input("ksize: int32")
            .Input("strides: int32")
            .Output("output: T")
            .Attr(kMaxPoolTypes)
            .Attr(kPadding)
            .Attr(kVectC)
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "ksize", "strides"));
  t.Add(Op("MaxPoolGrad")
            .Input("orig_input: T")
            .Input("orig_output: T")
            .Input("grad: T")
            .Output("output: T")
            .Attr("ksize: list(int) >= 4")
            .Attr("strides: list(int) >= 4")
            .Attr(kPaddingExplicit)
            .Attr(kExplicitPaddings)
            .Attr(kDataFormat)
            .Attr("T: realnumbertype = DT_FLOAT")
            .Kernels("CPU", "GPU"));
  t.Add(Op("AvgPool")
            .Input("value: T")
            .Output("output: T")
            .Attr("ksize: list(int) >= 4")
            .Attr("strides: list(int) >= 4")
            .Attr(kPadding)
            .Attr(kDataFormat)
            .Attr(TypeAttr(kFloat))
            .Kernels("CPU", "GPU"));
  for (const char* name : {"MaxPool3D", "AvgPool3D"}) {
    bool max = std::string_view(name) == "MaxPool3D";
    t.Add(Op(name)
              .Input("input: T")
              .Output("output: T")
              .Attr("ksize: list(int) >= 5")
              .Attr("strides: list(int) >= 5")
              .Attr(kPadding)
              .Attr(kDataFormat3d)
              .Attr(max ? "T: {half, bfloat16, float}" : TypeAttr(kFloat))
              .Kernels("CPU", "GPU"));
  }
}

void RegisterActivations(OpTable& t) {
  auto activation = [&t](const char* name, const std::string& types) {
    OpBuilder op = Op(name);
    op.Input("features: T")
        .Output("activations: T")
        .Attr(types)
        .Kernels("CPU", "GPU");
    return op;
  };
  t.Add(activation("Relu", "T: {realnumbertype, qint8}"));
  t.Add(activation("Relu6", "T: realnumbertype"));
  t.Add(Op("LeakyRelu")
            .Input("features: T")
            .Output("activations: T")
            .Attr("alpha: float = 0.2")
            .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"Elu", "Selu", "Softplus", "Softsign"})
    t.Add(activation(name, TypeAttr(kFloat)));
  t.Add(Op("ReluGrad")
            .Input("gradients: T")
            .Input("features: T")
            .Output("backprops: T")
            .Attr("T: realnumbertype")
            .Kernels("CPU", "GPU"));
  t.Add(Op("Softmax")
            .Input("logits: T")
            .Output("softmax: T")
            .Attr(TypeAttr(kFloat))
            .Kernels("CPU", "GPU"));
  t.Add(Op("LogSoftmax")
            .Input("logits: T")
            .Output("logsoftmax: T")
            .Attr(TypeAttr(kFloat))
            .Kernels("CPU", "GPU"));
  t.Add(Op("SoftmaxCrossEntropyWithLogits")
            .Input("features: T")
            .Input("labels: T")
            .Output("loss: T")
            .Output("backprop: T")
            .Attr(TypeAttr(kFloat))
            .Kernels("CPU", "GPU"));
  t.Add(Op("SparseSoftmaxCrossEntropyWithLogits")
            .Input("features: T")
            .Input("labels: Tlabels")
            .Output("loss: T")
            .Output("backprop: T")
            .Attr(TypeAttr(kFloat))
            .Attr("Tlabels: {int32, int64} = DT_INT64")
            .Kernels("CPU", "GPU"));
  t.Add(Op("LRN")
            .Input("input: T")
            .Output("output: T")
            .Attr("depth_radius: int = 5")
            .Attr("bias: float = 1.0")
            .Attr("alpha: float = 1.0")
            .Attr("beta: float = 0.5")
            .Attr("T: {half, bfloat16, float} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
}

void RegisterBatchNorm(OpTable& t) {
  for (const char* name :
       {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    std::string_view op_name(name);
    bool v1 = op_name == "FusedBatchNorm", v3 = op_name == "FusedBatchNormV3";
    const char* u = v1 ? "T" : "U";
    OpBuilder op = Op(name);
    op.Input("x: T");
    for (const char* in : {"scale", "offset", "mean", "variance"})
      op.Input(fmt::format("{}: {}", in, u));
    op.Output("y: T");
    for (const char* out :
         {"batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"})
      op.Output(fmt::format("{}: {}", out, u));
    if (v3) op.Output("reserve_space_3: U");
    op.Attr(v1 ? "T: {float}" : "T: {half, bfloat16, float}");
    if (!v1) op.Attr(v3 ? "U: {bfloat16, float}" : "U: {float}");
    op.Attr("epsilon: float = 0.0001")
        .Attr("exponential_avg_factor: float = 1.0")
        .Attr(v3 ? "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'"
                 : kDataFormat)
        .Attr("is_training: bool = true")
        .Kernels("CPU", "GPU");
    t.Add(op);
  }
  // Layer normalization over the last dimension, as TensorFlow's remapper
  // (with oneDNN, the default on x86) and dfg's fuse Keras'
  // LayerNormalization into it; a plain-layout CPU kernel in both.
  t.Add(Op("_MklLayerNorm")
            .Input("x: T")
            .Input("scale: T")
            .Input("offset: T")
            .Output("y: T")
            .Attr("T: {float, bfloat16, half}")
            .Attr("epsilon: float = 0.001")
            .Kernels("CPU"));
}

void RegisterSelection(OpTable& t) {
  t.Add(Op("TopKV2")
            .Input("input: T")
            .Input("k: Tk")
            .Output("values: T")
            .Output("indices: index_type")
            .Attr("sorted: bool = true")
            .Attr("T: realnumbertype")
            .Attr("Tk: {int16, int32, int64} = DT_INT32")
            .Attr("index_type: {int16, int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "k"));
  constexpr const char* kNmsT = "T: {half, float} = DT_FLOAT";
  constexpr const char* kNmsThreshold = "T_threshold: {half, float} = DT_FLOAT";
  for (const char* name : {"NonMaxSuppressionV3", "NonMaxSuppressionV4"}) {
    bool v4 = std::string_view(name) == "NonMaxSuppressionV4";
    OpBuilder op = Op(name);
    op.Input("boxes: T")
        .Input("scores: T")
        .Input("max_output_size: int32")
        .Input("iou_threshold: T_threshold")
        .Input("score_threshold: T_threshold")
        .Output("selected_indices: int32")
        .Attr(kNmsT)
        .Attr(kNmsThreshold)
        .Kernels("CPU", "GPU")
        .KernelTypes("GPU", "T", "{float}")
        .HostMemory("GPU", "max_output_size", "iou_threshold",
                    "score_threshold");
    if (v4) {
      op.Output("valid_outputs: int32")
          .Attr("pad_to_max_output_size: bool = false")
          .HostMemory("GPU", "valid_outputs");
    }
    t.Add(op);
  }
  t.Add(Op("NonMaxSuppressionV5")
            .Input("boxes: T")
            .Input("scores: T")
            .Input("max_output_size: int32")
            .Input("iou_threshold: T")
            .Input("score_threshold: T")
            .Input("soft_nms_sigma: T")
            .Output("selected_indices: int32")
            .Output("selected_scores: T")
            .Output("valid_outputs: int32")
            .Attr(kNmsT)
            .Attr("pad_to_max_output_size: bool = false")
            .Kernels("CPU", "GPU")
            .KernelTypes("GPU", "T", "{float}")
            .HostMemory("GPU", "max_output_size", "iou_threshold",
                        "score_threshold", "soft_nms_sigma", "valid_outputs"));
  t.Add(Op("CombinedNonMaxSuppression")
            .Input("boxes: float")
            .Input("scores: float")
            .Input("max_output_size_per_class: int32")
            .Input("max_total_size: int32")
            .Input("iou_threshold: float")
            .Input("score_threshold: float")
            .Output("nmsed_boxes: float")
            .Output("nmsed_scores: float")
            .Output("nmsed_classes: float")
            .Output("valid_detections: int32")
            .Attr("pad_per_class: bool = false")
            .Attr("clip_boxes: bool = true")
            .Kernels("CPU"));
}

void RegisterImageOps(OpTable& t) {
  constexpr const char* kResizeTypes =
      "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, "
      "double}";
  for (const char* name :
       {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"}) {
    bool keeps_type = std::string_view(name) == "ResizeNearestNeighbor";
    t.Add(
        Op(name)
            .Input("images: T")
            .Input("size: int32")
            .Output(keeps_type ? "resized_images: T" : "resized_images: float")
            .Attr(kResizeTypes)
            .Attr("align_corners: bool = false")
            .Attr("half_pixel_centers: bool = false")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "size"));
  }
  t.Add(Op("CropAndResize")
            .Input("image: T")
            .Input("boxes: float")
            .Input("box_ind: int32")
            .Input("crop_size: int32")
            .Output("crops: float")
            .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, "
                  "double}")
            .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
            .Attr("extrapolation_value: float = 0")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "crop_size"));
  t.Add(Op("ExtractImagePatches")
            .Input("images: T")
            .Output("patches: T")
            .Attr("ksizes: list(int) >= 4")
            .Attr("strides: list(int) >= 4")
            .Attr("rates: list(int) >= 4")
            .Attr("T: {bfloat16, half, float, double, int8, int16, int32, "
                  "int64, uint8, uint16, uint32, uint64, complex64, "
                  "complex128, bool}")
            .Attr(kPadding)
            .Kernels("CPU", "GPU"));
  t.Add(Op("AdjustContrastv2")
            .Input("images: T")
            .Input("contrast_factor: float")
            .Output("output: T")
            .Attr("T: {half, float} = DT_FLOAT")
            .Kernels("CPU", "GPU"));
  for (const char* name : {"DecodeJpeg", "DecodeAndCropJpeg"}) {
    OpBuilder op = Op(name);
    op.Input("contents: string");
    if (std::string_view(name) == "DecodeAndCropJpeg")
      op.Input("crop_window: int32");
    op.Output("image: uint8")
        .Attr("channels: int = 0")
        .Attr("ratio: int = 1")
        .Attr("fancy_upscaling: bool = true")
        .Attr("try_recover_truncated: bool = false")
        .Attr("acceptable_fraction: float = 1.0")
        .Attr("dct_method: string = ''")
        .Kernels("CPU");
    t.Add(op);
  }
  t.Add(Op("ExtractJpegShape")
            .Input("contents: string")
            .Output("image_shape: output_type")
            .Attr("output_type: {int32, int64} = DT_INT32")
            .Kernels("CPU"));
  t.Add(Op("DecodePng")
            .Input("contents: string")
            .Output("image: dtype")
            .Attr("channels: int = 0")
            .Attr("dtype: {uint8, uint16} = DT_UINT8")
            .Kernels("CPU"));
  t.Add(Op("EncodePng")
            .Input("image: T")
            .Output("contents: string")
            .Attr("compression: int = -1")
            .Attr("T: {uint8, uint16} = DT_UINT8")
            .Kernels("CPU"));
  t.Add(Op("DecodeImage")
            .Input("contents: string")
            .Output("image: dtype")
            .Attr("channels: int = 0")
            .Attr("dtype: {uint8, uint16, float32} = DT_UINT8")
            .Attr("expand_animations: bool = true")
            .Kernels("CPU"));
  t.Add(Op("SampleDistortedBoundingBoxV2")
            .Input("image_size: T")
            .Input("bounding_boxes: float")
            .Input("min_object_covered: float")
            .Output("begin: T")
            .Output("size: T")
            .Output("bboxes: float")
            .Attr("T: {uint8, int8, int16, int32, int64}")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("aspect_ratio_range: list(float) = [0.75, 1.33]")
            .Attr("area_range: list(float) = [0.05, 1.0]")
            .Attr("max_attempts: int = 100")
            .Attr("use_image_if_no_bounding_boxes: bool = false")
            .Stateful()
            .Kernels("CPU"));
}

void RegisterRecurrent(OpTable& t) {
  OpBuilder cell = Op("LSTMBlockCell");
  for (const char* in :
       {"x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"})
    cell.Input(fmt::format("{}: T", in));
  for (const char* out : {"i", "cs", "f", "o", "ci", "co", "h"})
    cell.Output(fmt::format("{}: T", out));
  t.Add(cell.Attr("forget_bias: float = 1.0")
            .Attr("cell_clip: float = 3.0")
            .Attr("use_peephole: bool = false")
            .Attr("T: {half, float}")
            .Kernels("CPU", "GPU"));
  OpBuilder grad = Op("LSTMBlockCellGrad");
  for (const char* in :
       {"x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b", "i", "cs", "f",
        "o", "ci", "co", "cs_grad", "h_grad"})
    grad.Input(fmt::format("{}: T", in));
  for (const char* out :
       {"cs_prev_grad", "dicfo", "wci_grad", "wcf_grad", "wco_grad"})
    grad.Output(fmt::format("{}: T", out));
  t.Add(grad.Attr("use_peephole: bool")
            .Attr("T: {half, float}")
            .Kernels("CPU", "GPU"));
}

// Quantized NN ops (uTensor graphs): CPU kernels only.
void RegisterQuantizedNn(OpTable& t) {
  t.Add(Op("QuantizedConv2D")
            .Input("input: Tinput")
            .Input("filter: Tfilter")
            .Input("min_input: float")
            .Input("max_input: float")
            .Input("min_filter: float")
            .Input("max_filter: float")
            .Output("output: out_type")
            .Output("min_output: float")
            .Output("max_output: float")
            .Attr("Tinput: quantizedtype")
            .Attr("Tfilter: quantizedtype")
            .Attr("out_type: quantizedtype = DT_QINT32")
            .Attr("strides: list(int)")
            .Attr(kPadding)
            .Attr("dilations: list(int) = [1, 1, 1, 1]")
            .Kernels("CPU"));
  for (const char* name : {"QuantizedRelu", "QuantizedRelu6"}) {
    t.Add(Op(name)
              .Input("features: Tinput")
              .Input("min_features: float")
              .Input("max_features: float")
              .Output("activations: out_type")
              .Output("min_activations: float")
              .Output("max_activations: float")
              .Attr("Tinput: quantizedtype")
              .Attr("out_type: quantizedtype = DT_QUINT8")
              .Kernels("CPU"));
  }
  t.Add(Op("QuantizedMaxPool")
            .Input("input: T")
            .Input("min_input: float")
            .Input("max_input: float")
            .Output("output: T")
            .Output("min_output: float")
            .Output("max_output: float")
            .Attr("T: quantizedtype")
            .Attr("ksize: list(int)")
            .Attr("strides: list(int)")
            .Attr(kPadding)
            .Kernels("CPU"));
}

}  // namespace

void RegisterNnOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterConvolutions(t);
  RegisterPooling(t);
  RegisterActivations(t);
  RegisterBatchNorm(t);
  RegisterSelection(t);
  RegisterImageOps(t);
  RegisterRecurrent(t);
  RegisterQuantizedNn(t);
}

}  // namespace dfg
