// The rnn pass's view of a functional While loop: which loop variable plays
// which part in a Keras LSTM layer's loop (TensorFlow backend), read off the
// cond and body functions. Internal to lib/optimize (rnn_fusion.cc rewrites,
// rnn_fusion_match.cc matches).
//
// The loop Keras 3 builds for LSTM(units) with its defaults (activation
// tanh, recurrent_activation sigmoid, use_bias, implementation 2, no mask),
// each step t of `steps`:
//   z = MatMul(x_t, kernel) + MatMul(h, recurrent_kernel); z = BiasAdd(z, b)
//   i, f, g, o = Split(z, 4)               (the IFCO order BlockLSTMV2 uses)
//   c = Sigmoid(f) * c + Sigmoid(i) * Tanh(g); h = Sigmoid(o) * Tanh(c)
//   out = TensorListSetItem(out, t or 0, h)
// with x_t = TensorListGetItem(xs, t), t counting from 0 while t < steps
// (and, with maximum_iterations, a second counter below a bound).
#ifndef DFG_LIB_OPTIMIZE_RNN_FUSION_H_
#define DFG_LIB_OPTIMIZE_RNN_FUSION_H_

#include <cstdint>

#include "lib/proto/function.pb.h"

namespace dfg::optimize {

// Loop variable indices (-1: absent) and what the body does with them.
struct LstmLoop {
  int counter = -1;  // while_v2's iteration counter (maximum_iterations)
  int max = -1;      // its bound, passed through
  int time = -1;     // the step t, from 0 by 1
  int out_list = -1;
  int h = -1, c = -1;
  int in_list = -1;  // the TensorList of time-major inputs
  int kernel = -1, recurrent = -1, bias = -1;
  // Whether the body reads the weight through ReadVariableOp (its loop
  // variable is a resource) rather than taking the float tensor.
  bool kernel_read = false, recurrent_read = false, bias_read = false;
  // h_t is written at index t (return_sequences) or always at 0.
  bool write_at_time = false;
  int64_t steps = 0;  // the cond's bound on t
  int num_vars = 0;
};

// True when `cond` and `body` are exactly the loop above (nothing else in
// the body but Identity, NoOp and Const nodes), filling *loop. Types are
// checked against the While's T list by the caller.
bool MatchKerasLstm(const tensorflow::FunctionDef& cond,
                    const tensorflow::FunctionDef& body, LstmLoop* loop);

}  // namespace dfg::optimize

#endif  // DFG_LIB_OPTIMIZE_RNN_FUSION_H_
