// The SavedModels TensorFlow wrote (../shared/savedmodels, README there):
// every signature runs with the values TensorFlow's own tests expect, and
// the frozen graph of each gives the same outputs on its own. Skipped with a
// message where ../shared is absent.
#include <set>
#include <sstream>

#include "lib/savedmodel/freeze.h"
#include "lib/savedmodel/loader.h"
#include "lib/savedmodel/savedmodel_test_util.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "subcommands/run/step.h"

namespace dfg {
namespace {

struct Case {
  const char* model;  // under ../shared/savedmodels
  const char* signature;
  std::vector<std::string> feeds, examples;
  std::vector<float> expected;  // the single output's values
};

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"tfserving__saved_model_half_plus_two_cpu/00000123",
       "serving_default",
       {"x=[[1], [2], [5]]"},
       {},
       {2.5f, 3.0f, 4.5f}},
      {"tfserving__saved_model_half_plus_two_cpu/00000123",
       "regress_x2_to_y3",
       {"inputs=[[1], [2], [5]]"},
       {},
       {3.5f, 4.0f, 5.5f}},
      {"tfserving__saved_model_half_plus_two_cpu/00000123",
       "classify_x_to_y",
       {},
       {R"(inputs=[{"x": [1.0]}, {"x": [4.0]}])"},
       {2.5f, 4.0f}},
      {"tfserving__saved_model_half_plus_two_cpu/00000123",
       "regress_x_to_y",
       {},
       {R"(inputs=[{"x": [1.0]}, {"x": [4.0]}])"},
       {2.5f, 4.0f}},
      {"tfserving__saved_model_half_plus_two_cpu/00000123",
       "regress_x_to_y2",
       {},
       {R"(inputs=[{"x": [1.0]}, {"x": [4.0]}])"},
       {3.5f, 5.0f}},
      {"tfjs__times_three_float", "serving_default", {"x=2"}, {}, {6.0f}},
  };
  return *cases;
}

void CheckValues(const Tensor& t, const std::vector<float>& expected) {
  REQUIRE(t.dtype() == tensorflow::DT_FLOAT);
  REQUIRE(t.NumElements() == static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(t.flat<float>()[i] == expected[i]);
  }
}

TEST_CASE(
    "the real SavedModels run every signature and freeze to graphs "
    "with the same outputs",
    "[savedmodel][freeze]") {
  auto dir = testing::SharedDir("savedmodels");
  if (!dir) {
    WARN("../shared/savedmodels is absent: skipping the real SavedModels");
    return;
  }
  for (const Case& c : Cases()) {
    INFO(c.model << " " << c.signature);
    LoadedGraph model = testing::ReadModel(*dir + "/" + c.model);
    StepRequest request;
    request.signature = c.signature;
    request.feeds = c.feeds;
    request.examples = c.examples;
    auto out = testing::RunModel(model, request);
    REQUIRE(out.size() == 1);
    CheckValues(out[0], c.expected);

    FreezeOptions options;
    options.signature = c.signature;
    options.load.session.inter_op_threads = 1;
    auto frozen = FreezeSavedModel(model, options);
    INFO(frozen.status().ToString());
    REQUIRE(frozen.ok());
    for (const auto& node : frozen->node()) {
      INFO(node.name());
      for (const char* op :
           {"VariableV2", "VarHandleOp", "ReadVariableOp", "RestoreV2",
            "SaveV2", "StatefulPartitionedCall", "PartitionedCall", "Assign"}) {
        CHECK(node.op() != op);
      }
    }
    LoadedGraph standalone;
    standalone.graph = *std::move(frozen);
    StepRequest by_key = request;
    by_key.signature.clear();
    for (const auto& [key, info] : model.signatures.at(c.signature).outputs()) {
      by_key.fetches.push_back(key);
    }
    auto frozen_out = testing::RunModel(std::move(standalone), by_key);
    REQUIRE(frozen_out.size() == 1);
    CheckValues(frozen_out[0], c.expected);
  }
}

}  // namespace
}  // namespace dfg
