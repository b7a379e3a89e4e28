// Small helpers shared by the kernel files.
#include "lib/kernels/kernel_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "lib/kernels/variant.h"

namespace dfg {

bool IsIntTensor(const Tensor& t) {
  return t.dtype() == tensorflow::DT_INT32 || t.dtype() == tensorflow::DT_INT64;
}

std::vector<int64_t> IntValues(const Tensor& t) {
  std::vector<int64_t> out;
  Dispatch(IntTypes(), t.dtype(), [&](auto v) {
    using T = decltype(v);
    for (T x : t.flat<T>()) out.push_back(static_cast<int64_t>(x));
  });
  return out;
}

std::string VectorString(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ","));
}

}  // namespace dfg

namespace dfg {
namespace {

// The element type used to move elements of `dtype` around: same size,
// trivially copyable unless string/resource.
template <typename Fn>
void VisitMoveType(DataType dtype, Fn&& fn) {
  if (dtype == tensorflow::DT_STRING) return fn(std::string());
  if (dtype == tensorflow::DT_RESOURCE) return fn(ResourceHandle());
  if (dtype == tensorflow::DT_VARIANT) return fn(Variant());
  size_t size = 0;
  VisitElementType(dtype, [&](auto v) { size = sizeof(v); });
  switch (size) {
    case 1:
      return fn(uint8_t());
    case 2:
      return fn(uint16_t());
    case 4:
      return fn(uint32_t());
    case 8:
      return fn(uint64_t());
    case 16:
      return fn(std::complex<double>());
    default:
      DFG_CHECK(false);
  }
}

// out[i, j] = in[j * in_stride + i] for a [rows, cols] block of `out` (row
// stride `ld`), in tiles that keep both sides' cache lines in use.
template <typename T>
void TransposeBlock(const T* in, int64_t in_stride, int64_t rows, int64_t cols,
                    T* out, int64_t ld) {
  constexpr int64_t kTile = 16;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j)
          out[i * ld + j] = in[j * in_stride + i];
      }
    }
  }
}

// Rows of the output (its last dim) gathered from the input: a copy when
// the last dim stays the input's innermost, tiled 2-D transposes when the
// output's last two dims swap the input's innermost pair.
template <typename T>
void TransposeTyped(ThreadPoolInterface* pool, const T* in,
                    const std::vector<int64_t>& out_dims,
                    const std::vector<int64_t>& in_strides, T* out,
                    int64_t total) {
  const int rank = static_cast<int>(out_dims.size());
  const int64_t inner = out_dims[rank - 1];
  const int64_t inner_stride = in_strides[rank - 1];
  const int64_t rows = total / inner;
  // The output's second-to-last dim walks the input's innermost: transpose
  // [rows2, inner] blocks, one per index of the dims before.
  if (rank >= 2 && inner_stride != 1 && in_strides[rank - 2] == 1) {
    const int64_t rows2 = out_dims[rank - 2];
    const int64_t blocks = rows / rows2;
    ParallelFor(pool, blocks, rows2 * inner * 2, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        int64_t base = 0, rem = b;
        for (int d = rank - 3; d >= 0; --d) {
          base += (rem % out_dims[d]) * in_strides[d];
          rem /= out_dims[d];
        }
        TransposeBlock(in + base, inner_stride, rows2, inner,
                       out + b * rows2 * inner, inner);
      }
    });
    return;
  }
  ParallelFor(pool, rows, inner * 2, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(rank, 0);
    int64_t rem = begin;
    for (int d = rank - 2; d >= 0; --d) {
      idx[d] = rem % out_dims[d];
      rem /= out_dims[d];
    }
    for (int64_t r = begin; r < end; ++r) {
      int64_t base = 0;
      for (int d = 0; d < rank - 1; ++d) base += idx[d] * in_strides[d];
      T* dst = out + r * inner;
      const T* src = in + base;
      if constexpr (std::is_trivially_copyable_v<T>) {
        if (inner_stride == 1) {
          std::memcpy(dst, src, inner * sizeof(T));
        } else {
          for (int64_t i = 0; i < inner; ++i) dst[i] = src[i * inner_stride];
        }
      } else {
        for (int64_t i = 0; i < inner; ++i) dst[i] = src[i * inner_stride];
      }
      for (int d = rank - 2; d >= 0; --d) {
        if (++idx[d] < out_dims[d]) break;
        idx[d] = 0;
      }
    }
  });
}

}  // namespace

void TransposeInto(ThreadPoolInterface* pool, const Tensor& in,
                   const std::vector<int>& perm, Tensor* out) {
  const int64_t total = in.NumElements();
  if (total == 0) return;
  const int rank = in.dims();
  // Input strides, then merge output dims that are adjacent in the input.
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * in.dim_size(d + 1);
  }
  std::vector<int64_t> out_dims, in_strides;
  for (int i = 0; i < rank; ++i) {
    const int64_t size = in.dim_size(perm[i]);
    if (size == 1) continue;
    if (!out_dims.empty() && i > 0 &&
        in_strides.back() == strides[perm[i]] * size) {
      out_dims.back() *= size;
      in_strides.back() = strides[perm[i]];
    } else {
      out_dims.push_back(size);
      in_strides.push_back(strides[perm[i]]);
    }
  }
  if (out_dims.empty()) {
    out_dims.push_back(1);
    in_strides.push_back(1);
  }
  VisitMoveType(in.dtype(), [&](auto v) {
    using T = decltype(v);
    TransposeTyped(pool, static_cast<const T*>(in.data()), out_dims, in_strides,
                   static_cast<T*>(out->data()), total);
  });
}

void CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t count) {
  if (count <= 0) return;
  VisitMoveType(src.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* s = static_cast<const T*>(src.data()) + src_offset;
    T* d = static_cast<T*>(dst->data()) + dst_offset;
    if constexpr (std::is_trivially_copyable_v<T>) {
      std::memcpy(d, s, count * sizeof(T));
    } else {
      std::copy(s, s + count, d);
    }
  });
}

}  // namespace dfg
