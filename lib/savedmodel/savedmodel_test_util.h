// Helpers of the SavedModel tests: read a model, and run a step on it the way
// `dfg run` does (its PrepareStep, then RunLocally: LoadSavedModel and the
// step on one inline thread).
#ifndef DFG_LIB_SAVEDMODEL_SAVEDMODEL_TEST_UTIL_H_
#define DFG_LIB_SAVEDMODEL_SAVEDMODEL_TEST_UTIL_H_

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lib/io/graph_io.h"
#include "lib/testing/catch.h"
#include "subcommands/run/repeat.h"
#include "subcommands/run/step.h"

namespace dfg::testing {

// The graph, SavedModel or MetaGraphDef at `path`; the test fails when it
// does not read.
inline LoadedGraph ReadModel(const std::string& path) {
  std::istringstream no_stdin;
  auto loaded = ReadGraph(path, no_stdin);
  INFO(path << ": " << loaded.status().ToString());
  REQUIRE(loaded.ok());
  return std::move(loaded).value();
}

// Runs `request` on `model` `runs` times in one session and returns the last
// outputs, or the first error of loading or of a step. The test fails when
// the request does not resolve (PrepareStep).
inline StatusOr<std::vector<Tensor>> TryRunModel(LoadedGraph model,
                                                 const StepRequest& request,
                                                 int runs = 1) {
  auto step = PrepareStep(model, request);
  INFO(step.status().ToString());
  REQUIRE(step.ok());
  LocalRunOptions options;
  options.load.session.inter_op_threads = 1;
  options.load.export_dir = model.export_dir;
  options.repeat.repeat = runs;
  DFG_ASSIGN_OR_RETURN(RunOutcome outcome,
                       RunLocally(std::move(model), *step, options));
  return std::move(outcome.results.outputs);
}

// TryRunModel that must succeed.
inline std::vector<Tensor> RunModel(LoadedGraph model,
                                    const StepRequest& request, int runs = 1) {
  auto outputs = TryRunModel(std::move(model), request, runs);
  INFO(outputs.status().ToString());
  REQUIRE(outputs.ok());
  return std::move(outputs).value();
}

}  // namespace dfg::testing

#endif  // DFG_LIB_SAVEDMODEL_SAVEDMODEL_TEST_UTIL_H_
