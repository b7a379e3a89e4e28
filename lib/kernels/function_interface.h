// Calls into library functions, as the functional kernels (If, Case, While,
// PartitionedCall, calls of a function by op name) see them: TensorFlow's
// FunctionLibraryRuntime, trimmed to what a kernel needs. lib/exec implements
// it: it instantiates a FunctionDef with the call's attrs into a graph and
// runs an executor over it.
#ifndef DFG_LIB_KERNELS_FUNCTION_INTERFACE_H_
#define DFG_LIB_KERNELS_FUNCTION_INTERFACE_H_

#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"
#include "lib/proto/attr_value.pb.h"

namespace dfg {

struct StepServices;

class FunctionCallInterface {
 public:
  virtual ~FunctionCallInterface() = default;

  // Runs function `fn` (name and attrs) on `args` within the caller's step
  // (same rendezvous, resources, cancellation and intra-op pool), on the
  // calling thread, and returns its results. Errors: kNotFound "Function
  // <name> is not defined." (TF's wording), instantiation errors, and the
  // body's own errors.
  virtual Status Call(const tensorflow::NameAttrList& fn,
                      const StepServices& step, std::vector<Tensor> args,
                      std::vector<Tensor>* rets) = 0;
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_FUNCTION_INTERFACE_H_
