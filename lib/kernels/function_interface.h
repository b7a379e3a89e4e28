// Calls into library functions, as the functional kernels (If, Case, While,
// PartitionedCall, calls of a function by op name) see them: TensorFlow's
// FunctionLibraryRuntime, trimmed to what a kernel needs. lib/exec implements
// it: it instantiates a FunctionDef with the call's attrs into a graph and
// runs an executor over it.
//
// A kernel that calls the same function step after step (a loop's cond and
// body) instantiates it once and keeps the handle (FunctionRef below), so a
// call costs the body's nodes and no lookup.
#ifndef DFG_LIB_KERNELS_FUNCTION_INTERFACE_H_
#define DFG_LIB_KERNELS_FUNCTION_INTERFACE_H_

#include <atomic>
#include <span>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"
#include "lib/proto/attr_value.pb.h"

namespace dfg {

struct StepServices;

// An instantiated function; defined by the implementation.
struct FunctionInstance;
using FunctionHandle = const FunctionInstance*;

class FunctionCallInterface {
 public:
  virtual ~FunctionCallInterface() = default;

  // Instantiates function `fn` (name and attrs) once per distinct (name,
  // attrs); the handle stays valid as long as this interface. Thread-safe.
  // Errors: kNotFound "Function <name> is not defined." (TF's wording),
  // instantiation errors.
  virtual StatusOr<FunctionHandle> Instantiate(
      const tensorflow::NameAttrList& fn) = 0;

  // Runs an instantiated function on `args` (read, not consumed) within the
  // caller's step (same rendezvous, resources, cancellation and intra-op
  // pool), on the calling thread, and sets `rets` to its results (`args`
  // must not alias `*rets`). Errors:
  // kInvalidArgument for args of the wrong count or dtype, and the body's
  // own errors.
  virtual Status Run(FunctionHandle fn, const StepServices& step,
                     std::span<const Tensor> args,
                     std::vector<Tensor>* rets) = 0;

  // Instantiate and Run.
  Status Call(const tensorflow::NameAttrList& fn, const StepServices& step,
              std::span<const Tensor> args, std::vector<Tensor>* rets) {
    DFG_ASSIGN_OR_RETURN(FunctionHandle handle, Instantiate(fn));
    return Run(handle, step, args, rets);
  }
};

// A kernel's function, instantiated at its first call and kept. A kernel runs
// in the one executor that built it, so it always sees the same library;
// were it called with another, it instantiates on every call (correct, and
// never expected). Thread-safe: concurrent steps may run the kernel.
class FunctionRef {
 public:
  FunctionRef() = default;
  explicit FunctionRef(tensorflow::NameAttrList fn) : fn_(std::move(fn)) {}
  FunctionRef(const FunctionRef&) = delete;
  FunctionRef& operator=(const FunctionRef&) = delete;

  const tensorflow::NameAttrList& fn() const { return fn_; }
  tensorflow::NameAttrList* mutable_fn() { return &fn_; }

  Status Run(FunctionCallInterface* lib, const StepServices& step,
             std::span<const Tensor> args, std::vector<Tensor>* rets) {
    DFG_ASSIGN_OR_RETURN(FunctionHandle handle, Get(lib));
    return lib->Run(handle, step, args, rets);
  }

 private:
  StatusOr<FunctionHandle> Get(FunctionCallInterface* lib) {
    if (lib_.load(std::memory_order_acquire) == lib) {
      FunctionHandle handle = handle_.load(std::memory_order_acquire);
      if (handle != nullptr) return handle;
    }
    DFG_ASSIGN_OR_RETURN(FunctionHandle handle, lib->Instantiate(fn_));
    // The first library to claim the slot keeps it; Instantiate returns the
    // same handle for the same library, so racing stores agree.
    FunctionCallInterface* expected = nullptr;
    if (lib_.compare_exchange_strong(expected, lib,
                                     std::memory_order_acq_rel) ||
        expected == lib) {
      handle_.store(handle, std::memory_order_release);
    }
    return handle;
  }

  tensorflow::NameAttrList fn_;
  std::atomic<FunctionCallInterface*> lib_{nullptr};
  std::atomic<FunctionHandle> handle_{nullptr};
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_FUNCTION_INTERFACE_H_
