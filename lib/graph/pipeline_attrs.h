// Attributes one dfg stage writes for a later one, where a GraphDef alone
// cannot carry what TensorFlow's in-memory graph knows. Their names start with
// '_' (TensorFlow ignores such attrs when it checks a NodeDef against its op).
#ifndef DFG_LIB_GRAPH_PIPELINE_ATTRS_H_
#define DFG_LIB_GRAPH_PIPELINE_ATTRS_H_

namespace dfg {

// b: true, written by `dfg prune` (lib/prune Prune) when it added feed or
// fetch nodes, on each kept node that had consumers in the original graph and
// has none among the kept original nodes (a fetched or target node whose
// consumers were pruned, a kept fed node): TensorFlow's graph then had no
// _SINK edge for it before the rewrite. Read and removed by
// ImportClientGraph (lib/partition/client_graph.h), which numbers edges as
// TensorFlow does.
inline constexpr char kConsumersPrunedAttr[] = "_dfg_consumers_pruned";

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_PIPELINE_ATTRS_H_
