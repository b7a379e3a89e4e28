// Internal to lib/io: telling a binary GraphDef from a MetaGraphDef and a
// SavedModel before parsing. The three parse as each other loosely (protobuf
// keeps what it does not recognise as unknown fields), so the decision is
// made on the wire structure: which fields appear with which wire types, and
// whether the repeated NodeDefs look like nodes (a name and an op name).
#ifndef DFG_LIB_IO_BINARY_DETECT_H_
#define DFG_LIB_IO_BINARY_DETECT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/graph/wire_reader.h"

namespace dfg::io_internal {

// The wire reader lives in lib/graph (the place stage reads big GraphDefs
// with it too).
using ::dfg::WireField;
using ::dfg::WireReader;
using ::dfg::WireType;

enum class BinaryKind { kGraphDef, kMetaGraphDef, kSavedModel };

// The most plausible message type for `bytes`. When none fits, kGraphDef (the
// caller then parses and validates it as one, and reports `*why_not_graph`).
// `why_not_graph` receives why the bytes are not GraphDef-shaped (may be null).
BinaryKind DetectBinaryKind(std::string_view bytes, std::string* why_not_graph);

// True for a plausible op or function name: non-empty, printable ASCII
// without spaces or quotes.
bool IsPlausibleOpName(std::string_view op);

}  // namespace dfg::io_internal

#endif  // DFG_LIB_IO_BINARY_DETECT_H_
