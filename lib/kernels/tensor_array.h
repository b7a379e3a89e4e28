// Internal: the state of a TensorArray and the operations its kernels share
// (TensorFlow's tensor_array.h): element writes (summed into a gradient
// array), reads (clearing after a read), the step-container storage, and the
// three forms of handle: a resource (V3), a [container, name] string vector
// (V2) and a Ref to one (v1). The kernels are in tensor_array_ops.cc (V3)
// and tensor_array_v1_ops.cc (the TF1 forms).
#ifndef DFG_LIB_KERNELS_TENSOR_ARRAY_H_
#define DFG_LIB_KERNELS_TENSOR_ARRAY_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lib/kernels/op_kernel.h"
#include "lib/kernels/partial_shape.h"
#include "lib/kernels/variant.h"

namespace dfg::tensor_array {

struct Element {
  Tensor value;
  bool written = false;
  bool cleared = false;
  // A gradient array's element: the forward value's shape (with the
  // prepended dims of TensorArrayGradWithShape), read as zeros if unwritten.
  std::optional<TensorShape> shape;
};

// The mutable state of one array, guarded by `mu`.
struct ArrayState {
  std::mutex mu;
  DataType dtype = tensorflow::DT_INVALID;
  PartialShape element_shape;
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
  bool multiple_writes_aggregate = false;
  bool closed = false;
  std::string name;
  std::vector<Element> elements;
  // The legacy ["_tensor_arrays", name] handle of TensorArray (v1), whose
  // Ref output points here.
  Tensor string_handle;
};

class TensorArrayValue : public VariantValue {
 public:
  explicit TensorArrayValue(std::shared_ptr<ArrayState> s)
      : state(std::move(s)) {}
  std::string TypeName() const override { return "tensorflow::TensorArray"; }
  std::string DebugString() const override { return "TensorArray"; }
  std::shared_ptr<ArrayState> state;
};

ResourceHandle MakeHandle(const std::string& container,
                          const std::string& name);
Status Put(ResourceMgr* rm, const ResourceHandle& h,
           std::shared_ptr<ArrayState> state);
// The array input 0 names (any form of handle).
StatusOr<std::shared_ptr<ArrayState>> GetArray(OpKernelContext* ctx);
// The step-container handle of the array input 0 names.
StatusOr<ResourceHandle> InputHandle(OpKernelContext* ctx);
// Output 0: the handle of `state` (stored at `h`) in the form the op's
// output 0 has.
void SetHandleOutput(OpKernelContext* ctx, const ResourceHandle& h,
                     ArrayState* state);
Status CheckOpen(const ArrayState& a);
// Writes `value` at `index` (a grad array adds to what is there). Called
// under a.mu.
Status WriteLocked(ArrayState& a, int64_t index, const Tensor& value);
// Reads `index` (zeros when unwritten and the element shape is known),
// clearing it when the array clears after reads. Called under a.mu.
StatusOr<Tensor> ReadLocked(ArrayState& a, int64_t index);
// Output i = input flow_input.
void SetFlow(OpKernelContext* ctx, int i, int flow_input);
Status CheckReadDtype(const ArrayState& a, DataType want);
// Stacks `parts` (all of `shape`) along a new dim 0, or concatenates them
// along dim 0, into output 0.
void EmitJoined(OpKernelContext* ctx, const std::vector<Tensor>& parts,
                TensorShape shape);

}  // namespace dfg::tensor_array

#endif  // DFG_LIB_KERNELS_TENSOR_ARRAY_H_
