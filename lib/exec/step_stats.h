// What a step did, node by node: the observer `dfg run --trace/--stats`
// hands to the executors, a Chrome trace-event JSON (Perfetto opens it) and
// a table of time per op type and the slowest nodes.
#ifndef DFG_LIB_EXEC_STEP_STATS_H_
#define DFG_LIB_EXEC_STEP_STATS_H_

#include <mutex>
#include <string>
#include <vector>

#include "lib/exec/executor.h"

namespace dfg {

struct NodeStat {
  std::string node;
  std::string op;
  std::string device;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int thread_id = -1;
  FrameAndIter frame_iter;
  bool is_dead = false;
  std::vector<std::pair<TensorShape, int64_t>> outputs;
  std::vector<std::string> inputs;
  std::string tensor_name;  // _Send/_Recv: the transfer's tensor_name
  // A node of a called function's body: the full name of the node that
  // called it (`node` is "<caller>/<body node>"); empty otherwise.
  std::string caller;
};

class StepStatsCollector : public ExecutionObserver {
 public:
  void NodeDone(const NodeExecRecord& record) override;
  // Everything recorded so far, sorted by start time.
  std::vector<NodeStat> Take();

 private:
  std::mutex mu_;
  std::vector<NodeStat> stats_;  // guarded by mu_
};

// Chrome trace-event JSON: a process per device, a thread lane per executor
// thread, one complete ("X") event per node with op, inputs and outputs in
// args, flow events from each _Send to its _Recv. `devices` orders the
// processes. Times are relative to the first event.
std::string ChromeTraceJson(const std::vector<NodeStat>& stats,
                            const std::vector<std::string>& devices);

// Time per op type (count, total, mean) and the `top` slowest nodes. A
// function call's time counts once: its op type gets the time its body's
// nodes do not account for (the call's own), theirs the rest.
std::string StatsTable(const std::vector<NodeStat>& stats, int top = 10);

}  // namespace dfg

#endif  // DFG_LIB_EXEC_STEP_STATS_H_
