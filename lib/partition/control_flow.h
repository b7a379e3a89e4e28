// Control-flow frames (TensorFlow's BuildControlFlowInfo, TF-SEMANTICS.md
// §4.4): which while-loop frame every node runs in. An Enter opens the frame
// named by its `frame_name` attr; an Exit's outputs return to the parent
// frame; every other node runs in the frame of its inputs.
//
// Partition uses it to find edges that cross devices inside a loop; the
// executor uses it to give each node its frame. It depends on nothing but the
// graph.
#ifndef DFG_LIB_PARTITION_CONTROL_FLOW_H_
#define DFG_LIB_PARTITION_CONTROL_FLOW_H_

#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"

namespace dfg {

// One per node id. For a node in the root frame, `frame` and `parent_frame`
// are _SOURCE and `frame_name` is empty. For a node inside a loop, `frame` is
// the Enter that opened the frame (for an Enter: itself) and `parent_frame`
// is the frame node of the enclosing frame. Nodes unreachable from _SOURCE
// keep null pointers.
struct ControlFlowInfo {
  const Node* frame = nullptr;         // Not owned.
  const Node* parent_frame = nullptr;  // Not owned.
  std::string frame_name;
};

// Fills `info` (resized to graph.num_node_ids()) by a breadth-first walk from
// _SOURCE over out-edges in edge-id order. When `unreachable_nodes` is given
// it receives the names of op nodes the walk did not reach, in id order.
//
// Errors (TensorFlow's wording):
//   kInvalidArgument "{{node X}} has inputs from different frames. The input
//     {{node A}} is in frame 'f1'. The input {{node B}} is in frame 'f2'.";
//   kInvalidArgument "The Enter {{node X}} must have a frame name.";
//   kInvalidArgument "Invalid loop structure: Loop \"f\" has more than one
//     LoopCond node: ..." (unless one of the names contains "LoopCounter");
//   kInternal "Invalid loop structure: Mismatched parent frames for \"f\":
//   ...".
Status BuildControlFlowInfo(
    const Graph& graph, std::vector<ControlFlowInfo>* info,
    std::vector<std::string>* unreachable_nodes = nullptr);

// "{{node X}}", how TensorFlow names a node in an error message.
std::string FormatNodeForError(const Node& node);

}  // namespace dfg

#endif  // DFG_LIB_PARTITION_CONTROL_FLOW_H_
