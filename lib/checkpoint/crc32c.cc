// CRC32C: a byte-at-a-time table for any CPU, and the SSE4.2 crc32
// instruction chosen once at run time: three independent streams at a time
// (the instruction's latency is three times its throughput), combined with
// a precomputed "append zeros" operator.
#include "lib/checkpoint/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace dfg::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // reflected Castagnoli polynomial

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kTable = MakeTable();

uint32_t ExtendPortable(uint32_t crc, const uint8_t* p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = kTable[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

// Appending n zero bytes to the raw (uninverted) CRC register is linear
// over GF(2): a 32x32 bit matrix, applied byte-wise through four tables.
// This lets three independent streams over consecutive blocks be combined:
//   R(s, b0 b1 b2) = Z(Z(R(s, b0)) ^ R(0, b1)) ^ R(0, b2),  Z = zeros(|b|).
struct ZerosOperator {
  uint32_t table[4][256];

  explicit ZerosOperator(size_t bytes) {
    // Column i = the image of register bit i; start with one zero bit.
    uint32_t op[32], sq[32];
    op[0] = kPoly;
    for (int i = 1; i < 32; ++i) op[i] = 1u << (i - 1);
    uint32_t result[32];
    for (int i = 0; i < 32; ++i) result[i] = 1u << i;  // identity
    // result = op^(8 * bytes) by squaring.
    for (size_t bits = 8 * bytes; bits > 0; bits >>= 1) {
      if (bits & 1) {
        uint32_t next[32];
        for (int i = 0; i < 32; ++i) next[i] = Apply(op, result[i]);
        std::memcpy(result, next, sizeof(result));
      }
      for (int i = 0; i < 32; ++i) sq[i] = Apply(op, op[i]);
      std::memcpy(op, sq, sizeof(op));
    }
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b)
        table[k][b] = Apply(result, b << (8 * k));
    }
  }
  static uint32_t Apply(const uint32_t* mat, uint32_t vec) {
    uint32_t sum = 0;
    for (int i = 0; vec != 0; ++i, vec >>= 1) {
      if (vec & 1) sum ^= mat[i];
    }
    return sum;
  }
  uint32_t Shift(uint32_t crc) const {
    return table[0][crc & 0xff] ^ table[1][(crc >> 8) & 0xff] ^
           table[2][(crc >> 16) & 0xff] ^ table[3][crc >> 24];
  }
};

// a * b modulo the polynomial, both in the reflected bit order.
uint32_t MultiplyModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) product ^= b;
    b = (b & 1) ? (b >> 1) ^ kPoly : b >> 1;
  }
  return product;
}

#if defined(__x86_64__)
constexpr size_t kLong = 8192;
constexpr size_t kShort = 256;

// Three streams of `block` bytes each from p, continuing register c.
template <size_t block>
__attribute__((target("sse4.2"))) inline uint64_t ThreeWay(
    uint64_t c, const uint8_t* p, const ZerosOperator& zeros) {
  uint64_t c1 = 0, c2 = 0;
  for (size_t i = 0; i < block; i += 8) {
    uint64_t w0, w1, w2;
    std::memcpy(&w0, p + i, 8);
    std::memcpy(&w1, p + block + i, 8);
    std::memcpy(&w2, p + 2 * block + i, 8);
    c = _mm_crc32_u64(c, w0);
    c1 = _mm_crc32_u64(c1, w1);
    c2 = _mm_crc32_u64(c2, w2);
  }
  uint32_t r =
      zeros.Shift(static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c1);
  return zeros.Shift(r) ^ static_cast<uint32_t>(c2);
}

__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t crc,
                                                       const uint8_t* p,
                                                       size_t n) {
  static const ZerosOperator long_zeros(kLong);
  static const ZerosOperator short_zeros(kShort);
  uint64_t c = ~crc;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    --n;
  }
  while (n >= 3 * kLong) {
    c = ThreeWay<kLong>(c, p, long_zeros);
    p += 3 * kLong;
    n -= 3 * kLong;
  }
  while (n >= 3 * kShort) {
    c = ThreeWay<kShort>(c, p, short_zeros);
    p += 3 * kShort;
    n -= 3 * kShort;
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, sizeof(w));
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    --n;
  }
  return ~static_cast<uint32_t>(c);
}

bool HaveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

// Value(A ++ B) = Z_|B|(Value(A)) ^ Value(B): the register is linear and
// the initial and final inversions cancel out of the difference. Z_n is
// multiplication by x^(8n) modulo the polynomial, computed from the powers
// x^(2^k) in O(log n) multiplications (as zlib's crc32_combine).
uint32_t Combine(uint32_t crc_a, uint32_t crc_b, size_t len_b) {
  // x^(2^k) for every k a 64-bit length reaches (3 + 64).
  static const std::array<uint32_t, 67> kPowers = [] {
    std::array<uint32_t, 67> powers{};
    uint32_t p = 1u << 30;  // x^1 (bit 31 is x^0 in the reflected order)
    for (uint32_t& power : powers) {
      power = p;
      p = MultiplyModP(p, p);
    }
    return powers;
  }();
  uint32_t shift = 1u << 31;  // x^0
  int k = 3;                  // 8 bits a byte: x^(8n) = x^(n * 2^3)
  for (uint64_t n = len_b; n != 0; n >>= 1, ++k) {
    if (n & 1) shift = MultiplyModP(kPowers[k], shift);
  }
  return MultiplyModP(shift, crc_a) ^ crc_b;
}

uint32_t Extend(uint32_t init_crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
#if defined(__x86_64__)
  if (HaveSse42()) return ExtendSse42(init_crc, p, n);
#endif
  return ExtendPortable(init_crc, p, n);
}

}  // namespace dfg::crc32c
