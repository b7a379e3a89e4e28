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
  // The calls around the model's body are no boxes: its cluster is named
  // by its last part.
  CHECK(drawn.clusters.count("functional_1") == 1);
  CHECK(drawn.clusters.count("Call_1/Call/functional_1") == 0);

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
    node { name: "split/size" op: "Const" }
    node { name: "split" op: "SplitV" input: "split/size" input: "split/axis" }
    node { name: "a/b/split" op: "NoOp" input: "^split" }
  )pb"));
  CHECK(drawn.nodes["split"]["label"] == "split\\n(SplitV)");
  CHECK(drawn.nodes["split/axis"]["label"] == "axis\\n(Const)");
  CHECK(drawn.nodes["a/b/split"]["label"] == "a/b/split");
  CHECK(drawn.clusters.contains("split"));
}

TEST_CASE("a scope of one node besides the node named like it is no box",
          "[dot]") {
  // Keras' dense/BiasAdd reading dense/BiasAdd/ReadVariableOp; a call's
  // output NoOp beside its body's one scope.
  Drawn drawn = Draw(ParseGraph(R"pb(
    node { name: "x" op: "Placeholder" }
    node { name: "call/f/dense/BiasAdd/ReadVariableOp" op: "Const" }
    node { name: "call/f/dense/MatMul" op: "MatMul" input: "x" }
    node {
      name: "call/f/dense/BiasAdd"
      op: "BiasAdd"
      input: "call/f/dense/MatMul"
      input: "call/f/dense/BiasAdd/ReadVariableOp"
    }
    node { name: "call/f/out/Relu" op: "Relu" input: "call/f/dense/BiasAdd" }
    node { name: "call/NoOp" op: "NoOp" input: "^call/f/out/Relu" }
  )pb"));
  CHECK_FALSE(drawn.clusters.contains("BiasAdd"));
  CHECK(drawn.clusters.contains("dense"));
  CHECK_FALSE(drawn.clusters.contains("call"));
  CHECK(drawn.nodes["call/f/dense/BiasAdd/ReadVariableOp"]["label"] ==
        "BiasAdd/ReadVariableOp\\n(Const)");
}

}  // namespace
}  // namespace dfg
