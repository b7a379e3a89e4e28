// The body of one ISA's vector math table, included once by each of
// vec_baseline.cc, vec_avx2.cc and vec_avx512.cc (compiled with their own
// -m flags), which define DFG_VEC_TABLE_NAME first.
//
// Each of those translation units is built with -DEigen=<its own name>, so
// every Eigen template it instantiates (and would emit as a weak symbol) is
// its own: the linker cannot merge an AVX copy of, say, pexp<Packet4f> into
// the baseline code. Everything else here sits in an anonymous namespace and
// uses no standard-library templates, for the same reason; only the table
// function has external linkage.
#ifndef DFG_VEC_TABLE_NAME
#error "define DFG_VEC_TABLE_NAME before including vec_impl.h"
#endif

#include <Eigen/Core>
#include <cstring>
#include <unsupported/Eigen/SpecialFunctions>

#include "lib/kernels/simd/vec_table.h"

namespace dfg::simd {
namespace {

namespace ei = ::Eigen::internal;
using P = ei::packet_traits<float>::type;
constexpr size_t kWidth = ei::packet_traits<float>::size;

inline P Set(float v) { return ei::pset1<P>(v); }

// The correctly rounded square root: Eigen's psqrt under EIGEN_FAST_MATH is
// rsqrt-based on SSE (sqrt(inf) NaN, a few ulp off).
inline P Sqrt(P v) {
#if defined(__AVX512F__)
  return _mm512_sqrt_ps(v);
#elif defined(__AVX__)
  return _mm256_sqrt_ps(v);
#elif defined(__SSE2__)
  return _mm_sqrt_ps(v);
#else
  return ei::psqrt(v);
#endif
}

// y = f(packet of x) over n floats; the tail goes through f too, padded.
template <typename F>
inline void Map1(const float* x, float* y, size_t n, F f) {
  size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    ei::pstoreu(y + i, f(ei::ploadu<P>(x + i)));
  }
  if (i == n) return;
  alignas(64) float buf[kWidth] = {};
  std::memcpy(buf, x + i, (n - i) * sizeof(float));
  ei::pstore(buf, f(ei::pload<P>(buf)));
  std::memcpy(y + i, buf, (n - i) * sizeof(float));
}

// z = f(a, b) where a or b may be one value broadcast.
template <typename F>
inline void Map2(Operands form, const float* x, const float* y, float* z,
                 size_t n, F f) {
  if (form == Operands::kScalarX) {
    const P a = Set(*x);
    Map1(y, z, n, [&](P b) { return f(a, b); });
    return;
  }
  if (form == Operands::kScalarY) {
    const P b = Set(*y);
    Map1(x, z, n, [&](P a) { return f(a, b); });
    return;
  }
  size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    ei::pstoreu(z + i, f(ei::ploadu<P>(x + i), ei::ploadu<P>(y + i)));
  }
  if (i == n) return;
  alignas(64) float a[kWidth] = {}, b[kWidth] = {};
  std::memcpy(a, x + i, (n - i) * sizeof(float));
  std::memcpy(b, y + i, (n - i) * sizeof(float));
  ei::pstore(a, f(ei::pload<P>(a), ei::pload<P>(b)));
  std::memcpy(z + i, a, (n - i) * sizeof(float));
}

inline P Sigmoid(P x) { return ei::scalar_logistic_op<float>().packetOp(x); }

// x < 0 ? neg : pos, NaN taking `pos` (NaN < 0 is false).
inline P IfNegative(P x, P neg, P pos) {
#if defined(__AVX512F__)
  // Eigen's AVX-512 pcmp_lt + pselect go from a mask register to a vector
  // and back: four times AVX2's time for Relu6. A blend by the mask.
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, Set(0.f), _CMP_LT_OQ), pos,
                              neg);
#else
  return ei::pselect(ei::pcmp_lt(x, Set(0.f)), neg, pos);
#endif
}

// b < a ? b : a (std::min(a, b): a NaN in a stays, one in b does not).
inline P MinOf(P a, P b) {
#if defined(__AVX512F__)
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(b, a, _CMP_LT_OQ), a, b);
#else
  return ei::pselect(ei::pcmp_lt(b, a), b, a);
#endif
}

// TensorFlow's softplus: x above -log(eps) - 2 is x, below log(eps) + 2 is
// exp(x), log1p(exp(x)) between.
inline P Softplus(P x) {
  const float threshold = -13.942385f;  // log(FLT_EPSILON) + 2
  const P e = ei::pexp(x);
  const P mid = ei::plog1p(e);
  const P low = ei::pselect(ei::pcmp_lt(x, Set(threshold)), e, mid);
  return ei::pselect(ei::pcmp_lt(Set(-threshold), x), x, low);
}

