// The LSTM forward kernels: LSTMBlockCell (one step) and BlockLSTM /
// BlockLSTMV2 (a whole sequence, time-major x [time, batch, input]), as
// TensorFlow's core/kernels/rnn/lstm_ops.cc computes them.
//
// BlockLSTM projects x for every step in one GEMM before the loop; each step
// then multiplies only h_prev by w's h rows, so the sequential part of the
// work is one [batch, cell] x [cell, 4*cell] GEMM per step. In float the
// sequence runs in place in the output tensors, with the activations
// vectorized (rnn_lstm_row.cc); half keeps the scalar path that rounds as
// TensorFlow does.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/rnn_lstm_row.h"
#include "lib/kernels/rnn_ops.h"

namespace dfg {
namespace rnn {

std::vector<float> Floats(const Tensor& t) {
  std::vector<float> out(t.NumElements());
  Dispatch(TypeList<float, Half>(), t.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* p = static_cast<const T*>(t.data());
    for (size_t i = 0; i < out.size(); ++i) out[i] = Load(p[i]);
  });
  return out;
}

void StoreFloats(const float* v, int64_t n, Tensor* t, int64_t offset) {
  Dispatch(TypeList<float, Half>(), t->dtype(), [&](auto e) {
    using T = decltype(e);
    T* p = static_cast<T*>(t->data()) + offset;
    for (int64_t i = 0; i < n; ++i) p[i] = Store<T>(v[i]);
  });
}

void Gemm(ThreadPoolInterface* pool, bool ta, bool tb, int64_t m, int64_t n,
          int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
          float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t r = 0; r < m; ++r) std::fill_n(c + r * ldc, n, 0.0f);
    return;
  }
  ParallelGemm(pool, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

Status CheckSize(int64_t got, int64_t want, std::string_view what) {
  if (got == want) return Status::Ok();
  return InvalidArgument("{}: {} vs. {}", what, got, want);
}

Status CheckRank(const Tensor& t, int rank, std::string_view name) {
  if (t.dims() == rank) return Status::Ok();
  return InvalidArgument("{} must be rank {} but is rank {}.", name, rank,
                         t.dims());
}

namespace {

// Reads the attrs and inputs x (at `x_index`) .. b of an LSTM op into *p
// (sizes from x's last dim and cs_prev's columns). Shape checks are the
// caller's.
void LoadCell(OpKernelContext* ctx, int x_index, LstmCell* p) {
  const Tensor& x = ctx->input(x_index);
  p->input = x.dim_size(x.dims() - 1);
  p->batch = x.dim_size(x.dims() - 2);
  p->cell = ctx->input(x_index + 1).dim_size(1);
  p->w = Floats(ctx->input(x_index + 3));
  p->wci = Floats(ctx->input(x_index + 4));
  p->wcf = Floats(ctx->input(x_index + 5));
  p->wco = Floats(ctx->input(x_index + 6));
  p->b = Floats(ctx->input(x_index + 7));
}

// LSTMBlockCell's checks, in TensorFlow's words; the ranks first (TF reads
// dims before it checks ranks).
Status ValidateCellInputs(OpKernelContext* ctx, bool peephole) {
  const char* names[] = {"x_tensor",   "cs_prev_tensor", "h_prev_tensor",
                         "w_tensor",   "wci_tensor",     "wcf_tensor",
                         "wco_tensor", "b_tensor"};
  for (int k = 0; k < 8; ++k) {
    DFG_RETURN_IF_ERROR(CheckRank(ctx->input(k), k < 4 ? 2 : 1, names[k]));
  }
  const Tensor &x = ctx->input(0), &cs_prev = ctx->input(1),
               &h_prev = ctx->input(2), &w = ctx->input(3);
  const int64_t batch = x.dim_size(0), input = x.dim_size(1),
                cell = cs_prev.dim_size(1);
  DFG_RETURN_IF_ERROR(
      CheckSize(cs_prev.dim_size(0), batch, "cs_prev.dims(0) != batch_size"));
  DFG_RETURN_IF_ERROR(
      CheckSize(h_prev.dim_size(0), batch, "h_prev.dims(0) != batch_size"));
  DFG_RETURN_IF_ERROR(
      CheckSize(h_prev.dim_size(1), cell, "h_prev.dims(1) != cell_size"));
  DFG_RETURN_IF_ERROR(CheckSize(w.dim_size(0), input + cell,
                                "w.dim_size(0) != input_size + cell_size"));
  DFG_RETURN_IF_ERROR(
      CheckSize(w.dim_size(1), cell * 4, "w.dim_size(1) != cell_size * 4"));
  DFG_RETURN_IF_ERROR(CheckSize(ctx->input(7).dim_size(0), cell * 4,
                                "b.dim_size(0) != cell_size * 4"));
  if (batch == 0 || cell == 0) {
    return InvalidArgument("cs_prev_tensor is empty, has shape: ({},{}).",
                           batch, cell);
  }
  // TensorFlow reads the peepholes unchecked; out-of-range sizes are refused.
  for (int k = 4; peephole && k < 7; ++k) {
    DFG_RETURN_IF_ERROR(
        CheckSize(ctx->input(k).dim_size(0), cell,
                  fmt::format("{}.dim_size(0) != cell_size",
                              std::string_view(names[k]).substr(0, 3))));
  }
  return Status::Ok();
}

Status ReadLstmAttrs(OpKernelConstruction* ctx, LstmCell* p) {
  if (ctx->HasAttr("forget_bias")) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("forget_bias", &p->forget_bias));
  } else {
    p->forget_bias = 0.0f;  // BlockLSTMV2 has none.
  }
  DFG_RETURN_IF_ERROR(ctx->GetAttr("cell_clip", &p->cell_clip));
  return ctx->GetAttr("use_peephole", &p->peephole);
}

