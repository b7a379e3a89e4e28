// Names by index, for millions of names: the names back to back in one
// buffer, found through an open-addressing table (at most half full) that
// holds each index with the high half of its name's hash, so that most
// probes end without comparing names. One allocation for all names instead
// of a map node and a string per name (a node of a million-node graph).
//
// Names are added once, in index order; a name added twice keeps its first
// index for Find, as a map's emplace would.
#ifndef DFG_LIB_BASE_NAME_TABLE_H_
#define DFG_LIB_BASE_NAME_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dfg {

class NameTable {
 public:
  NameTable() = default;
  // The names name_of(0) ... name_of(n - 1).
  template <typename NameOf>
  NameTable(int n, NameOf name_of) {
    size_t bytes = 0;
    for (int i = 0; i < n; ++i) bytes += std::string_view(name_of(i)).size();
    names_.reserve(bytes);
    start_.reserve(static_cast<size_t>(n) + 1);  // start_ holds the first 0
    for (int i = 0; i < n; ++i) {
      names_ += std::string_view(name_of(i));
      start_.push_back(names_.size());
    }
    Index();
  }

  int size() const { return static_cast<int>(start_.size()) - 1; }
  std::string_view NameAt(int i) const {
    return std::string_view(names_).substr(start_[i],
                                           start_[i + 1] - start_[i]);
  }
  // The first index of `name`, or -1.
  int Find(std::string_view name) const;
  // No name was added twice: Find(NameAt(i)) is i for every i.
  bool unique() const { return unique_; }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static constexpr uint64_t kTagMask = ~uint64_t{0} << 32;
  static uint64_t TagOf(size_t hash) {
    // Never all ones: an empty slot stays apart from every tag.
    return (static_cast<uint64_t>(hash) & kTagMask) & ~(uint64_t{1} << 63);
  }
  static int IndexOf(uint64_t slot) {
    return static_cast<int>(slot & 0xffffffffu);
  }
  void Index();

  std::string names_;
  std::vector<size_t> start_ = {0};  // name i: [start_[i], start_[i + 1])
  std::vector<uint64_t> slots_;
  bool unique_ = true;
};

}  // namespace dfg

#endif  // DFG_LIB_BASE_NAME_TABLE_H_
