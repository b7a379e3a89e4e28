#include "lib/savedmodel/freeze.h"

#include <set>
#include <sstream>

#include "lib/savedmodel/savedmodel_test_util.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "subcommands/run/step.h"

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

TEST_CASE("a frozen lookup table keeps its initializer and init_all_tables",
          "[savedmodel][freeze]") {
  LoadedGraph model =
      ReadModel(testing::SourceDir() + "/testdata/savedmodels/vocab_table");
  auto frozen = FreezeSavedModel(model, FreezeOptions());
  INFO(frozen.status().ToString());
  REQUIRE(frozen.ok());
  CHECK(Ops(*frozen) == std::set<std::string>{"Placeholder", "HashTableV2",
                                              "InitializeTableFromTextFileV2",
                                              "Const", "LookupTableFindV2",
                                              "Identity", "NoOp"});
  std::string path;
  for (const auto& n : frozen->node()) {
    if (n.name() == "init_all_tables") {
      REQUIRE(n.input_size() == 1);
      CHECK(n.input(0) == "^table/init");
    }
    if (n.name() == "table/init") {
      REQUIRE(n.input_size() == 2);
      CHECK(n.input(0) == "table");
      CHECK(n.input(1) == "table/init/filename");
    }
    if (n.name() == "table/init/filename") {
      path = n.attr().at("value").tensor().string_val(0);
    }
    if (n.op() == "Placeholder") CHECK(n.name() == "words");
  }
  // The asset's absolute path, so that the frozen graph runs anywhere.
  CHECK(path.front() == '/');
  CHECK(path.ends_with("/testdata/savedmodels/vocab_table/assets/vocab.txt"));
  const std::vector<std::string> feed = {
      "words=[\"palmer\", \"x\", \"emerson\"]"};
  auto want = RunGraph(model.graph, &model, feed, {}, "serving_default");
  // A plain graph runs its init_all_tables at load (loader.h).
  auto got = RunGraph(*frozen, nullptr, feed, {"ids"}, "");
  REQUIRE(want.size() == 1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].SummarizeValue() == "[ 2 -1  0]");
  CHECK(got[0].SummarizeValue() == want[0].SummarizeValue());

  // Without the init op nothing says what the table holds.
  model.meta_graph.mutable_signature_def()->erase("__saved_model_init_op");
  auto no_init = FreezeSavedModel(model, FreezeOptions());
  REQUIRE_FALSE(no_init.ok());
  CHECK_THAT(no_init.status().message(),
             Catch::Matchers::Contains("node 'table' is a lookup table and the "
                                       "SavedModel has no init op to fill it"));
}

TEST_CASE("freezing a mutable lookup table is an error",
          "[savedmodel][freeze]") {
  LoadedGraph model =
      ReadModel(testing::SourceDir() + "/testdata/savedmodels/mutable_table");
  auto frozen = FreezeSavedModel(model, FreezeOptions());
  REQUIRE_FALSE(frozen.ok());
  CHECK(frozen.status().code() == Code::kInvalidArgument);
  CHECK_THAT(
      frozen.status().message(),
      Catch::Matchers::Contains(
          "node 'table' (MutableHashTableV2) is a mutable lookup table"));
}

}  // namespace
}  // namespace dfg