class LSTMBlockCellOp : public OpKernel {
 public:
  explicit LSTMBlockCellOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadLstmAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, ValidateCellInputs(ctx, attrs_.peephole));
    LstmCell p = attrs_;
    LoadCell(ctx, 0, &p);
    const int64_t n = p.batch * p.cell, xh = p.input + p.cell;
    // gates = [x, h_prev] . w
    std::vector<float> x = Floats(ctx->input(0)), h = Floats(ctx->input(2));
    std::vector<float> xh_buf(p.batch * xh), gates(p.batch * 4 * p.cell);
    for (int64_t r = 0; r < p.batch; ++r) {
      std::copy_n(x.data() + r * p.input, p.input, xh_buf.data() + r * xh);
      std::copy_n(h.data() + r * p.cell, p.cell,
                  xh_buf.data() + r * xh + p.input);
    }
    Gemm(ctx->intra_op_pool(), false, false, p.batch, 4 * p.cell, xh,
         xh_buf.data(), xh, p.w.data(), 4 * p.cell, gates.data(), 4 * p.cell);
    std::vector<float> acts(7 * n);
    float* a = acts.data();
    const LstmActs out{a,         a + n,     a + 2 * n, a + 3 * n,
                       a + 4 * n, a + 5 * n, a + 6 * n};
    const std::vector<float> cs_prev = Floats(ctx->input(1));
    if (ctx->input(0).dtype() == tensorflow::DT_HALF) {
      LstmForward<Half>(p, gates.data(), cs_prev.data(), out, 0, p.batch);
    } else {
      LstmForward<float>(p, gates.data(), cs_prev.data(), out, 0, p.batch);
    }
    // Outputs i, cs, f, o, ci, co, h: the order of LstmActs.
    for (int k = 0; k < 7; ++k) {
      Tensor* t = nullptr;
      DFG_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(k, TensorShape({p.batch, p.cell}), &t));
      StoreFloats(a + k * n, n, t);
    }
  }

 private:
  LstmCell attrs_;
};

// BlockLSTM's checks (its own wording, unlike the cell's).
Status ValidateBlockInputs(OpKernelContext* ctx) {
  const Tensor& seq = ctx->input(0);
  if (seq.dims() != 0) {
    return InvalidArgument("`seq_len_max_tensor` must be rank 0 but is rank {}",
                           seq.dims());
  }
  const Tensor &x = ctx->input(1), &cs_prev = ctx->input(2),
               &h_prev = ctx->input(3), &w = ctx->input(4);
  if (x.dims() != 3) return InvalidArgument("x must be 3D");
  const int64_t batch = x.dim_size(1), input = x.dim_size(2);
  if (cs_prev.dims() != 2) return InvalidArgument("cs_prev must be 2D");
  DFG_RETURN_IF_ERROR(
      CheckSize(cs_prev.dim_size(0), batch, "cs_prev.dims(0) != batch_size"));
  const int64_t cell = cs_prev.dim_size(1);
  if (h_prev.dims() != 2) return InvalidArgument("h_prev must be 2D");
  DFG_RETURN_IF_ERROR(
      CheckSize(h_prev.dim_size(0), batch, "h_prev.dims(0) != batch_size"));
  DFG_RETURN_IF_ERROR(
      CheckSize(h_prev.dim_size(1), cell, "h_prev.dims(1) != cell_size"));
  if (w.dims() != 2) return InvalidArgument("w must be 2D");
  DFG_RETURN_IF_ERROR(CheckSize(w.dim_size(0), input + cell,
                                "w.dim_size(0) != input_size + cell_size"));
  DFG_RETURN_IF_ERROR(
      CheckSize(w.dim_size(1), cell * 4, "w.dim_size(1) != cell_size * 4"));
  const char* peeps[] = {"wci", "wcf", "wco"};
  for (int k = 0; k < 3; ++k) {
    const Tensor& t = ctx->input(5 + k);
    if (t.dims() != 1) return InvalidArgument("{} must be 1D", peeps[k]);
    DFG_RETURN_IF_ERROR(
        CheckSize(t.dim_size(0), cell,
                  fmt::format("{}.dim_size(0) != cell_size", peeps[k])));
  }
  const Tensor& b = ctx->input(8);
  if (b.dims() != 1) return InvalidArgument("b must be 1D");
  DFG_RETURN_IF_ERROR(
      CheckSize(b.dim_size(0), cell * 4, "b.dim_size(0) != cell_size * 4"));
  const int64_t seq_len_max = seq.flat<int64_t>()[0];
  if (seq_len_max < 0 || seq_len_max > x.dim_size(0)) {
    return InvalidArgument("seq_len_max must be between 0 and {} but is {}",
                           x.dim_size(0), seq_len_max);
  }
  return Status::Ok();
}

