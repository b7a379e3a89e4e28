// The step loop of `dfg run` and its local session.
#include "subcommands/run/repeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace dfg {

StepFn SessionStepFn(Session& session) {
  return [&session](const auto& feeds, const auto& fetches, const auto& targets,
                    std::vector<Tensor>* outputs, const RunOptions& run) {
    return session.Run(feeds, fetches, targets, outputs, run);
  };
}

StatusOr<StepResults> RunRepeated(const StepFn& run_step, const Step& step,
                                  const RepeatOptions& options) {
  StepResults results;
  RunOptions run = options.run;
  const int steps = std::max(1, options.repeat) + std::max(0, options.warmup);
  if (!options.init_targets.empty()) {
    DFG_RETURN_IF_ERROR(
        run_step(step.feeds, {}, options.init_targets, &results.outputs, run));
  }
  for (int i = 0; i < steps; ++i) {
    if (options.progress) options.progress(i, steps);
    run.observer = i == steps - 1 ? options.last_step_observer : nullptr;
    auto start = std::chrono::steady_clock::now();
    DFG_RETURN_IF_ERROR(run_step(step.feeds, step.fetches, step.targets,
                                 &results.outputs, run));
    auto us = std::chrono::duration<double, std::micro>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    if (i >= options.warmup) results.latencies_us.push_back(us);
  }
  if (!options.final_targets.empty()) {
    std::vector<Tensor> unused;
    DFG_RETURN_IF_ERROR(
        run_step(step.feeds, {}, options.final_targets, &unused, run));
  }
  return results;
}

StatusOr<RunOutcome> RunLocally(LoadedGraph model, const Step& step,
                                const LocalRunOptions& options) {
  RunOutcome outcome;
  DFG_ASSIGN_OR_RETURN(
      outcome.session,
      LoadSavedModel(std::move(model.graph), model.meta_graph, options.load));
  StepStatsCollector collector;
  RepeatOptions repeat = options.repeat;
  repeat.last_step_observer = options.collect_stats ? &collector : nullptr;
  DFG_ASSIGN_OR_RETURN(
      outcome.results,
      RunRepeated(SessionStepFn(*outcome.session), step, repeat));
  outcome.stats = collector.Take();
  return outcome;
}

std::function<void(int, int)> StepProgress(std::ostream& err) {
  return [&err](int i, int steps) {
    if (steps > 100 && i % (steps / 20) == 0)
      err << fmt::format("\rstep {}/{}", i + 1, steps) << std::flush;
  };
}

std::string LatencyLine(std::vector<double> us) {
  if (us.empty()) return "0 steps\n";
  std::sort(us.begin(), us.end());
  auto at = [&](double q) {
    return us[std::min(us.size() - 1, size_t(q * us.size()))];
  };
  return fmt::format(
      "{} steps: min {:.1f} us, median {:.1f} us, p90 {:.1f} us\n", us.size(),
      us.front(), at(0.5), at(0.9));
}

}  // namespace dfg
