// Internal to lib/io: the .npy header, a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// parsed strictly (the three keys once each, Python literal syntax, nothing
// but padding after the closing brace) and written as numpy writes it.
#ifndef DFG_LIB_IO_NPY_HEADER_H_
#define DFG_LIB_IO_NPY_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/types.h"

namespace dfg::io_internal {

struct NpyDescr {
  DataType dtype = tensorflow::DT_INVALID;
  char kind = 0;        // numpy kind: b i u f c S U
  size_t itemsize = 0;  // bytes per element in the file
  bool big_endian = false;
  size_t swap_unit = 1;  // bytes reversed together (a complex's halves)
};

struct NpyHeader {
  NpyDescr descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Errors (kInvalidArgument) start with `name`: malformed dict, missing or
// repeated keys, structured/object/datetime dtypes, negative or overflowing
// dimensions.
StatusOr<NpyHeader> ParseNpyHeader(std::string_view text,
                                   std::string_view name);

// The numpy descr for a dtype ("<f4", "|b1"), or nullopt (bfloat16,
// quantized types, resource...).
std::optional<std::string> NpyDescrFor(DataType dtype);
size_t NpyItemSize(DataType dtype);

// The dict, unpadded: "{'descr': '<f4', 'fortran_order': False, 'shape': (2,
// 3), }".
std::string FormatNpyHeader(std::string_view descr,
                            const std::vector<int64_t>& shape);

}  // namespace dfg::io_internal

#endif  // DFG_LIB_IO_NPY_HEADER_H_