constexpr float kInf = std::numeric_limits<float>::infinity();

// The float sequence, in place: the inputs read where they are, the seven
// outputs written directly, the activations a row at a time as arrays.
class FloatLstm {
 public:
  FloatLstm(OpKernelContext* ctx, const LstmCell& attrs) : p_(attrs) {
    const Tensor& x = ctx->input(1);
    time_ = x.dim_size(0);
    p_.batch = x.dim_size(1);
    p_.input = x.dim_size(2);
    p_.cell = ctx->input(2).dim_size(1);
    for (int k = 0; k < 8; ++k) in_[k] = ctx->input(1 + k).flat<float>().data();
  }

  // Allocates the outputs and runs `steps` steps; the rest are zeros.
  void Run(OpKernelContext* ctx, int64_t steps) {
    const int64_t step = p_.batch * p_.cell, n = time_ * step;
    float* out[7];
    for (int k = 0; k < 7; ++k) {
      Tensor* t = nullptr;
      DFG_OP_REQUIRES_OK(
          ctx,
          ctx->allocate_output(k, TensorShape({time_, p_.batch, p_.cell}), &t));
      out[k] = t->flat<float>().data();
      std::fill(out[k] + steps * step, out[k] + n, 0.0f);
    }
    if (steps == 0) return;
    const int64_t c4 = 4 * p_.cell;
    const float* w = in_[3];
    // x . w[:input] for all steps at once; each step adds h_prev . w[input:].
    // Reused across calls on a thread: a sequence's gates are tens of KB.
    thread_local std::vector<float> gates;
    gates.resize(steps * p_.batch * c4);
    Gemm(ctx->intra_op_pool(), false, false, steps * p_.batch, c4, p_.input,
         in_[0], p_.input, w, c4, gates.data(), c4);
    for (int64_t t = 0; t < steps; ++t) {
      const float* h_prev = t == 0 ? in_[2] : out[6] + (t - 1) * step;
      const float* cs_prev = t == 0 ? in_[1] : out[1] + (t - 1) * step;
      float* g = gates.data() + t * p_.batch * c4;
      if (p_.cell > 0) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p_.batch, c4,
                    p_.cell, 1.0f, h_prev, p_.cell, w + p_.input * c4, c4, 1.0f,
                    g, c4);
      }
      float* a[7];
      for (int k = 0; k < 7; ++k) a[k] = out[k] + t * step;
      // A small batch's rows in one call: their chains of sigmoid and tanh
      // overlap (a Keras layer's 4 rows of 32 units would gain nothing from
      // another thread).
      if (p_.batch * p_.cell <= 8192) {
        Rows(g, cs_prev, a, 0, p_.batch);
        continue;
      }
      ParallelFor(ctx->intra_op_pool(), p_.batch, 4 * p_.cell * 40,
                  [&](int64_t r0, int64_t r1) { Rows(g, cs_prev, a, r0, r1); });
    }
  }

 private:
  // Rows [r0, r1) of one step: the same formulas as LstmForward.
  void Rows(const float* gates, const float* cs_prev, float* const* a,
            int64_t r0, int64_t r1) const {
    const int64_t u = p_.cell, e = r0 * u;
    const float* b = in_[7];
    const float* g = gates + r0 * 4 * u;
    const GateRow row{g,
                      g + p_.f_off(),
                      g + p_.c_off(),
                      g + 3 * u,
                      b,
                      b + p_.f_off(),
                      b + p_.c_off(),
                      b + 3 * u,
                      cs_prev + e,
                      p_.peephole ? in_[4] : nullptr,
                      in_[5],
                      in_[6],
                      p_.forget_bias,
                      p_.cell_clip > 0.0f ? p_.cell_clip : kInf};
    LstmRows(row, r1 - r0, u, a[0] + e, a[1] + e, a[2] + e, a[3] + e, a[4] + e,
             a[5] + e, a[6] + e);
  }

  LstmCell p_;
  int64_t time_ = 0;
  const float* in_[8];  // x, cs_prev, h_prev, w, wci, wcf, wco, b
};

