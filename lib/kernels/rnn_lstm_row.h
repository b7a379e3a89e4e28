// LSTM rows' activations in float, vectorized: the loop of BlockLSTM's
// float path (rnn_lstm_ops.cc) for the batch rows of one step. Built for
// AVX-512, AVX2+FMA and baseline x86-64, one chosen on the first call
// (__builtin_cpu_supports), so one binary runs everywhere at the machine's
// width.
#ifndef DFG_LIB_KERNELS_RNN_LSTM_ROW_H_
#define DFG_LIB_KERNELS_RNN_LSTM_ROW_H_

#include <cstdint>

namespace dfg::rnn {

// The step's pre-activations of the first row (x.w + h.w, without the
// bias) by gate, each next row 4 * cell further on; the bias by gate;
// cs_prev ([rows, cell]), and the peepholes (wci null: none).
struct GateRow {
  const float *gi, *gf, *gc, *go;
  const float *bi, *bf, *bc, *bo;
  const float* cs_prev;
  const float *wci, *wcf, *wco;
  float forget_bias;
  float cell_clip;  // +inf: no clipping
};

// i = sigmoid(gi + bi [+ cs_prev wci]), f = sigmoid(gf + bf + forget_bias
// [+ cs_prev wcf]), ci = tanh(gc + bc), cs = i ci + f cs_prev (clipped),
// co = tanh(cs), o = sigmoid(go + bo [+ cs wco]), h = o co; each
// [rows, cell].
// Sigmoid and tanh to a few float ulps (an exp of TensorFlow's kind: the
// oracle's tolerance, not TensorFlow's bits).
void LstmRows(const GateRow& g, int64_t rows, int64_t cell, float* i, float* cs,
              float* f, float* o, float* ci, float* co, float* h);

}  // namespace dfg::rnn

#endif  // DFG_LIB_KERNELS_RNN_LSTM_ROW_H_
