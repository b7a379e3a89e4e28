// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11), the counter-based generator behind TensorFlow's random ops,
// and the bit tricks that turn its 32-bit outputs into [0, 1) floats.
#ifndef DFG_LIB_KERNELS_PHILOX_H_
#define DFG_LIB_KERNELS_PHILOX_H_

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace dfg {

class Philox4x32 {
 public:
  using Block = std::array<uint32_t, 4>;

  // key = seed_lo; counter words 2 and 3 = seed_hi (TensorFlow's
  // PhiloxRandom(seed, seed2) layout).
  Philox4x32(uint64_t seed_lo, uint64_t seed_hi)
      : counter_{0, 0, static_cast<uint32_t>(seed_hi),
                 static_cast<uint32_t>(seed_hi >> 32)},
        key_{static_cast<uint32_t>(seed_lo),
             static_cast<uint32_t>(seed_lo >> 32)} {}
  Philox4x32(const Block& counter, std::array<uint32_t, 2> key)
      : counter_(counter), key_(key) {}

  // The next 128 bits; advances the counter by one.
  Block Next() {
    Block c = counter_;
    std::array<uint32_t, 2> k = key_;
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k[0] += 0x9E3779B9u;
        k[1] += 0xBB67AE85u;
      }
      const uint64_t p0 = uint64_t{0xD2511F53u} * c[0];
      const uint64_t p1 = uint64_t{0xCD9E8D57u} * c[2];
      c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0],
           static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1],
           static_cast<uint32_t>(p0)};
    }
    Skip(1);
    return c;
  }

  // Advances the 128-bit counter by `count` blocks.
  void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

 private:
  Block counter_;
  std::array<uint32_t, 2> key_;
};

// 23 random mantissa bits under exponent 0: [1, 2) minus 1.
inline float Uint32ToUnitFloat(uint32_t x) {
  return std::bit_cast<float>((x & 0x7fffffu) | 0x3f800000u) - 1.0f;
}

// 52 random mantissa bits (20 from hi, 32 from lo): [0, 1).
inline double Uint64ToUnitDouble(uint32_t hi, uint32_t lo) {
  const uint64_t mantissa = (uint64_t{hi & 0xfffffu} << 32) | lo;
  return std::bit_cast<double>(mantissa | 0x3ff0000000000000ull) - 1.0;
}

// One 32-bit draw at a time from a Philox stream (TensorFlow's
// SingleSampleAdapter): a block is drawn when the previous one is used up.
class SingleSampleAdapter {
 public:
  explicit SingleSampleAdapter(Philox4x32* gen) : gen_(gen) {}  // Not owned.
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = gen_->Next();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  Philox4x32* gen_;
  Philox4x32::Block block_{};
  int used_ = 4;
};

// TensorFlow's BoxMullerFloat: two standard normal floats from two draws.
// The angle is computed in double (2 * M_PI is a double), as TensorFlow's
// expression does, then rounded to float.
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  constexpr float kEpsilon = 1.0e-7f;
  float u1 = Uint32ToUnitFloat(x0);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const float v1 = 2.0f * M_PI * Uint32ToUnitFloat(x1);
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  ::sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

// TensorFlow's BoxMullerDouble: two standard normal doubles from four draws.
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3,
                            double* d0, double* d1) {
  constexpr double kEpsilon = 1.0e-7;
  double u1 = Uint64ToUnitDouble(x0, x1);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const double v1 = 2 * M_PI * Uint64ToUnitDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  ::sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// A tf.random.Generator's Philox state (int64 words: counter 0-1, key 2):
// the generator at that state.
inline Philox4x32 PhiloxAtState(const int64_t* words) {
  const uint64_t c0 = static_cast<uint64_t>(words[0]);
  const uint64_t c1 = static_cast<uint64_t>(words[1]);
  const uint64_t k = static_cast<uint64_t>(words[2]);
  return Philox4x32(
      {static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32),
       static_cast<uint32_t>(c1), static_cast<uint32_t>(c1 >> 32)},
      {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)});
}

// Philox's Skip(blocks) on the counter words of such a state, including its
// quirk: a carry out of word 0 into a count whose high word is all ones is
// lost.
inline void SkipState(int64_t* words, uint64_t blocks) {
  uint32_t w[4] = {
      static_cast<uint32_t>(words[0]),
      static_cast<uint32_t>(static_cast<uint64_t>(words[0]) >> 32),
      static_cast<uint32_t>(words[1]),
      static_cast<uint32_t>(static_cast<uint64_t>(words[1]) >> 32)};
  const uint32_t lo = static_cast<uint32_t>(blocks);
  uint32_t hi = static_cast<uint32_t>(blocks >> 32);
  w[0] += lo;
  if (w[0] < lo) ++hi;
  w[1] += hi;
  if (w[1] < hi && ++w[2] == 0) ++w[3];
  words[0] = static_cast<int64_t>(w[0] | (uint64_t{w[1]} << 32));
  words[1] = static_cast<int64_t>(w[2] | (uint64_t{w[3]} << 32));
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_PHILOX_H_
