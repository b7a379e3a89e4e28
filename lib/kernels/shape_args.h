// Internal: kernel inputs and attrs turned into shapes and layouts with
// TensorFlow's checks and wording, for the kernels that share them (Fill and
// the random ops' shape inputs, Reshape's sizes, BiasAdd and BiasAddGrad's
// data_format).
#ifndef DFG_LIB_KERNELS_SHAPE_ARGS_H_
#define DFG_LIB_KERNELS_SHAPE_ARGS_H_

#include <cstdint>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/op_kernel.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// TensorShapeUtils::MakeShape's checks of a shape given as dims: errors
// (kInvalidArgument) "Dimension -1 must be >= 0" and "Shape [..] is too
// large".
Status MakeShape(const std::vector<int64_t>& dims, TensorShape* shape);

// Reshape's output shape for `in` and its `sizes` input (one -1 inferred),
// with TensorFlow's checks and texts (Reshape, QuantizedReshape).
Status ReshapeShape(const Tensor& in, const Tensor& sizes, TensorShape* shape);

// The data_format attr of BiasAdd and BiasAddGrad (NHWC when absent): sets
// *nchw; "Invalid data format" for anything but NHWC and NCHW.
Status ReadBiasDataFormat(OpKernelConstruction* ctx, bool* nchw);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_SHAPE_ARGS_H_
