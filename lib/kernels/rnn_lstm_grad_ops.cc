// The LSTM backward kernels: LSTMBlockCellGrad (one step: the gate
// gradients dicfo and cs_prev_grad) and BlockLSTMGrad / BlockLSTMGradV2 (the
// whole sequence back to x, the initial state and the weights), as
// TensorFlow's core/kernels/rnn/lstm_ops.cc computes them.
//
// BlockLSTMGrad keeps every step's gate gradients and forms w_grad with one
// GEMM over all steps after the loop.
#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "lib/kernels/rnn_ops.h"

namespace dfg::rnn {
namespace {

// LSTMBlockCellGrad's checks beyond the cell's inputs: the forward outputs
// and the incoming gradients are [batch, cell].
Status ValidateCellGradInputs(OpKernelContext* ctx, bool peephole) {
  const char* names[] = {"x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco",
                         "b", "i",       "cs",     "f", "o",   "ci",  "co"};
  for (int k = 0; k < 16; ++k) {
    const bool vec = k >= 4 && k < 8;
    const std::string name =
        k < 14 ? names[k] : (k == 14 ? "cs_grad_tensor" : "h_grad_tensor");
    DFG_RETURN_IF_ERROR(CheckRank(ctx->input(k), vec ? 1 : 2, name));
  }
  const int64_t batch = ctx->input(0).dim_size(0),
                input = ctx->input(0).dim_size(1),
                cell = ctx->input(1).dim_size(1);
  DFG_RETURN_IF_ERROR(CheckSize(ctx->input(1).dim_size(0), batch,
                                "cs_prev.dims(0) != batch_size"));
  DFG_RETURN_IF_ERROR(CheckSize(ctx->input(2).dim_size(0), batch,
                                "h_prev.dims(0) != batch_size"));
  DFG_RETURN_IF_ERROR(CheckSize(ctx->input(2).dim_size(1), cell,
                                "h_prev.dims(1) != cell_size"));
  DFG_RETURN_IF_ERROR(CheckSize(ctx->input(3).dim_size(0), input + cell,
                                "w.dim_size(0) != input_size + cell_size"));
  DFG_RETURN_IF_ERROR(CheckSize(ctx->input(3).dim_size(1), cell * 4,
                                "w.dim_size(1) != cell_size * 4"));
  DFG_RETURN_IF_ERROR(CheckSize(ctx->input(7).dim_size(0), cell * 4,
                                "b.dim_size(0) != cell_size * 4"));
  for (int k = 8; k < 14; ++k) {
    const Tensor& t = ctx->input(k);
    DFG_RETURN_IF_ERROR(
        CheckSize(t.dim_size(0), batch,
                  fmt::format("{}.dim_size(0) != batch_size", names[k])));
    // TensorFlow names i in f's message.
    DFG_RETURN_IF_ERROR(CheckSize(
        t.dim_size(1), cell,
        fmt::format("{}.dim_size(1) != cell_size", k == 10 ? "i" : names[k])));
  }
  for (int k = 14; k < 16; ++k) {
    const char* name = k == 14 ? "cs_grad_tensor" : "h_grad_tensor";
    DFG_RETURN_IF_ERROR(
        CheckSize(ctx->input(k).dim_size(0), batch,
                  fmt::format("{}.dims(0) != batch_size", name)));
    DFG_RETURN_IF_ERROR(
        CheckSize(ctx->input(k).dim_size(1), cell,
                  fmt::format("{}.dims(1) != cell_size", name)));
  }
  for (int k = 4; peephole && k < 7; ++k) {
    DFG_RETURN_IF_ERROR(
        CheckSize(ctx->input(k).dim_size(0), cell,
                  fmt::format("{}.dim_size(0) != cell_size", names[k])));
  }
  return Status::Ok();
}

// Reads the weights of an LSTM op whose x is input `x_index`.
LstmCell LoadWeights(OpKernelContext* ctx, int x_index, bool peephole,
                     bool ifco) {
  LstmCell p;
  p.peephole = peephole;
  p.ifco = ifco;
  const Tensor& x = ctx->input(x_index);
  p.input = x.dim_size(x.dims() - 1);
  p.batch = x.dim_size(x.dims() - 2);
  p.cell = ctx->input(x_index + 3).dim_size(1) / 4;
  p.w = Floats(ctx->input(x_index + 3));
  p.wci = Floats(ctx->input(x_index + 4));
  p.wcf = Floats(ctx->input(x_index + 5));
  p.wco = Floats(ctx->input(x_index + 6));
  return p;
}

class LSTMBlockCellGradOp : public OpKernel {
 public:
  explicit LSTMBlockCellGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &peephole_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, ValidateCellGradInputs(ctx, peephole_));
    const LstmCell p = LoadWeights(ctx, 0, peephole_, false);
    std::vector<std::vector<float>> in(16);
    for (int k = 8; k < 16; ++k) in[k] = Floats(ctx->input(k));
    in[1] = Floats(ctx->input(1));
    const ConstLstmActs acts{in[8].data(),  in[9].data(),  in[10].data(),
                             in[11].data(), in[12].data(), in[13].data()};
    const int64_t n = p.batch * p.cell;
    std::vector<float> dgates(4 * n), cpg(n), wci_g(p.wci.size(), 0.0f),
        wcf_g(p.wcf.size(), 0.0f), wco_g(p.wco.size(), 0.0f);
    const LstmGrads g{dgates.data(), cpg.data(), wci_g.data(), wcf_g.data(),
                      wco_g.data()};
    const bool half = ctx->input(0).dtype() == tensorflow::DT_HALF;
    if (half) {
      LstmBackward<Half>(p, acts, in[1].data(), in[14].data(), in[15].data(),
                         g);
    } else {
      LstmBackward<float>(p, acts, in[1].data(), in[14].data(), in[15].data(),
                          g);
    }
    Emit(ctx, 0, TensorShape({p.batch, p.cell}), cpg);
    Emit(ctx, 1, TensorShape({p.batch, 4 * p.cell}), dgates);
    for (int k = 0; k < 3; ++k) {
      Emit(ctx, 2 + k, ctx->input(4 + k).shape(),
           k == 0 ? wci_g : (k == 1 ? wcf_g : wco_g));
    }
  }

