// Internal to lib/dot: the DOT text of a graph BuildAgraph made, written by
// dfg instead of Graphviz's agwrite.
//
// agwrite decides where to write each node by asking every subgraph of the
// graph whether it holds the node (node_in_subg), which is quadratic: a
// 100,000-node chain of two-node scopes (50,000 clusters) takes minutes.
// WriteDotText gives the same text, byte for byte (same order, attributes,
// indentation, quoting through cgraph's own agcanonStr, line breaks in long
// strings), in time linear in the nodes, edges and cluster depth: each node
// and edge is written in the deepest subgraph that holds it, found with one
// pass over the subgraphs.
//
// It relies on what BuildAgraph guarantees: attributes are declared on the
// root graph only, subgraphs set only graph attributes of their own, and
// edges are anonymous. Text read from elsewhere goes through agwrite.
#ifndef DFG_LIB_DOT_DOT_TEXT_H_
#define DFG_LIB_DOT_DOT_TEXT_H_

#include <graphviz/cgraph.h>

#include <string>

namespace dfg::dot_internal {

std::string WriteDotText(Agraph_t* graph);

}  // namespace dfg::dot_internal

#endif  // DFG_LIB_DOT_DOT_TEXT_H_