class BlockLSTMOp : public OpKernel {
 public:
  BlockLSTMOp(OpKernelConstruction* ctx, bool ifco) : OpKernel(ctx) {
    attrs_.ifco = ifco;
    DFG_OP_REQUIRES_OK(ctx, ReadLstmAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, ValidateBlockInputs(ctx));
    if (ctx->input(1).dtype() == tensorflow::DT_FLOAT) {
      FloatLstm(ctx, attrs_).Run(ctx, ctx->input(0).flat<int64_t>()[0]);
      return;
    }
    LstmCell p = attrs_;
    LoadCell(ctx, 1, &p);
    const int64_t time = ctx->input(1).dim_size(0);
    const int64_t steps = ctx->input(0).flat<int64_t>()[0];
    std::vector<float> acts(7 * time * p.batch * p.cell, 0.0f);
    Run<Half>(ctx, p, steps, acts.data());
    // Steps from seq_len_max on are zeros (TensorFlow zeroes cs and h there
    // and leaves the other outputs unset).
    const int64_t n = time * p.batch * p.cell;
    for (int k = 0; k < 7; ++k) {
      Tensor* t = nullptr;
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                  k, TensorShape({time, p.batch, p.cell}), &t));
      StoreFloats(acts.data() + k * n, n, t);
    }
  }

 private:
  // acts: the 7 outputs [time, batch, cell] one after another, i cs f o ci
  // co h.
  template <typename T>
  void Run(OpKernelContext* ctx, const LstmCell& p, int64_t steps,
           float* acts) const {
    const int64_t c4 = 4 * p.cell, step = p.batch * p.cell;
    const int64_t n = ctx->input(1).dim_size(0) * step;
    const std::vector<float> x = Floats(ctx->input(1));
    const std::vector<float> cs0 = Floats(ctx->input(2));
    const std::vector<float> h0 = Floats(ctx->input(3));
    // x . w[:input] for all steps at once.
    std::vector<float> gx(steps * p.batch * c4), gates(p.batch * c4);
    Gemm(ctx->intra_op_pool(), false, false, steps * p.batch, c4, p.input,
         x.data(), p.input, p.w.data(), c4, gx.data(), c4);
    const float* w_h = p.w.data() + p.input * c4;
    for (int64_t t = 0; t < steps; ++t) {
      const float* h_prev = t == 0 ? h0.data() : acts + 6 * n + (t - 1) * step;
      const float* cs_prev = t == 0 ? cs0.data() : acts + n + (t - 1) * step;
      Gemm(ctx->intra_op_pool(), false, false, p.batch, c4, p.cell, h_prev,
           p.cell, w_h, c4, gates.data(), c4);
      const float* gxt = gx.data() + t * p.batch * c4;
      for (int64_t j = 0; j < p.batch * c4; ++j) gates[j] += gxt[j];
      float* a = acts + t * step;
      const LstmActs out{a,         a + n,     a + 2 * n, a + 3 * n,
                         a + 4 * n, a + 5 * n, a + 6 * n};
      ParallelFor(ctx->intra_op_pool(), p.batch, 4 * p.cell * 40,
                  [&](int64_t r0, int64_t r1) {
                    LstmForward<T>(p, gates.data(), cs_prev, out, r0, r1);
                  });
    }
  }

  LstmCell attrs_;
};

class BlockLSTMV1Op : public BlockLSTMOp {
 public:
  explicit BlockLSTMV1Op(OpKernelConstruction* ctx) : BlockLSTMOp(ctx, false) {}
};
class BlockLSTMV2Op : public BlockLSTMOp {
 public:
  explicit BlockLSTMV2Op(OpKernelConstruction* ctx) : BlockLSTMOp(ctx, true) {}
};

}  // namespace
}  // namespace rnn

void RegisterRnnKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("T", TypeList<float, Half>());
  r->Register<rnn::LSTMBlockCellOp>("LSTMBlockCell", {types});
  r->Register<rnn::BlockLSTMV1Op>("BlockLSTM", {types});
  r->Register<rnn::BlockLSTMV2Op>("BlockLSTMV2", {types});
  rnn::RegisterLstmGradKernels(r);
  rnn::RegisterGruKernels(r);
}

}  // namespace dfg
