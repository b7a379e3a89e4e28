// LstmRow (rnn_lstm_row.h): plain loops the compiler vectorizes, with an exp
// built from operations that vectorize (no libm calls, no branches). Built
// with -fno-trapping-math (CMakeLists.txt): the selects below then compile
// to blends (values are the same; only floating-point exception flags,
// which nothing reads, may differ).
#include "lib/kernels/rnn_lstm_row.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace dfg::rnn {
namespace {

// e^x for x clamped to [-87, 88]: x = n ln2 + r with |r| <= ln2 / 2, e^r by
// its Taylor series to r^7 (relative error < 6e-9), 2^n from the exponent
// bits. n is rounded with the 1.5 * 2^23 trick, which vectorizes where
// nearbyint does not.
[[gnu::always_inline]] inline float Exp(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  // ln2 in two parts so that n * hi is exact.
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

[[gnu::always_inline]] inline float Sigmoid(float x) {
  return 1.0f / (1.0f + Exp(-x));
}

// (1 - e^-2|x|) / (1 + e^-2|x|) with the sign of x; near 0, where that
// cancels, the Taylor series (next term < 1e-8 |x|).
[[gnu::always_inline]] inline float Tanh(float x) {
  const float ax = std::fabs(x);
  const float t = Exp(-2.0f * ax);
  const float big = (1.0f - t) / (1.0f + t);
  const float x2 = x * x;
  const float small =
      ax * (1.0f +
            x2 * (-1.0f / 3 +
                  x2 * (2.0f / 15 + x2 * (-17.0f / 315 + x2 * 62.0f / 2835))));
  return std::copysign(ax < 0.25f ? small : big, x);
}

// Row elements j of gate offset gj and state offset sj.
template <bool kPeephole>
[[gnu::always_inline]] inline void Rows(
    const GateRow& g, int64_t rows, int64_t cell, float* __restrict i,
    float* __restrict cs, float* __restrict f, float* __restrict o,
    float* __restrict ci, float* __restrict co, float* __restrict h) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t gr = r * 4 * cell;
    for (int64_t j = 0, s = r * cell; j < cell; ++j, ++s) {
      const float csp = g.cs_prev[s];
      float xi = g.gi[gr + j] + g.bi[j];
      float xf = (g.gf[gr + j] + g.bf[j]) + g.forget_bias;
      if constexpr (kPeephole) {
        xi += csp * g.wci[j];
        xf += csp * g.wcf[j];
      }
      const float ij = Sigmoid(xi), fj = Sigmoid(xf);
      const float cij = Tanh(g.gc[gr + j] + g.bc[j]);
      const float csj =
          std::min(std::max(ij * cij + fj * csp, -g.cell_clip), g.cell_clip);
      const float coj = Tanh(csj);
      float xo = g.go[gr + j] + g.bo[j];
      if constexpr (kPeephole) xo += csj * g.wco[j];
      const float oj = Sigmoid(xo);
      i[s] = ij;
      f[s] = fj;
      ci[s] = cij;
      cs[s] = csj;
      co[s] = coj;
      o[s] = oj;
      h[s] = oj * coj;
    }
  }
}

// The body each ISA's copy inlines (Rows and Exp are always_inline, so the
// copies below are vectorized at their own width).
[[gnu::always_inline]] inline void LstmRowsBody(const GateRow& g, int64_t rows,
                                                int64_t cell, float* i,
                                                float* cs, float* f, float* o,
                                                float* ci, float* co,
                                                float* h) {
  if (g.wci != nullptr) {
    Rows<true>(g, rows, cell, i, cs, f, o, ci, co, h);
  } else {
    Rows<false>(g, rows, cell, i, cs, f, o, ci, co, h);
  }
}

using LstmRowsFn = void (*)(const GateRow&, int64_t, int64_t, float*, float*,
                            float*, float*, float*, float*, float*);

[[gnu::target("arch=x86-64-v4")]] void LstmRowsV4(const GateRow& g,
                                                  int64_t rows, int64_t cell,
                                                  float* i, float* cs, float* f,
                                                  float* o, float* ci,
                                                  float* co, float* h) {
  LstmRowsBody(g, rows, cell, i, cs, f, o, ci, co, h);
}

[[gnu::target("arch=x86-64-v3")]] void LstmRowsV3(const GateRow& g,
                                                  int64_t rows, int64_t cell,
                                                  float* i, float* cs, float* f,
                                                  float* o, float* ci,
                                                  float* co, float* h) {
  LstmRowsBody(g, rows, cell, i, cs, f, o, ci, co, h);
}

void LstmRowsBaseline(const GateRow& g, int64_t rows, int64_t cell, float* i,
                      float* cs, float* f, float* o, float* ci, float* co,
                      float* h) {
  LstmRowsBody(g, rows, cell, i, cs, f, o, ci, co, h);
}

// Chosen on the first call, not by an ifunc resolver when the program
// loads: a resolver runs before the sanitizers' runtimes are set up, and
// ThreadSanitizer's instrumentation of it crashes the program.
// Clang before 16 knows no level names for __builtin_cpu_supports: there
// the features the two levels add that their code generation uses.
#if defined(__clang__) && __clang_major__ < 16
bool HasV4() {
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}
bool HasV3() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi2");
}
#else
bool HasV4() { return __builtin_cpu_supports("x86-64-v4"); }
bool HasV3() { return __builtin_cpu_supports("x86-64-v3"); }
#endif

LstmRowsFn Choose() {
  if (HasV4()) return LstmRowsV4;
  if (HasV3()) return LstmRowsV3;
  return LstmRowsBaseline;
}

}  // namespace

void LstmRows(const GateRow& g, int64_t rows, int64_t cell, float* i, float* cs,
              float* f, float* o, float* ci, float* co, float* h) {
  static const LstmRowsFn fn = Choose();
  fn(g, rows, cell, i, cs, f, o, ci, co, h);
}

}  // namespace dfg::rnn
