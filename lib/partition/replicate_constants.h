// TensorFlow's ReplicateConstantsPass (TF 2.13+; a POST_REWRITE_FOR_EXEC pass
// that DirectSession runs by default, between placement and partitioning): a
// small Const on a CPU whose consumers sit on several devices is replaced by
// one copy per consumer device, "<name>/replicate/_<k>", so that no _Send is
// needed for it.
#ifndef DFG_LIB_PARTITION_REPLICATE_CONSTANTS_H_
#define DFG_LIB_PARTITION_REPLICATE_CONSTANTS_H_

#include "lib/base/status.h"
#include "lib/graph/graph.h"

namespace dfg {

// For each Const/HostConst (in node-id order) with more than one out edge,
// no control out edge, at most 16 elements, and an assigned CPU device: its
// consumers are grouped by device (a CPU consumer's own device, TensorFlow's
// enable_aggressive_constant_replication default; any other device's CPU:0
// on the same task). With two or more groups, each group gets a copy placed
// on that device, named by graph->NewName("<name>/replicate"), with a
// control edge from each of the original's in-nodes in edge order (_SOURCE
// included, as TensorFlow's CopyNode + AddControlEdge(allow_duplicates));
// the original is removed. Every node must have an assigned device.
Status ReplicateSmallConstants(Graph* graph);

}  // namespace dfg

#endif  // DFG_LIB_PARTITION_REPLICATE_CONSTANTS_H_
