// Running a prepared step the way `dfg run` does: on a local session (a
// SavedModel loaded into it first) or on another step function (a cluster's
// master); warm-up steps, N timed repeats (each sees the variable updates of
// the ones before, as one TensorFlow session does), and what is written
// afterwards: the trace, the statistics, the latencies and the outputs
// (printed, or as .npy files).
#ifndef DFG_LIB_SAVEDMODEL_RUNNER_H_
#define DFG_LIB_SAVEDMODEL_RUNNER_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/exec/session.h"
#include "lib/exec/step_stats.h"
#include "lib/kernels/tensor.h"
#include "lib/savedmodel/loader.h"
#include "lib/savedmodel/step.h"

namespace dfg {

struct RepeatOptions {
  int repeat = 1;  // timed steps (at least 1)
  int warmup = 0;  // untimed steps before them
  // Nodes run once, with the step's feeds, before the first step (variable
  // initializers of graphs that are not SavedModels: --init-target).
  std::vector<std::string> init_targets;
  // Nodes run once, with the step's feeds, after the last step (a saver's
  // save op after training: --final-target).
  std::vector<std::string> final_targets;
  RunOptions run;
  ExecutionObserver* last_step_observer = nullptr;  // Not owned; may be null.
  // Called before each step with (step index, total steps); may be empty.
  std::function<void(int, int)> progress;
};

// One step: feeds, fetches, targets -> outputs in fetch order (a local
// Session's Run, or a cluster's master for `dfg run --master`).
using StepFn = std::function<Status(
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
    const RunOptions& options)>;

// `session`'s Run as a StepFn. The session must outlive it.
StepFn SessionStepFn(Session& session);

struct StepResults {
  std::vector<Tensor> outputs;       // of the last step, one per fetch
  std::vector<double> latencies_us;  // one per timed step
};

// Runs the init targets, then the step warmup + repeat times, then the final
// targets, stopping at the first error. The outputs are the last step's.
StatusOr<StepResults> RunRepeated(const StepFn& run_step, const Step& step,
                                  const RepeatOptions& options);

// Where RunSteps runs the steps and what it records.
struct RunStepsOptions {
  // The local session (a SavedModel is restored and initialized first);
  // load.run (timeout, cancellation) applies to every step.
  LoadOptions load;
  RepeatOptions repeat;  // its `run` and `last_step_observer` are set here
  bool collect_stats = false;  // node statistics of the last step
  // When set, the steps run on the step function it makes for the graph
  // instead of a local session (`dfg run --master`); a step run with an
  // observer leaves its node statistics (from every task) in *stats.
  std::function<StatusOr<StepFn>(tensorflow::GraphDef graph,
                                 std::vector<NodeStat>* stats)>
      remote;
};

struct RunOutcome {
  StepResults results;
  std::vector<NodeStat> stats;  // the last step's, with collect_stats
  // The local session (its devices and last partitions); null when remote.
  std::unique_ptr<Session> session;
};

// Loads `model` into a session (or makes the remote step function) and runs
// RunRepeated. Errors: loading (LoadSavedModel's), the remote session's
// creation, and the first step that fails.
StatusOr<RunOutcome> RunSteps(LoadedGraph model, const Step& step,
                              const RunStepsOptions& options);

// What `dfg run` writes after the steps, in this order.
struct RunOutputOptions {
  std::string trace;       // FILE: Chrome trace JSON of the last step
  bool stats = false;      // the StatsTable on `err`
  bool latencies = false;  // the LatencyLine on `err`
  std::string output_dir;  // DIR: WriteTensorsToDir; else printed on `out`
  bool json = false;       // printed as FormatOutputs(json)
};

// Writes the outcome's trace, statistics, latencies and outputs. Errors:
// the files that cannot be written (nothing further is written then).
Status WriteRunOutputs(const RunOutcome& outcome, const Step& step,
                       const RunOutputOptions& options, std::ostream& out,
                       std::ostream& err);

// A RepeatOptions::progress that shows "step i/N" on `err` (a terminal) for
// runs of more than 100 steps, about 20 times.
std::function<void(int, int)> StepProgress(std::ostream& err);

// "N steps: min X us, median Y us, p90 Z us\n".
std::string LatencyLine(std::vector<double> us);

// The outputs as `dfg run` prints them: numpy-like, one per name, or (json)
// one JSON object keyed by name in fetch order.
std::string FormatOutputs(const std::vector<std::string>& names,
                          const std::vector<Tensor>& tensors, bool json);

// Writes tensor i as DIR/<FetchFileName(names[i])>; every tensor is
// serialized before any file is written, so a failure leaves no partial set.
Status WriteTensorsToDir(const std::string& dir,
                         const std::vector<std::string>& names,
                         const std::vector<Tensor>& tensors);

}  // namespace dfg

#endif  // DFG_LIB_SAVEDMODEL_RUNNER_H_
