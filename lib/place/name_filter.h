// Internal to lib/place: a set of names with a bit filter in front, for the
// `_class` group names of a graph. Most lookups are misses, and the filter
// answers those from a small table without hashing whole names.
#ifndef DFG_LIB_PLACE_NAME_FILTER_H_
#define DFG_LIB_PLACE_NAME_FILTER_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace dfg::place_internal {

class NameFilter {
 public:
  NameFilter() : bits_(kBits / 64) {}
  void Insert(std::string_view name) {
    size_t h = QuickHash(name);
    bits_[h / 64] |= uint64_t{1} << (h % 64);
    names_.insert(name);
  }
  // `hash` is QuickHash(name), computed while the name was at hand.
  bool Contains(std::string_view name, uint32_t hash) const {
    if ((bits_[hash / 64] & (uint64_t{1} << (hash % 64))) == 0) return false;
    return names_.count(name) != 0;
  }
  bool empty() const { return names_.empty(); }

  // 20 bits from the length and the first and last eight bytes.
  static uint32_t QuickHash(std::string_view s) {
    uint64_t head = 0, tail = 0;
    if (!s.empty()) std::memcpy(&head, s.data(), std::min<size_t>(8, s.size()));
    if (s.size() > 8) std::memcpy(&tail, s.data() + s.size() - 8, 8);
    uint64_t h = (head * 0x9E3779B97F4A7C15ULL) ^
                 ((tail + s.size()) * 0xC2B2AE3D27D4EB4FULL);
    return static_cast<uint32_t>((h ^ (h >> 29)) * 0x165667B19E3779F9ULL >> 44);
  }

 private:
  static constexpr size_t kBits = size_t{1} << 20;
  std::vector<uint64_t> bits_;
  std::unordered_set<std::string_view> names_;
};

}  // namespace dfg::place_internal

#endif  // DFG_LIB_PLACE_NAME_FILTER_H_
