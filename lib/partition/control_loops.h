// Internal to lib/partition: the graph rewrites Partition does before it cuts
// (TF-SEMANTICS.md §3.2, §3.6). Not part of the public interface.
#ifndef DFG_LIB_PARTITION_CONTROL_LOOPS_H_
#define DFG_LIB_PARTITION_CONTROL_LOOPS_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"
#include "lib/partition/control_flow.h"

namespace dfg::partition_internal {

using NewNameFn = std::function<std::string(std::string_view prefix)>;

// Re-assigns control-flow nodes, in depth-first pre-order from _SOURCE (the
// last out-edge explored first, as TensorFlow's DFS): a Switch to the device
// of its data input, an Exit to the device of its first data input, a
// non-ref Enter and a NextIteration to the device of their first data
// consumer.
void OptimizeControlFlowColocation(Graph* graph);

// True for the Merge nodes of control loops ("_cloop..."), whose control
// edges to cross-device consumers Partition moves onto the recvs.
bool IsControlLoopMerge(const Node& node);

// Builds the frames, optimizes colocation, then adds a control loop per
// (frame, device) that a cross-device edge inside a loop needs, and a control
// edge from that loop's Merge to each such consumer. `cf_info` is left
// covering the added nodes too.
Status AddControlFlow(Graph* graph, const NewNameFn& new_name,
                      std::vector<ControlFlowInfo>* cf_info);

}  // namespace dfg::partition_internal

#endif  // DFG_LIB_PARTITION_CONTROL_LOOPS_H_