 private:
  static void Emit(OpKernelContext* ctx, int index, const TensorShape& shape,
                   const std::vector<float>& v) {
    Tensor* t = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(index, shape, &t));
    StoreFloats(v.data(), static_cast<int64_t>(v.size()), t);
  }

  bool peephole_ = false;
};

// BlockLSTMGrad's checks, in TensorFlow's words; then the sizes TF reads
// unchecked (the forward outputs and incoming gradients [time, batch,
// cell], the peepholes) are refused when out of range.
Status ValidateBlockGradInputs(OpKernelContext* ctx, bool peephole) {
  const Tensor& seq = ctx->input(0);
  if (seq.dims() != 0) {
    return InvalidArgument("`seq_len_max_tensor` must be rank 0 but is rank {}",
                           seq.dims());
  }
  const Tensor& x = ctx->input(1);
  if (x.dims() != 3) {
    return InvalidArgument("x must be rank 3 but is rank {}", x.dims());
  }
  const char* names[] = {"cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"};
  for (int k = 0; k < 7; ++k) {
    const Tensor& t = ctx->input(2 + k);
    const int rank = k < 3 ? 2 : 1;
    if (t.dims() != rank) {
      return InvalidArgument("{} must be rank {} but is rank {}", names[k],
                             rank, t.dims());
    }
    if (k != 2) continue;
    DFG_RETURN_IF_ERROR(CheckSize(x.dim_size(2) + t.dim_size(1) / 4,
                                  t.dim_size(0), "w matrix rows don't match"));
    // TensorFlow 2.21 reads a w of other widths past its rows; refused.
    if (t.dim_size(1) <= 0 || t.dim_size(1) % 4 != 0) {
      return InvalidArgument(
          "w matrix columns must be a positive multiple of 4, but got {}",
          t.dim_size(1));
    }
  }
  const int64_t time = x.dim_size(0), batch = x.dim_size(1),
                cell = ctx->input(4).dim_size(1) / 4;
  if (cell != ctx->input(8).dim_size(0) / 4) {
    return InvalidArgument("w and b cell_size don't match: {} vs. {}", cell,
                           ctx->input(8).dim_size(0));
  }
  const char* outs[] = {"i", "cs", "f", "o", "ci", "co", "h"};
  for (int k = 0; k < 7; ++k) {
    if (ctx->input(9 + k).dims() != 3) {
      return InvalidArgument("{} must be rank 3. Received: {}", outs[k],
                             ctx->input(9 + k).dims());
    }
  }
  const int64_t seq_len_max = seq.flat<int64_t>()[0];
  const TensorShape seq_shape({time, batch, cell}), state({batch, cell});
  for (int k = 9; k < 18; ++k) {
    if (ctx->input(k).shape() != seq_shape) {
      return InvalidArgument("input {} must have shape {}, got {}", k,
                             seq_shape.DebugString(),
                             ctx->input(k).shape().DebugString());
    }
  }
  for (int k = 2; k < 4; ++k) {
    if (ctx->input(k).shape() != state) {
      return InvalidArgument("{} must have shape {}, got {}", names[k - 2],
                             state.DebugString(),
                             ctx->input(k).shape().DebugString());
    }
  }
  for (int k = 5; peephole && k < 8; ++k) {
    DFG_RETURN_IF_ERROR(
        CheckSize(ctx->input(k).dim_size(0), cell,
                  fmt::format("{}.dim_size(0) != cell_size", names[k - 2])));
  }
  if (seq_len_max < 0 || seq_len_max > time) {
    return InvalidArgument("seq_len_max must be between 0 and {} but is {}",
                           time, seq_len_max);
  }
  return Status::Ok();
}

