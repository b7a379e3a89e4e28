// Internal: element moving for the array kernels (slice, pad, tile, gather,
// split...): a same-size copy type per dtype, and MapCopy, which builds an
// output whose index along each dim maps to an input index (or to a fill
// value).
#ifndef DFG_LIB_KERNELS_ARRAY_UTIL_H_
#define DFG_LIB_KERNELS_ARRAY_UTIL_H_

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/kernels/cwise_ops.h"

namespace dfg {

// Calls fn(C{}) with a type of the same size and copy semantics as the
// elements of `dtype`: std::string, ResourceHandle, or an unsigned integer /
// complex<double> of the element size. False for unsupported dtypes.
template <typename Fn>
bool VisitCopyType(DataType dtype, Fn&& fn) {
  if (dtype == tensorflow::DT_STRING) return fn(std::string()), true;
  if (dtype == tensorflow::DT_RESOURCE) return fn(ResourceHandle()), true;
  size_t size = 0;
  if (!VisitElementType(dtype, [&](auto v) { size = sizeof(v); })) {
    return false;
  }
  switch (size) {
    case 1:
      return fn(uint8_t()), true;
    case 2:
      return fn(uint16_t()), true;
    case 4:
      return fn(uint32_t()), true;
    case 8:
      return fn(uint64_t()), true;
    case 16:
      return fn(std::complex<double>()), true;
    default:
      return false;
  }
}

// One run of a MapCopy row: `len` blocks from output block `out` on, read
// from input block `in` on (consecutive), or filled when `in` < 0.
struct MapRun {
  int64_t out = 0, in = 0, len = 0;
};

// The runs of `map`: consecutive input indices merge into one.
inline std::vector<MapRun> MapRuns(const std::vector<int64_t>& map) {
  std::vector<MapRun> runs;
  for (int64_t j = 0; j < static_cast<int64_t>(map.size()); ++j) {
    const int64_t m = map[j];
    if (!runs.empty()) {
      MapRun& r = runs.back();
      if ((m < 0 && r.in < 0) || (m >= 0 && r.in >= 0 && m == r.in + r.len)) {
        ++r.len;
        continue;
      }
    }
    runs.push_back({j, m < 0 ? -1 : m, 1});
  }
  return runs;
}

// out[i_0..i_n] = in[sum_d maps[d][i_d] * in_stride_d] where in_stride is
// the row-major stride of `in_dims`; `fill` where some maps[d][i_d] < 0.
// The output shape is maps[d].size() per dim (rank may be 0).
//
// Trailing dims that their maps copy whole (maps[d][j] == j over the
// input's extent) form one contiguous block, and each output row (one
// index of every dim before the last mapped one) is a few runs of whole
// blocks: a Pad of rows and columns, a Slice or a Tile copies rows with
// std::copy (memmove for plain types), not element by element.
template <typename T>
void MapCopy(ThreadPoolInterface* pool, const T* in,
             const std::vector<int64_t>& in_dims,
             const std::vector<std::vector<int64_t>>& maps, T* out,
             const T& fill) {
  const int rank = static_cast<int>(maps.size());
  if (rank == 0) {
    *out = *in;
    return;
  }
  auto whole = [&](int d) {
    const std::vector<int64_t>& m = maps[d];
    if (static_cast<int64_t>(m.size()) != in_dims[d]) return false;
    for (int64_t j = 0; j < in_dims[d]; ++j) {
      if (m[j] != j) return false;
    }
    return true;
  };
  int last = rank - 1;  // the last dim not copied whole
  int64_t block = 1;
  while (last >= 0 && whole(last)) block *= in_dims[last--];
  if (last < 0) {
    std::copy(in, in + block, out);
    return;
  }
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * in_dims[d + 1];
  }
  const std::vector<int64_t>& inner = maps[last];
  const int64_t width = static_cast<int64_t>(inner.size());
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= maps[d].size();
  if (rows == 0 || width == 0 || block == 0) return;
  const std::vector<MapRun> runs = MapRuns(inner);
  // Element by element when the runs are short (a reversal, a stride).
  const bool by_runs =
      block > 1 || static_cast<int64_t>(runs.size()) * 4 <= width;
  ParallelFor(pool, rows, width * block * 2, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t base = 0;
      bool filled = false;
      int64_t rem = r;
      for (int d = last - 1; d >= 0; --d) {
        const int64_t n = static_cast<int64_t>(maps[d].size());
        const int64_t m = maps[d][rem % n];
        rem /= n;
        if (m < 0) filled = true;
        base += m * strides[d];
      }
      T* dst = out + r * width * block;
      if (filled) {
        std::fill(dst, dst + width * block, fill);
        continue;
      }
      const T* src = in + base;
      if (by_runs) {
        for (const MapRun& run : runs) {
          T* to = dst + run.out * block;
          if (run.in < 0) {
            std::fill(to, to + run.len * block, fill);
          } else {
            const T* from = src + run.in * block;
            std::copy(from, from + run.len * block, to);
          }
        }
        continue;
      }
      for (int64_t j = 0; j < width; ++j) {
        const int64_t m = inner[j];
        dst[j] = m < 0 ? fill : src[m];
      }
    }
  });
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_ARRAY_UTIL_H_
