#include "subcommands/run/repeat.h"

#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

// c = a + b with a = 2, b = 3: a graph with no variables and no SavedModel.
LoadedGraph AddGraph() {
  LoadedGraph model;
  model.graph = testing::ParseTextProto<tensorflow::GraphDef>(
      testing::ScalarConstText("a", "DT_FLOAT", "float_val: 2") +
      testing::ScalarConstText("b", "DT_FLOAT", "float_val: 3") + R"pb(
        node {
          name: "c"
          op: "AddV2"
          input: "a"
          input: "b"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
      )pb");
  return model;
}

Step FetchC() {
  Step step;
  step.fetches = step.fetch_names = {"c"};
  return step;
}

TEST_CASE("RunLocally runs warm-up and timed steps on a local session",
          "[run]") {
  LocalRunOptions options;
  options.load.session.inter_op_threads = 1;
  options.repeat.repeat = 3;
  options.repeat.warmup = 2;
  options.collect_stats = true;
  std::vector<int> progress;
  options.repeat.progress = [&](int i, int steps) {
    CHECK(steps == 5);
    progress.push_back(i);
  };
  auto outcome = RunLocally(AddGraph(), FetchC(), options);
  REQUIRE(outcome.ok());
  REQUIRE(outcome->session != nullptr);
  CHECK(progress == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(outcome->results.latencies_us.size() == 3);
  REQUIRE(outcome->results.outputs.size() == 1);
  CHECK(outcome->results.outputs[0].scalar<float>() == 5);
  bool saw_c = false;
  for (const NodeStat& s : outcome->stats) saw_c |= s.node == "c";
  CHECK(saw_c);
}

TEST_CASE("RunRepeated runs the init targets, the steps and the final targets",
          "[run]") {
  std::vector<std::string> calls;
  int observed = 0;
  StepFn fake = [&](const auto& feeds, const auto& fetches, const auto& targets,
                    std::vector<Tensor>* outputs,
                    const RunOptions& run) -> Status {
    CHECK(feeds.size() == 1);
    calls.push_back(fetches.empty() ? targets.at(0) : fetches.at(0));
    observed += run.observer != nullptr;
    *outputs = {Tensor::Scalar<float>(float(calls.size()))};
    return Status::Ok();
  };
  Step step = FetchC();
  step.feeds.emplace_back("a", Tensor::Scalar<float>(1));
  StepStatsCollector collector;
  RepeatOptions options;
  options.repeat = 2;
  options.warmup = 1;
  options.init_targets = {"init"};
  options.final_targets = {"save"};
  options.last_step_observer = &collector;
  auto results = RunRepeated(fake, step, options);
  REQUIRE(results.ok());
  CHECK(calls == std::vector<std::string>{"init", "c", "c", "c", "save"});
  // The last step is observed, and the final targets after it run with the
  // same options (so --trace and --stats include them).
  CHECK(observed == 2);
  CHECK(results->latencies_us.size() == 2);
  REQUIRE(results->outputs.size() == 1);
  CHECK(results->outputs[0].scalar<float>() == 4);

  StepFn failing = [](const auto&, const auto&, const auto&,
                      std::vector<Tensor>*, const RunOptions&) {
    return Unavailable("no master at grpc://x:1");
  };
  auto failed = RunRepeated(failing, step, options);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().code() == Code::kUnavailable);
  CHECK_THAT(failed.status().message(), Contains("no master"));
}

TEST_CASE("LatencyLine gives the count, minimum, median and p90", "[run]") {
  CHECK(LatencyLine({}) == "0 steps\n");
  CHECK(LatencyLine({30, 10, 20}) ==
        "3 steps: min 10.0 us, median 20.0 us, p90 30.0 us\n");
}

}  // namespace
}  // namespace dfg
