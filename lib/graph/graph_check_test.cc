#include "lib/graph/graph_check.h"

#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

tensorflow::GraphDef Parse(const char* text) {
  return testing::ParseTextProto<tensorflow::GraphDef>(text);
}

std::string CheckError(const char* text) {
  Status status = CheckGraphStructure(Parse(text));
  REQUIRE_FALSE(status.ok());
  CHECK(status.code() == Code::kInvalidArgument);
  return std::string(status.message());
}

TEST_CASE("a well-formed graph passes the structure check", "[graph]") {
  CHECK(CheckGraphStructure(Parse(R"pb(
          node { name: "a" op: "Const" }
          node { name: "b" op: "Identity" input: "a:0" input: "^a" }
          node { name: "c" op: "NoCustomOpNeeded" input: "b:3" }
        )pb"))
            .ok());
  CHECK(CheckGraphStructure(tensorflow::GraphDef()).ok());
}

TEST_CASE("duplicate node names are reported as TensorFlow does", "[graph]") {
  CHECK(CheckError(R"pb(
          node { name: "a" op: "Const" }
          node { name: "b" op: "Const" }
          node { name: "a" op: "Identity" input: "b" }
        )pb") == "Node 'a' is not unique");
}

TEST_CASE("the first problem in node order is reported, far apart or near",
          "[graph]") {
  // Lookups run ahead of the checks (LookupWindow): the order must not show.
  for (int gap : {1, 5, 15, 16, 17, 40}) {
    tensorflow::GraphDef graph;
    for (int i = 0; i < 60; ++i) {
      auto* node = graph.add_node();
      node->set_name("n" + std::to_string(i));
      node->set_op("Identity");
      if (i > 0) node->add_input("n" + std::to_string(i - 1));
    }
    graph.mutable_node(10)->set_input(0, "missing_a");
    graph.mutable_node(10 + gap)->set_input(0, "missing_b");
    Status status = CheckGraphStructure(graph);
    CHECK(status.message() == "Node 'n10': Unknown input node 'missing_a'");
    graph.mutable_node(10)->set_input(0, "n9");
    *graph.mutable_node(3 + gap) = graph.node(2);  // a second n2
    status = CheckGraphStructure(graph);
    CHECK(status.message() == "Node 'n2' is not unique");
  }
}

TEST_CASE("a control input before a data input is an error", "[graph]") {
  CHECK(CheckError(R"pb(
          node { name: "a" op: "Const" }
          node { name: "b" op: "Identity" input: "^a" input: "a" }
        )pb") ==
        "Node 'b': Control dependencies must come after regular dependencies");
}

TEST_CASE("an input naming no node is reported with the input as written",
          "[graph]") {
  CHECK(CheckError(R"pb(
          node { name: "a" op: "Const" }
          node { name: "b" op: "Add" input: "a" input: "ghost:1" }
        )pb") == "Node 'b': Unknown input node 'ghost:1'");
  CHECK(CheckError(R"pb(
          node { name: "b" op: "NoOp" input: "^ghost" }
        )pb") == "Node 'b': Unknown input node '^ghost'");
}

TEST_CASE("a cycle is reported with the number of nodes it blocks", "[graph]") {
  CHECK(CheckError(R"pb(
          node { name: "a" op: "Identity" input: "c" }
          node { name: "b" op: "Identity" input: "a" }
          node { name: "c" op: "Identity" input: "b" }
          node { name: "d" op: "Identity" input: "c" }
          node { name: "e" op: "Const" }
        )pb") == "4 nodes in a cycle");
  CHECK(CheckError(R"pb(
          node { name: "a" op: "NoOp" input: "^a" }
        )pb") == "1 nodes in a cycle");
}

TEST_CASE("a while loop's NextIteration -> Merge back edge is no cycle",
          "[graph]") {
  const char* loop = R"pb(
    node { name: "init" op: "Const" }
    node { name: "enter" op: "Enter" input: "init" }
    node { name: "merge" op: "Merge" input: "enter" input: "next" }
    node { name: "switch" op: "Switch" input: "merge" input: "cond" }
    node { name: "cond" op: "LoopCond" input: "merge" }
    node { name: "body" op: "Identity" input: "switch:1" }
    node { name: "next" op: "NextIteration" input: "body" }
    node { name: "exit" op: "Exit" input: "switch" }
  )pb";
  CHECK(CheckGraphStructure(Parse(loop)).ok());
  // The same back edge into a node that is not a Merge is a cycle.
  CHECK(CheckError(R"pb(
          node { name: "init" op: "Const" }
          node { name: "add" op: "Add" input: "init" input: "next" }
          node { name: "next" op: "NextIteration" input: "add" }
        )pb") == "2 nodes in a cycle");
}

}  // namespace
}  // namespace dfg
