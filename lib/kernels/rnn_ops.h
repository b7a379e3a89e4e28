// Internal to the RNN kernels (rnn_lstm_ops.cc, rnn_lstm_grad_ops.cc,
// rnn_gru_ops.cc): float staging of half/float tensors, a GEMM wrapper over
// OpenBLAS, and one LSTM time step forward and backward as TensorFlow's
// lstm_ops computes it.
//
// The kernels compute in float. For half, TensorFlow evaluates each Eigen
// expression in Eigen::half, rounding after every operation; Round<T>
// reproduces those roundings at the same points so half results agree with
// TensorFlow's to the last bit or so, not only to half precision.
#ifndef DFG_LIB_KERNELS_RNN_OPS_H_
#define DFG_LIB_KERNELS_RNN_OPS_H_

#include <cmath>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg::rnn {

template <typename T>
inline float Round(float x) {
  if constexpr (std::is_same_v<T, Half>) {
    return HalfToFloat(FloatToHalf(x));
  } else {
    return x;
  }
}

inline float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// tanh to a few float ulps, through expf (glibc's tanhf goes through the
// much slower expm1f and dominated BlockLSTM): 1 - 2 / (e^2x + 1), and near
// 0, where that form cancels, its Taylor series (next term < 1e-8 x).
inline float Tanh(float x) {
  const float ax = std::fabs(x);
  if (ax < 0.25f) {
    const float x2 = x * x;
    return x * (1.0f +
                x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315 +
                                                          x2 * 62.0f / 2835))));
  }
  if (ax > 9.0f) return std::copysign(1.0f, x);
  return std::copysign(1.0f - 2.0f / (std::exp(2.0f * ax) + 1.0f), x);
}

// The values of a float or half tensor as floats.
std::vector<float> Floats(const Tensor& t);
// Stores v[0, n) into t (float or half) at element `offset`.
void StoreFloats(const float* v, int64_t n, Tensor* t, int64_t offset = 0);

// Row-major C[m,n] = op(A) op(B) (C overwritten), split over the pool; empty
// and k == 0 products give zeros.
void Gemm(ThreadPoolInterface* pool, bool ta, bool tb, int64_t m, int64_t n,
          int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
          float* c, int64_t ldc);

// The fixed inputs of an LSTM cell, as floats. Gate blocks of w/b: ICFO (the
// cell and BlockLSTM) or IFCO (BlockLSTMV2, Keras' order).
struct LstmCell {
  int64_t batch = 0, input = 0, cell = 0;
  std::vector<float> w, wci, wcf, wco, b;
  bool peephole = false;
  bool ifco = false;
  float forget_bias = 1.0f, cell_clip = 3.0f;
  int64_t c_off() const { return ifco ? 2 * cell : cell; }
  int64_t f_off() const { return ifco ? cell : 2 * cell; }
};

// One step's activations, each [batch, cell].
struct LstmActs {
  float *i, *cs, *f, *o, *ci, *co, *h;
};
struct ConstLstmActs {
  const float *i, *cs, *f, *o, *ci, *co;
};

// Forward step of batch rows [r0, r1): `gates` ([batch, 4*cell]) holds
// [x, h_prev]·w; adds b and computes the activations from cs_prev.
template <typename T>
void LstmForward(const LstmCell& p, float* gates, const float* cs_prev,
                 const LstmActs& a, int64_t r0, int64_t r1) {
  const int64_t c4 = 4 * p.cell;
  for (int64_t r = r0; r < r1; ++r) {
    float* g = gates + r * c4;
    for (int64_t j = 0; j < c4; ++j) g[j] = Round<T>(Round<T>(g[j]) + p.b[j]);
    const float* gi = g;
    const float* gc = g + p.c_off();
    const float* gf = g + p.f_off();
    const float* go = g + 3 * p.cell;
    for (int64_t j = 0; j < p.cell; ++j) {
      const int64_t e = r * p.cell + j;
      const float csp = cs_prev[e];
      float xi = gi[j], xf = Round<T>(gf[j] + Round<T>(p.forget_bias));
      if (p.peephole) {
        xi = Round<T>(xi + Round<T>(csp * p.wci[j]));
        xf = Round<T>(xf + Round<T>(csp * p.wcf[j]));
      }
      const float i = Round<T>(Sigmoid(xi));
      const float ci = Round<T>(Tanh(gc[j]));
      const float f = Round<T>(Sigmoid(xf));
      float cs = Round<T>(Round<T>(i * ci) + Round<T>(f * csp));
      if (p.cell_clip > 0.0f) {
        const float clip = Round<T>(p.cell_clip);
        cs = std::min(std::max(cs, -clip), clip);
      }
      const float co = Round<T>(Tanh(cs));
      float xo = go[j];
      if (p.peephole) xo = Round<T>(xo + Round<T>(cs * p.wco[j]));
      const float o = Round<T>(Sigmoid(xo));
      a.i[e] = i;
      a.ci[e] = ci;
      a.f[e] = f;
      a.cs[e] = cs;
      a.co[e] = co;
      a.o[e] = o;
      a.h[e] = Round<T>(o * co);
    }
  }
}

