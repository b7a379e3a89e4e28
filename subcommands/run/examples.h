// --examples KEY=JSON: a list of feature dicts, each serialized as a
// tf.Example, as saved_model_cli's --input_examples makes them. A feature's
// list type comes from its first value: a float gives a FloatList, an
// integer (or true/false) an Int64List, a string a BytesList.
#ifndef DFG_SUBCOMMANDS_RUN_EXAMPLES_H_
#define DFG_SUBCOMMANDS_RUN_EXAMPLES_H_

#include <string_view>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// A 1-D string tensor of serialized tf.Example protos (features in key
// order, so the bytes are deterministic). Errors (kInvalidArgument): bad
// JSON, not a list of objects, a feature that is not a non-empty list, a
// value of another type than the list's first (an integer in a float list
// is fine, as in Python).
StatusOr<Tensor> ExamplesFromJson(std::string_view json);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_EXAMPLES_H_
