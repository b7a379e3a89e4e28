// Every corpus graph places onto a CPU and a GPU (or fails with a message),
// and a successful placement names a device of the set on every node.
#include <fstream>
#include <sstream>

#include "lib/io/graph_io.h"
#include "lib/place/place.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

TEST_CASE("corpus graphs place onto a CPU and a GPU", "[place][corpus]") {
  if (!testing::CorpusDir()) {
    WARN("corpus not found beside the repository; skipping");
    return;
  }
  DeviceSet devices = DeviceSetFromFlags({"cpu:0", "gpu:0"}).value();
  int placed = 0;
  for (const std::string& path : testing::CorpusFiles()) {
    INFO(path);
    std::istringstream no_stdin;
    StatusOr<LoadedGraph> loaded = ReadGraph(path, no_stdin);
    if (!loaded.ok()) continue;  // io's own tests cover unreadable files
    for (bool soft : {false, true}) {
      PlaceOptions options;
      options.allow_soft_placement = soft;
      options.explain = true;
      PlacementReport report;
      StatusOr<GraphDef> out =
          PlaceGraphDef(loaded->graph, devices, options, &report);
      if (!out.ok()) {
        CHECK_FALSE(out.status().message().empty());
        continue;
      }
      ++placed;
      REQUIRE(out->node_size() == loaded->graph.node_size());
      for (const NodeDef& node : out->node()) {
        INFO(node.name());
        CHECK(devices.FindDeviceByName(node.device()) >= 0);
      }
      CHECK(report.nodes.size() == static_cast<size_t>(out->node_size()));
    }
  }
  CHECK(placed > 0);
}

}  // namespace
}  // namespace dfg