// Backward step: from the step's activations, cs_prev and the incoming
// gradients, writes dgates ([batch, 4*cell], the layout of w's columns) and
// cs_prev_grad, and adds the step's peephole gradients (summed over the
// batch, then added as TensorFlow's half accumulators round) to *_grad.
struct LstmGrads {
  float* dgates;
  float* cs_prev_grad;
  float *wci_grad, *wcf_grad, *wco_grad;
};
template <typename T>
void LstmBackward(const LstmCell& p, const ConstLstmActs& a,
                  const float* cs_prev, const float* cs_grad,
                  const float* h_grad, const LstmGrads& g) {
  auto R = [](float x) { return Round<T>(x); };
  const int64_t c4 = 4 * p.cell;
  std::vector<float> sums(p.peephole ? 3 * p.cell : 0, 0.0f);
  for (int64_t r = 0; r < p.batch; ++r) {
    float* dg = g.dgates + r * c4;
    for (int64_t j = 0; j < p.cell; ++j) {
      const int64_t e = r * p.cell + j;
      const float i = a.i[e], f = a.f[e], o = a.o[e], ci = a.ci[e],
                  co = a.co[e], hg = h_grad[e], csp = cs_prev[e];
      const float d_o = R(R(R(o * R(1 - o)) * hg) * co);
      float dcs = R(R(R(R(1 - R(co * co)) * hg) * o) + cs_grad[e]);
      if (p.peephole) dcs = R(dcs + R(d_o * p.wco[j]));
      const float dci = R(R(R(1 - R(ci * ci)) * dcs) * i);
      const float df = R(R(R(f * R(1 - f)) * dcs) * csp);
      const float di = R(R(R(i * R(1 - i)) * dcs) * ci);
      dg[j] = di;
      dg[p.c_off() + j] = dci;
      dg[p.f_off() + j] = df;
      dg[3 * p.cell + j] = d_o;
      float cpg = R(dcs * f);
      if (p.peephole) {
        cpg = R(R(cpg + R(di * p.wci[j])) + R(df * p.wcf[j]));
        sums[j] += R(di * csp);
        sums[p.cell + j] += R(df * csp);
        sums[2 * p.cell + j] += R(d_o * a.cs[e]);
      }
      g.cs_prev_grad[e] = cpg;
    }
  }
  for (int64_t j = 0; p.peephole && j < p.cell; ++j) {
    g.wci_grad[j] = R(g.wci_grad[j] + R(sums[j]));
    g.wcf_grad[j] = R(g.wcf_grad[j] + R(sums[p.cell + j]));
    g.wco_grad[j] = R(g.wco_grad[j] + R(sums[2 * p.cell + j]));
  }
}

// TensorFlow's size checks: "<what>: <got> vs. <want>" unless equal.
Status CheckSize(int64_t got, int64_t want, std::string_view what);
// "<name> must be rank <rank> but is rank <dims>." unless t has that rank.
Status CheckRank(const Tensor& t, int rank, std::string_view name);

void RegisterGruKernels(KernelRegistry* r);
void RegisterLstmGradKernels(KernelRegistry* r);

}  // namespace dfg::rnn

#endif  // DFG_LIB_KERNELS_RNN_OPS_H_
