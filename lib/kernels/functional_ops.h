// The kernel for a node whose op is a library function (the executor builds
// it when the kernel registry has no kernel for the op and the graph's
// library defines it).
#ifndef DFG_LIB_KERNELS_FUNCTIONAL_OPS_H_
#define DFG_LIB_KERNELS_FUNCTIONAL_OPS_H_

#include <memory>

#include "lib/kernels/op_kernel.h"

namespace dfg {

// Calls the function named by the node's op with the node's attrs (those
// not starting with '_').
std::unique_ptr<OpKernel> CreateFunctionCallKernel(OpKernelConstruction* ctx);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_FUNCTIONAL_OPS_H_
