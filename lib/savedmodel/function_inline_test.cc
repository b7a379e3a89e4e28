#include "lib/optimize/function_inline.h"

#include <set>

#include "lib/exec/session.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

// f(x, y) = x * y + x, called through PartitionedCall and by op name, with
// a control input on the first call and a node depending on it.
const std::string kGraph =
    testing::ScalarConstText("a", "DT_FLOAT", "float_val: 3") +
    testing::ScalarConstText("b", "DT_FLOAT", "float_val: 4") + R"pb(
      node { name: "start" op: "NoOp" }
    )pb" +
    testing::CallNodeText("call", "PartitionedCall", {"a", "b", "^start"},
                          {"DT_FLOAT", "DT_FLOAT"}, {"DT_FLOAT"}, "f") +
    R"pb(
  node { name: "after" op: "NoOp" input: "^call" }
  node { name: "direct" op: "f" input: "call" input: "b" }
  node {
    name: "out"
    op: "Identity"
    input: "direct"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  library {
    function {
      signature {
        name: "f"
        input_arg { name: "x" type: DT_FLOAT }
        input_arg { name: "y" type: DT_FLOAT }
        output_arg { name: "z" type: DT_FLOAT }
      }
      node_def {
        name: "mul"
        op: "Mul"
        input: "x"
        input: "y"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "mul:z:0"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "z" value: "add:z:0" }
    }
  }
    )pb";

tensorflow::GraphDef Parse() {
  return testing::ParseTextProto<tensorflow::GraphDef>(kGraph);
}

float Run(const tensorflow::GraphDef& graph, const std::string& fetch) {
  SessionOptions options;
  options.inter_op_threads = 1;
  auto session = Session::Create(graph, options);
  INFO(session.status().ToString());
  REQUIRE(session.ok());
  std::vector<Tensor> out;
  Status s = (*session)->Run({}, {fetch}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return out[0].scalar<float>();
}

TEST_CASE(
    "inlined calls are named as TensorFlow's InlineFunctionBody names "
    "them",
    "[savedmodel][freeze]") {
  tensorflow::GraphDef graph = Parse();
  FunctionInliner inliner(&graph);
  REQUIRE(inliner.Inline("call").ok());
  std::set<std::string> names;
  for (const auto& n : graph.node()) names.insert(n.name());
  CHECK(names == std::set<std::string>{"a", "b", "start", "after", "direct",
                                       "out", "Func/call/input_control_node/_0",
                                       "Func/call/input/_1",
                                       "Func/call/input/_2", "call/mul",
                                       "call/add", "Func/call/output/_3",
                                       "Func/call/output_control_node/_4"});
  for (const auto& n : graph.node()) {
    if (n.name() == "Func/call/input/_1") {
      CHECK(n.input(0) == "a");
      CHECK(n.input(1) == "^Func/call/input_control_node/_0");
    }
    if (n.name() == "call/add") CHECK(n.input(0) == "call/mul");
    if (n.name() == "direct") CHECK(n.input(0) == "Func/call/output/_3");
    if (n.name() == "after") {
      CHECK(n.input(0) == "^Func/call/output_control_node/_4");
    }
  }
  CHECK(Run(graph, "out") == (3 * 4 + 3) * 4 + 15);
}

TEST_CASE("calls are inlined until none that the fetches need is left",
          "[savedmodel][freeze]") {
  tensorflow::GraphDef graph = Parse();
  const float before = Run(graph, "out");
  FunctionInliner inliner(&graph);
  REQUIRE(inliner.InlineCallsNeededBy({"out:0"}).ok());
  for (const auto& n : graph.node()) {
    CHECK(n.op() != "PartitionedCall");
    CHECK(n.op() != "f");
  }
  CHECK(Run(graph, "out") == before);
  CHECK_FALSE(inliner.Inline("a").ok());
  CHECK_FALSE(inliner.Inline("nope").ok());
}

}  // namespace
}  // namespace dfg
