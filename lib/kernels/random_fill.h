// The distributions TensorFlow's Philox-based random kernels fill their
// outputs with (random_distributions.h), shared by the seeded ops
// (random_ops.cc) and the stateless ones (stateless_random_ops.cc):
//  - uniform [0, 1): four 32-bit draws per block (a double takes two);
//  - normal: Box-Muller on consecutive pairs of draws (a double takes four);
//  - truncated normal: Box-Muller samples with |x| >= 2 dropped; each group
//    of 4 outputs (2 for double) restarts at its own offset of 256 blocks
//    per output, so a group's rejections never shift the next group;
//  - integers in [lo, hi): a draw (two for 64-bit types) modulo hi - lo;
//  - full-range integers: the raw draws;
//  - multinomial rows: an unnormalized CDF and one uniform double per
//    sample.
#ifndef DFG_LIB_KERNELS_RANDOM_FILL_H_
#define DFG_LIB_KERNELS_RANDOM_FILL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/philox.h"

namespace dfg {

using RandomTypes = TypeList<Half, BFloat16, float, double>;

template <typename T>
inline void Fill(Philox4x32 gen, T* out, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    const Philox4x32::Block b = gen.Next();
    if constexpr (std::is_same_v<T, double>) {
      for (int j = 0; j < 4 && i < n; j += 2) {
        out[i++] = Uint64ToUnitDouble(b[j], b[j + 1]);
      }
    } else {
      for (int j = 0; j < 4 && i < n; ++j) {
        if constexpr (std::is_same_v<T, float>) {
          out[i++] = Uint32ToUnitFloat(b[j]);
        } else if constexpr (std::is_same_v<T, Half>) {
          out[i++] = Store<T>(static_cast<float>(b[j] & 0x3ffu) / 1024.0f);
        } else {
          out[i++] = Store<T>(static_cast<float>(b[j] & 0x7fu) / 128.0f);
        }
      }
    }
  }
}

template <typename T>
inline void FillNormal(Philox4x32 gen, T* out, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    const Philox4x32::Block b = gen.Next();
    if constexpr (std::is_same_v<T, double>) {
      double d[2];
      BoxMullerDouble(b[0], b[1], b[2], b[3], &d[0], &d[1]);
      for (int j = 0; j < 2 && i < n; ++j) out[i++] = d[j];
    } else {
      float f[4];
      BoxMullerFloat(b[0], b[1], &f[0], &f[1]);
      BoxMullerFloat(b[2], b[3], &f[2], &f[3]);
      for (int j = 0; j < 4 && i < n; ++j) out[i++] = Store<T>(f[j]);
    }
  }
}

// One group of TruncatedNormal outputs from its own stream.
template <typename T, int kGroup>
inline void TruncatedGroup(Philox4x32 gen, T* results) {
  constexpr double kTruncateValue = 2.0;
  SingleSampleAdapter single(&gen);
  int index = 0;
  while (true) {
    if constexpr (std::is_same_v<T, double>) {
      const uint32_t x0 = single(), x1 = single(), x2 = single(), x3 = single();
      double d[2];
      BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
      for (double v : d) {
        if (std::abs(v) < kTruncateValue) {
          results[index++] = v;
          if (index >= kGroup) return;
        }
      }
    } else {
      const uint32_t x0 = single(), x1 = single();
      float f[2];
      BoxMullerFloat(x0, x1, &f[0], &f[1]);
      for (float v : f) {
        if (std::abs(v) < 2.0f) {
          results[index++] = Store<T>(v);
          if (index >= kGroup) return;
        }
      }
    }
  }
}

template <typename T>
inline void FillTruncatedNormal(const Philox4x32& base, T* out, int64_t n) {
  constexpr int kGroup = std::is_same_v<T, double> ? 2 : 4;
  // TensorFlow's kGeneratorSkipPerOutputGroup: 256 draws per output.
  constexpr uint64_t kSkipPerGroup = kGroup * 256 / 4;
  for (int64_t g = 0; g * kGroup < n; ++g) {
    Philox4x32 gen = base;
    gen.Skip(static_cast<uint64_t>(g) * kSkipPerGroup);
    T results[kGroup];
    TruncatedGroup<T, kGroup>(gen, results);
    const int64_t count = std::min<int64_t>(kGroup, n - g * kGroup);
    std::copy(results, results + count, out + g * kGroup);
  }
}

// Integers in [lo, lo + range) (range > 0, as the unsigned type), T one of
// int32, int64, uint32, uint64.
template <typename T>
inline void FillUniformInt(Philox4x32 gen, T lo, std::make_unsigned_t<T> range,
                           T* out, int64_t n) {
  using U = std::make_unsigned_t<T>;
  int64_t i = 0;
  while (i < n) {
    const Philox4x32::Block b = gen.Next();
    if constexpr (sizeof(T) == 8) {
      for (int j = 0; j < 4 && i < n; j += 2) {
        const uint64_t bits = b[j] | (uint64_t{b[j + 1]} << 32);
        out[i++] = static_cast<T>(static_cast<U>(lo) + bits % range);
      }
    } else {
      for (int j = 0; j < 4 && i < n; ++j) {
        out[i++] = static_cast<T>(static_cast<U>(lo) + b[j] % range);
      }
    }
  }
}

// The raw draws as T (int32, int64, uint32, uint64).
template <typename T>
inline void FillFullInt(Philox4x32 gen, T* out, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    const Philox4x32::Block b = gen.Next();
    if constexpr (sizeof(T) == 8) {
      for (int j = 0; j < 4 && i < n; j += 2) {
        out[i++] = static_cast<T>(b[j] | (uint64_t{b[j + 1]} << 32));
      }
    } else {
      for (int j = 0; j < 4 && i < n; ++j) out[i++] = static_cast<T>(b[j]);
    }
  }
}

