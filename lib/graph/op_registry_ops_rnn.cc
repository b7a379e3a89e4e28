// Op table: TensorFlow's fused RNN ops (core/ops/rnn_ops.cc): BlockLSTM and
// its V2 (IFCO gate order, no forget_bias), their gradients, and the GRU
// block cell (LSTMBlockCell and its gradient are in op_registry_ops_nn.cc);
// and the batch norm before FusedBatchNorm, BatchNormWithGlobalNormalization
// and its gradient (deprecated at version 9; core/ops/nn_ops.cc); Grappler's
// fused ops other than _FusedConv2D and _FusedMatMul (op_registry_ops_nn.cc);
// the CTC loss and decoders (core/ops/ctc_ops.cc).
#include <fmt/format.h>

#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

constexpr const char* kLstmWeights[] = {"x",   "cs_prev", "h_prev", "w",
                                        "wci", "wcf",     "wco",    "b"};
constexpr const char* kLstmActs[] = {"i", "cs", "f", "o", "ci", "co", "h"};

void RegisterBlockLstm(OpTable& t) {
  for (bool v2 : {false, true}) {
    OpBuilder op = Op(v2 ? "BlockLSTMV2" : "BlockLSTM");
    op.Input("seq_len_max: int64");
    for (const char* in : kLstmWeights) op.Input(fmt::format("{}: T", in));
    for (const char* out : kLstmActs) op.Output(fmt::format("{}: T", out));
    if (!v2) op.Attr("forget_bias: float = 1.0");
    op.Attr(v2 ? "cell_clip: float = 0.0" : "cell_clip: float = 3.0")
        .Attr("use_peephole: bool = false")
        .Attr("T: {half, float}")
        .Kernels("CPU", "GPU")
        .HostMemory("GPU", "seq_len_max");
    t.Add(op);
  }
  for (bool v2 : {false, true}) {
    OpBuilder op = Op(v2 ? "BlockLSTMGradV2" : "BlockLSTMGrad");
    op.Input("seq_len_max: int64");
    for (const char* in : kLstmWeights) op.Input(fmt::format("{}: T", in));
    for (const char* in : kLstmActs) op.Input(fmt::format("{}: T", in));
    op.Input("cs_grad: T").Input("h_grad: T");
    for (const char* out : {"x_grad", "cs_prev_grad", "h_prev_grad", "w_grad",
                            "wci_grad", "wcf_grad", "wco_grad", "b_grad"})
      op.Output(fmt::format("{}: T", out));
    op.Attr("use_peephole: bool")
        .Attr("T: {half, float}")
        .Kernels("CPU", "GPU")
        .HostMemory("GPU", "seq_len_max");
    t.Add(op);
  }
}

void RegisterGru(OpTable& t) {
  OpBuilder cell = Op("GRUBlockCell");
  for (const char* in : {"x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"})
    cell.Input(fmt::format("{}: T", in));
  for (const char* out : {"r", "u", "c", "h"})
    cell.Output(fmt::format("{}: T", out));
  t.Add(cell.Attr("T: {float}").Kernels("CPU", "GPU"));
  OpBuilder grad = Op("GRUBlockCellGrad");
  for (const char* in :
       {"x", "h_prev", "w_ru", "w_c", "b_ru", "b_c", "r", "u", "c", "d_h"})
    grad.Input(fmt::format("{}: T", in));
  for (const char* out : {"d_x", "d_h_prev", "d_c_bar", "d_r_bar_u_bar"})
    grad.Output(fmt::format("{}: T", out));
  t.Add(grad.Attr("T: {float}").Kernels("CPU", "GPU"));
}

void RegisterGlobalNorm(OpTable& t) {
  const char* types = "T: numbertype";
  t.Add(Op("BatchNormWithGlobalNormalization")
            .Input("t: T")
            .Input("m: T")
            .Input("v: T")
            .Input("beta: T")
            .Input("gamma: T")
            .Output("result: T")
            .Attr(types)
            .Attr("variance_epsilon: float")
            .Attr("scale_after_normalization: bool")
            .Kernels("CPU", "GPU"));
  t.Add(Op("BatchNormWithGlobalNormalizationGrad")
            .Input("t: T")
            .Input("m: T")
            .Input("v: T")
            .Input("gamma: T")
            .Input("backprop: T")
            .Output("dx: T")
            .Output("dm: T")
            .Output("dv: T")
            .Output("db: T")
            .Output("dg: T")
            .Attr(types)
            .Attr("variance_epsilon: float")
            .Attr("scale_after_normalization: bool")
            .Kernels("CPU", "GPU"));
}

