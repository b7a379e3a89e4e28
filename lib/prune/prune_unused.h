// PruneUnused: removing what nothing needs from a GraphDef, without the feed
// and fetch rewriting of RewriteGraphForExecution (prune.h). The nodes no
// root reaches backwards over data and control inputs are removed, then the
// `_class` colocation entries (`loc:@x`) that name removed nodes, then the
// library functions no kept node uses. Prune runs the same two clean-ups
// (prune_internal.h holds them once) on its Graph; this is the form for a
// caller that has built its own inputs and outputs and holds a GraphDef, as
// `dfg freeze` does.
#ifndef DFG_LIB_PRUNE_PRUNE_UNUSED_H_
#define DFG_LIB_PRUNE_PRUNE_UNUSED_H_

#include <string>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/prune/prune.h"

namespace dfg {

// The names of the nodes that `roots` need: the nodes they name and, through
// data and control inputs, every ancestor. A root is a tensor name ("n",
// "n:k") or "^n"; names of no node are ignored. In no particular order.
std::vector<std::string> NeededNodes(const GraphDef& graph,
                                     const std::vector<std::string>& roots);

struct PruneUnusedOptions {
  // What the pruned graph must still compute (as for NeededNodes).
  std::vector<std::string> roots;
  // Node names kept even when no root needs them (a model's declared inputs).
  std::vector<std::string> keep;
  // For a graph that is never differentiated (a frozen inference graph):
  // remove every gradient entry and registered gradient of the library and
  // keep no function only for being a gradient. Otherwise the gradients of
  // kept functions, the functions they name and the registered gradients'
  // functions are kept.
  bool drop_gradients = false;
};

// Removes from `graph`, in place, the nodes no root needs and nothing keeps
// (the others keep their order), the colocation entries naming removed nodes
// and the library functions no kept node reaches through its op or a
// func-valued attr (recursively through function bodies); a library left
// empty is cleared. Fills the report's dropped_colocations,
// dropped_functions and warnings; `report` may be null. No errors.
void PruneUnused(GraphDef* graph, const PruneUnusedOptions& options,
                 PruneReport* report);

}  // namespace dfg

#endif  // DFG_LIB_PRUNE_PRUNE_UNUSED_H_
