// Pieces of prune shared between its .cc files; not a public interface.
#ifndef DFG_LIB_PRUNE_PRUNE_INTERNAL_H_
#define DFG_LIB_PRUNE_PRUNE_INTERNAL_H_

#include <string_view>
#include <unordered_set>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/proto/tensor_shape.pb.h"
#include "lib/prune/prune.h"

namespace dfg::prune_internal {

// The shape of output `port` of `node` when the graph says it: a Placeholder's
// or PlaceholderWithDefault's `shape` attr, a Const's value shape, else the
// node's `_output_shapes` entry. False when none of them is there.
bool KnownShape(const Node& node, int port,
                tensorflow::TensorShapeProto* shape);

// The Placeholder that stands for feed (`fed`, `port`) in the placeholder
// convention: dtype, shape (unknown rank when not known), `_output_shapes`
// when the fed node had them, and no device (as strip_unused_lib). Named
// provisionally; FinalizePlaceholderNames names it.
Node* AddFeedPlaceholder(Graph* graph, const Node& fed, int port,
                         DataType dtype);

// Names each surviving placeholder-convention feed node `feeds[i]` after its
// tensor: "<node>" for port 0, "<node>_<k>" for port k; when a kept node
// already has that name, "_1", "_2"... is appended. `ports` and `fed_names`
// are indexed like `feeds` (null entries: pruned away).
void FinalizePlaceholderNames(Graph* graph, const std::vector<Node*>& feeds,
                              const std::vector<std::string>& fed_names,
                              const std::vector<int>& ports);

// By node id: whether the node has an out edge to an op node (a consumer).
std::vector<bool> HasConsumers(const Graph& graph);

// Sets kConsumersPrunedAttr on each node with id < `original_ids` that had a
// consumer (`had_consumers`) but has none among those nodes any more.
void MarkPrunedConsumers(Graph* graph, int original_ids,
                         const std::vector<bool>& had_consumers);

// The clean-ups after the unneeded nodes are gone, shared by Prune (on a
// Graph) and PruneUnused (on a GraphDef, prune_unused.h).

// Drops the `_class` entries `loc:@x` of `nodes` whose x is not in `live`
// (the kept nodes' names), recording each and one warning in `report`.
void DropDanglingColocations(const std::vector<NodeDef*>& nodes,
                             const std::unordered_set<std::string_view>& live,
                             PruneReport* report);

// Removes the functions of `library` that none of `nodes` reaches through
// its op or a func-valued attr, recursively through function bodies, and
// their gradient entries (see PruneUnusedOptions::drop_gradients).
void PruneLibrary(const std::vector<const NodeDef*>& nodes, bool drop_gradients,
                  FunctionDefLibrary* library, PruneReport* report);

// Both, on the live op nodes and the library of `graph`.
void CleanUp(Graph* graph, PruneReport* report);

}  // namespace dfg::prune_internal

#endif  // DFG_LIB_PRUNE_PRUNE_INTERNAL_H_
