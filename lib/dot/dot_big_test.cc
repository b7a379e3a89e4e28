// Big graphs: what folding cannot shrink is not handed to Graphviz's layout.
#include <string>

#include "lib/dot/dot.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

// A chain of `n` nodes without name scopes: nothing to fold.
tensorflow::GraphDef FlatChain(int n) {
  tensorflow::GraphDef graph;
  for (int i = 0; i < n; ++i) {
    tensorflow::NodeDef* node = graph.add_node();
    node->set_name("n" + std::to_string(i));
    node->set_op(i == 0 ? "Placeholder" : "Relu");
    if (i > 0) node->add_input("n" + std::to_string(i - 1));
  }
  return graph;
}

TEST_CASE("rendering refuses a graph folding cannot bring under 5000 nodes",
          "[dot]") {
  tensorflow::GraphDef graph = FlatChain(5001);
  DotOptions options;
  options.format = DotFormat::kSvg;
  DotReport report;
  StatusOr<std::string> svg = GraphToDot(graph, options, &report);
  REQUIRE_FALSE(svg.ok());
  CHECK(svg.status().code() == Code::kInvalidArgument);
  CHECK_THAT(svg.status().message(),
             Contains("5001 nodes to lay out, more than 5000"));
  CHECK_THAT(svg.status().message(), Contains("--focus NODE"));

  // DOT text is still written (with a note), to lay out elsewhere.
  options.format = DotFormat::kDot;
  StatusOr<std::string> dot = GraphToDot(graph, options, &report);
  REQUIRE(dot.ok());
  CHECK(report.drawn_nodes == 5001);
  CHECK_THAT(report.notes.at(1), Contains("still 5001 nodes at depth 1"));
}

// Graphviz's agwrite looks for each node in every subgraph: 15,000 two-node
// scopes took it minutes (a 20,000-node chain 34 s); dfg's writer (dot_text.h)
// takes well under a second, so the ctest timeout catches a regression.
TEST_CASE("DOT text of 15000 scopes is written in time linear in the graph",
          "[dot]") {
  tensorflow::GraphDef graph;
  std::string previous;
  for (int i = 0; i < 30000; ++i) {
    tensorflow::NodeDef* node = graph.add_node();
    node->set_name("layer" + std::to_string(i / 2) + (i % 2 ? "/neg" : "/id"));
    node->set_op(i % 2 ? "Neg" : "Identity");
    if (!previous.empty()) node->add_input(previous);
    previous = node->name();
  }
  DotOptions options;
  options.max_nodes = 0;
  StatusOr<std::string> dot = GraphToDot(graph, options);
  REQUIRE(dot.ok());
  CHECK_THAT(*dot, Contains("subgraph cluster_layer14999 {"));
  CHECK_THAT(*dot, Contains("tooltip=\"layer14999/neg\""));
}

}  // namespace
}  // namespace dfg
