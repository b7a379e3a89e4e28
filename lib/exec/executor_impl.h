// Internals of the executor shared by its two files: what is built once per
// partition (executor.cc) and what lives for one step (executor_state.cc).
#ifndef DFG_LIB_EXEC_EXECUTOR_IMPL_H_
#define DFG_LIB_EXEC_EXECUTOR_IMPL_H_

#include <memory>
#include <string>
#include <vector>

#include "lib/exec/executor.h"
#include "lib/exec/function_runtime.h"

namespace dfg {

// An out-edge of a node item. Control edges have src_output = dst_input = -1.
struct EdgeInfo {
  int dst = 0;  // item index
  int src_output = 0;
  int dst_input = 0;
  bool is_control = false;
  bool is_last = false;  // last data edge reading src_output: may move
};

struct NodeItem {
  const Node* node = nullptr;  // Not owned.
  std::unique_ptr<OpKernel> kernel;
  int frame = 0;        // template index of the frame the node runs in
  int local_id = 0;     // index in its frame's pending/dead counts
  int input_start = 0;  // first input slot in its frame's iteration
  int num_inputs = 0;
  int num_outputs = 0;
  int num_data_inputs = 0;  // Merge: dead when this many data inputs are dead
  int initial_pending = 0;
  bool is_merge = false;
  bool is_switch = false;
  bool is_enter = false;
  bool is_constant_enter = false;
  bool is_exit = false;
  bool is_next_iteration = false;
  bool is_control_trigger = false;
  bool is_transfer = false;  // _Send/_Recv family: runs even when dead
  bool is_recv = false;
  bool is_async = false;
  bool is_expensive = true;
  int child_frame = -1;          // Enter: template index of its frame
  int parallel_iterations = 10;  // Enter
  std::string child_frame_name;  // Enter
  std::vector<bool> input_is_ref;
  std::vector<EdgeInfo> out_edges;
};

struct FrameTemplate {
  std::string name;  // "" for the root frame
  int num_nodes = 0;
  int total_inputs = 0;
  int num_enters = 0;  // Enter nodes that feed an instance of this frame
  std::vector<int> initial_pending;  // by local id
};

struct Executor::Impl {
  std::unique_ptr<Graph> graph;
  ExecutorOptions options;
  std::vector<NodeItem> items;
  std::vector<FrameTemplate> frames;  // [0] is the root frame
  std::vector<int> root_items;        // ready at the start of a step
  // No control-flow ops at all: one frame, one iteration, no Merge; pending
  // counts are updated with atomics instead of under the frame's mutex.
  bool simple = true;
  // Runs library functions (If, While, PartitionedCall, calls by op name).
  std::unique_ptr<FunctionRuntime> functions;

  Status Build();
  void RunAsync(const Args& args, DoneCallback done) const;
};

// "{{node X}}".
std::string NodeForError(const Node& node);

}  // namespace dfg

#endif  // DFG_LIB_EXEC_EXECUTOR_IMPL_H_
