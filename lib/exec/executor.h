// The executor: runs one partition graph's dataflow for one step
// (TensorFlow's ExecutorImpl + ExecutorState + PropagatorState,
// TF-SEMANTICS.md §4.2–4.4).
//
// Built once per partition: kernels, a flat array of node items with their
// out-edges and input slot offsets, and a template per while-loop frame. Per
// step: pending and dead counts and input slots per frame iteration, a ready
// queue. Dead tensors travel through Switch/Merge/Send/Recv; Enter, Exit and
// NextIteration move values between frames and iterations, with at most
// `parallel_iterations` iterations of a frame in flight.
//
// What is ready is kept apart from how it runs: Args::runner runs expensive
// nodes (a thread pool); without a runner every node runs inline on the
// calling thread, deterministically.
#ifndef DFG_LIB_EXEC_EXECUTOR_H_
#define DFG_LIB_EXEC_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/function_calls.h"
#include "lib/graph/graph.h"
#include "lib/kernels/file_policy.h"
#include "lib/kernels/memory_budget.h"
#include "lib/kernels/op_kernel.h"
#include "lib/proto/function.pb.h"

namespace dfg {

// One executed node, for traces and statistics.
struct NodeExecRecord {
  const Node* node = nullptr;  // Not owned.
  int64_t start_ns = 0;        // steady clock
  int64_t end_ns = 0;
  int thread_id = -1;  // the inter-op pool thread, -1 for the calling thread
  FrameAndIter frame_iter;
  bool is_dead = false;
  // Output shapes and bytes (absent outputs are skipped).
  std::vector<std::pair<TensorShape, int64_t>> outputs;
  // A node of a called function's body (If, While, PartitionedCall...): the
  // calling nodes' names, outermost first, joined by '/', and the outermost
  // caller's device. Empty for the nodes of the graph itself.
  std::string call_path;
  std::string call_device;
};

// Observes the nodes of a step, and of the function bodies its nodes call
// (reported with NodeExecRecord::call_path set, before their caller).
class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  // Called once per executed (or dead-skipped) node, from any thread.
  virtual void NodeDone(const NodeExecRecord& record) = 0;
};

struct ExecutorOptions {
  std::string device;  // full device name, for messages
  std::string device_type = "CPU";
  // The functions that If/While/PartitionedCall and calls by op name run.
  // Null: the graph's own library (copied once).
  std::shared_ptr<const tensorflow::FunctionDefLibrary> library;
  // The call graph of `library` (null: built with it), shared by nested
  // executors so that a deep chain of functions reads the library once.
  std::shared_ptr<const FunctionCallGraph> call_graph;
  // The paths kernels may touch, here and in every function the graph
  // calls (a server's --allow-path). Null: any path.
  std::shared_ptr<const FilePolicy> file_policy;
};

class Executor {
 public:
  // Builds the kernels and items of `graph` (a partition graph with its
  // _SOURCE and _SINK). Errors: a node without a kernel (TF's "No OpKernel
  // was registered ..."), kernel construction errors, an Enter without a
  // frame name.
  static StatusOr<std::unique_ptr<Executor>> Create(
      std::unique_ptr<Graph> graph, const ExecutorOptions& options);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  struct Args {
    int64_t step_id = 0;
    RendezvousInterface* rendezvous = nullptr;     // Not owned.
    CallFrameInterface* call_frame = nullptr;      // Not owned.
    ResourceMgr* resource_mgr = nullptr;           // Not owned.
    const std::atomic<bool>* cancelled = nullptr;  // Not owned.
    ThreadPoolInterface* intra_op_pool = nullptr;  // Not owned.
    // Runs a closure (expensive nodes, async continuations). Null: inline.
    std::function<void(std::function<void()>)> runner;
    // With a runner: an async kernel that finishes on a thread running no
    // node of any executor (a network thread) goes on with what it made
    // ready on that thread, by the inline rules of the executor's own
    // threads, instead of handing all of it to `runner`.
    bool continue_on_done_thread = false;
    ExecutionObserver* observer = nullptr;  // Not owned; may be null.
    // Charged for the tensors the step's kernels allocate; an allocation
    // over it fails its node (kResourceExhausted). Not owned; may be null.
    MemoryBudget* memory_budget = nullptr;
  };
  using DoneCallback = std::function<void(const Status&)>;

  // Runs one step; `done` is called once, with the first error or OK, after
  // every started node has finished. On the first error the step's
  // rendezvous is aborted so that other executors stop too.
  void RunAsync(const Args& args, DoneCallback done);
  // RunAsync and wait.
  Status Run(const Args& args);

  const Graph& graph() const;
  const std::string& device() const;

  struct Impl;

 private:
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfg

#endif  // DFG_LIB_EXEC_EXECUTOR_H_