// Samples one row: the index of the first CDF entry above u * total.
template <typename T, typename Out>
inline void SampleRow(const T* logits, int64_t classes, int64_t samples,
                      SingleSampleAdapter* single, std::vector<double>* cdf,
                      Out* out) {
  using C = CalcType<T>;
  // Any start below every finite logit gives TensorFlow's maximum.
  C max = std::numeric_limits<C>::lowest();
  for (int64_t j = 0; j < classes; ++j) {
    if (std::isfinite(Load(logits[j]))) max = std::max(max, Load(logits[j]));
  }
  const double max_logit = static_cast<double>(max);
  double total = 0;
  for (int64_t j = 0; j < classes; ++j) {
    const double logit = static_cast<double>(Load(logits[j]));
    if (std::isfinite(logit)) total += std::exp(logit - max_logit);
    (*cdf)[j] = total;
  }
  for (int64_t s = 0; s < samples; ++s) {
    const uint32_t x0 = (*single)();
    const uint32_t x1 = (*single)();
    const double to_find = Uint64ToUnitDouble(x0, x1) * total;
    out[s] = static_cast<Out>(
        std::upper_bound(cdf->begin(), cdf->end(), to_find) - cdf->begin());
  }
}

// The generator a stateless op's 2-element seed selects (TensorFlow's
// GenerateKey): Philox over the seed words under a fixed key scrambles them
// into the key and the counter's upper half.
inline Philox4x32 PhiloxFromSeedValues(uint64_t seed0, uint64_t seed1) {
  Philox4x32 mixer(
      {static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32),
       static_cast<uint32_t>(seed1), static_cast<uint32_t>(seed1 >> 32)},
      {0x3ec8f720u, 0x02461e29u});
  const Philox4x32::Block mix = mixer.Next();
  return Philox4x32({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
}

// The seed input of a stateless op. Errors: TensorFlow's for a seed not of
// shape [2] or not int32/int64.
inline Status PhiloxFromSeed(const Tensor& seed, Philox4x32* gen) {
  if (seed.dims() != 1 || seed.dim_size(0) != 2) {
    return InvalidArgument("seed must have shape [2], not {}",
                           seed.shape().DebugString());
  }
  if (seed.dtype() != tensorflow::DT_INT32 &&
      seed.dtype() != tensorflow::DT_INT64) {
    return InvalidArgument("Invalid seed type: {}",
                           DataTypeString(seed.dtype()));
  }
  const std::vector<int64_t> v = IntValues(seed);
  *gen = PhiloxFromSeedValues(static_cast<uint64_t>(v[0]),
                              static_cast<uint64_t>(v[1]));
  return Status::Ok();
}

// The rows (dim 0) of `in` in the order of TensorFlow's RandomShuffle: a
// Fisher-Yates pass i = 0..n-2 swapping i with i + draw % (n - i), one
// 32-bit draw per swap. Copies `in` unchanged when it has <= 1 row.
inline Status ShuffleRows(Philox4x32 gen, const Tensor& in, Tensor* out) {
  const int64_t n = in.dims() == 0 ? 1 : in.dim_size(0);
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  if (in.NumElements() > 1 && n > 1) {
    SingleSampleAdapter single(&gen);
    for (int64_t i = 0; i + 1 < n; ++i) {
      const uint32_t draw = single();
      std::swap(
          perm[i],
          perm[i + static_cast<int64_t>(draw % static_cast<uint32_t>(n - i))]);
    }
  }
  const int64_t row = n == 0 ? 0 : in.NumElements() / n;
  for (int64_t i = 0; i < n; ++i) {
    CopyElements(in, perm[i] * row, out, i * row, row);
  }
  return Status::Ok();
}

using IntRandomTypes = TypeList<int32_t, int64_t, uint32_t, uint64_t>;

// minval/maxval of the uniform-int ops: scalars, and minval < maxval when
// there is anything to draw (TensorFlow checks that after its early exit).
inline Status CheckIntRange(const Tensor& lo, const Tensor& hi, bool nonempty) {
  if (lo.dims() != 0) {
    return InvalidArgument("minval must be 0-D, got shape {}",
                           lo.shape().DebugString());
  }
  if (hi.dims() != 0) {
    return InvalidArgument("maxval must be 0-D, got shape {}",
                           hi.shape().DebugString());
  }
  if (!nonempty) return Status::Ok();
  Status s;
  Dispatch(IntRandomTypes(), lo.dtype(), [&](auto v) {
    using T = decltype(v);
    const T l = lo.scalar<T>(), h = hi.scalar<T>();
    if (!(l < h))
      s = InvalidArgument("Need minval < maxval, got {} >= {}", l, h);
  });
  return s;
}

// `out` = integers in [lo, hi) of out's dtype.
inline void FillIntRange(const Philox4x32& gen, const Tensor& lo,
                         const Tensor& hi, Tensor* out) {
  Dispatch(IntRandomTypes(), out->dtype(), [&](auto v) {
    using T = decltype(v);
    using U = std::make_unsigned_t<T>;
    const T l = lo.scalar<T>(), h = hi.scalar<T>();
    const U range = static_cast<U>(h) - static_cast<U>(l);
    FillUniformInt<T>(gen, l, range, out->flat<T>().data(), out->NumElements());
  });
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_RANDOM_FILL_H_
