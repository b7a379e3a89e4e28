// dfg's DOT writer gives agwrite's text byte for byte, for the graphs
// BuildAgraph makes: every clustering, folded scopes, cut edges, edge
// tooltips, the device legend and names that need quoting or line breaks.
#include "lib/dot/dot_text.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "lib/dot/dot_model.h"
#include "lib/dot/dot_test_util.h"
#include "lib/dot/dot_writer.h"
#include "lib/io/graph_io.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg::dot_internal {
namespace {

using tensorflow::GraphDef;

std::string Agwrite(Agraph_t* graph) {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* file = open_memstream(&buffer, &size);
  REQUIRE(file != nullptr);
  REQUIRE(agwrite(graph, file) == 0);
  std::fclose(file);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

struct Way {
  ClusterBy clusters;
  int fold_depth;
  bool edge_labels;
  int edge_budget;  // CutLongEdges' virtual-node budget; -1: no cut
};

void CheckSameText(const GraphDef& graph, const Way& way) {
  DotModel model = BuildModel({&graph});
  if (way.clusters == ClusterBy::kPartition) model.partitions = {"part"};
  std::vector<bool> visible(model.nodes.size(), true);
  DotView view = MakeView(model, visible,
                          {way.fold_depth, way.clusters == ClusterBy::kDevice});
  if (way.edge_budget >= 0) CutLongEdges(view, way.edge_budget, 2);
  WriterOptions options;
  options.clusters = way.clusters;
  options.edge_labels = way.edge_labels;
  options.fast_layout = !way.edge_labels;
  options.graph_nodes = graph.node_size();
  Agraph_t* built = BuildAgraph(model, view, options);
  REQUIRE(built != nullptr);
  std::string ours = WriteDotText(built);
  std::string theirs = Agwrite(built);
  agclose(built);
  CHECK(ours == theirs);
}

void CheckEveryWay(const GraphDef& graph) {
  for (const Way& way : {Way{ClusterBy::kScope, -1, true, -1},
                         Way{ClusterBy::kDevice, -1, true, -1},
                         Way{ClusterBy::kNone, -1, false, -1},
                         Way{ClusterBy::kPartition, -1, true, -1},
                         Way{ClusterBy::kScope, 1, true, -1},
                         Way{ClusterBy::kDevice, 2, false, 4},
                         Way{ClusterBy::kScope, -1, false, 4}}) {
    INFO("clusters " << static_cast<int>(way.clusters) << " fold "
                     << way.fold_depth);
    CheckSameText(graph, way);
  }
}

GraphDef Scoped(int layers, bool devices) {
  GraphDef graph;
  std::string previous;
  for (int i = 0; i < layers; ++i) {
    for (const char* part : {"MatMul", "BiasAdd", "Relu"}) {
      auto* node = graph.add_node();
      node->set_name("model/StatefulPartitionedCall/functional_1/layer_" +
                     std::to_string(i) + "/" + part);
      node->set_op(part);
      if (!previous.empty()) node->add_input(previous);
      if (i > 0 && part[0] == 'B') node->add_input("x");
      if (devices) node->set_device(i % 2 ? "/device:CPU:0" : "/device:GPU:0");
      previous = node->name();
    }
  }
  auto* x = graph.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  return graph;
}

TEST_CASE("the DOT text is agwrite's for scoped and placed graphs", "[dot]") {
  CheckEveryWay(Scoped(40, false));
  CheckEveryWay(Scoped(40, true));
  CheckEveryWay(Scoped(1, false));
  CheckEveryWay(GraphDef());
}

TEST_CASE("names agwrite quotes, escapes or breaks are written as it does",
          "[dot]") {
  GraphDef graph = dot_testing::ParseGraph(R"pb(
    node { name: "node" op: "NoOp" }
    node { name: "-1.5" op: "NoOp" input: "^node" }
    node { name: "1-2" op: "NoOp" input: "^-1.5" }
    node { name: ".5" op: "NoOp" input: "^1-2" }
    node { name: "-" op: "NoOp" input: "^.5" }
    node { name: "a\"b\\c" op: "Graph" input: "^-" }
    node { name: "caf\303\251/x y" op: "Strict" input: "^a\"b\\c" }
    node { name: "Digraph" op: "Subgraph" input: "missing:3" }
  )pb");
  std::string long_name;
  for (int i = 0; i < 30; ++i) long_name += "scope_" + std::to_string(i) + "/";
  auto* node = graph.add_node();
  node->set_name(long_name + "op-with.dots and spaces");
  node->set_op("Edge");
  node->add_input("node");
  CheckEveryWay(graph);
}

TEST_CASE("every corpus graph's DOT text is agwrite's", "[dot]") {
  if (!testing::CorpusDir()) {
    WARN("../shared/corpus is absent: skipping the corpus DOT text test");
    return;
  }
  int compared = 0;
  for (const std::string& path : testing::CorpusFiles()) {
    std::istringstream no_stdin;
    StatusOr<LoadedGraph> loaded = ReadGraph(path, no_stdin);
    if (!loaded.ok() || loaded->graph.node_size() > 3000) continue;
    INFO(path);
    CheckSameText(loaded->graph, {ClusterBy::kScope, -1, true, 3000});
    CheckSameText(loaded->graph, {ClusterBy::kDevice, 2, false, 3000});
    ++compared;
  }
  CHECK(compared > 50);
}

}  // namespace
}  // namespace dfg::dot_internal