class BlockLSTMGradOp : public OpKernel {
 public:
  BlockLSTMGradOp(OpKernelConstruction* ctx, bool ifco)
      : OpKernel(ctx), ifco_(ifco) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &peephole_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, ValidateBlockGradInputs(ctx, peephole_));
    const LstmCell p = LoadWeights(ctx, 1, peephole_, ifco_);
    if (ctx->input(1).dtype() == tensorflow::DT_HALF) {
      Run<Half>(ctx, p);
    } else {
      Run<float>(ctx, p);
    }
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx, const LstmCell& p) const {
    const int64_t time = ctx->input(1).dim_size(0);
    const int64_t steps = ctx->input(0).flat<int64_t>()[0];
    const int64_t step = p.batch * p.cell, c4 = 4 * p.cell,
                  xh = p.input + p.cell;
    std::vector<std::vector<float>> in(18);
    for (int k = 1; k < 18; ++k) {
      if (k < 4 || k >= 9) in[k] = Floats(ctx->input(k));
    }
    std::vector<float> cpg(step, 0.0f), hpg(step, 0.0f), csg(step), hg(step),
        x_grad(time * p.batch * p.input, 0.0f), dgates(steps * p.batch * c4),
        xh_all(steps * p.batch * xh), xh_grad(p.batch * xh),
        wci_g(p.cell, 0.0f), wcf_g(p.cell, 0.0f), wco_g(p.cell, 0.0f);
    for (int64_t t = steps - 1; t >= 0; --t) {
      const int64_t off = t * step;
      for (int64_t e = 0; e < step; ++e) {
        csg[e] = Round<T>(cpg[e] + in[16][off + e]);
        hg[e] = Round<T>(hpg[e] + in[17][off + e]);
      }
      const float* cs_prev = t == 0 ? in[2].data() : in[10].data() + off - step;
      const float* h_prev = t == 0 ? in[3].data() : in[15].data() + off - step;
      const ConstLstmActs acts{in[9].data() + off,  in[10].data() + off,
                               in[11].data() + off, in[12].data() + off,
                               in[13].data() + off, in[14].data() + off};
      float* dg = dgates.data() + t * p.batch * c4;
      LstmBackward<T>(
          p, acts, cs_prev, csg.data(), hg.data(),
          {dg, cpg.data(), wci_g.data(), wcf_g.data(), wco_g.data()});
      // [x_grad, h_prev_grad] = dgates . w^T
      Gemm(ctx->intra_op_pool(), false, true, p.batch, xh, c4, dg, c4,
           p.w.data(), c4, xh_grad.data(), xh);
      float* xhr = xh_all.data() + t * p.batch * xh;
      const int64_t x_off = t * p.batch * p.input;
      for (int64_t r = 0; r < p.batch; ++r) {
        for (int64_t j = 0; j < p.input; ++j) {
          x_grad[x_off + r * p.input + j] = Round<T>(xh_grad[r * xh + j]);
          xhr[r * xh + j] = in[1][x_off + r * p.input + j];
        }
        for (int64_t j = 0; j < p.cell; ++j) {
          hpg[r * p.cell + j] = Round<T>(xh_grad[r * xh + p.input + j]);
          xhr[r * xh + p.input + j] = h_prev[r * p.cell + j];
        }
      }
    }
    std::vector<float> w_grad(xh * c4, 0.0f), b_grad(c4, 0.0f);
    WeightGrads<T>(ctx, p, steps, xh_all, dgates, &w_grad, &b_grad);
    if (!peephole_) {
      wci_g.assign(ctx->input(5).NumElements(), 0.0f);
      wcf_g.assign(ctx->input(6).NumElements(), 0.0f);
      wco_g.assign(ctx->input(7).NumElements(), 0.0f);
    }
    const std::vector<float>* outs[] = {&x_grad, &cpg,   &hpg,   &w_grad,
                                        &wci_g,  &wcf_g, &wco_g, &b_grad};
    for (int k = 0; k < 8; ++k) {
      Tensor* t = nullptr;
      DFG_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(k, ctx->input(1 + k).shape(), &t));
      StoreFloats(outs[k]->data(), t->NumElements(), t);
    }
  }

  // w_grad = sum over steps of [x, h_prev]^T . dgates, b_grad = the sum of
  // dgates: one GEMM over all steps in float; for half step by step, as
  // TensorFlow adds each step's product into its half accumulators.
  template <typename T>
  static void WeightGrads(OpKernelContext* ctx, const LstmCell& p,
                          int64_t steps, const std::vector<float>& xh_all,
                          const std::vector<float>& dgates,
                          std::vector<float>* w_grad,
                          std::vector<float>* b_grad) {
    const int64_t xh = p.input + p.cell, c4 = 4 * p.cell;
    const bool per_step = std::is_same_v<T, Half>;
    const int64_t groups = per_step ? steps : 1;
    const int64_t rows = per_step ? p.batch : steps * p.batch;
    std::vector<float> w_step(xh * c4), b_step(c4);
    for (int64_t s = groups - 1; s >= 0; --s) {
      const float* dg = dgates.data() + s * rows * c4;
      const float* xs = xh_all.data() + s * rows * xh;
      if (per_step) {  // Eigen's half contraction adds in half.
        std::fill(w_step.begin(), w_step.end(), 0.0f);
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t i = 0; i < xh; ++i) {
            for (int64_t j = 0; j < c4; ++j) {
              float& acc = w_step[i * c4 + j];
              acc = Round<T>(acc + Round<T>(xs[r * xh + i] * dg[r * c4 + j]));
            }
          }
        }
      } else {
        Gemm(ctx->intra_op_pool(), true, false, xh, c4, rows, xs, xh, dg, c4,
             w_step.data(), c4);
      }
      std::fill(b_step.begin(), b_step.end(), 0.0f);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < c4; ++j) b_step[j] += dg[r * c4 + j];
      }
      for (size_t j = 0; j < w_step.size(); ++j) {
        (*w_grad)[j] = Round<T>((*w_grad)[j] + Round<T>(w_step[j]));
      }
      for (int64_t j = 0; j < c4; ++j) {
        (*b_grad)[j] = Round<T>((*b_grad)[j] + Round<T>(b_step[j]));
      }
    }
  }

  bool ifco_ = false;
  bool peephole_ = false;
};

class BlockLSTMGradV1Op : public BlockLSTMGradOp {
 public:
  explicit BlockLSTMGradV1Op(OpKernelConstruction* ctx)
      : BlockLSTMGradOp(ctx, false) {}
};
class BlockLSTMGradV2Op : public BlockLSTMGradOp {
 public:
  explicit BlockLSTMGradV2Op(OpKernelConstruction* ctx)
      : BlockLSTMGradOp(ctx, true) {}
};

}  // namespace

void RegisterLstmGradKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", TypeList<float, Half>());
  r->Register<LSTMBlockCellGradOp>("LSTMBlockCellGrad", {types});
  r->Register<BlockLSTMGradV1Op>("BlockLSTMGrad", {types});
  r->Register<BlockLSTMGradV2Op>("BlockLSTMGradV2", {types});
}

}  // namespace dfg::rnn
