// A node's NodeDef written as Graph::ToGraphDef and MoveToGraphDef write it,
// in place: its assigned device, and its inputs rebuilt from its in-edges
// (data inputs by slot, then the control inputs sorted by source name).
// For a stage that keeps a graph and also hands out its GraphDef form
// (lib/pipeline's ExecutionState) without copying every NodeDef.
#ifndef DFG_LIB_GRAPH_NODE_INPUTS_H_
#define DFG_LIB_GRAPH_NODE_INPUTS_H_

#include <string>
#include <vector>

#include "lib/graph/graph.h"

namespace dfg {

// `slots` and `inputs` are scratch space, reused across nodes.
void WriteNodeDefAsGraphDefDoes(Node* node, std::vector<const Edge*>* slots,
                                std::vector<std::string>* inputs);

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_NODE_INPUTS_H_
