// Placement of large graphs: 1,000,000 nodes onto 8 devices, with requested
// devices, ref and resource edges, `_class` groups, generators and metadata
// ops. Import is measured on its own, and the path `dfg place` takes for
// binary GraphDefs (read from the bytes, placed, written) as a whole.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "lib/graph/graph_import.h"
#include "lib/place/device_set.h"
#include "lib/place/place.h"
#include "lib/place/place_binary.h"

namespace dfg {
namespace {

void SetType(NodeDef* node, const char* attr, tensorflow::DataType type) {
  (*node->mutable_attr())[attr].set_type(type);
}

// A mix of the node kinds the Placer treats differently, ten at a time.
GraphDef MakeGraph(int num_nodes) {
  GraphDef graph;
  graph.mutable_node()->Reserve(num_nodes);
  auto name = [](int i) { return fmt::format("n{}", i); };
  for (int i = 0; i < num_nodes; ++i) {
    NodeDef* node = graph.add_node();
    node->set_name(name(i));
    int kind = i % 10;
    if (i < 10) kind = kind == 0 ? 0 : 10;  // the first block: generators
    switch (kind) {
      case 0:
      case 10:
        node->set_op("Const");
        SetType(node, "dtype", tensorflow::DT_FLOAT);
        (*node->mutable_attr())["value"].mutable_tensor()->set_dtype(
            tensorflow::DT_FLOAT);
        break;
      case 1:
        node->set_op("VariableV2");
        SetType(node, "dtype", tensorflow::DT_FLOAT);
        (*node->mutable_attr())["shape"].mutable_shape();
        break;
      case 2:
        node->set_op("Assign");
        node->add_input(name(i - 1));
        node->add_input(name(i - 2));
        SetType(node, "T", tensorflow::DT_FLOAT);
        break;
      case 3:
        node->set_op("VarHandleOp");
        SetType(node, "dtype", tensorflow::DT_FLOAT);
        (*node->mutable_attr())["shape"].mutable_shape();
        break;
      case 4:
        node->set_op("ReadVariableOp");
        node->add_input(name(i - 1));
        SetType(node, "dtype", tensorflow::DT_FLOAT);
        break;
      case 5:
        node->set_op("MatMul");
        node->add_input(name(i - 1));
        node->add_input(name(i - 5));
        SetType(node, "T", tensorflow::DT_FLOAT);
        node->set_device(fmt::format("/device:GPU:{}", (i / 10) % 6));
        break;
      case 6:
        node->set_op("Identity");
        node->add_input(name(i - 1));
        SetType(node, "T", tensorflow::DT_FLOAT);
        (*node->mutable_attr())["_class"].mutable_list()->add_s("loc:@" +
                                                                name(i - 1));
        break;
      case 7:
        node->set_op("Shape");
        node->add_input(name(i - 2));
        SetType(node, "T", tensorflow::DT_FLOAT);
        break;
      case 9:
        node->set_op("Identity");
        node->add_input(name(i - 1));
        SetType(node, "T", tensorflow::DT_FLOAT);
        node->set_device("/job:localhost/device:CPU:*");
        break;
      default:
        node->set_op("Identity");
        node->add_input(name(i - 3));
        SetType(node, "T", tensorflow::DT_FLOAT);
        break;
    }
  }
  return graph;
}

DeviceSet EightDevices() {
  return DeviceSetFromFlags({"cpu:0", "cpu:1", "gpu:0", "gpu:1", "gpu:2",
                             "gpu:3", "gpu:4", "gpu:5"})
      .value();
}

void BM_PlaceGraph(benchmark::State& state) {
  std::unique_ptr<Graph> graph =
      ImportGraphDef(MakeGraph(static_cast<int>(state.range(0)))).value();
  DeviceSet devices = EightDevices();
  std::vector<Node*> nodes = graph->op_nodes();
  for (auto _ : state) {
    state.PauseTiming();
    for (Node* node : nodes) node->set_assigned_device_name("");
    state.ResumeTiming();
    Status status = Place(graph.get(), devices, {});
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PlaceGraph)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

void BM_ImportGraphForPlace(benchmark::State& state) {
  GraphDef def = MakeGraph(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto graph = ImportGraphDef(def);
    if (!graph.ok()) state.SkipWithError(graph.status().ToString().c_str());
    benchmark::DoNotOptimize(graph);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ImportGraphForPlace)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_PlaceGraphDefWithReport(benchmark::State& state) {
  GraphDef def = MakeGraph(static_cast<int>(state.range(0)));
  DeviceSet devices = EightDevices();
  for (auto _ : state) {
    PlacementReport report;
    auto placed = PlaceGraphDef(def, devices, {}, &report);
    if (!placed.ok()) state.SkipWithError(placed.status().ToString().c_str());
    benchmark::DoNotOptimize(placed);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PlaceGraphDefWithReport)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// `dfg place`'s path for binary GraphDefs (place_binary.h): the graph read
// from its bytes, placed and written to a sink that only counts.
void BM_PlaceBinaryGraphDef(benchmark::State& state) {
  std::string bytes;
  MakeGraph(static_cast<int>(state.range(0))).SerializeToString(&bytes);
  DeviceSet devices = EightDevices();
  for (auto _ : state) {
    auto placed = PlaceBinaryGraphDef(bytes, devices, {});
    if (placed == nullptr) {
      state.SkipWithError("the bytes path declined");
      return;
    }
    size_t written = 0;
    Status status = placed->Write([&](std::string_view chunk) {
      written += chunk.size();
      return Status::Ok();
    });
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    benchmark::DoNotOptimize(written);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * bytes.size());
}
BENCHMARK(BM_PlaceBinaryGraphDef)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace dfg