// Grappler's fused ops beside _FusedConv2D / _FusedMatMul, and the TF1
// graph transforms' mirror-pad (and resize) + Conv2D fusions.
void RegisterGrapplerFused(OpTable& t) {
  for (bool resize : {false, true}) {
    OpBuilder op = Op(resize ? "FusedResizeAndPadConv2D" : "FusedPadConv2D");
    op.Input("input: T");
    if (resize) op.Input("size: int32");
    op.Input("paddings: int32").Input("filter: T").Output("output: T");
    op.Attr(resize ? "T: {half, float, double}"
                   : "T: {half, bfloat16, float, double}");
    if (resize) op.Attr("resize_align_corners: bool = false");
    t.Add(op.Attr("mode: {'REFLECT', 'SYMMETRIC'}")
              .Attr("strides: list(int)")
              .Attr("padding: {'SAME', 'VALID'}")
              .Kernels("CPU"));
  }
  t.Add(Op("Conv")
            .Input("input: T")
            .Input("filter: T")
            .Output("output: T")
            .Attr("T: {half, bfloat16, float, double, int32}")
            .Attr("strides: list(int)")
            .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
            .Attr("explicit_paddings: list(int) = []")
            .Attr("data_format: {'CHANNELS_FIRST', 'CHANNELS_LAST'} = "
                  "'CHANNELS_LAST'")
            .Attr("dilations: list(int) = []")
            .Attr("batch_dims: int = 1")
            .Attr("groups: int = 1")
            .Kernels("CPU", "GPU"));
  t.Add(Op("_UnaryOpsComposition")
            .Input("x: T")
            .Output("y: T")
            .Attr("T: {float, half, double}")
            .Attr("op_names: list(string)")
            .Kernels("CPU", "GPU"));
  // TensorFlow 2.21 registers a CPU kernel (float, bfloat16) that leaves its
  // outputs unset in every mode ("Missing 0-th output"); only oneDNN's
  // rewrite to _MklFusedBatchNormEx runs it on CPU. Known, without a kernel.
  for (bool conv3d : {false, true}) {
    // TensorFlow 2.21's CPU kernels are oneDNN's: _FusedConv3D, without its
    // rewrite, fails with "Op does not support f inputs" (known, without a
    // kernel); _FusedDepthwiseConv2dNative runs with oneDNN on (TensorFlow's
    // default on x86, and what dfg's remapper writes) and dfg runs it.
    OpBuilder op = Op(conv3d ? "_FusedConv3D" : "_FusedDepthwiseConv2dNative");
    op.Input("input: T")
        .Input("filter: T")
        .Input("args: num_args * T")
        .Output("output: T")
        .Attr(conv3d ? "T: {bfloat16, float, half}"
                     : "T: {half, bfloat16, float, double}")
        .Attr("num_args: int >= 0")
        .Attr(conv3d ? "strides: list(int) >= 5" : "strides: list(int)")
        .Attr("padding: {'SAME', 'VALID'}");
    if (conv3d) {
      op.Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
          .Attr("padding_list: list(int) = []");
    } else {
      op.Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]");
    }
    op.Attr("fused_ops: list(string) = []")
        .Attr("epsilon: float = 0.0001")
        .Attr("leakyrelu_alpha: float = 0.2");
    if (conv3d) {
      op.Kernels("GPU");
    } else {
      op.Kernels("CPU", "GPU");
    }
    t.Add(op);
  }
  OpBuilder bn = Op("_FusedBatchNormEx");
  bn.Input("x: T");
  for (const char* in : {"scale", "offset", "mean", "variance"})
    bn.Input(fmt::format("{}: U", in));
  bn.Input("side_input: num_side_inputs * T").Output("y: T");
  for (const char* out : {"batch_mean", "batch_variance", "reserve_space_1",
                          "reserve_space_2", "reserve_space_3"})
    bn.Output(fmt::format("{}: U", out));
  t.Add(bn.Attr("T: {half, float, bfloat16}")
            .Attr("U: {float}")
            .Attr("epsilon: float = 0.0001")
            .Attr("exponential_avg_factor: float = 1.0")
            .Attr("num_side_inputs: int >= 0 = 0")
            .Attr("activation_mode: string = 'Identity'")
            .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .Attr("is_training: bool = true")
            .Kernels("GPU"));
}

void RegisterCtc(OpTable& t) {
  t.Add(Op("CTCBeamSearchDecoder")
            .Input("inputs: T")
            .Input("sequence_length: int32")
            .Output("decoded_indices: top_paths * int64")
            .Output("decoded_values: top_paths * int64")
            .Output("decoded_shape: top_paths * int64")
            .Output("log_probability: T")
            .Attr("beam_width: int >= 1")
            .Attr("top_paths: int >= 1")
            .Attr("merge_repeated: bool = true")
            .Attr("T: {float, double} = DT_FLOAT")
            .Kernels("CPU"));
  t.Add(Op("CTCLoss")
            .Input("inputs: T")
            .Input("labels_indices: int64")
            .Input("labels_values: int32")
            .Input("sequence_length: int32")
            .Output("loss: T")
            .Output("gradient: T")
            .Attr("preprocess_collapse_repeated: bool = false")
            .Attr("ctc_merge_repeated: bool = true")
            .Attr("ignore_longer_outputs_than_inputs: bool = false")
            .Attr("T: {float, double} = DT_FLOAT")
            .Kernels("CPU"));
  t.Add(Op("CTCGreedyDecoder")
            .Input("inputs: T")
            .Input("sequence_length: int32")
            .Output("decoded_indices: int64")
            .Output("decoded_values: int64")
            .Output("decoded_shape: int64")
            .Output("log_probability: T")
            .Attr("merge_repeated: bool = false")
            .Attr("blank_index: int = -1")
            .Attr("T: {float, double} = DT_FLOAT")
            .Kernels("CPU"));
}

}  // namespace

void RegisterRnnOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterBlockLstm(t);
  RegisterGru(t);
  RegisterGlobalNorm(t);
  RegisterGrapplerFused(t);
  RegisterCtc(t);
}

}  // namespace dfg
