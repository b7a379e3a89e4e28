// The step loop, its session, and the outputs of `dfg run`.
#include "lib/savedmodel/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "lib/base/strings.h"
#include "lib/io/graph_io.h"
#include "lib/io/npy.h"
#include "lib/tensor_io/tensor_io.h"

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

StatusOr<RunOutcome> RunSteps(LoadedGraph model, const Step& step,
                              const RunStepsOptions& options) {
  RunOutcome outcome;
  StepFn run_step;
  if (options.remote) {
    DFG_ASSIGN_OR_RETURN(
        run_step, options.remote(std::move(model.graph), &outcome.stats));
  } else {
    DFG_ASSIGN_OR_RETURN(
        outcome.session,
        LoadSavedModel(std::move(model.graph), model.meta_graph, options.load));
    run_step = SessionStepFn(*outcome.session);
  }
  StepStatsCollector collector;
  RepeatOptions repeat = options.repeat;
  repeat.run = options.load.run;
  repeat.last_step_observer = options.collect_stats ? &collector : nullptr;
  DFG_ASSIGN_OR_RETURN(outcome.results, RunRepeated(run_step, step, repeat));
  // A remote step function has left its tasks' statistics in outcome.stats.
  if (outcome.session) outcome.stats = collector.Take();
  return outcome;
}

Status WriteRunOutputs(const RunOutcome& outcome, const Step& step,
                       const RunOutputOptions& options, std::ostream& out,
                       std::ostream& err) {
  if (!options.trace.empty()) {
    std::vector<std::string> devices;  // remote: as the tasks report them
    if (outcome.session) devices = outcome.session->devices();
    DFG_RETURN_IF_ERROR(WriteFileAtomically(
        options.trace, ChromeTraceJson(outcome.stats, devices)));
  }
  if (options.stats) err << StatsTable(outcome.stats);
  if (options.latencies) err << LatencyLine(outcome.results.latencies_us);
  if (!options.output_dir.empty()) {
    return WriteTensorsToDir(options.output_dir, step.fetch_names,
                             outcome.results.outputs);
  }
  out << FormatOutputs(step.fetch_names, outcome.results.outputs, options.json);
  return Status::Ok();
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

std::string FormatOutputs(const std::vector<std::string>& names,
                          const std::vector<Tensor>& tensors, bool json) {
  std::string out;
  if (json) {
    // In fetch order (a tensor fetched twice appears once).
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (size_t i = 0; i < tensors.size(); ++i) {
      j[names[i]] = nlohmann::ordered_json(TensorToJson(tensors[i]));
    }
    return j.dump(2) + "\n";
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    out += FormatTensor(names[i], tensors[i]);
  }
  return out;
}

Status WriteTensorsToDir(const std::string& dir,
                         const std::vector<std::string>& names,
                         const std::vector<Tensor>& tensors) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return InvalidArgument("{}: cannot create directory: {}", dir,
                           ec.message());
  }
  std::vector<std::string> blobs;
  for (const Tensor& t : tensors) {
    DFG_ASSIGN_OR_RETURN(NpyArray array, NpyFromTensor(t));
    DFG_ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(array));
    blobs.push_back(std::move(bytes));
  }
  for (size_t i = 0; i < names.size() && i < blobs.size(); ++i) {
    DFG_RETURN_IF_ERROR(WriteFileAtomically(
        (std::filesystem::path(dir) / FetchFileName(names[i])).string(),
        blobs[i]));
  }
  return Status::Ok();
}

}  // namespace dfg
