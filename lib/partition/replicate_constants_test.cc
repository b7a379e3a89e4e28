#include "lib/partition/replicate_constants.h"

#include <map>
#include <string>

#include "lib/graph/graph_import.h"
#include "lib/partition/partition.h"
#include "lib/partition/partition_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

constexpr char kCpu0[] = "/job:a/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:a/replica:0/task:0/device:CPU:1";
constexpr char kGpu0[] = "/job:a/replica:0/task:0/device:GPU:0";
using partition_test::N;
using partition_test::ParseGraphText;

constexpr char kScalar[] =
    "value: { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } "
    "dtype: DT_FLOAT";

// name -> "device <- inputs" after the pass.
std::map<std::string, std::string> Run(const std::string& text) {
  auto g = ImportGraphDef(ParseGraphText(text));
  REQUIRE(g.ok());
  REQUIRE(AssignCarriedDevices(g->get()).ok());
  REQUIRE(ReplicateSmallConstants(g->get()).ok());
  std::map<std::string, std::string> out;
  for (const Node* n : (*g)->op_nodes()) {
    std::string ins;
    for (const Edge* e : n->in_edges())
      if (e->src->IsOp()) ins += " " + e->src->name();
    out[n->name()] = n->assigned_device_name() + " <-" + ins;
  }
  return out;
}

TEST_CASE("small CPU constants are copied to each consumer's device",
          "[partition][replicate]") {
  auto nodes = Run(N("c", "Const", {}, kScalar, kCpu0) +
                   N("a", "Neg", {"c"}, "T: DT_FLOAT", kCpu0) +
                   N("b", "Neg", {"c"}, "T: DT_FLOAT", kCpu1) +
                   N("d", "Neg", {"c"}, "T: DT_FLOAT", kCpu1) +
                   N("g", "Neg", {"c"}, "T: DT_FLOAT", kGpu0));
  CHECK(nodes.count("c") == 0);
  // One copy per device, in device-name order; a GPU consumer's copy is on
  // its task's CPU:0, shared with the CPU:0 consumers.
  CHECK(nodes.at("c/replicate/_0") == std::string(kCpu0) + " <-");
  CHECK(nodes.at("c/replicate/_1") == std::string(kCpu1) + " <-");
  CHECK(nodes.size() == 6);
  CHECK(nodes.at("a") == std::string(kCpu0) + " <- c/replicate/_0");
  CHECK(nodes.at("g") == std::string(kGpu0) + " <- c/replicate/_0");
  CHECK(nodes.at("b") == std::string(kCpu1) + " <- c/replicate/_1");
  CHECK(nodes.at("d") == std::string(kCpu1) + " <- c/replicate/_1");
}

TEST_CASE("constants that TensorFlow does not replicate stay",
          "[partition][replicate]") {
  const std::string consumers = N("a", "Neg", {"c"}, "T: DT_FLOAT", kCpu0) +
                                N("b", "Neg", {"c"}, "T: DT_FLOAT", kCpu1);
  // On a GPU.
  CHECK(Run(N("c", "Const", {}, kScalar, kGpu0) + consumers).count("c") == 1);
  // More than 16 elements.
  CHECK(Run(N("c", "Const", {},
              "value: { tensor { dtype: DT_FLOAT tensor_shape { dim { size: "
              "17 } } float_val: 1 } } dtype: DT_FLOAT",
              kCpu0) +
            consumers)
            .count("c") == 1);
  // A control successor.
  CHECK(Run(N("c", "Const", {}, kScalar, kCpu0) + consumers +
            N("n", "NoOp", {"^c"}, "", kCpu1))
            .count("c") == 1);
  // One consumer device only.
  CHECK(Run(N("c", "Const", {}, kScalar, kCpu0) +
            N("a", "Neg", {"c"}, "T: DT_FLOAT", kCpu1) +
            N("b", "Neg", {"c"}, "T: DT_FLOAT", kCpu1))
            .count("c") == 1);
}

// TensorFlow's copies take a control edge from each in-node of the original
// (CopyNode, then AddControlEdge(src, copy, allow_duplicates = true) for
// every in_nodes()): a Const without inputs has one from _SOURCE, which its
// copies get too. Those edges take edge ids, which tensor_name shows.
TEST_CASE("copies read each in-node of the original, _SOURCE included",
          "[partition][replicate]") {
  auto g = ImportGraphDef(ParseGraphText(
      N("x", "NoOp", {}, "", kCpu1) + N("y", "NoOp", {}, "", kCpu0) +
      N("z", "Const", {}, kScalar, kCpu0) +
      N("a", "Const", {"^y", "^x"}, kScalar, kCpu0) +
      N("m0", "Mul", {"a", "z"}, "T: DT_FLOAT", kCpu0) +
      N("m1", "Mul", {"a", "z"}, "T: DT_FLOAT", kCpu1)));
  REQUIRE(g.ok());
  REQUIRE(AssignCarriedDevices(g->get()).ok());
  // name -> its in-edges "src:slot", in edge-id order.
  auto in_edges = [&] {
    std::map<std::string, std::string> ins;
    for (const Node* n : (*g)->op_nodes()) {
      for (const Edge* e : n->in_edges()) {
        ins[n->name()] +=
            e->src->name() + ":" + std::to_string(e->src_output) + " ";
      }
    }
    return ins;
  };
  const std::string a_ins = in_edges().at("a");
  CHECK((a_ins == "x:-1 y:-1 " || a_ins == "y:-1 x:-1 "));
  const int edges_before = (*g)->num_edge_ids();
  REQUIRE(ReplicateSmallConstants(g->get()).ok());
  auto ins = in_edges();
  CHECK(ins.at("z/replicate/_0") == "_SOURCE:-1 ");
  CHECK(ins.at("z/replicate/_1") == "_SOURCE:-1 ");
  CHECK(ins.at("a/replicate/_2") == a_ins);
  CHECK(ins.at("a/replicate/_3") == a_ins);
  // Per copy: its data out edge, then its control in edges.
  CHECK((*g)->num_edge_ids() - edges_before == 2 * 2 + 2 * 3);
}

}  // namespace
}  // namespace dfg
