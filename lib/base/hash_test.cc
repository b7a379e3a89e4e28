#include "lib/base/hash.h"

#include "lib/testing/catch.h"

namespace dfg {
namespace {

// Expected values: TensorFlow 2.21's StringToHashBucket (Hash64(s) % buckets)
// with num_buckets = 2^63 - 1 gives these hashes modulo 2^63 - 1.
TEST_CASE("Hash64 is TensorFlow's", "[base]") {
  constexpr uint64_t kBuckets = (uint64_t{1} << 63) - 1;
  CHECK(Hash64("") % kBuckets == 105434511174508092ULL);
  CHECK(Hash64("a") % kBuckets == 2996632905371535868ULL);
  CHECK(Hash64("while/while_context") % kBuckets == 4608138368000096215ULL);
  // Eight-byte blocks and a tail.
  CHECK(Hash64("0123456789abcdef!") % kBuckets == 7442227157512695509ULL);
  CHECK(Hash64("while/while_context") == 0xbff3656e447e77d6ULL);
}

TEST_CASE("Hash64Combine is TensorFlow's", "[base]") {
  CHECK(Hash64Combine(0, 0) == 0x9e3779b97f4a7800ULL);
  CHECK(Hash64Combine(1, 2) == (1 ^ (2 + 0x9e3779b97f4a7800ULL + (1 << 10))));
}

}  // namespace
}  // namespace dfg
