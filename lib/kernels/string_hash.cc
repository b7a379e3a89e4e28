// Both hashes read 8-byte words little-endian whatever the host, so bucket
// ids match TensorFlow's on every machine.
#include "lib/kernels/string_hash.h"

namespace dfg {
namespace {

uint64_t Load64(const char* p) {
  uint64_t v = 0;
  for (int b = 7; b >= 0; --b) v = (v << 8) | static_cast<uint8_t>(p[b]);
  return v;
}

// The last n < 8 bytes as a little-endian word.
uint64_t LoadTail(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t b = n; b > 0; --b) v = (v << 8) | static_cast<uint8_t>(p[b - 1]);
  return v;
}

uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

struct SipState {
  uint64_t v0, v1, v2, v3;
  void Round() {
    v0 += v1;
    v1 = Rotl(v1, 13) ^ v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16) ^ v2;
    v0 += v3;
    v3 = Rotl(v3, 21) ^ v0;
    v2 += v1;
    v1 = Rotl(v1, 17) ^ v2;
    v2 = Rotl(v2, 32);
  }
  void Compress(uint64_t m) {
    v3 ^= m;
    Round();
    Round();
    v0 ^= m;
  }
};

}  // namespace

uint64_t TfHash64(std::string_view s, uint64_t seed) {
  const uint64_t m = 0xc6a4a7935bd1e995ull;
  const int r = 47;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = seed ^ (n * m);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t k = Load64(p);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n > 0) {
    h ^= LoadTail(p, n);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

uint64_t SipHash24(const uint64_t key[2], std::string_view s) {
  SipState st{key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
              key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull};
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; n -= 8, p += 8) st.Compress(Load64(p));
  st.Compress(LoadTail(p, n) | (static_cast<uint64_t>(s.size() & 0xff) << 56));
  st.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) st.Round();
  return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

}  // namespace dfg
