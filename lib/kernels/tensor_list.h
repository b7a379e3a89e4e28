// The TensorList value behind TensorFlow's list ops (a scalar DT_VARIANT
// tensor holds one) and the helpers every list kernel shares: reading a list
// input, writing a list output, element_shape inputs, zeros for unset
// elements. The kernels live in tensor_list_ops.cc (create, get, set, push,
// pop, stack) and tensor_list_ext_ops.cc (concat, gather, scatter, split,
// resize, batch push).
//
// A list is immutable once stored in a variant: an op that changes a list
// outputs a new one (sharing the element tensors). Reserved elements that
// were never set are uninitialized tensors.
#ifndef DFG_LIB_KERNELS_TENSOR_LIST_H_
#define DFG_LIB_KERNELS_TENSOR_LIST_H_

#include <memory>
#include <string>
#include <vector>

#include "lib/kernels/op_kernel.h"
#include "lib/kernels/partial_shape.h"
#include "lib/kernels/variant.h"

namespace dfg {

class TensorList : public VariantValue {
 public:
  std::string TypeName() const override { return "tensorflow::TensorList"; }
  std::string DebugString() const override { return "TensorList"; }
  void Encode(tensorflow::VariantTensorDataProto* out) const override;

  std::vector<Tensor> tensors;  // uninitialized: reserved, never set
  PartialShape element_shape;
  DataType element_dtype = tensorflow::DT_INVALID;
  int max_num_elements = -1;
};

// An element_shape input: a scalar -1 (unknown rank) or a vector with -1 for
// unknown dims (TensorFlow's TensorShapeFromTensor).
Status ListShapeFromTensor(const Tensor& t, PartialShape* out);

// Output `i` = a scalar variant holding `list`.
void SetListOutput(OpKernelContext* ctx, int i,
                   std::shared_ptr<TensorList> list);

// Input `i` as a list. Errors: "Input handle is not a list...".
Status GetListInput(OpKernelContext* ctx, int i, const TensorList** list);

// The list's element shape merged with the element_shape input `i`.
Status ListElementShape(OpKernelContext* ctx, const TensorList& l, int i,
                        PartialShape* out);

// A zero-filled tensor.
StatusOr<Tensor> ZerosTensor(DataType dtype, const TensorShape& shape);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_TENSOR_LIST_H_
