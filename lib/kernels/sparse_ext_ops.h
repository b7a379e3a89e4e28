// What the feature-cross kernels share (sparse_ext_ops.cc: SparseCross,
// SparseCrossV2, SparseCrossHashed; sparse_ext_ops_ragged.cc: RaggedCross):
// an input as a column of features per batch row, and the loop that writes
// every row's crosses (the cartesian product of its features across the
// columns, the last column varying fastest) as text or as a hash.
#ifndef DFG_LIB_KERNELS_SPARSE_EXT_OPS_H_
#define DFG_LIB_KERNELS_SPARSE_EXT_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg {

// One input of a cross: its values (int64 or string) and, per batch row,
// where the row's features start in them and how many there are.
struct Column {
  const Tensor* values = nullptr;  // Not owned.
  bool dense = false;
  std::vector<int64_t> start, count;

  bool is_string() const { return values->dtype() == tensorflow::DT_STRING; }
  const std::string& Str(int64_t b, int64_t n) const {
    return values->flat<std::string>()[start[b] + n];
  }
  int64_t Int(int64_t b, int64_t n) const {
    return values->flat<int64_t>()[start[b] + n];
  }
  std::string Text(int64_t b, int64_t n) const {
    return is_string() ? Str(b, n) : std::to_string(Int(b, n));
  }
};

// A dense [batch, width] matrix as a column.
Column DenseColumn(const Tensor& t);

// How a cross turns its features into one value.
struct CrossSpec {
  // kText: the features' text joined by `sep`. kHash: FingerprintCat64
  // chained from hash_key over each feature's hash (SparseCross,
  // RaggedCross). kKeyedHash: chained from the first feature's hash, keyed
  // by `salt` when `strong` (SparseCrossHashed).
  enum Kind { kText, kHash, kKeyedHash } kind = kText;
  std::string sep = "_X_";
  uint64_t hash_key = 0;
  int64_t num_buckets = 0;  // > 0: hash modulo it; else modulo INT64_MAX
  bool strong = false;
  uint64_t salt[2] = {0, 0};
};

// Number of crosses of batch row b: the product of the feature counts (0
// when a column has none, -1 when a count is negative).
int64_t CrossCount(const std::vector<Column>& cols, int64_t b);

// The crosses of every batch row, written into `out` (string for kText,
// else int64) from out_start[b] on.
void WriteCrosses(const std::vector<Column>& cols,
                  const std::vector<int64_t>& out_start, const CrossSpec& spec,
                  Tensor* out);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_SPARSE_EXT_OPS_H_
