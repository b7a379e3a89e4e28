#include "lib/savedmodel/runner.h"

#include <sstream>

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

TEST_CASE("RunSteps runs warm-up and timed steps on a local session",
          "[savedmodel][run]") {
  RunStepsOptions options;
  options.load.session.inter_op_threads = 1;
  options.repeat.repeat = 3;
  options.repeat.warmup = 2;
  options.collect_stats = true;
  std::vector<int> progress;
  options.repeat.progress = [&](int i, int steps) {
    CHECK(steps == 5);
    progress.push_back(i);
  };
  auto outcome = RunSteps(AddGraph(), FetchC(), options);
  REQUIRE(outcome.ok());
  REQUIRE(outcome->session != nullptr);
  CHECK(progress == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(outcome->results.latencies_us.size() == 3);
  REQUIRE(outcome->results.outputs.size() == 1);
  CHECK(outcome->results.outputs[0].scalar<float>() == 5);
  bool saw_c = false;
  for (const NodeStat& s : outcome->stats) saw_c |= s.node == "c";
  CHECK(saw_c);

  std::ostringstream out, err;
  RunOutputOptions output;
  output.latencies = true;
  REQUIRE(WriteRunOutputs(*outcome, FetchC(), output, out, err).ok());
  CHECK_THAT(out.str(), Contains("c"));
  CHECK_THAT(out.str(), Contains("5"));
  CHECK_THAT(err.str(), Contains("3 steps: min"));
}

TEST_CASE("RunSteps runs on the remote step function when one is given",
          "[savedmodel][run]") {
  RunStepsOptions options;
  options.collect_stats = true;
  int made = 0, ran = 0;
  options.remote = [&](tensorflow::GraphDef graph,
                       std::vector<NodeStat>* stats) -> StatusOr<StepFn> {
    ++made;
    CHECK(graph.node_size() == 3);
    return StepFn([&ran, stats](const auto&, const auto& fetches, const auto&,
                                std::vector<Tensor>* outputs,
                                const RunOptions& run) {
      ++ran;
      CHECK(run.observer != nullptr);
      *outputs = {Tensor::Scalar<float>(7)};
      stats->assign(1, NodeStat{.node = "remote_c"});
      CHECK(fetches == std::vector<std::string>{"c"});
      return Status::Ok();
    });
  };
  auto outcome = RunSteps(AddGraph(), FetchC(), options);
  REQUIRE(outcome.ok());
  CHECK(outcome->session == nullptr);
  CHECK(made == 1);
  CHECK(ran == 1);
  REQUIRE(outcome->stats.size() == 1);
  CHECK(outcome->stats[0].node == "remote_c");
  CHECK(outcome->results.outputs[0].scalar<float>() == 7);

  options.remote = [](tensorflow::GraphDef, std::vector<NodeStat>*) {
    return StatusOr<StepFn>(Unavailable("no master at grpc://x:1"));
  };
  auto failed = RunSteps(AddGraph(), FetchC(), options);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().code() == Code::kUnavailable);
  CHECK_THAT(failed.status().message(), Contains("no master"));
}

TEST_CASE("WriteRunOutputs writes the fetches to a directory or fails",
          "[savedmodel][run]") {
  RunStepsOptions options;
  options.load.session.inter_op_threads = 1;
  auto outcome = RunSteps(AddGraph(), FetchC(), options);
  REQUIRE(outcome.ok());
  std::ostringstream out, err;
  RunOutputOptions output;
  output.output_dir = "/proc/dfg_runner_test/no";
  Status s = WriteRunOutputs(*outcome, FetchC(), output, out, err);
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Contains("cannot create directory"));
  CHECK(out.str().empty());
  CHECK(err.str().empty());
}

TEST_CASE("CheckStepSyntax names the flag whose value has no '='",
          "[savedmodel][run]") {
  StepRequest request;
  request.feeds = {"x=[1]"};
  CHECK(CheckStepSyntax(request).ok());
  request.examples = {"=[]"};
  Status s = CheckStepSyntax(request);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Contains("--examples takes KEY=JSON, got '=[]'"));
  request.feeds.push_back("x");
  CHECK_THAT(CheckStepSyntax(request).message(),
             Contains("--feed takes TENSOR=FILE, got 'x'"));
}

}  // namespace
}  // namespace dfg
