// Partition of an already placed graph of 1,000,000 nodes over 8 devices.
// Each node adds two earlier nodes (the previous one and one up to 64 back),
// so the graph is a long, locally connected DAG; the variants differ in how
// devices are laid over it, and so in how many edges cross devices:
//   Blocks   8 contiguous blocks (a pipeline): a few hundred transfers;
//   Stripes  blocks of 1000 nodes dealt round-robin: ~3% of edges cross;
//   Random   a random device per node: most edges cross.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <map>
#include <memory>
#include <random>

#include "lib/graph/graph.h"
#include "lib/partition/partition.h"
#include "lib/proto/attr_value.pb.h"

namespace dfg {
namespace {

constexpr int kNodes = 1000000;
constexpr int kDevices = 8;

enum class Layout { kBlocks, kStripes, kRandom };

std::unique_ptr<Graph> MakePlacedGraph(int num_nodes, Layout layout) {
  auto graph = std::make_unique<Graph>();
  std::vector<std::string> devices;
  for (int d = 0; d < kDevices; ++d) {
    devices.push_back("/job:localhost/replica:0/task:0/device:CPU:" +
                      std::to_string(d));
  }
  std::mt19937 rng(1);
  std::vector<Node*> nodes;
  nodes.reserve(num_nodes);
  const std::vector<DataType> one_float = {DataType::DT_FLOAT};
  for (int i = 0; i < num_nodes; ++i) {
    NodeDef def;
    def.set_name("layer" + std::to_string(i / 1000) + "/n" + std::to_string(i));
    if (i < 2) {
      def.set_op("Placeholder");
      (*def.mutable_attr())["dtype"].set_type(DataType::DT_FLOAT);
    } else {
      def.set_op("Add");
      (*def.mutable_attr())["T"].set_type(DataType::DT_FLOAT);
    }
    int d = 0;
    switch (layout) {
      case Layout::kBlocks:
        d = static_cast<int>(static_cast<int64_t>(i) * kDevices / num_nodes);
        break;
      case Layout::kStripes:
        d = (i / 1000) % kDevices;
        break;
      case Layout::kRandom:
        d = static_cast<int>(rng() % kDevices);
        break;
    }
    Node* node = i < 2
                     ? graph->AddNode(std::move(def), {}, one_float)
                     : graph->AddNode(std::move(def),
                                      {DataType::DT_FLOAT, DataType::DT_FLOAT},
                                      one_float);
    node->set_assigned_device_name(devices[d]);
    if (i >= 2) {
      int back = 1 + static_cast<int>(rng() % 64);
      graph->AddEdge(nodes[i - 1], 0, node, 0);
      graph->AddEdge(nodes[std::max(0, i - 1 - back)], 0, node, 1);
    }
    nodes.push_back(node);
  }
  FixupSourceAndSinkEdges(graph.get());
  return graph;
}

// Minor page faults so far: on a VM, first-touch faults of the ~850 bytes a
// copied NodeDef takes can cost more than the partitioning itself.
int64_t MinorFaults() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

void RunPartition(benchmark::State& state, Layout layout) {
  std::unique_ptr<Graph> graph = MakePlacedGraph(kNodes, layout);
  int64_t nodes_out = 0;
  int64_t faults = MinorFaults();
  for (auto _ : state) {
    auto parts = std::make_unique<StatusOr<std::map<std::string, GraphDef>>>(
        Partition(graph.get(), PartitionOptions()));
    if (!parts->ok()) {
      state.SkipWithError(parts->status().ToString().c_str());
      return;
    }
    nodes_out = 0;
    for (const auto& [key, part] : **parts) nodes_out += part.node_size();
    benchmark::DoNotOptimize(parts);
    // Freeing the partitions is not partitioning.
    state.PauseTiming();
    parts.reset();
    state.ResumeTiming();
  }
  state.counters["nodes_out"] = static_cast<double>(nodes_out);
  state.counters["page_faults"] =
      benchmark::Counter(static_cast<double>(MinorFaults() - faults),
                         benchmark::Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations() * kNodes);
}

// As `dfg partition` runs it: attrs are moved out of the graph, which is
// built afresh (untimed) for each iteration.
void BM_Partition1M8DevicesBlocksMovingAttrs(benchmark::State& state) {
  PartitionOptions options;
  options.can_make_destructive_changes = true;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Graph> graph = MakePlacedGraph(kNodes, Layout::kBlocks);
    state.ResumeTiming();
    auto parts = std::make_unique<StatusOr<std::map<std::string, GraphDef>>>(
        Partition(graph.get(), options));
    if (!parts->ok()) {
      state.SkipWithError(parts->status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(parts);
    state.PauseTiming();
    parts.reset();
    graph.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kNodes);
}

void BM_Partition1M8DevicesBlocks(benchmark::State& state) {
  RunPartition(state, Layout::kBlocks);
}
void BM_Partition1M8DevicesStripes(benchmark::State& state) {
  RunPartition(state, Layout::kStripes);
}
void BM_Partition1M8DevicesRandom(benchmark::State& state) {
  RunPartition(state, Layout::kRandom);
}

BENCHMARK(BM_Partition1M8DevicesBlocks)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_Partition1M8DevicesBlocksMovingAttrs)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_Partition1M8DevicesStripes)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_Partition1M8DevicesRandom)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace dfg
