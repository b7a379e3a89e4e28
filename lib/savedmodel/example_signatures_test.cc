// The tf.Example signatures of TensorFlow Serving's half_plus_two test model
// (../shared/savedmodels): ParseExample inside a real SavedModel, with the
// values TensorFlow Serving's own tests expect (y = 0.5 x + 2 for
// regress_x_to_y and classify_x_to_y; y2 = 0.5 x + 3 for regress_x_to_y2).
#include <sstream>

#include "lib/io/graph_io.h"
#include "lib/savedmodel/loader.h"
#include "lib/savedmodel/savedmodel_test_util.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "subcommands/run/step.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

struct Result {
  Status status;
  std::vector<Tensor> outputs;
};

Result RunExamples(const std::string& signature, const std::string& examples) {
  auto shared = testing::SharedDir("savedmodels");
  REQUIRE(shared.has_value());
  LoadedGraph model = testing::ReadModel(
      *shared + "/tfserving__saved_model_half_plus_two_cpu/00000123");
  StepRequest request;
  request.signature = signature;
  request.examples = {examples};
  auto outputs = testing::TryRunModel(std::move(model), request);
  if (!outputs.ok()) return {outputs.status(), {}};
  return {Status::Ok(), std::move(outputs).value()};
}

std::vector<float> Floats(const Tensor& t) {
  auto f = t.flat<float>();
  return std::vector<float>(f.begin(), f.end());
}

TEST_CASE("half_plus_two's tf.Example signatures parse and compute",
          "[savedmodel]") {
  if (!testing::SharedDir("savedmodels")) {
    WARN("../shared/savedmodels is absent: skipped");
    return;
  }
  auto regress =
      RunExamples("regress_x_to_y", R"(inputs=[{"x": [1.0]}, {"x": [4.0]}])");
  REQUIRE(regress.status.ok());
  REQUIRE(regress.outputs.size() == 1);
  CHECK(Floats(regress.outputs[0]) == std::vector<float>{2.5f, 4.0f});
  auto classify = RunExamples("classify_x_to_y", R"(inputs=[{"x": [2.0]}])");
  REQUIRE(classify.status.ok());
  CHECK(Floats(classify.outputs[0]) == std::vector<float>{3.0f});
  // y2 = 0.5 x + 3; x2 (parsed beside x, with a default) is not needed.
  auto regress2 = RunExamples(
      "regress_x_to_y2", R"(inputs=[{"x": [1.0]}, {"x": [4.0], "x2": [9.0]}])");
  REQUIRE(regress2.status.ok());
  CHECK(Floats(regress2.outputs[0]) == std::vector<float>{3.5f, 5.0f});
}

TEST_CASE("a tf.Example without the required feature fails as in TF",
          "[savedmodel]") {
  if (!testing::SharedDir("savedmodels")) {
    WARN("../shared/savedmodels is absent: skipped");
    return;
  }
  auto missing = RunExamples("regress_x_to_y", R"(inputs=[{"z": [1.0]}])");
  CHECK(missing.status.code() == Code::kInvalidArgument);
  CHECK_THAT(missing.status.message(),
             Contains("Feature: x (data type: float) is required but could "
                      "not be found."));
  auto wrong = RunExamples("regress_x_to_y", R"(inputs=[{"x": [1.0, 2.0]}])");
  CHECK_THAT(wrong.status.message(),
             Contains("Key: x, Index: 0.  Number of float values != "
                      "expected.  Values size: 2 but output shape: [1]"));
}

}  // namespace
}  // namespace dfg