inline P Selu(P x) {
  const float scale = 1.0507009873554804934193349852946f;
  const float scale_alpha = 1.7580993408473766f;  // scale * alpha
  return IfNegative(x, ei::pmul(Set(scale_alpha), ei::pexpm1(x)),
                    ei::pmul(Set(scale), x));
}

void UnaryImpl(UnaryOp op, const float* x, float* y, size_t n) {
  switch (op) {
    case UnaryOp::kNeg:
      // A sign flip (Eigen's AVX pnegate is 0 - x, which turns -0 into +0).
      return Map1(x, y, n, [](P v) { return ei::pxor(v, Set(-0.f)); });
    case UnaryOp::kAbs:
      return Map1(x, y, n, [](P v) { return ei::pabs(v); });
    case UnaryOp::kSquare:
      return Map1(x, y, n, [](P v) { return ei::pmul(v, v); });
    case UnaryOp::kSqrt:
      return Map1(x, y, n, [](P v) { return Sqrt(v); });
    case UnaryOp::kRsqrt:
      return Map1(x, y, n, [](P v) { return ei::pdiv(Set(1.f), Sqrt(v)); });
    case UnaryOp::kReciprocal:
      return Map1(x, y, n, [](P v) { return ei::pdiv(Set(1.f), v); });
    case UnaryOp::kExp:
      return Map1(x, y, n, [](P v) { return ei::pexp(v); });
    case UnaryOp::kExpm1:
      return Map1(x, y, n, [](P v) { return ei::pexpm1(v); });
    case UnaryOp::kLog:
      return Map1(x, y, n, [](P v) { return ei::plog(v); });
    case UnaryOp::kLog1p:
      return Map1(x, y, n, [](P v) { return ei::plog1p(v); });
    case UnaryOp::kTanh:
      return Map1(x, y, n, [](P v) { return ei::ptanh(v); });
    case UnaryOp::kSigmoid:
      return Map1(x, y, n, [](P v) { return Sigmoid(v); });
    case UnaryOp::kErf:
      return Map1(x, y, n, [](P v) { return ei::generic_fast_erf_float(v); });
    case UnaryOp::kRelu:
      return Map1(x, y, n, [](P v) { return IfNegative(v, Set(0.f), v); });
    case UnaryOp::kRelu6:
      return Map1(x, y, n, [](P v) {
        return MinOf(IfNegative(v, Set(0.f), v), Set(6.f));
      });
    case UnaryOp::kElu:
      return Map1(x, y, n, [](P v) { return IfNegative(v, ei::pexpm1(v), v); });
    case UnaryOp::kSelu:
      return Map1(x, y, n, [](P v) { return Selu(v); });
    case UnaryOp::kSoftplus:
      return Map1(x, y, n, [](P v) { return Softplus(v); });
    case UnaryOp::kSoftsign:
      return Map1(x, y, n, [](P v) {
        return ei::pdiv(v, ei::padd(Set(1.f), ei::pabs(v)));
      });
  }
}

void LeakyReluImpl(const float* x, float alpha, float* y, size_t n) {
  const P a = Set(alpha);
  Map1(x, y, n, [&](P v) { return IfNegative(v, ei::pmul(a, v), v); });
}

// Eigen's pow needs a vector round (SSE4.1): SSE2 calls libm per element.
// Eigen 3.4 loses the sign of (-0) ** odd and (-inf) ** odd: an odd integer
// exponent gives the result a's sign, as pow does.
inline P Pow(P a, P b) {
#ifdef __AVX__
  const P r = ei::generic_pow(a, b);
  const P half = ei::pmul(b, Set(0.5f));
  const P odd = ei::pandnot(ei::pcmp_eq(b, ei::pround(b)),
                            ei::pcmp_eq(half, ei::pround(half)));
  const P signed_r = ei::por(ei::pabs(r), ei::pand(a, Set(-0.f)));
  return ei::pselect(odd, signed_r, r);
#else
  alignas(64) float x[kWidth], y[kWidth];
  ei::pstore(x, a);
  ei::pstore(y, b);
  for (size_t i = 0; i < kWidth; ++i) x[i] = __builtin_powf(x[i], y[i]);
  return ei::pload<P>(x);
#endif
}

