// Vectorized float32 element-wise math, dispatched at run time.
//
// dfg is compiled for baseline x86-64 (SSE2). These functions run the same
// Eigen packet math TensorFlow's CPU kernels use (ptanh, pexp, plog, perf,
// the logistic rational...) compiled three times: for SSE2 (the baseline),
// for AVX2+FMA and for AVX-512F, and pick the widest the CPU supports the
// first time one is called (__builtin_cpu_supports). The ISA-specific code
// lives in its own translation units behind plain function pointers over
// float*/size_t, so no AVX instruction can run on a CPU without it.
//
// Any kernel may call these: they are single-threaded (split large arrays
// over the intra-op pool yourself), `x` may equal `y` (in place), and the
// tail of an array that does not fill a packet goes through the same packet
// code (padded), so an element's value does not depend on its position.
//
// DFG_SIMD=baseline|avx2|avx512 in the environment caps the level (to
// compare, or to rule the vector code out); SetLevelForTesting does the same
// from tests.
#ifndef DFG_LIB_KERNELS_SIMD_VEC_MATH_H_
#define DFG_LIB_KERNELS_SIMD_VEC_MATH_H_

#include <cstddef>

namespace dfg::simd {

enum class Level { kBaseline, kAvx2, kAvx512 };

// The level in use (the widest the CPU has, capped by DFG_SIMD).
Level ActiveLevel();
const char* LevelName(Level level);
// Uses `level`, or the widest the CPU supports below it. Not thread-safe
// against concurrent calls of the math functions; for tests and benchmarks.
void SetLevelForTesting(Level level);

// y[i] = f(x[i]) with TensorFlow's float32 semantics for op `f` (NaN in,
// NaN out; infinities as TensorFlow's Eigen kernels give them).
enum class UnaryOp {
  kNeg,
  kAbs,
  kSquare,
  kSqrt,
  kRsqrt,  // 1 / sqrt(x), both correctly rounded (not rsqrtps)
  kReciprocal,
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kTanh,
  kSigmoid,
  kErf,
  kRelu,
  kRelu6,
  kElu,
  kSelu,
  kSoftplus,
  kSoftsign,
};
void Unary(UnaryOp op, const float* x, float* y, size_t n);

// LeakyRelu: x < 0 ? alpha * x : x.
void LeakyRelu(const float* x, float alpha, float* y, size_t n);

// z = f(x, y). Maximum/Minimum propagate NaN; Pow is TensorFlow's (Eigen's
// pow; a scalar exponent of 1, 2, 3, 0.5 or -1 takes a shortcut within an
// ulp or two of it).
enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMax, kMin, kSqDiff, kPow };
// Shapes of the two operands: both n long, or one a single value.
enum class Operands { kBoth, kScalarX, kScalarY };
void Binary(BinaryOp op, Operands form, const float* x, const float* y,
            float* z, size_t n);

// Softmax (log = false) or LogSoftmax over each of `rows` contiguous rows of
// `depth` floats: exp(x - max) / sum, or (x - max) - log(sum).
void SoftmaxRows(const float* x, float* y, size_t rows, size_t depth, bool log);

}  // namespace dfg::simd

#endif  // DFG_LIB_KERNELS_SIMD_VEC_MATH_H_
