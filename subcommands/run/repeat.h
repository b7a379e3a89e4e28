// The step loop of `dfg run`: a step function (a local Session's Run, or a
// cluster master's for --master), warm-up steps, N timed repeats (each sees
// the variable updates of the ones before, as one TensorFlow session does),
// the progress shown on a terminal and the latency line. RunLocally composes
// the local case: LoadSavedModel (lib/savedmodel), then the loop on its
// session.
#ifndef DFG_SUBCOMMANDS_RUN_REPEAT_H_
#define DFG_SUBCOMMANDS_RUN_REPEAT_H_

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
#include "subcommands/run/step.h"

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

// What a run of the steps leaves for WriteRunOutputs (outputs.h).
struct RunOutcome {
  StepResults results;
  std::vector<NodeStat> stats;  // the last step's, when collected
  // The local session (its devices and last partitions); null on a cluster.
  std::unique_ptr<Session> session;
};

struct LocalRunOptions {
  // The session (a SavedModel is restored and initialized first); load.run
  // is the timeout and cancellation of the restore and init steps.
  LoadOptions load;
  // repeat.run: of every step; its `last_step_observer` is set here.
  RepeatOptions repeat;
  bool collect_stats = false;  // node statistics of the last step
};

// Loads `model` into a session (LoadSavedModel) and runs RunRepeated on it.
// Errors: LoadSavedModel's, and the first step that fails.
StatusOr<RunOutcome> RunLocally(LoadedGraph model, const Step& step,
                                const LocalRunOptions& options);

// A RepeatOptions::progress that shows "step i/N" on `err` (a terminal) for
// runs of more than 100 steps, about 20 times.
std::function<void(int, int)> StepProgress(std::ostream& err);

// "N steps: min X us, median Y us, p90 Z us\n".
std::string LatencyLine(std::vector<double> us);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_REPEAT_H_