// x ** e for one exponent: the common ones by multiplication or sqrt, which
// agree with pow within an ulp or two (pow(-0, 0.5) is +0 and pow(-inf,
// 0.5) is +inf where sqrt gives -0 and NaN: fixed up).
void PowScalarExponent(const float* x, float e, float* z, size_t n) {
  if (e == 1.f) {
    return Map1(x, z, n, [](P v) { return v; });
  } else if (e == 2.f) {
    return Map1(x, z, n, [](P v) { return ei::pmul(v, v); });
  } else if (e == 3.f) {
    return Map1(x, z, n, [](P v) { return ei::pmul(ei::pmul(v, v), v); });
  } else if (e == -1.f) {
    return Map1(x, z, n, [](P v) { return ei::pdiv(Set(1.f), v); });
  } else if (e == 0.5f) {
    const P minus_inf = Set(-__builtin_inff());
    return Map1(x, z, n, [&](P v) {
      const P r = ei::padd(Sqrt(v), Set(0.f));
      return ei::pselect(ei::pcmp_eq(v, minus_inf), Set(__builtin_inff()), r);
    });
  }
  const P b = Set(e);
  Map1(x, z, n, [&](P v) { return Pow(v, b); });
}

void BinaryImpl(BinaryOp op, Operands form, const float* x, const float* y,
                float* z, size_t n) {
  switch (op) {
    case BinaryOp::kAdd:
      return Map2(form, x, y, z, n, [](P a, P b) { return ei::padd(a, b); });
    case BinaryOp::kSub:
      return Map2(form, x, y, z, n, [](P a, P b) { return ei::psub(a, b); });
    case BinaryOp::kMul:
      return Map2(form, x, y, z, n, [](P a, P b) { return ei::pmul(a, b); });
    case BinaryOp::kDiv:
      return Map2(form, x, y, z, n, [](P a, P b) { return ei::pdiv(a, b); });
    case BinaryOp::kMax:
      return Map2(form, x, y, z, n, [](P a, P b) {
        return ei::pmax<::Eigen::PropagateNaN>(a, b);
      });
    case BinaryOp::kMin:
      return Map2(form, x, y, z, n, [](P a, P b) {
        return ei::pmin<::Eigen::PropagateNaN>(a, b);
      });
    case BinaryOp::kSqDiff:
      return Map2(form, x, y, z, n, [](P a, P b) {
        const P d = ei::psub(a, b);
        return ei::pmul(d, d);
      });
    case BinaryOp::kPow:
      if (form == Operands::kScalarY) return PowScalarExponent(x, *y, z, n);
      return Map2(form, x, y, z, n, [](P a, P b) { return Pow(a, b); });
  }
}

// The largest element of a row (NaNs may or may not win: a NaN anywhere
// makes the whole row NaN through the sum anyway).
inline float RowMax(const float* x, size_t depth) {
  P m = Set(-__builtin_inff());
  size_t i = 0;
  for (; i + kWidth <= depth; i += kWidth)
    m = ei::pmax(m, ei::ploadu<P>(x + i));
  float r = ei::predux_max(m);
  for (; i < depth; ++i) r = x[i] > r ? x[i] : r;
  return r;
}

// y = exp(x - max) (to `y` unless null) and returns the sum of them.
inline float ExpShiftedSum(const float* x, float* y, size_t depth, float max) {
  const P m = Set(max);
  P sum = Set(0.f);
  size_t i = 0;
  for (; i + kWidth <= depth; i += kWidth) {
    const P e = ei::pexp(ei::psub(ei::ploadu<P>(x + i), m));
    if (y != nullptr) ei::pstoreu(y + i, e);
    sum = ei::padd(sum, e);
  }
  if (i < depth) {
    alignas(64) float buf[kWidth];
    for (size_t j = 0; j < kWidth; ++j) {
      buf[j] = i + j < depth ? x[i + j] : -__builtin_inff();
    }
    const P e = ei::pexp(ei::psub(ei::pload<P>(buf), m));
    ei::pstore(buf, e);
    if (y != nullptr) std::memcpy(y + i, buf, (depth - i) * sizeof(float));
    sum = ei::padd(sum, e);
  }
  return ei::predux(sum);
}

void SoftmaxRowsImpl(const float* x, float* y, size_t rows, size_t depth,
                     bool log) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * depth;
    float* yr = y + r * depth;
    const float max = RowMax(xr, depth);
    if (log) {
      const float sum = ExpShiftedSum(xr, nullptr, depth, max);
      const P shift = Set(max);
      const P log_sum = Set(ei::pfirst(ei::plog(Set(sum))));
      Map1(xr, yr, depth,
           [&](P v) { return ei::psub(ei::psub(v, shift), log_sum); });
    } else {
      // Divided (correctly rounded), as dfg's scalar kernel always did.
      const P sum = Set(ExpShiftedSum(xr, yr, depth, max));
      Map1(yr, yr, depth, [&](P v) { return ei::pdiv(v, sum); });
    }
  }
}

constexpr VecTable kTable = {&UnaryImpl, &LeakyReluImpl, &BinaryImpl,
                             &SoftmaxRowsImpl};

}  // namespace

const VecTable* DFG_VEC_TABLE_NAME() { return &kTable; }

}  // namespace dfg::simd
