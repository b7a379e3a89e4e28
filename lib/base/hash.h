// TensorFlow's 64-bit string hash and hash combiner (tsl/platform/hash.h):
// values that cross process boundaries, such as the frame ids in rendezvous
// keys, must be computed exactly as TensorFlow computes them.
#ifndef DFG_LIB_BASE_HASH_H_
#define DFG_LIB_BASE_HASH_H_

#include <cstdint>
#include <string_view>

namespace dfg {

// MurmurHash64A over `data` with TensorFlow's default seed 0xDECAFCAFFE
// (Hash64(const std::string&)).
uint64_t Hash64(std::string_view data);

// TensorFlow's Hash64Combine(a, b).
inline uint64_t Hash64Combine(uint64_t a, uint64_t b) {
  return a ^ (b + 0x9e3779b97f4a7800ULL + (a << 10) + (a >> 4));
}

}  // namespace dfg

#endif  // DFG_LIB_BASE_HASH_H_
