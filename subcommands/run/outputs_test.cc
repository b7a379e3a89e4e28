#include "subcommands/run/outputs.h"

#include <sstream>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

// c = 5 after three timed steps.
RunOutcome FiveFromThreeSteps() {
  RunOutcome outcome;
  outcome.results.outputs = {Tensor::Scalar<float>(5)};
  outcome.results.latencies_us = {12, 10, 11};
  return outcome;
}

Step FetchC() {
  Step step;
  step.fetches = step.fetch_names = {"c"};
  return step;
}

TEST_CASE("WriteRunOutputs prints the fetches and the latencies", "[run]") {
  std::ostringstream out, err;
  RunOutputOptions output;
  output.latencies = true;
  REQUIRE(
      WriteRunOutputs(FiveFromThreeSteps(), FetchC(), output, out, err).ok());
  CHECK_THAT(out.str(), Contains("c"));
  CHECK_THAT(out.str(), Contains("5"));
  CHECK(err.str() == "3 steps: min 10.0 us, median 11.0 us, p90 12.0 us\n");

  std::ostringstream json, quiet;
  output.latencies = false;
  output.json = true;
  REQUIRE(WriteRunOutputs(FiveFromThreeSteps(), FetchC(), output, json, quiet)
              .ok());
  CHECK_THAT(json.str(), Contains("\"c\""));
  CHECK(quiet.str().empty());
}

TEST_CASE("WriteRunOutputs writes the fetches to a directory or fails",
          "[run]") {
  std::ostringstream out, err;
  RunOutputOptions output;
  output.output_dir = "/proc/dfg_runner_test/no";
  Status s = WriteRunOutputs(FiveFromThreeSteps(), FetchC(), output, out, err);
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Contains("cannot create directory"));
  CHECK(out.str().empty());
  CHECK(err.str().empty());
}

}  // namespace
}  // namespace dfg
