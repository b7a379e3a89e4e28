// Internal: the ResourceMgr container of resources that live for one step
// (TensorFlow's per-step container, ScopedStepContainer): the TensorArrays
// and stacks (their handles a resource, or for the TF1 forms a string
// [container, name] whose name is in this container), each held as a DT_VARIANT
// scalar whose value (V) owns a shared state. The step's partition runner
// (lib/exec/partition_runner.h) removes the container when the step ends.
#ifndef DFG_LIB_KERNELS_STEP_CONTAINER_H_
#define DFG_LIB_KERNELS_STEP_CONTAINER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "lib/base/status.h"
#include "lib/kernels/op_kernel.h"
#include "lib/kernels/resource_mgr.h"
#include "lib/kernels/variant.h"

namespace dfg {

inline std::string StepContainer(int64_t step_id) {
  return "__per_step_" + std::to_string(step_id);
}

// Stores `value` as the variant scalar of the resource `h` names.
inline Status PutStepResource(ResourceMgr* rm, const ResourceHandle& h,
                              std::shared_ptr<VariantValue> value) {
  DFG_ASSIGN_OR_RETURN(
      std::shared_ptr<Var> var,
      rm->LookupOrCreate(h.container, h.name, tensorflow::DT_VARIANT));
  std::lock_guard<std::mutex> lock(*var->mu());
  Tensor t(tensorflow::DT_VARIANT, TensorShape());
  t.scalar<Variant>().value = std::move(value);
  *var->tensor() = std::move(t);
  var->is_initialized = true;
  return Status::Ok();
}

// The state of the V that `h` names; `kind` ("stack", "TensorArray") words
// the errors.
template <typename V>
StatusOr<decltype(V::state)> GetStepResource(ResourceMgr* rm,
                                             const ResourceHandle& h,
                                             const char* kind) {
  DFG_ASSIGN_OR_RETURN(std::shared_ptr<Var> var,
                       rm->Lookup(h.container, h.name));
  std::lock_guard<std::mutex> lock(*var->mu());
  const Tensor& v = *var->tensor();
  const V* value = v.IsInitialized() && v.dtype() == tensorflow::DT_VARIANT
                       ? v.scalar<Variant>().template get<V>()
                       : nullptr;
  if (value == nullptr) {
    return InvalidArgument("Resource {}/{} is not a {}", h.container, h.name,
                           kind);
  }
  return value->state;
}

// The state of the V that input 0's handle names: a resource, or (the TF1
// forms) a [container, name] string vector, or a Ref to one, whose name is
// looked up in the step's container.
template <typename V>
StatusOr<decltype(V::state)> GetStepResource(OpKernelContext* ctx,
                                             const char* kind) {
  const Tensor& t = ctx->input(0);
  if (ctx->resource_manager() == nullptr) {
    return Internal("No resource manager.");
  }
  if (t.dtype() == tensorflow::DT_STRING && t.NumElements() == 2) {
    ResourceHandle h;
    h.container = StepContainer(ctx->step_id());
    h.name = t.flat<std::string>()[1];
    return GetStepResource<V>(ctx->resource_manager(), h, kind);
  }
  if (t.dtype() != tensorflow::DT_RESOURCE || t.NumElements() != 1) {
    return InvalidArgument("Expected a scalar {} handle, got {}", kind,
                           t.DebugString());
  }
  return GetStepResource<V>(ctx->resource_manager(),
                            t.flat<ResourceHandle>()[0], kind);
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_STEP_CONTAINER_H_
