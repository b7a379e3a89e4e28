// Helpers the sparse kernels share (sparse_ops.cc, sparse_segment_ops.cc):
// row-major strides, TensorFlow's SparseTensor index validation and input
// checks, filling a tensor with one value of any dtype.
#ifndef DFG_LIB_KERNELS_SPARSE_UTIL_H_
#define DFG_LIB_KERNELS_SPARSE_UTIL_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg {

// Row-major strides of `shape`, in elements.
inline std::vector<int64_t> Strides(std::span<const int64_t> shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) {
    s[d] = s[d + 1] * shape[d + 1];
  }
  return s;
}

// A dense shape from int64 dims; errors for negative dims.
inline Status MakeDenseShape(const std::vector<int64_t>& dims,
                             TensorShape* shape) {
  *shape = TensorShape();
  for (int64_t d : dims) {
    if (d < 0) {
      return InvalidArgument("Dimension {} must be >= 0", d);
    }
    shape->AddDim(d);
  }
  return Status::Ok();
}

// An [n, rank] index matrix read into int64s.
struct SparseIndices {
  const std::vector<int64_t>& v;
  int64_t n;
  int64_t rank;
  int64_t at(int64_t i, int64_t d) const { return v[i * rank + d]; }
  std::string Row(int64_t i) const {
    std::string s = "[";
    for (int64_t d = 0; d < rank; ++d) {
      if (d > 0) s += ",";
      s += std::to_string(at(i, d));
    }
    return s + "]";
  }
};

// TensorFlow's SparseTensor::IndicesValid: in bounds, strictly increasing in
// row-major order.
inline Status ValidateSparseIndices(const SparseIndices& ind,
                                    std::span<const int64_t> shape) {
  std::string shape_str = "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) shape_str += ",";
    shape_str += std::to_string(shape[d]);
  }
  shape_str += "]";
  for (int64_t i = 0; i < ind.n; ++i) {
    for (int64_t d = 0; d < ind.rank; ++d) {
      if (ind.at(i, d) < 0 || ind.at(i, d) >= shape[d]) {
        return InvalidArgument(
            "indices[{}] = {} is out of bounds: need 0 <= index < {}", i,
            ind.Row(i), shape_str);
      }
    }
    if (i == 0) continue;
    int cmp = 0;
    for (int64_t d = 0; d < ind.rank && cmp == 0; ++d) {
      const int64_t a = ind.at(i - 1, d), b = ind.at(i, d);
      cmp = a < b ? -1 : (a > b ? 1 : 0);
    }
    if (cmp > 0) {
      return InvalidArgument(
          "indices[{}] = {} is out of order. Many sparse ops require sorted "
          "indices.\n    Use `tf.sparse.reorder` to create a correctly "
          "ordered copy.\n\n",
          i, ind.Row(i));
    }
    if (cmp == 0) {
      return InvalidArgument("indices[{}] = {} is repeated", i, ind.Row(i));
    }
  }
  return Status::Ok();
}

// indices [n, rank], values [n], shape [rank] as SparseReorder and friends
// check them; `what` prefixes the messages ("Input").
inline Status CheckSparseInputs(const Tensor& indices, const Tensor& values,
                                const Tensor& shape, const char* what) {
  if (indices.dims() != 2) {
    return InvalidArgument(
        "{} indices should be a matrix but received shape {}", what,
        indices.shape().DebugString());
  }
  if (shape.dims() != 1) {
    return InvalidArgument("{} shape should be a vector but received shape {}",
                           what, shape.shape().DebugString());
  }
  if (values.dims() != 1) {
    return InvalidArgument("{} values should be a vector but received shape {}",
                           what, values.shape().DebugString());
  }
  if (values.dim_size(0) != indices.dim_size(0)) {
    return InvalidArgument(
        "Number of elements in input_indices ({}) and input_values ({}) do "
        "not match",
        indices.dim_size(0), values.dim_size(0));
  }
  if (shape.dim_size(0) != indices.dim_size(1)) {
    return InvalidArgument(
        "Dimension of input_indices ({}) and input_shape ({}) do not match",
        indices.dim_size(1), shape.dim_size(0));
  }
  return Status::Ok();
}

// Every element of `out` = the one element of `scalar` (same dtype).
inline void FillWithScalar(const Tensor& scalar, Tensor* out) {
  const int64_t n = out->NumElements();
  if (n == 0) return;
  CopyElements(scalar, 0, out, 0, 1);
  for (int64_t done = 1; done < n; done *= 2) {
    CopyElements(*out, 0, out, done, std::min(done, n - done));
  }
}

// Outputs first, first+1 (and first+2 = `shape` when the op has it) of a
// sparse result with nnz entries.
inline Status AllocSparse(OpKernelContext* ctx, int first, int64_t nnz,
                          int64_t rank, const std::vector<int64_t>& shape,
                          Tensor** idx, Tensor** vals) {
  DFG_RETURN_IF_ERROR(
      ctx->allocate_output(first, TensorShape({nnz, rank}), idx));
  DFG_RETURN_IF_ERROR(
      ctx->allocate_output(first + 1, TensorShape({nnz}), vals));
  if (ctx->num_outputs() > first + 2) {
    Tensor* s = nullptr;
    DFG_RETURN_IF_ERROR(ctx->allocate_output(
        first + 2, TensorShape({static_cast<int64_t>(shape.size())}), &s));
    std::copy(shape.begin(), shape.end(), s->flat<int64_t>().data());
  }
  return Status::Ok();
}

// -1, 0, 1: row-major order of index rows a (of A) and b (of B).
inline int CompareRows(const int64_t* a, const int64_t* b, int64_t rank) {
  for (int64_t d = 0; d < rank; ++d) {
    if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
  }
  return 0;
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_SPARSE_UTIL_H_
