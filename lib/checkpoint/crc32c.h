// CRC32C (Castagnoli), as TensorFlow and leveldb checksum files: the
// polynomial 0x82F63B78 (reflected), initial value ~0, final xor ~0. Uses the
// SSE4.2 crc32 instruction when the CPU has it, a table otherwise.
//
// Mask/Unmask: stored checksums are "masked" (rotated and offset) so that a
// checksum of data that itself holds checksums does not degenerate.
#ifndef DFG_LIB_CHECKPOINT_CRC32C_H_
#define DFG_LIB_CHECKPOINT_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace dfg::crc32c {

// The CRC32C of concat(A, data[0, n)) where init_crc is the CRC32C of A.
uint32_t Extend(uint32_t init_crc, const void* data, size_t n);
inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }
// The CRC32C of concat(A, B) from crc_a = Value(A), crc_b = Value(B) and
// B's length (zlib's crc32_combine): pieces checksummed on different
// threads combine into the checksum of the whole.
uint32_t Combine(uint32_t crc_a, uint32_t crc_b, size_t len_b);

inline constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}
inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace dfg::crc32c

#endif  // DFG_LIB_CHECKPOINT_CRC32C_H_
