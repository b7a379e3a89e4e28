#include "lib/partition/client_graph.h"

#include <map>
#include <string>

#include "lib/graph/pipeline_attrs.h"
#include "lib/partition/partition.h"
#include "lib/partition/partition_test_util.h"
#include "lib/partition/replicate_constants.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";
using partition_test::N;
using partition_test::ParseGraphText;

// A session's pipeline from here: the client graph, ReplicateConstants,
// Partition after two copies. Every _Send/_Recv: name -> tensor_name.
std::map<std::string, std::string> TensorNames(const std::string& text) {
  auto g = ImportClientGraph(ParseGraphText(text));
  REQUIRE(g.ok());
  REQUIRE(AssignCarriedDevices(g->get()).ok());
  REQUIRE(ReplicateSmallConstants(g->get()).ok());
  PartitionOptions options;
  options.graph_copies = 2;
  auto parts = Partition(g->get(), options);
  REQUIRE(parts.ok());
  std::map<std::string, std::string> out;
  for (const auto& [device, part] : *parts) {
    for (const NodeDef& node : part.node()) {
      CHECK(node.attr().count(kConsumersPrunedAttr) == 0);
      auto it = node.attr().find("tensor_name");
      if (it != node.attr().end()) out[node.name()] = it->second.s();
    }
  }
  return out;
}

// `dfg prune --feed x --fetch FETCH | dfg place --devices cpu:0,cpu:1` of
//   x = Placeholder; a = Square(x) @CPU:1; b = Neg(a) @CPU:0;
//   c = AddV2(b, x) @CPU:1; d = Neg(c) @CPU:0.
std::string Pruned(bool fetch_c) {
  const std::string t = "T: DT_FLOAT";
  std::string c_attrs = t + (fetch_c ? " _dfg_consumers_pruned: true" : "");
  std::string text = N("a", "Square", {"_arg_x_0_0"}, t, kCpu1) +
                     N("b", "Neg", {"a"}, t, kCpu0) +
                     N("c", "AddV2", {"b", "_arg_x_0_0"}, c_attrs, kCpu1);
  if (!fetch_c) text += N("d", "Neg", {"c"}, t, kCpu0);
  text += N("_arg_x_0_0", "_Arg", {}, t + " index: 0", kCpu0);
  const std::string fetched = fetch_c ? "c" : "d";
  return text + N("_retval_" + fetched + "_0_0", "_Retval", {fetched},
                  t + " index: 0", kCpu0);
}

// The expected names are TensorFlow 2.21's partition graphs of that model
// (RunOptions.output_partition_graphs, two CPUs, place_pruned_graph).
TEST_CASE("edge ids and /_N counters are those of TensorFlow's session",
          "[partition]") {
  SECTION("a fetched node whose consumer was pruned") {
    auto names = TensorNames(Pruned(/*fetch_c=*/true));
    CHECK(names == std::map<std::string, std::string>{
                       {"_arg_x_0_0/_0", "edge_6__arg_x_0_0"},
                       {"_arg_x_0_0/_1", "edge_6__arg_x_0_0"},
                       {"a/_2", "edge_3_a"},
                       {"a/_3", "edge_3_a"},
                       {"b/_4", "edge_4_b"},
                       {"b/_5", "edge_4_b"},
                       {"c/_6", "edge_8_c"},
                       {"c/_7", "edge_8_c"}});
  }
  SECTION("a fetched node without consumers") {
    auto names = TensorNames(Pruned(/*fetch_c=*/false));
    CHECK(names == std::map<std::string, std::string>{
                       {"_arg_x_0_0/_0", "edge_8__arg_x_0_0"},
                       {"_arg_x_0_0/_1", "edge_8__arg_x_0_0"},
                       {"a/_2", "edge_3_a"},
                       {"a/_3", "edge_3_a"},
                       {"b/_4", "edge_4_b"},
                       {"b/_5", "edge_4_b"},
                       {"c/_6", "edge_5_c"},
                       {"c/_7", "edge_5_c"}});
  }
}

