// Helpers of the checkpoint kernels: shape_and_slice specs ("4 6 0,2:-"),
// slice copies, reading bundle entries into Tensors.
#ifndef DFG_LIB_KERNELS_SAVE_RESTORE_UTIL_H_
#define DFG_LIB_KERNELS_SAVE_RESTORE_UTIL_H_

#include <string>
#include <vector>

#include "lib/checkpoint/tensor_bundle.h"
#include "lib/kernels/intra_op_pool.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// A parsed shape_and_slice: the full shape and one extent per dimension.
struct ShapeAndSlice {
  TensorShape full_shape;
  std::vector<int64_t> start;   // per dimension
  std::vector<int64_t> length;  // per dimension (-1 before resolving: all)

  bool IsFull() const;
  TensorShape SliceShape() const;
};

// "<dim0> <dim1> ... <slice>" where slice is ':'-separated extents, each
// "-" (the whole dimension) or "start,length" (TensorFlow's
// ParseShapeAndSlice). Errors: kInvalidArgument naming the spec.
StatusOr<ShapeAndSlice> ParseShapeAndSlice(const std::string& spec);

// Copies the slice of `whole` (of shape slice.full_shape) into `out` (of
// shape slice.SliceShape(), same dtype).
void CopySlice(const Tensor& whole, const ShapeAndSlice& slice, Tensor* out);

// The stored shape as a TensorShape (kDataLoss naming key and prefix when
// invalid).
StatusOr<TensorShape> ShapeFromDims(const std::vector<int64_t>& dims,
                                    const std::string& key,
                                    const std::string& prefix);

// Reads entry `info` into `out` (allocated with the entry's dtype and
// shape): numeric types straight into the buffer, strings element-wise.
Status ReadIntoTensor(BundleReader& reader, const BundleEntryInfo& info,
                      Tensor* out);

// One whole tensor to restore: `out` is allocated with the entry's dtype
// and shape.
struct TensorRead {
  BundleEntryInfo info;
  Tensor* out;  // Not owned.
};

// Reads every tensor of `reads` as ReadIntoTensor on the intra-op pool
// (null: on the caller): numeric tensors in ranges of at most
// kRestoreRangeBytes, so one big tensor is read by every thread, each
// range checksummed as it arrives and the ranges' checksums joined and
// checked per tensor; string tensors one task each. Returns the error of
// the first failing tensor in `reads` order.
inline constexpr size_t kRestoreRangeBytes = size_t{8} << 20;
Status ReadTensors(BundleReader& reader, const std::vector<TensorRead>& reads,
                   ThreadPoolInterface* pool);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_SAVE_RESTORE_UTIL_H_
