#include "lib/savedmodel/freeze.h"

#include <set>
#include <sstream>

#include "lib/savedmodel/savedmodel_test_util.h"
#include "lib/savedmodel/step.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

using testing::ReadModel;

std::string Affine() {
  return testing::SourceDir() + "/testdata/savedmodels/affine";
}

// Runs `graph` (as a plain graph, or as the loaded SavedModel when `model`)
// with the feeds and fetches given by key.
std::vector<Tensor> RunGraph(tensorflow::GraphDef graph,
                             const LoadedGraph* model,
                             const std::vector<std::string>& feeds,
                             const std::vector<std::string>& fetches,
                             const std::string& signature) {
  LoadedGraph loaded;
  if (model != nullptr) loaded = *model;
  loaded.graph = std::move(graph);
  StepRequest request;
  request.feeds = feeds;
  request.fetches = fetches;
  if (model != nullptr) request.signature = signature;
  return testing::RunModel(std::move(loaded), request);
}

std::set<std::string> Ops(const tensorflow::GraphDef& graph) {
  std::set<std::string> ops;
  for (const auto& n : graph.node()) ops.insert(n.op());
  return ops;
}

TEST_CASE("a frozen signature has placeholders and outputs named by its keys",
          "[savedmodel][freeze]") {
  LoadedGraph model = ReadModel(Affine());
  FreezeOptions options;
  options.signature = "square";
  auto frozen = FreezeSavedModel(model, options);
  INFO(frozen.status().ToString());
  REQUIRE(frozen.ok());
  std::set<std::string> names;
  for (const auto& n : frozen->node()) names.insert(n.name());
  CHECK(names == std::set<std::string>{"input", "two", "one", "mul", "y",
                                       "square", "affine", "squared"});
  CHECK(frozen->node(0).name() == "input");
  CHECK(frozen->node(0).op() == "Placeholder");
  CHECK(frozen->node(0).attr().at("shape").shape().dim(0).size() == -1);
  auto want = RunGraph(model.graph, &model, {"input=[1, -2]"}, {}, "square");
  auto got =
      RunGraph(*frozen, nullptr, {"input=[1, -2]"}, {"affine", "squared"}, "");
  REQUIRE(got.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(got[i].flat<float>()[0] == want[i].flat<float>()[0]);
    CHECK(got[i].flat<float>()[1] == want[i].flat<float>()[1]);
  }
}

TEST_CASE("a frozen variable holds its value after the init op",
          "[savedmodel][freeze]") {
  LoadedGraph model = ReadModel(Affine());
  FreezeOptions options;
  options.signature = "asset";
  auto frozen = FreezeSavedModel(model, options);
  INFO(frozen.status().ToString());
  REQUIRE(frozen.ok());
  CHECK(Ops(*frozen) == std::set<std::string>{"Const", "Identity"});
  auto got = RunGraph(*frozen, nullptr, {}, {"path"}, "");
  CHECK(got[0].scalar<std::string>() == Affine() + "/assets/vocab.txt");
}

TEST_CASE("freezing a signature that changes a variable is an error",
          "[savedmodel][freeze]") {
  LoadedGraph model = ReadModel(Affine());
  FreezeOptions options;
  options.signature = "count";
  auto frozen = FreezeSavedModel(model, options);
  REQUIRE_FALSE(frozen.ok());
  CHECK_THAT(frozen.status().message(),
             Catch::Matchers::Contains("'counter/update' (AssignVariableOp)"));
  options.signature = "nope";
  frozen = FreezeSavedModel(model, options);
  REQUIRE_FALSE(frozen.ok());
  CHECK(frozen.status().code() == Code::kNotFound);
  CHECK_THAT(frozen.status().message(),
             Catch::Matchers::Contains("serving_default, square"));
}

TEST_CASE("a node named like a signature key is renamed",
          "[savedmodel][freeze]") {
  LoadedGraph model = ReadModel(Affine());
  // serving_default's input key is x, which is also the fed node's name;
  // make 'x' a node that survives: the output reads x through 'mul'.
  FreezeOptions options;
  auto frozen = FreezeSavedModel(model, options);
  REQUIRE(frozen.ok());
  std::set<std::string> names;
  for (const auto& n : frozen->node()) names.insert(n.name());
  CHECK(names.count("x"));
  CHECK(names.count("y"));
  CHECK_FALSE(names.count("x_1"));  // the old x was pruned
  auto got = RunGraph(*frozen, nullptr, {"x=[2]"}, {"y"}, "");
  CHECK(got[0].flat<float>()[0] == 5.0f);
}

}  // namespace
}  // namespace dfg
