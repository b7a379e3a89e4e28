// Tensors written on the command line: `--feed x=[[1,2],[3,4]]`. A JSON value
// (a number, a string, true/false, or nested lists of them) becomes a tensor
// of the dtype the fed tensor has; its shape is the nesting of the lists.
#ifndef DFG_SUBCOMMANDS_RUN_TENSOR_LITERAL_H_
#define DFG_SUBCOMMANDS_RUN_TENSOR_LITERAL_H_

#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// True when a --feed VALUE is a JSON literal rather than a file: it begins
// with '[', a digit, '-', '"', "true" or "false" (a file named like that is
// written "./3").
bool LooksLikeTensorLiteral(std::string_view value);

// Parses `json` into a tensor of `dtype`. Numbers convert to float, integer
// and bool... dtypes as numpy would refuse to: an integer dtype takes only
// integral numbers within its range, bool takes true/false, string takes
// JSON strings; float dtypes also take "nan", "inf" and "-inf". Errors
// (kInvalidArgument) name `what` (the fed tensor): bad JSON (with the
// offset), ragged lists ("not rectangular"), a value that does not fit the
// dtype, an unsupported dtype (complex, quantized, resource, variant).
StatusOr<Tensor> ParseTensorLiteral(std::string_view json, DataType dtype,
                                    std::string_view what);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_TENSOR_LITERAL_H_
