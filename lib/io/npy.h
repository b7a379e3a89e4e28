// NumPy .npy (v1, v2, v3) and .npz (stored and deflated, zip64) files.
//
// An NpyArray is the file's content in dfg's own terms: a TensorFlow dtype, a
// shape, and the elements as little-endian C-order bytes (byte order and
// Fortran order are converted on read), or strings for string arrays. lib/exec
// turns it into a Tensor; this layer does not depend on the kernels.
#ifndef DFG_LIB_IO_NPY_H_
#define DFG_LIB_IO_NPY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/types.h"

namespace dfg {

struct NpyArray {
  DataType dtype = tensorflow::DT_INVALID;
  std::vector<int64_t> shape;
  std::string data;  // numeric: element bytes, little-endian, C order
  std::vector<std::string> strings;  // DT_STRING: one per element, C order

  int64_t num_elements() const;
};

// Errors (kInvalidArgument) name `display_name`: bad magic, header too large
// or malformed, unsupported dtype, shape overflow, data size not matching.
StatusOr<NpyArray> ParseNpy(std::string_view bytes,
                            std::string_view display_name);
// Always writes version 1.0 (2.0 when the header needs it), little-endian,
// C order; strings as fixed-width unicode ('<U'), or as bytes ('|S') when
// one of them is not valid UTF-8. Errors: dtypes numpy has no name for
// (bfloat16, quantized, resource, variant), data not matching the shape.
StatusOr<std::string> SerializeNpy(const NpyArray& array);

// All arrays of an .npz, by name without the ".npy" suffix, in file order.
StatusOr<std::vector<std::pair<std::string, NpyArray>>> ParseNpz(
    std::string_view bytes, std::string_view display_name);
StatusOr<std::string> SerializeNpz(
    const std::vector<std::pair<std::string, NpyArray>>& arrays);

}  // namespace dfg

#endif  // DFG_LIB_IO_NPY_H_
