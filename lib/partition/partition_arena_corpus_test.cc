// PartitionOnArena (the nodes' definitions moved into partitions on the
// input's arena, what `dfg partition` does) gives the partitions Partition
// gives with copied definitions, byte for byte, over every corpus graph
// placed or randomly assigned as `dfg partition` would see it.
#include <google/protobuf/arena.h>

#include <filesystem>
#include <random>
#include <sstream>

#include "lib/io/graph_io.h"
#include "lib/partition/client_graph.h"
#include "lib/partition/partition.h"
#include "lib/partition/replicate_constants.h"
#include "lib/place/device_set.h"
#include "lib/place/place.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

struct Setup {
  std::vector<std::string> devices;
  bool random = false;  // each node on a random device of the set
  PartitionBy by = PartitionBy::kDevice;
};

// Imports the file's graph as the CLI does (onto `arena` when set), places
// it and replicates small constants; null when any step fails.
std::unique_ptr<Graph> Prepare(const std::string& path, const Setup& setup,
                               google::protobuf::Arena* arena) {
  std::istringstream no_stdin;
  LoadedGraph info;
  StatusOr<GraphDef*> def =
      ReadGraphOnArena(path, no_stdin, ReadOptions(), arena, &info);
  if (!def.ok()) return nullptr;
  StatusOr<std::unique_ptr<Graph>> graph = ImportClientGraph(*def);
  if (arena == nullptr) delete *def;
  if (!graph.ok()) return nullptr;
  DeviceSet devices = DeviceSetFromFlags(setup.devices).value();
  if (setup.random) {
    std::mt19937 rng(20240601);
    for (Node* node : (*graph)->op_nodes()) {
      const auto& all = devices.devices();
      node->set_assigned_device_name(all[rng() % all.size()].name);
    }
  } else if (!Place(graph->get(), devices, PlaceOptions()).ok()) {
    return nullptr;
  }
  if (!ReplicateSmallConstants(graph->get()).ok()) return nullptr;
  return std::move(graph).value();
}

PartitionOptions Options(const Setup& setup, std::vector<Transfer>* transfers) {
  PartitionOptions options;
  options.by = setup.by;
  options.graph_copies = 2;
  options.transfers = transfers;
  options.can_make_destructive_changes = true;
  return options;
}

std::string Text(const GraphDef& graph) {
  return SerializeGraph(graph, GraphFormat::kPbtxt).value();
}

// "" when both ways give the same partitions and transfers (or both fail).
std::string Compare(const std::string& path, const Setup& setup, int* taken) {
  std::unique_ptr<Graph> copied = Prepare(path, setup, nullptr);
  google::protobuf::Arena arena;
  std::unique_ptr<Graph> moved = Prepare(path, setup, &arena);
  if ((copied == nullptr) != (moved == nullptr)) return "preparing differs";
  if (copied == nullptr) return "";
  std::vector<Transfer> copied_transfers, moved_transfers;
  auto expected = Partition(copied.get(), Options(setup, &copied_transfers));
  auto actual = PartitionOnArena(moved.get(), Options(setup, &moved_transfers));
  if (expected.ok() != actual.ok()) return "one of them fails";
  if (!expected.ok()) {
    return expected.status().ToString() == actual.status().ToString()
               ? ""
               : "the errors differ";
  }
  ++*taken;
  if (expected->size() != actual->size()) return "partition counts differ";
  for (const auto& [key, part] : *expected) {
    auto it = actual->find(key);
    if (it == actual->end()) return "no partition " + key;
    if (it->second->GetArena() != &arena) return key + " is not on the arena";
    if (Text(part) != Text(*it->second)) return key + " differs";
    if (SerializeGraph(part, GraphFormat::kPb).value() !=
        SerializeGraph(*it->second, GraphFormat::kPb).value()) {
      return key + " differs in binary";
    }
  }
  if (copied_transfers.size() != moved_transfers.size()) {
    return "transfer counts differ";
  }
  for (size_t i = 0; i < copied_transfers.size(); ++i) {
    if (copied_transfers[i].tensor_name != moved_transfers[i].tensor_name ||
        copied_transfers[i].dsts != moved_transfers[i].dsts) {
      return "transfer " + copied_transfers[i].tensor_name + " differs";
    }
  }
  return "";
}

TEST_CASE("partitions on the arena are those of copied definitions",
          "[partition][corpus]") {
  if (!testing::CorpusDir()) {
    WARN("corpus directory not found; skipping");
    return;
  }
  const std::vector<Setup> setups = {
      {{"cpu:0", "gpu:0"}},
      {{"cpu:0", "cpu:1", "gpu:0"}, true},
      {{"/job:w/task:0/cpu:0", "/job:w/task:0/gpu:0", "/job:w/task:1/cpu:0"},
       true,
       PartitionBy::kWorker},
  };
  int taken = 0;
  for (const std::string& path : testing::CorpusFiles()) {
    for (size_t s = 0; s < setups.size(); ++s) {
      INFO(std::filesystem::path(path).filename().string() << " setup " << s);
      CHECK(Compare(path, setups[s], &taken) == "");
    }
  }
  CHECK(taken > 100);
  WARN(taken << " partitionings compared");
}

TEST_CASE("PartitionOnArena needs an arena", "[partition]") {
  Graph graph;
  auto parts = PartitionOnArena(&graph, PartitionOptions());
  CHECK(parts.status().code() == Code::kInternal);
}

}  // namespace
}  // namespace dfg
