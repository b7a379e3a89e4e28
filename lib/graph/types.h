// DataType helpers: names as TensorFlow prints them, sizes, ref types.
#ifndef DFG_LIB_GRAPH_TYPES_H_
#define DFG_LIB_GRAPH_TYPES_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "lib/proto/types.pb.h"

namespace dfg {

using tensorflow::DataType;

inline constexpr int kControlSlot = -1;

bool IsRefType(DataType t);
DataType BaseType(DataType t);  // strips the +100 of a ref type
DataType MakeRefType(DataType t);

// TensorFlow's DataTypeString: "float", "int32", "float_ref", "resource"...
std::string DataTypeString(DataType t);
// Accepts "float", "DT_FLOAT", "float32", "int32"... (case-sensitive).
std::optional<DataType> ParseDataType(std::string_view name);

// Bytes per element (0 for string, resource, variant and invalid types).
size_t DataTypeSize(DataType t);

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_TYPES_H_
