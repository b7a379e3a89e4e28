// Labels: what the picture already shows (a cluster's scope, the scopes every
// node shares) is left out; the whole name is each node's tooltip.
#include "lib/dot/dot.h"
#include "lib/dot/dot_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using dot_testing::Drawn;
using dot_testing::ParseGraph;
using tensorflow::GraphDef;

Drawn Draw(const GraphDef& graph, const DotOptions& options = {}) {
  StatusOr<std::string> dot = GraphToDot(graph, options);
  REQUIRE(dot.ok());
  return dot_testing::ReadDrawn(*dot);
}

TEST_CASE("labels leave out the scope their cluster shows and tooltips name",
          "[dot]") {
  const char* keras = R"pb(
    node { name: "features" op: "NoOp" }
    node {
      name: "Call_1/Call/functional_1/hidden_1/MatMul"
      op: "MatMul"
      input: "^features"
    }
    node {
      name: "Call_1/Call/functional_1/hidden_1/Relu"
      op: "Relu"
      input: "^Call_1/Call/functional_1/hidden_1/MatMul"
    }
    node {
      name: "Call_1/Call/functional_1/out_1/MatMul"
      op: "MatMul"
      input: "^Call_1/Call/functional_1/hidden_1/Relu"
    }
    node {
      name: "Call_1/Call/functional_1/out_1/BiasAdd"
      op: "BiasAdd"
      input: "^Call_1/Call/functional_1/out_1/MatMul"
    }
  )pb";
  Drawn drawn = Draw(ParseGraph(keras));
  const std::string matmul = "Call_1/Call/functional_1/hidden_1/MatMul";
  CHECK(drawn.nodes[matmul]["label"] == "MatMul\\n(MatMul)");
  CHECK(drawn.nodes[matmul]["tooltip"] == matmul);
  CHECK(drawn.nodes["features"]["label"] == "features");
  CHECK(drawn.clusters.count("hidden_1") == 1);
  CHECK(drawn.clusters.count("out_1") == 1);
  CHECK(drawn.clusters.count("Call_1/Call/functional_1") == 1);

  DotOptions full;
  full.full_names = true;
  CHECK(Draw(ParseGraph(keras), full).nodes[matmul]["label"] ==
        matmul + "\\n(MatMul)");
  // Without clusters the scopes every node shares are left out.
  DotOptions flat;
  flat.cluster = DotCluster::kNone;
  GraphDef layer = ParseGraph(keras);
  layer.mutable_node()->DeleteSubrange(0, 1);
  layer.mutable_node(0)->clear_input();
  Drawn flat_drawn = Draw(layer, flat);
  CHECK(flat_drawn.nodes[matmul]["label"] == "hidden_1/MatMul\\n(MatMul)");
  CHECK(flat_drawn.nodes["Call_1/Call/functional_1/out_1/BiasAdd"]["label"] ==
        "out_1/BiasAdd\\n(BiasAdd)");
}

TEST_CASE("a node named like its scope keeps its name beside the scope",
          "[dot]") {
  Drawn drawn = Draw(ParseGraph(R"pb(
    node { name: "split/axis" op: "Const" }
    node { name: "split" op: "Split" input: "split/axis" }
    node { name: "a/b/split" op: "NoOp" input: "^split" }
  )pb"));
  CHECK(drawn.nodes["split"]["label"] == "split\\n(Split)");
  CHECK(drawn.nodes["split/axis"]["label"] == "axis\\n(Const)");
  CHECK(drawn.nodes["a/b/split"]["label"] == "a/b/split");
}

}  // namespace
}  // namespace dfg
