// The two string hashes of TensorFlow's string ops that no Debian library
// provides: TensorFlow's own Hash64 (a MurmurHash64A variant seeded with
// 0xDECAFCAFFE; StringToHashBucket) and SipHash-2-4 keyed by two 64-bit
// words (StringToHashBucketStrong). Fingerprint64 comes from libfarmhash.
#ifndef DFG_LIB_KERNELS_STRING_HASH_H_
#define DFG_LIB_KERNELS_STRING_HASH_H_

#include <cstdint>
#include <string_view>

namespace dfg {

uint64_t TfHash64(std::string_view s, uint64_t seed = 0xDECAFCAFFEull);
uint64_t SipHash24(const uint64_t key[2], std::string_view s);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_STRING_HASH_H_
