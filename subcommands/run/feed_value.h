// Feed values that are not taken as they are: a file's array converted to
// the dtype the fed tensor has (numpy writes float64 and int64 by default;
// TensorFlow's Session converts them), and inputs made on the command line
// (`--feed x=zeros`, `ones`, `random[:SEED]`) shaped from the signature or
// the Placeholder.
#ifndef DFG_SUBCOMMANDS_RUN_FEED_VALUE_H_
#define DFG_SUBCOMMANDS_RUN_FEED_VALUE_H_

#include <optional>
#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// `value` as a tensor of `dtype`: every element converted when it keeps its
// value's range (float64 -> float32 for finite values within float32's range,
// precision may drop; int64 -> int32 when it fits; integers to floats;
// integral floats to integers that hold them; bool to numbers; real to
// complex). NaN and infinities stay. Errors (kInvalidArgument): string to or
// from another dtype, complex to real, numbers to bool, and the first element
// that does not fit ("float64 1e+39 (element 4) does not fit float32").
StatusOr<Tensor> ConvertFeedDtype(const Tensor& value, DataType dtype);

// A generated input: `spec` is "zeros", "ones" or "random[:SEED]".
struct GeneratedFeed {
  enum class Kind { kZeros, kOnes, kRandom };
  Kind kind = Kind::kZeros;
  uint64_t seed = 0;
};

// Parses a --feed value naming a generated input; nullopt when it names none
// (a file, a literal). "random:x" is an error (kInvalidArgument).
StatusOr<std::optional<GeneratedFeed>> ParseGeneratedFeed(
    std::string_view spec);

// A tensor of `dtype` shaped `shape`; unknown dimension 0 (-1) becomes
// `batch` when batch > 0. Random values are uniform in [0, 1) for floats and
// complex parts, in [0, 10) for integers, true/false for bool, from a fixed
// generator (the same SEED gives the same tensor everywhere). Errors
// (kInvalidArgument): an unknown rank or other unknown dimensions, naming
// them and `--batch`; string inputs for ones/random; dtypes without numbers.
StatusOr<Tensor> MakeGeneratedFeed(const GeneratedFeed& spec, DataType dtype,
                                   const TensorShapeProto& shape,
                                   int64_t batch);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_FEED_VALUE_H_
