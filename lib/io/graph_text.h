// The text form of a GraphDef, written several times faster than protobuf's
// reflection-driven TextFormat::Printer and byte for byte the same as it
// (with unknown fields hidden, as SerializeGraph prints them): nodes and
// their common attr values (s, i, b, type) are written directly, everything
// else (float, shape, tensor, list and func attrs, debug info, the library)
// through TextFormat::Printer at the right indentation. A partition of a
// million-node graph is ~300 MB of text; the Printer spends most of its time
// on reflection and sorting each node's attr map.
#ifndef DFG_LIB_IO_GRAPH_TEXT_H_
#define DFG_LIB_IO_GRAPH_TEXT_H_

#include <google/protobuf/io/zero_copy_stream.h>

#include <functional>

#include "lib/base/status.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

// Writes `graph` in text form to `out`. False when `out` fails.
bool PrintGraphText(const tensorflow::GraphDef& graph,
                    google::protobuf::io::ZeroCopyOutputStream* out);

// The same for a graph whose nodes are never all in memory: `nodes` hands
// them over one at a time, in order; `rest` holds the graph's other fields
// (its own nodes are not printed). Errors: those of `nodes`, and kInternal
// when `out` fails.
using NodeSink = std::function<Status(const tensorflow::NodeDef& node)>;
using NodeSource = std::function<Status(const NodeSink& sink)>;
Status PrintGraphTextStreamed(const NodeSource& nodes,
                              const tensorflow::GraphDef& rest,
                              google::protobuf::io::ZeroCopyOutputStream* out);

}  // namespace dfg

#endif  // DFG_LIB_IO_GRAPH_TEXT_H_
