// dfg dot on big generated graphs: a layered model of N nodes in name scopes
// block_<b>/unit_<u>/..., drawn with the default fold (max_nodes 1500) and
// without folding.
#include <benchmark/benchmark.h>

#include <string>

#include "lib/dot/dot.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

NodeDef* AddNode(GraphDef& graph, const std::string& name, const char* op,
                 std::initializer_list<std::string> inputs) {
  NodeDef* node = graph.add_node();
  node->set_name(name);
  node->set_op(op);
  for (const std::string& input : inputs) node->add_input(input);
  (*node->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  return node;
}

// Units of 10 nodes (weights, MatMul, BiasAdd, Relu...), 10 units a block.
GraphDef LayeredGraph(int nodes) {
  GraphDef graph;
  NodeDef* input = AddNode(graph, "input", "Placeholder", {});
  input->mutable_attr()->erase("T");
  (*input->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  std::string previous = "input";
  for (int unit = 0; graph.node_size() + 10 <= nodes; ++unit) {
    std::string scope = "block_" + std::to_string(unit / 10) + "/unit_" +
                        std::to_string(unit % 10) + "/";
    NodeDef* w = AddNode(graph, scope + "w", "Const", {});
    w->mutable_attr()->erase("T");
    (*w->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
    NodeDef* b = AddNode(graph, scope + "b", "Const", {});
    b->mutable_attr()->erase("T");
    (*b->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
    AddNode(graph, scope + "MatMul", "MatMul", {previous, scope + "w"});
    AddNode(graph, scope + "BiasAdd", "BiasAdd",
            {scope + "MatMul", scope + "b"});
    AddNode(graph, scope + "Relu", "Relu", {scope + "BiasAdd"});
    AddNode(graph, scope + "Sigmoid", "Sigmoid", {scope + "BiasAdd"});
    AddNode(graph, scope + "Mul", "Mul", {scope + "Relu", scope + "Sigmoid"});
    AddNode(graph, scope + "Square", "Square", {scope + "Mul"});
    AddNode(graph, scope + "Add", "AddV2", {scope + "Mul", scope + "Square"});
    AddNode(graph, scope + "Identity", "Identity",
            {scope + "Add", "^" + scope + "Relu"});
    previous = scope + "Identity";
  }
  return graph;
}

void BM_GraphToDotDefaultFold(benchmark::State& state) {
  GraphDef graph = LayeredGraph(static_cast<int>(state.range(0)));
  DotOptions options;
  for (auto _ : state) {
    StatusOr<std::string> dot = GraphToDot(graph, options);
    benchmark::DoNotOptimize(dot);
  }
  state.SetItemsProcessed(state.iterations() * graph.node_size());
}
BENCHMARK(BM_GraphToDotDefaultFold)
    ->Arg(5000)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond);

void BM_GraphToDotUnfolded(benchmark::State& state) {
  GraphDef graph = LayeredGraph(static_cast<int>(state.range(0)));
  DotOptions options;
  options.max_nodes = 0;
  for (auto _ : state) {
    StatusOr<std::string> dot = GraphToDot(graph, options);
    benchmark::DoNotOptimize(dot);
  }
  state.SetItemsProcessed(state.iterations() * graph.node_size());
}
BENCHMARK(BM_GraphToDotUnfolded)
    ->Arg(5000)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond);

void BM_GraphToDotFocus(benchmark::State& state) {
  GraphDef graph = LayeredGraph(50000);
  DotOptions options;
  options.focus = "block_250/unit_5/Mul";
  options.radius = static_cast<int>(state.range(0));
  for (auto _ : state) {
    StatusOr<std::string> dot = GraphToDot(graph, options);
    benchmark::DoNotOptimize(dot);
  }
}
BENCHMARK(BM_GraphToDotFocus)->Arg(3)->Arg(30)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dfg