// `dfg prune --fetch m0 --fetch m1 | dfg place --devices cpu:0,cpu:1,cpu:2`
// of two replicated Consts: z (no inputs, so its copies read _SOURCE) and a
// (^x from CPU:2), both read on CPU:0 and CPU:1. The expected names are
// TensorFlow 2.21's (testdata/tf_oracle's replicate/two_replicated): the
// _SOURCE edges of z's copies come before x's edges to a's copies.
TEST_CASE("replicas' _SOURCE edges take edge ids as in TensorFlow",
          "[partition][replicate]") {
  constexpr char kCpu2[] = "/job:localhost/replica:0/task:0/device:CPU:2";
  const std::string t = "T: DT_FLOAT";
  const std::string scalar =
      "dtype: DT_FLOAT value: { tensor { dtype: DT_FLOAT "
      "tensor_shape { } float_val: 2 } }";
  auto names = TensorNames(
      N("x", "NoOp", {}, "", kCpu2) + N("z", "Const", {}, scalar, kCpu0) +
      N("a", "Const", {"^x"}, scalar, kCpu0) +
      N("m0", "Mul", {"a", "z"}, t, kCpu0) +
      N("m1", "Mul", {"a", "z"}, t, kCpu1) +
      N("_retval_m0_0_0", "_Retval", {"m0"}, t + " index: 0", kCpu0) +
      N("_retval_m1_0_1", "_Retval", {"m1"}, t + " index: 1", kCpu0));
  CHECK(names == std::map<std::string, std::string>{{"m1/_0", "edge_8_m1"},
                                                    {"m1/_1", "edge_8_m1"},
                                                    {"x/_3", "edge_15_x"},
                                                    {"x/_4", "edge_15_x"},
                                                    {"x/_7", "edge_17_x"},
                                                    {"x/_8", "edge_17_x"}});
}

TEST_CASE("the client graph keeps the pruned graph's order", "[partition]") {
  auto g = ImportClientGraph(ParseGraphText(Pruned(/*fetch_c=*/true)));
  REQUIRE(g.ok());
  std::string order;
  for (const Node* n : (*g)->op_nodes()) order += n->name() + " ";
  // A plain import would take _arg_x_0_0 first (its consumers wait for it).
  CHECK(order == "a b c _arg_x_0_0 _retval_c_0_0 ");
  for (const Node* n : (*g)->op_nodes()) {
    CHECK(n->def().attr().count(kConsumersPrunedAttr) == 0);
  }
}

TEST_CASE("graph_copies numbers the live edges densely", "[partition]") {
  auto g = ImportGraphDef(
      ParseGraphText(N("z", "NoOp", {}, "", kCpu0) +
                     N("a", "Const", {},
                       "dtype: DT_FLOAT value: { tensor { dtype: DT_FLOAT "
                       "tensor_shape { } float_val: 1 } }",
                       kCpu0) +
                     N("n", "Neg", {"a", "^z"}, "T: DT_FLOAT", kCpu0) +
                     N("m", "Neg", {"n"}, "T: DT_FLOAT", kCpu1)));
  REQUIRE(g.ok());
  REQUIRE(AssignCarriedDevices(g->get()).ok());
  // Edges: 0 _SOURCE->_SINK, 1 a->n, 2 z->n, 3 n->m, then the fixups.
  (*g)->RemoveEdge((*g)->FindEdgeId(2));
  for (int copies : {0, 1, 2}) {
    PartitionOptions options;
    options.graph_copies = copies;
    auto parts = Partition(g->get(), options);
    REQUIRE(parts.ok());
    std::string name;
    for (const auto& [device, part] : *parts) {
      for (const NodeDef& node : part.node()) {
        if (node.op() == "_Send") name = node.attr().at("tensor_name").s();
      }
    }
    // Without the hole at 2, n->m has rank 2.
    int id = copies == 0 ? 3 : copies + 2;
    CHECK(name == "edge_" + std::to_string(id) + "_n");
  }
}

}  // namespace
}  // namespace dfg
