// The state of a TensorArray and the operations its kernels share (see
// tensor_array.h).
#include "lib/kernels/tensor_array.h"

#include <cstring>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/step_container.h"

namespace dfg::tensor_array {

ResourceHandle MakeHandle(const std::string& container,
                          const std::string& name) {
  ResourceHandle h;
  h.container = container;
  h.name = name;
  h.maybe_type_name = "N10tensorflow11TensorArrayE";
  return h;
}

Status Put(ResourceMgr* rm, const ResourceHandle& h,
           std::shared_ptr<ArrayState> state) {
  return PutStepResource(rm, h,
                         std::make_shared<TensorArrayValue>(std::move(state)));
}

StatusOr<std::shared_ptr<ArrayState>> GetArray(OpKernelContext* ctx) {
  return GetStepResource<TensorArrayValue>(ctx, "TensorArray");
}

StatusOr<ResourceHandle> InputHandle(OpKernelContext* ctx) {
  const Tensor& t = ctx->input(0);
  if (t.dtype() == tensorflow::DT_RESOURCE && t.NumElements() == 1) {
    return t.flat<ResourceHandle>()[0];
  }
  if (t.dtype() == tensorflow::DT_STRING && t.NumElements() == 2) {
    return MakeHandle(StepContainer(ctx->step_id()), t.flat<std::string>()[1]);
  }
  return InvalidArgument("Expected a TensorArray handle, got {}",
                         t.DebugString());
}

void SetHandleOutput(OpKernelContext* ctx, const ResourceHandle& h,
                     ArrayState* state) {
  const DataType type = ctx->op_kernel().output_type(0);
  if (type == tensorflow::DT_RESOURCE) {
    ctx->set_output(0, Tensor::Scalar<ResourceHandle>(h));
    return;
  }
  Tensor handle = Tensor::Vector<std::string>({"_tensor_arrays", h.name});
  if (!IsRefType(type)) {
    ctx->set_output(0, std::move(handle));
    return;
  }
  // The array outlives the step's uses of the ref.
  std::lock_guard<std::mutex> lock(state->mu);
  state->string_handle = std::move(handle);
  ctx->set_output_ref(0, &state->mu, &state->string_handle);
}

Status CheckOpen(const ArrayState& a) {
  if (a.closed) {
    return InvalidArgument("TensorArray {} has already been closed.", a.name);
  }
  return Status::Ok();
}

// Writes `value` at `index` (a grad array adds to what is there). Called
// under a.mu.
Status WriteLocked(ArrayState& a, int64_t index, const Tensor& value) {
  DFG_RETURN_IF_ERROR(CheckOpen(a));
  if (value.dtype() != a.dtype) {
    return InvalidArgument(
        "TensorArray dtype is {} but Op is trying to write dtype {}.",
        DataTypeString(a.dtype), DataTypeString(value.dtype()));
  }
  const int64_t size = static_cast<int64_t>(a.elements.size());
  if (index < 0 || (!a.dynamic_size && index >= size)) {
    return InvalidArgument(
        "Tried to write to index {} but array is not resizeable and size "
        "is: {}",
        index, size);
  }
  if (index >= size) a.elements.resize(index + 1);
  const PartialShape shape = PartialShape::Of(value.shape());
  if (!a.element_shape.IsCompatibleWith(shape)) {
    return InvalidArgument(
        "Could not write to TensorArray index {} because the value shape is "
        "{} which is incompatible with the TensorArray's inferred element "
        "shape: {} (consider setting infer_shape=False).",
        index, value.shape().DebugString(), a.element_shape.DebugString());
  }
  if (a.identical_element_shapes) a.element_shape = shape;
  Element& e = a.elements[index];
  if (e.cleared) {
    return InvalidArgument(
        "Could not write to TensorArray index {} because it has already "
        "been read.",
        index);
  }
  if (e.written && !a.multiple_writes_aggregate) {
    return InvalidArgument(
        "Could not write to TensorArray index {} because it has already "
        "been written to.",
        index);
  }
  if (!e.written) {
    e.value = value;
    e.written = true;
    return Status::Ok();
  }
  if (e.value.shape() != value.shape()) {
    return InvalidArgument(
        "Could not aggregate to TensorArray index {} because the existing "
        "shape is {} but the new input shape is {}.",
        index, e.value.shape().DebugString(), value.shape().DebugString());
  }
  DFG_ASSIGN_OR_RETURN(Tensor sum, Tensor::TryAllocate(a.dtype, value.shape()));
  bool ok = Dispatch(NumberTypes(), a.dtype, [&](auto v) {
    using T = decltype(v);
    std::span<const T> x = e.value.flat<T>(), y = value.flat<T>();
    auto z = sum.flat<T>();
    for (size_t i = 0; i < z.size(); ++i) {
      z[i] = Store<T>(Load(x[i]) + Load(y[i]));
    }
  });
  if (!ok) {
    return InvalidArgument("TensorArray cannot aggregate dtype {}",
                           DataTypeString(a.dtype));
  }
  e.value = std::move(sum);
  return Status::Ok();
}

// Reads `index` (zeros when unwritten and the element shape is known),
// clearing it when the array clears after reads. Called under a.mu.
StatusOr<Tensor> ReadLocked(ArrayState& a, int64_t index) {
  DFG_RETURN_IF_ERROR(CheckOpen(a));
  const int64_t size = static_cast<int64_t>(a.elements.size());
  if (index < 0 || index >= size) {
    return InvalidArgument("Tried to read from index {} but array size is: {}",
                           index, size);
  }
  Element& e = a.elements[index];
  if (e.cleared) {
    return InvalidArgument(
        "Could not read index {} twice because it was cleared after a "
        "previous read (perhaps try setting clear_after_read = false?).",
        index);
  }
  Tensor out;
  if (e.written) {
    out = e.value;
  } else if (e.shape.has_value()) {
    DFG_ASSIGN_OR_RETURN(out, Tensor::TryAllocate(a.dtype, *e.shape));
    if (out.TotalBytes() > 0) std::memset(out.data(), 0, out.TotalBytes());
  } else {
    if (!a.element_shape.IsFullyDefined()) {
      return InvalidArgument(
          "Could not read from TensorArray index {}.  Furthermore, the "
          "element shape is not fully defined: {}.  It is possible you are "
          "working with a resizeable TensorArray and stop_gradients is not "
          "allowing the gradients to be written.  If you set the full "
          "element_shape property on the forward TensorArray, the proper "
          "all-zeros tensor will be returned instead of incurring this "
          "error.",
          index, a.element_shape.DebugString());
    }
    DFG_ASSIGN_OR_RETURN(
        out, Tensor::TryAllocate(a.dtype, a.element_shape.AsShape()));
    if (out.TotalBytes() > 0) std::memset(out.data(), 0, out.TotalBytes());
  }
  if (a.clear_after_read) {
    e.value = Tensor();
    e.cleared = true;
  }
  return out;
}

void SetFlow(OpKernelContext* ctx, int i, int flow_input) {
  ctx->set_output(i, ctx->input(flow_input));
}

Status CheckReadDtype(const ArrayState& a, DataType want) {
  if (a.dtype == want) return Status::Ok();
  return InvalidArgument("TensorArray dtype is {} but Op requested dtype {}.",
                         DataTypeString(a.dtype), DataTypeString(want));
}

// Stacks `parts` (all of `shape`) along a new dim 0, or concatenates them
// along dim 0 (`concat`), into output 0.
void EmitJoined(OpKernelContext* ctx, const std::vector<Tensor>& parts,
                TensorShape shape) {
  Tensor* out = nullptr;
  DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  int64_t offset = 0;
  for (const Tensor& p : parts) {
    CopyElements(p, 0, out, offset, p.NumElements());
    offset += p.NumElements();
  }
}

}  // namespace dfg::tensor_array
