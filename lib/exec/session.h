// The session: TensorFlow's DirectSession for dfg (TF-SEMANTICS.md §4.1).
//
// Create imports and places the whole graph once (soft placement on by
// default; lib/pipeline's ExecutionState). Each Run validates feeds and
// fetches, sorts feeds, fetches and targets as DirectSession does, and looks
// up or builds the executors for that signature: the client graph (function
// convention: _Arg/_Retval on the client device) → PartitionClientGraph
// (session-wide name counter, incarnation 1) → one executor per partition. The
// executors of a step share one inter-op thread pool and one rendezvous; feeds
// and fetches go through a call frame; the first error aborts the rendezvous
// and is the step's result. Variables live in one ResourceMgr per device and
// persist across steps.
#ifndef DFG_LIB_EXEC_SESSION_H_
#define DFG_LIB_EXEC_SESSION_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/exec/executor.h"
#include "lib/kernels/tensor.h"
#include "lib/pipeline/execution_state.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

struct SessionOptions {
  // --devices values (cpu:0, full names, @cluster.json); empty: one CPU.
  // Only CPU devices get executors; other device types are placed onto but
  // cannot run (use soft placement to move their nodes to CPUs).
  std::vector<std::string> devices;
  bool allow_soft_placement = true;
  // 0 (auto): a step runs inline on the calling thread (kernels still split
  // their work over the intra-op pool), unless its graph holds an op that
  // may wait for another node of the step (StagingArea's Unstage and Stage,
  // an accumulator's TakeGradient, MutexLock), which gets a pool of one
  // thread per core; 1: always inline; N: a pool of N threads. On a few
  // cores a second pool competes with the intra-op one: BERT-tiny runs 1.45x
  // and a Keras LSTM 1.6x faster inline than with both.
  int inter_op_threads = 0;
  int intra_op_threads = 0;  // 0: the number of cores
  // Run lib/optimize on every client graph (DirectSession runs Grappler).
  bool optimize = true;
  // Keep each signature's partition graphs for last_partitions(). Off, the
  // executors take the partitions' nodes over instead of copying them (a
  // big graph is not held twice) and last_partitions() is empty.
  bool keep_partitions = true;
};

struct RunOptions {
  int64_t timeout_ms = 0;                        // 0: no timeout
  const std::atomic<bool>* cancelled = nullptr;  // Not owned; e.g. SIGINT
  ExecutionObserver* observer = nullptr;         // Not owned; trace/stats
};

class Session {
 public:
  // Errors: import and placement errors, a device that is not a CPU where a
  // node must run.
  static StatusOr<std::unique_ptr<Session>> Create(
      GraphDef graph, const SessionOptions& options);
  ~Session();

  // Runs one step. `outputs` receives one tensor per fetch, in the order
  // given (a fetch named twice gets the same tensor twice). Errors in
  // DirectSession's order and wording (§4.1.3), then kernel errors naming
  // the node; a timeout gives kDeadlineExceeded, cancellation kCancelled.
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, const RunOptions& run_options = {});

  // The partition graphs that ran for the signature of the last Run, by
  // device (`dfg run --dump-partitions`); empty without
  // SessionOptions::keep_partitions.
  const std::map<std::string, GraphDef>& last_partitions() const;
  // The device names of the session, client device first.
  const std::vector<std::string>& devices() const;

  struct Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The ExecutionState options of Session::Create: the devices of
// `options.devices` (one CPU when empty), its soft placement, removed ops
// refused. Errors: DeviceSetFromFlags's.
StatusOr<ExecutionStateOptions> SessionStateOptions(
    const SessionOptions& options);

// What the session runs for one signature.
struct SessionGraphs {
  std::map<std::string, GraphDef> partitions;  // by device
  // Instead of `partitions`, when the caller allows it and the client graph
  // is on one device without control-flow ops: partitioning would copy it
  // whole into one GraphDef, which the executor would import again, so the
  // session runs the client graph itself (every node's NodeDef names its
  // assigned device, as in a partition).
  std::unique_ptr<Graph> whole;
  std::string whole_device;
  std::vector<DataType> arg_types, ret_types;  // of the call frame
  // From the optimizer: the graph may write resources; it froze variables.
  bool writes_resources = false;
  int frozen_variables = 0;
};

// The partitions the session builds for a signature (feeds, fetches and
// targets sorted, as Run sorts them): the client graph in the function
// convention on the first device, then PartitionClientGraph with
// incarnation 1 and new names from the session's `name_counter`; with
// `optimize` (may be null), through lib/optimize on the way. Errors:
// BuildClientGraph's, "Op type not registered" for an op dfg does not know,
// PartitionClientGraph's. `may_keep_whole`: a one-device graph may come
// back as `whole` instead of partitioned.
StatusOr<SessionGraphs> BuildSessionGraphs(
    const ExecutionState& state, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::atomic<int64_t>* name_counter,
    const OptimizeOptions* optimize, bool may_keep_whole = false);

// What `dfg run` fetches when told nothing: output 0 of every node that no
// other node consumes (data or control), in graph order; such nodes without
// outputs (NoOp) become targets instead.
void DefaultFetchesAndTargets(const GraphDef& graph,
                              std::vector<std::string>* fetches,
                              std::vector<std::string>* targets);

}  // namespace dfg

#endif  // DFG_LIB_EXEC_SESSION_H_
