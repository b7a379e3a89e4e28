#include "lib/base/progress.h"

#include <sstream>
#include <thread>

#include "lib/testing/catch.h"

namespace dfg {
namespace {

using std::chrono::milliseconds;

TEST_CASE("progress line shows a long stage's percentage and clears it",
          "[base]") {
  std::ostringstream err;
  {
    ProgressLine line(&err, "dfg run", milliseconds(0));
    ProgressStage stage("placing 10 nodes", 10);
    stage.Set(4);
    std::this_thread::sleep_for(milliseconds(600));
  }
  const std::string out = err.str();
  CHECK(out.find("\rdfg run: placing 10 nodes... 40%") != std::string::npos);
  // Ends with the line blanked and the cursor back at its start.
  REQUIRE(out.size() >= 2);
  CHECK(out.back() == '\r');
  CHECK(out.find('\n') == std::string::npos);
}

TEST_CASE("progress line stays silent for stages shorter than its delay",
          "[base]") {
  std::ostringstream err;
  {
    ProgressLine line(&err, "dfg run", milliseconds(60000));
    ProgressStage stage("pruning", 0);
    std::this_thread::sleep_for(milliseconds(600));
  }
  CHECK(err.str().empty());
}

TEST_CASE("progress stages print nothing without a line", "[base]") {
  std::ostringstream err;
  {
    ProgressLine line(nullptr, "dfg run", milliseconds(0));
    ProgressStage stage("placing", 3);
    stage.Set(1);
    std::this_thread::sleep_for(milliseconds(250));
  }
  CHECK(err.str().empty());
}

TEST_CASE(
    "progress line shows the innermost stage, in seconds without a "
    "total",
    "[base]") {
  std::ostringstream err;
  {
    ProgressLine line(&err, "dfg run", milliseconds(0));
    ProgressStage outer("building executors", 5);
    ProgressStage inner("optimizing");
    std::this_thread::sleep_for(milliseconds(600));
  }
  CHECK(err.str().find("dfg run: optimizing... 0 s") != std::string::npos);
  CHECK(err.str().find("building executors") == std::string::npos);
}

}  // namespace
}  // namespace dfg
