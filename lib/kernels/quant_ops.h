// Shared by the quantized-op kernels (quant_ops_*.cc): TensorFlow's
// quantization_utils conventions for the "min/max" quantized dtypes. A value
// q of type T over [min, max] means
//   min_rounded + (q - lowest(T)) * (max - min) / (2^bits - 1),
// where min_rounded is min rounded to a multiple of that step. Both the
// per-element reference (QuantizedToFloat / FloatToQuantized, in double) and
// the Eigen-expression forms (Dequantizer / Requantizer, in float) are here,
// because TensorFlow's kernels use one or the other and the results differ in
// the last bit.
#ifndef DFG_LIB_KERNELS_QUANT_OPS_H_
#define DFG_LIB_KERNELS_QUANT_OPS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "lib/kernels/kernel_util.h"

namespace dfg {

// The integer type behind a quantized dtype.
template <typename Q>
using QRaw = decltype(Q{}.value);

template <typename R>
constexpr int64_t kQSteps = int64_t{1} << (8 * sizeof(R));

// quantization_utils' QuantizedToFloat (double arithmetic).
template <typename R>
float QuantizedToFloat(int64_t q, float min, float max) {
  if (min == max) return min;
  const double range = (max - min) * (kQSteps<R> / (kQSteps<R> - 1.0));
  const double scale = range / kQSteps<R>;
  const double offset = static_cast<double>(q) - std::numeric_limits<R>::min();
  const double min_rounded =
      std::round(min / static_cast<float>(scale)) * static_cast<float>(scale);
  return static_cast<float>(min_rounded + offset * scale);
}

// quantization_utils' FloatToQuantizedUnclamped.
template <typename R>
int64_t FloatToQuantizedUnclamped(float x, float min, float max) {
  const int64_t lowest = std::numeric_limits<R>::min();
  if (min == max) return lowest;
  const double range = (max - min) * (kQSteps<R> / (kQSteps<R> - 1.0));
  const double scale = kQSteps<R> / range;
  return static_cast<int64_t>(std::round(x * scale) - std::round(min * scale)) +
         lowest;
}

template <typename R>
R FloatToQuantized(float x, float min, float max) {
  const int64_t q = FloatToQuantizedUnclamped<R>(x, min, max);
  return static_cast<R>(std::clamp<int64_t>(q, std::numeric_limits<R>::min(),
                                            std::numeric_limits<R>::max()));
}

// DEQUANTIZE_WITH_EIGEN: float arithmetic, the offset folded first.
template <typename R>
struct Dequantizer {
  Dequantizer(float min, float max)
      : scale(static_cast<float>((max - min) / (kQSteps<R> - 1.0))),
        min_rounded(max == min ? min : std::round(min / scale) * scale),
        offset(min_rounded -
               static_cast<float>(std::numeric_limits<R>::min()) * scale) {}
  float operator()(int64_t q) const {
    return offset + static_cast<float>(q) * scale;
  }
  float scale, min_rounded, offset;
};

// QUANTIZE_WITH_EIGEN (FloatToQuantizedStruct): float arithmetic, clamped to
// bounds that survive the trip through int32.
template <typename R>
struct Requantizer {
  Requantizer(float min, float max)
      : scale(max == min
                  ? 0.0f
                  : static_cast<float>((kQSteps<R> - 1.0) / (max - min))),
        min_scaled(std::round(min * scale)) {}
  R operator()(float x) const {
    constexpr float lowest = static_cast<float>(std::numeric_limits<R>::min());
    constexpr float lo = std::max(lowest, -2.147483648e+09f);
    constexpr float hi = std::min(
        static_cast<float>(std::numeric_limits<R>::max()), +2.147483520e+09f);
    float v = std::round(x * scale) - (min_scaled - lowest);
    v = std::min(std::max(v, lo), hi);
    return static_cast<R>(static_cast<int32_t>(v));
  }
  float scale, min_scaled;
};

// Uniform (scale, zero point) quantization, shared by quant_ops_uniform*.cc.
// TensorFlow's QuantizationAxisAndShapeValid: scalar scales and zero points
// for axis -1, vectors of data.dim_size(axis) otherwise.
Status CheckAxis(const Tensor& data, const Tensor& scales,
                 const Tensor& zero_points, int64_t axis);
// TFLite's QuantizeMultiplier: m = q * 2^shift with q a Q31 in [0.5, 1);
// errors for a non-positive or non-finite m.
Status QuantizeMultiplier(double m, int32_t* q, int32_t* shift);
// x * q * 2^shift with one rounding (TFLite's single-rounding form),
// saturated to int32.
int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t q, int shift);
// Every float of `t` > 0.
bool AllPositive(const Tensor& t);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_QUANT_OPS_H_
