// Feeds and fetches as the _Arg/_Retval kernels see them (TF-SEMANTICS.md
// §4.6). lib/exec implements it (TensorFlow's FunctionCallFrame).
#ifndef DFG_LIB_KERNELS_CALL_FRAME_INTERFACE_H_
#define DFG_LIB_KERNELS_CALL_FRAME_INTERFACE_H_

#include <cstddef>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"

namespace dfg {

class CallFrameInterface {
 public:
  virtual ~CallFrameInterface() = default;

  virtual size_t num_args() const = 0;
  virtual size_t num_retvals() const = 0;

  // Errors, TensorFlow's wording:
  //   kInvalidArgument "GetArg <i> is not within [0, <n>)".
  virtual Status GetArg(int index, Tensor* value) const = 0;
  // Errors, TensorFlow's wording:
  //   kInvalidArgument "SetRetval <i> is not within [0, <n>)",
  //   kInvalidArgument "Expects ret[<i>] to be <T>, but <dt> is provided.",
  //   kInternal "Retval[<i>] has already been set.".
  virtual Status SetRetval(int index, const Tensor& value) = 0;
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_CALL_FRAME_INTERFACE_H_
