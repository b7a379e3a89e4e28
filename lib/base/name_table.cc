#include "lib/base/name_table.h"

#include <functional>

namespace dfg {

void NameTable::Index() {
  const size_t n = static_cast<size_t>(size());
  size_t slots = 2;
  while (slots < 2 * n) slots *= 2;
  slots_.assign(slots, kEmpty);
  unique_ = true;
  const size_t mask = slots - 1;
  for (int i = 0; i < size(); ++i) {
    const size_t hash = std::hash<std::string_view>()(NameAt(i));
    const uint64_t tag = TagOf(hash);
    for (size_t pos = hash & mask;; pos = (pos + 1) & mask) {
      if (slots_[pos] == kEmpty) {
        slots_[pos] = tag | static_cast<uint32_t>(i);
        break;
      }
      if ((slots_[pos] & kTagMask) == tag &&
          NameAt(IndexOf(slots_[pos])) == NameAt(i)) {
        unique_ = false;
        break;  // the first index of a name stays
      }
    }
  }
}

int NameTable::Find(std::string_view name) const {
  if (slots_.empty()) return -1;
  const size_t mask = slots_.size() - 1;
  const size_t hash = std::hash<std::string_view>()(name);
  const uint64_t tag = TagOf(hash);
  for (size_t pos = hash & mask;; pos = (pos + 1) & mask) {
    const uint64_t slot = slots_[pos];
    if (slot == kEmpty) return -1;
    if ((slot & kTagMask) == tag && NameAt(IndexOf(slot)) == name) {
      return IndexOf(slot);
    }
  }
}

}  // namespace dfg
