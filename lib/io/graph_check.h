// The structure a GraphDef must have to be a graph at all, checked before
// anything trusts it (`dfg convert`, `info` and `dot`; the other stages
// import the graph, which makes the same checks and more).
//
// These are the op-independent checks of TensorFlow's GraphConstructor, in
// its order and with its messages (TF-SEMANTICS.md §0.4), so that a graph a
// custom or unknown op makes unimportable still converts and summarizes:
//   "Node 'X' is not unique"
//   "Node 'X': Control dependencies must come after regular dependencies"
//   "Node 'X': Unknown input node 'Y'"
//   "N nodes in a cycle"   (a while loop's NextIteration -> Merge back edge
//                           is no cycle)
// What needs the op registry (input counts, output indices, attrs) is left to
// ImportGraphDef (lib/graph/graph_import.h).
#ifndef DFG_LIB_IO_GRAPH_CHECK_H_
#define DFG_LIB_IO_GRAPH_CHECK_H_

#include "lib/base/status.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

// kInvalidArgument with one of the messages above for the first problem
// found; Ok otherwise. The message does not name the file (callers do).
Status CheckGraphStructure(const tensorflow::GraphDef& graph);

}  // namespace dfg

#endif  // DFG_LIB_IO_GRAPH_CHECK_H_
