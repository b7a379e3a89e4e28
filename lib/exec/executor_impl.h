// Internals of the executor shared by its files: what is built once per
// partition (executor.cc), the frame and iteration bookkeeping of a step
// (propagator.{h,cc}) and the step itself (executor_state.cc).
#ifndef DFG_LIB_EXEC_EXECUTOR_IMPL_H_
#define DFG_LIB_EXEC_EXECUTOR_IMPL_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "lib/exec/executor.h"
#include "lib/exec/function_runtime.h"

namespace dfg {

// An out-edge of a node item. Control edges have src_output = dst_input = -1.
// The destination's frame-local facts are copied in so that propagation
// reads one array, not the destination's item.
struct EdgeInfo {
  int dst = 0;  // item index
  int src_output = 0;
  int dst_input = 0;
  int dst_local = 0;  // the destination's local id in its frame
  int dst_slot = 0;   // its input slot in the frame's iteration (data edges)
  bool is_control = false;
  bool is_last = false;  // last data edge reading src_output: may move
  // The destination waits for this edge only (one input, not a Merge): it
  // is ready when this edge fires, without touching its pending count.
  bool dst_single_input = false;
  bool dst_is_control_trigger = false;
  // The destination's kernel, which RunNode prefetches for the consumer
  // that runs next without reading the consumer's item first.
  const OpKernel* dst_kernel = nullptr;
};

// The fields a step reads for every node come first, within the item's
// first 64 bytes (RunNode prefetches the item's lines for the node that runs
// next): a big graph's items are out of the caches by the next step.
struct NodeItem {
  const Node* node = nullptr;  // Not owned.
  std::unique_ptr<OpKernel> kernel;
  // In Executor::Impl::edges, in the node's out-edge order.
  std::span<const EdgeInfo> out_edges;
  int frame = 0;        // template index of the frame the node runs in
  int local_id = 0;     // index in its frame's pending/dead counts
  int input_start = 0;  // first input slot in its frame's iteration
  int num_inputs = 0;
  int num_outputs = 0;
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
  bool has_ref_input = false;
  int num_data_inputs = 0;  // Merge: dead when this many data inputs are dead
  int initial_pending = 0;
  int child_frame = -1;          // Enter: template index of its frame
  int parallel_iterations = 10;  // Enter
  std::string child_frame_name;  // Enter
  std::vector<bool> input_is_ref;
};

struct FrameTemplate {
  std::string name;  // "" for the root frame
  int num_nodes = 0;
  int total_inputs = 0;
  int num_enters = 0;  // Enter nodes that feed an instance of this frame
  std::vector<int> initial_pending;  // by local id
};

struct IterationState;  // propagator.h
class ExecutorState;    // executor_state.cc

struct Executor::Impl {
  Impl();
  ~Impl();  // deletes the kept step states

  std::unique_ptr<Graph> graph;
  ExecutorOptions options;
  std::vector<NodeItem> items;
  // Every item's out edges, item after item (NodeItem::out_edges): a chain
  // reads them in order.
  std::vector<EdgeInfo> edges;
  std::vector<FrameTemplate> frames;  // [0] is the root frame
  std::vector<int> root_items;        // ready at the start of a step
  // No control-flow ops at all: one frame, one iteration, no Merge; pending
  // counts are updated with atomics instead of under the frame's mutex.
  bool simple = true;
  // Runs library functions (If, While, PartitionedCall, calls by op name).
  std::unique_ptr<FunctionRuntime> functions;

  Status Build();
  void RunAsync(const Args& args, DoneCallback done) const;

  // A step's state (its root frame's first iteration, with input slots,
  // pending and dead counts all sized by the graph, and its buffers) is kept
  // between steps: a step takes one, or makes one when concurrent steps
  // hold them all, and gives it back reset when it finishes.
  ExecutorState* TakeState() const;
  void ReturnState(ExecutorState* state) const;

 private:
  Status BuildItems(const std::vector<std::string>& frame_names);
  void BuildEdges();

  struct StateDeleter {
    void operator()(ExecutorState* state) const;
  };
  // The last state returned, taken without a lock: steps of a function
  // called in a loop run one at a time.
  mutable std::atomic<ExecutorState*> last_state_{nullptr};
  mutable std::mutex spare_mu_;
  mutable std::vector<std::unique_ptr<ExecutorState, StateDeleter>>
      spare_;  // spare_mu_
};

}  // namespace dfg

#endif  // DFG_LIB_EXEC_EXECUTOR_IMPL_H_
