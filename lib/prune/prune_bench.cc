// Prune of generated graphs of 100k and 1M nodes with 10 fetches. The
// Graph-level rewrite (what the session calls) is timed apart from import;
// BM_PruneGraphDef times the whole GraphDef -> GraphDef stage.
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "lib/graph/graph_import.h"
#include "lib/prune/prune.h"

namespace dfg {
namespace {

constexpr int kFetches = 10;
constexpr int kWindow = 1000;

std::string Name(int i) {
  return "layer" + std::to_string(i / 1000) + "/n" + std::to_string(i);
}

// Two interleaved families (even and odd positions) of nodes that only read
// earlier nodes of their own family within a window; every 64th node is a
// Const root, every 16th add also has a control input. The fetches are the
// last nodes of the even family, so most of it is kept and the odd family is
// removed: about 43% kept.
GraphDef MakeGraph(int num_nodes) {
  GraphDef graph;
  graph.mutable_node()->Reserve(num_nodes);
  std::mt19937 rng(42);
  AttrValue float_type;
  float_type.set_type(tensorflow::DT_FLOAT);
  AttrValue value;
  value.mutable_tensor()->set_dtype(tensorflow::DT_FLOAT);
  value.mutable_tensor()->add_float_val(1.0f);
  auto earlier = [&](int i) {
    int back = 2 * (1 + static_cast<int>(rng() % (kWindow / 2)));
    return std::max(i % 2, i - back);
  };
  for (int i = 0; i < num_nodes; ++i) {
    NodeDef* node = graph.add_node();
    node->set_name(Name(i));
    if (i < 2 * kWindow || i % 64 == 0) {
      node->set_op("Const");
      (*node->mutable_attr())["dtype"] = float_type;
      (*node->mutable_attr())["value"] = value;
      continue;
    }
    node->set_op("AddV2");
    node->add_input(Name(earlier(i)));
    node->add_input(Name(earlier(i)));
    if (i % 16 == 1) node->add_input(std::string("^").append(Name(earlier(i))));
    (*node->mutable_attr())["T"] = float_type;
  }
  return graph;
}

const GraphDef& CachedGraph(int num_nodes) {
  static auto* cache = new std::map<int, GraphDef>();
  auto it = cache->find(num_nodes);
  if (it == cache->end())
    it = cache->emplace(num_nodes, MakeGraph(num_nodes)).first;
  return it->second;
}

PruneOptions BenchOptions(int num_nodes) {
  PruneOptions options;
  for (int k = 0; k < kFetches; ++k) {
    options.fetches.push_back(Name(num_nodes - 2 - 2 * k));
  }
  options.feeds.push_back(Name(num_nodes / 2 + 2) + ":0");  // even family
  return options;
}

std::unique_ptr<Graph> ImportOrDie(const GraphDef& def,
                                   benchmark::State& state) {
  auto imported = ImportGraphDef(def);
  if (!imported.ok()) {
    state.SkipWithError(imported.status().ToString().c_str());
    return nullptr;
  }
  return std::move(imported).value();
}

void BM_PruneImport(benchmark::State& state) {
  const GraphDef& def = CachedGraph(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    GraphDef copy = def;
    auto start = std::chrono::steady_clock::now();
    std::unique_ptr<Graph> graph = ImportOrDie(std::move(copy), state);
    auto end = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
    if (graph == nullptr) return;
  }
}

void BM_PruneGraph(benchmark::State& state) {
  int num_nodes = static_cast<int>(state.range(0));
  const GraphDef& def = CachedGraph(num_nodes);
  PruneOptions options = BenchOptions(num_nodes);
  int kept = 0;
  double destroy_seconds = 0;
  for (auto _ : state) {
    std::unique_ptr<Graph> graph = ImportOrDie(def, state);
    if (graph == nullptr) return;
    auto start = std::chrono::steady_clock::now();
    Status status = RewriteGraphForExecution(graph.get(), options, nullptr);
    auto end = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
    kept = graph->num_op_nodes();
    // Untimed: RemoveNodes leaves the removed nodes' memory to the Graph's
    // destructor; reported so that the cost is visible.
    auto destroy_start = std::chrono::steady_clock::now();
    graph.reset();
    destroy_seconds += std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - destroy_start)
                           .count();
  }
  state.counters["kept"] = kept;
  state.counters["destroy_ms"] = benchmark::Counter(
      destroy_seconds * 1e3 / static_cast<double>(state.iterations()));
}

void BM_PruneGraphDef(benchmark::State& state) {
  int num_nodes = static_cast<int>(state.range(0));
  const GraphDef& def = CachedGraph(num_nodes);
  PruneOptions options = BenchOptions(num_nodes);
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    StatusOr<PruneResult> result = Prune(def, options);
    auto end = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      return;
    }
  }
}

BENCHMARK(BM_PruneImport)
    ->Arg(100000)
    ->Arg(1000000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PruneGraph)
    ->Arg(100000)
    ->Arg(1000000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PruneGraphDef)
    ->Arg(100000)
    ->Arg(1000000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dfg
