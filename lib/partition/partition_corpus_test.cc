// The invariant checker over every corpus graph: placed on several device
// sets (and with devices assigned at random), partitioned by device and by
// worker, the partitions must be a faithful split of the placed graph.
#include <fstream>
#include <random>
#include <sstream>

#include "lib/graph/graph_import.h"
#include "lib/io/graph_io.h"
#include "lib/partition/check.h"
#include "lib/partition/partition.h"
#include "lib/place/device_set.h"
#include "lib/place/place.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

struct Setup {
  std::string name;
  std::vector<std::string> devices;
  bool soft = false;
  bool random = false;  // assign each node a random device of the set
  PartitionBy by = PartitionBy::kDevice;
};

std::vector<Setup> Setups() {
  return {
      {"cpu:0,cpu:1", {"cpu:0", "cpu:1"}},
      {"cpu:0,gpu:0", {"cpu:0", "gpu:0"}},
      {"gpu:0,gpu:1 soft", {"gpu:0", "gpu:1"}, true},
      {"cpu:0,gpu:0,gpu:1 soft", {"cpu:0", "gpu:0", "gpu:1"}, true},
      {"two workers soft by worker",
       {"/job:localhost/task:0/cpu:0", "/job:localhost/task:0/gpu:0",
        "/job:localhost/task:1/cpu:0", "/job:localhost/task:1/gpu:0"},
       true,
       false,
       PartitionBy::kWorker},
      {"random cpu:0,cpu:1,gpu:0", {"cpu:0", "cpu:1", "gpu:0"}, false, true},
      {"random by worker",
       {"/job:w/task:0/cpu:0", "/job:w/task:0/gpu:0", "/job:w/task:1/cpu:0"},
       false,
       true,
       PartitionBy::kWorker},
  };
}

// Graphs TensorFlow's Partition refuses too: malformed while loops.
bool IsLoopStructureError(const Status& status) {
  for (const char* phrase :
       {"must have a pivot predicate", "has inputs from different frames",
        "Invalid loop structure", "must have a frame name"}) {
    if (status.message().find(phrase) != std::string::npos) return true;
  }
  return false;
}

StatusOr<std::unique_ptr<Graph>> Load(const std::string& path) {
  std::ifstream unused;
  DFG_ASSIGN_OR_RETURN(LoadedGraph loaded, ReadGraph(path, unused));
  return ImportGraphDef(std::move(loaded.graph));
}

// Places `graph` as `setup` says; false (with a message) when it cannot be.
bool PlaceFor(const Setup& setup, Graph* graph, std::mt19937* rng,
              std::string* why) {
  auto devices = DeviceSetFromFlags(setup.devices);
  REQUIRE(devices.ok());
  if (setup.random) {
    for (Node* node : graph->op_nodes()) {
      const auto& all = devices->devices();
      node->set_assigned_device_name(all[(*rng)() % all.size()].name);
    }
    return true;
  }
  PlaceOptions options;
  options.allow_soft_placement = setup.soft;
  Status s = Place(graph, *devices, options);
  if (!s.ok()) *why = s.ToString();
  return s.ok();
}

TEST_CASE("partitions of every corpus graph satisfy the invariants",
          "[partition][corpus]") {
  if (!testing::CorpusDir()) {
    WARN("corpus directory not found; skipping");
    return;
  }
  int checked = 0;
  int with_control_loops = 0;  // partitions given cross-device loop control
  for (const std::string& path : testing::CorpusFiles()) {
    std::mt19937 rng(20240601);
    for (const Setup& setup : Setups()) {
      auto graph = Load(path);
      if (!graph.ok()) {
        WARN("skip " << path << ": " << graph.status().ToString());
        break;
      }
      std::string why;
      if (!PlaceFor(setup, graph->get(), &rng, &why)) {
        WARN("skip " << path << " on " << setup.name << ": "
                     << why.substr(0, 200));
        continue;
      }
      GraphDef original = (*graph)->ToGraphDef();
      PartitionOptions options;
      options.by = setup.by;
      auto parts = Partition(graph->get(), options);
      INFO(path << " on " << setup.name);
      if (!parts.ok() && IsLoopStructureError(parts.status())) {
        WARN("skip " << path << " on " << setup.name << ": "
                     << parts.status().ToString());
        continue;
      }
      INFO(parts.status().ToString());
      REQUIRE(parts.ok());
      Status check = CheckPartitions(original, *parts, setup.by);
      INFO(check.ToString());
      CHECK(check.ok());
      ++checked;
      for (const auto& [key, part] : *parts) {
        for (const NodeDef& node : part.node()) {
          if (node.name().rfind("_cloop", 0) == 0) {
            ++with_control_loops;
            break;
          }
        }
      }
    }
  }
  CHECK(checked > 0);
  // Random placements split the corpus's while loops across devices.
  CHECK(with_control_loops > 0);
  WARN(checked << " partitionings checked; " << with_control_loops
               << " partitions with control loops");
}

}  // namespace
}  // namespace dfg
