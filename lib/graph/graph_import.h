// GraphDef → Graph (TensorFlow's GraphConstructor, TF-SEMANTICS.md §0.4): the
// same checks in the same order with TensorFlow's messages, the same node
// order (Kahn's algorithm, ready set ordered by GraphDef index) and so the
// same edge ids.
#ifndef DFG_LIB_GRAPH_GRAPH_IMPORT_H_
#define DFG_LIB_GRAPH_GRAPH_IMPORT_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"

namespace dfg {

struct ImportOptions {
  // Node names may start with '_' (runtime graphs: _Arg, _Recv...).
  bool allow_internal_ops = true;
  // Fill absent attrs with their OpDef defaults, as TensorFlow's import does.
  bool add_default_attributes = true;
  // Ops neither the registry nor the library knows load anyway: their output
  // count comes from the graph's own uses, `_output_shapes` and
  // `_output_types`; their dtypes are DT_INVALID unless `_output_types` says.
  // When false, such ops fail with TF's "Op type not registered" message.
  bool allow_unknown_ops = true;
  // Receives one line per unknown op type ("unknown op 'Foo' (3 nodes) ...").
  std::vector<std::string>* warnings = nullptr;  // Not owned; may be null.
  // Receive, on success, the node made of each GraphDef node (by GraphDef
  // index), and the GraphDef index and name of each attr the import filled
  // in from its OpDef default (add_default_attributes), in node order: what
  // a stage needs to give the nodes back as they came (PlaceGraphDef).
  std::vector<Node*>* nodes_by_index = nullptr;  // Not owned; may be null.
  std::vector<std::pair<int, std::string>>* added_defaults = nullptr;
};

// Errors (TF's wording, kInvalidArgument unless noted):
//   "Node 'X' is not unique", "Node 'X': Unknown input node 'Y'",
//   "Node 'X': Control dependencies must come after regular dependencies",
//   "Node 'X': Connecting to invalid output K of source node Y which has N
//   outputs.", "N nodes in a cycle", "Node 'X' had a back edge, but only Merge
//   nodes can have back edges.", kNotFound "Op type not registered 'Foo'
//   ..."...
StatusOr<std::unique_ptr<Graph>> ImportGraphDef(
    GraphDef def, const ImportOptions& options = {});
// The same, taking the nodes of `*def` over instead of copying them: on
// return (error or not) `*def` has no nodes, and its library and debug_info
// have moved into the graph. When `*def` lives on a protobuf Arena, the graph
// keeps its NodeDefs there (nothing is copied) and must be destroyed before
// the arena.
StatusOr<std::unique_ptr<Graph>> ImportGraphDef(
    GraphDef* def, const ImportOptions& options = {});

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_GRAPH_IMPORT_H_
