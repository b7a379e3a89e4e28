// The graph DirectSession partitions, numbered as TensorFlow numbers it.
//
// Partition's tensor_name attrs ("edge_<id>_<src>") and its "/_<k>" names show
// the ids and the order of the graph TensorFlow partitions. With
// place_pruned_graph (the pipeline `dfg prune | dfg place | dfg partition`
// reproduces) that graph comes from a chain of copies
// (GraphExecutionState::InitBaseGraph and BuildGraph):
//   G1 = ConvertGraphDefToGraph(the whole GraphDef), then
//        RewriteGraphForExecution on G1 (feed and fetch nodes and their edges
//        appended, the fed edges and the pruned nodes removed, leaving holes;
//        FixupSourceAndSinkEdges), then the Placer (ids unchanged);
//   G2 = CopyGraph(G1) (BuildGraph; Grappler is off for a pruned graph),
//        then the POST_REWRITE_FOR_EXEC passes (ReplicateConstantsPass);
//   G3 = CopyGraph(G2) (the "dense copy"), which Partition cuts.
// Each copy takes the nodes in id order and the live edges in id order after
// its own _SOURCE->_SINK edge. So G3 orders nodes and edges as G1 does, and
// an edge's G3 id is 2 + its rank in G1 (PartitionOptions::graph_copies = 2),
// with the edges ReplicateConstants adds after them.
//
// `dfg prune` writes G1's nodes in id order: the kept nodes of the original
// graph in import order, then the feed nodes, then the fetch nodes. Importing
// that GraphDef anew orders it otherwise (a feed node comes before its
// consumers), so ImportClientGraph rebuilds G1's order from it instead.
#ifndef DFG_LIB_PARTITION_CLIENT_GRAPH_H_
#define DFG_LIB_PARTITION_CLIENT_GRAPH_H_

#include <memory>

#include "lib/base/status.h"
#include "lib/graph/graph.h"
#include "lib/graph/graph_import.h"

namespace dfg {

// Imports a GraphDef as the graph TensorFlow's session would partition for
// it, in G1's node and edge order (the overview above).
//
// The feed and fetch nodes of a rewrite are the GraphDef's last nodes that
// are _Arg "_arg_...", _Retval "_retval_...", or client-terminated _Recv
// "_recv_..." / _Send "_send_..." (what `dfg prune` appends). Without them, the
// plain import is G1's order already. With them, the other nodes are taken in
// the import's order of a graph without the feed nodes (their file order, for
// `dfg prune`'s output), and the edges as G1 has them: the import's edges
// between those nodes (back edges last), the _SOURCE/_SINK edges of the import,
// then per feed node the _SOURCE edge and its out edges in its consumers'
// order, per fetch node its in edge and the _SINK edge, then the _SOURCE/_SINK
// edges pruning needs.
//
// A node that reaches no other node but fetch nodes had no consumers in the
// original graph (its _SINK edge comes before the rewrite's edges), unless
// `dfg prune` marked it with kConsumersPrunedAttr (lib/graph/pipeline_attrs.h:
// its _SINK edge comes from pruning, after them); the attr is removed from
// every node. A fed node's consumers are taken in id order (TensorFlow's order
// for up to 8 out edges; beyond, its EdgeSet is a hash set).
//
// Errors: those of ImportGraphDef.
StatusOr<std::unique_ptr<Graph>> ImportClientGraph(
    GraphDef def, const ImportOptions& options = {});
// The same, taking the nodes of `*def` over (ImportGraphDef(GraphDef*)): when
// `*def` lives on a protobuf Arena, the graph keeps its NodeDefs there, never
// copied, and must be destroyed before the arena.
StatusOr<std::unique_ptr<Graph>> ImportClientGraph(
    GraphDef* def, const ImportOptions& options = {});

}  // namespace dfg

#endif  // DFG_LIB_PARTITION_CLIENT_GRAPH_H_
