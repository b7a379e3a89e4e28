// The remapper's depthwise fusion: a Keras DepthwiseConv2D +
// BatchNormalization + ReLU6 (MobileNet's block) as `dfg freeze` writes it —
// the BN's Mul folded into the filter, its Add into a BiasAdd by the
// arithmetic pass — becomes one _FusedDepthwiseConv2dNative, and only when
// the fused op computes what the plain one does. Its values: the kernel
// tests (nn_ext_ops_test.cc) and the oracle's savedmodel section
// (app_mobilenetv2, app_efficientnetb0, k_separable).
#include <map>
#include <string>
#include <vector>

#include "lib/optimize/optimize.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& in,
                 const std::string& attrs = "") {
  std::string s = "node { name: \"" + name + "\" op: \"" + op + "\"";
  for (const std::string& i : in) s += " input: \"" + i + "\"";
  return s + R"( attr { key: "T" value { type: DT_FLOAT } })" + attrs + " }\n";
}

std::string FloatConst(const std::string& name, const std::string& shape,
                       const std::string& values) {
  return "node { name: \"" + name +
         R"(" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } })" +
         R"( attr { key: "value" value { tensor { dtype: DT_FLOAT )" +
         "tensor_shape { " + shape + " } " + values + " } } } }\n";
}

std::string DepthwiseAttrs(const std::string& strides = "1 i: 1 i: 1 i: 1",
                           const std::string& padding = "SAME",
                           const std::string& dilations = "1 i: 1 i: 1 i: 1") {
  return R"( attr { key: "strides" value { list { i: )" + strides +
         R"( } } } attr { key: "padding" value { s: ")" + padding +
         R"(" } } attr { key: "dilations" value { list { i: )" + dilations +
         " } } }";
}

// x -> DepthwiseConv2dNative (2 channels, multiplier 1) -> AddV2 of a
// per-channel constant -> `act` -> out.
GraphDef Block(const std::string& conv_attrs, const std::string& act,
               int kernel = 1) {
  const std::string k = std::to_string(kernel);
  return testing::ParseTextProto<GraphDef>(
      Node("x", "_Arg", {}, R"( attr { key: "index" value { i: 0 } })") +
      FloatConst("w",
                 "dim { size: " + k + " } dim { size: " + k +
                     " } dim { size: 2 } dim { size: 1 }",
                 "float_val: 2 float_val: 3") +
      FloatConst("shift", "dim { size: 1 } dim { size: 1 } dim { size: 2 }",
                 "float_val: 5 float_val: 6") +
      Node("dw", "DepthwiseConv2dNative", {"x", "w"}, conv_attrs) +
      Node("add", "AddV2", {"dw", "shift"}) + Node("act", act, {"add"}) +
      Node("out", "_Retval", {"act"},
           R"( attr { key: "index" value { i: 0 } })"));
}

std::map<std::string, const NodeDef*> ByName(const GraphDef& g) {
  std::map<std::string, const NodeDef*> m;
  for (const NodeDef& n : g.node()) m[n.name()] = &n;
  return m;
}

std::vector<std::string> FusedOps(const NodeDef& n) {
  const auto& list = n.attr().at("fused_ops").list().s();
  return {list.begin(), list.end()};
}

TEST_CASE("a depthwise convolution with its bias and ReLU6 becomes one node",
          "[optimize]") {
  GraphDef g = Block(DepthwiseAttrs(), "Relu6");
  OptimizeReport report;
  REQUIRE(Optimize(&g, OptimizeOptions(), &report).ok());
  auto nodes = ByName(g);
  CHECK_FALSE(nodes.contains("dw"));
  CHECK_FALSE(nodes.contains("add"));
  REQUIRE(nodes.contains("act"));
  const NodeDef& fused = *nodes.at("act");
  CHECK(fused.op() == "_FusedDepthwiseConv2dNative");
  CHECK(FusedOps(fused) == std::vector<std::string>{"BiasAdd", "Relu6"});
  CHECK(fused.attr().at("num_args").i() == 1);
  CHECK(fused.attr().at("padding").s() == "SAME");
  // Only the attrs of its OpDef (TensorFlow refuses others).
  CHECK_FALSE(fused.attr().contains("explicit_paddings"));
  CHECK_FALSE(fused.attr().contains("TArgs"));
  REQUIRE(fused.input_size() == 3);
  CHECK(fused.input(0) == "x");
  CHECK(fused.input(1) == "w");
}

TEST_CASE("the depthwise fusion takes only what TensorFlow's fused kernel does",
          "[optimize]") {
  SECTION("a LeakyRelu stays after the fused bias") {
    GraphDef g = Block(DepthwiseAttrs(), "LeakyRelu");
    REQUIRE(Optimize(&g, OptimizeOptions(), nullptr).ok());
    auto nodes = ByName(g);
    CHECK(nodes.at("act")->op() == "LeakyRelu");
    REQUIRE(nodes.contains("add"));
    CHECK(nodes.at("add")->op() == "_FusedDepthwiseConv2dNative");
    CHECK(FusedOps(*nodes.at("add")) == std::vector<std::string>{"BiasAdd"});
  }
  // The plain kernel ignores dilations and refuses unequal strides; the
  // fused op has no explicit padding.
  for (const std::string& attrs :
       {DepthwiseAttrs("1 i: 1 i: 1 i: 1", "SAME", "1 i: 2 i: 2 i: 1"),
        DepthwiseAttrs("1 i: 1 i: 2 i: 1"),
        DepthwiseAttrs("1 i: 1 i: 1 i: 1", "EXPLICIT") +
            R"( attr { key: "explicit_paddings" value { list { )"
            R"(i: 0 i: 0 i: 1 i: 1 i: 1 i: 1 i: 0 i: 0 } } })"}) {
    CAPTURE(attrs);
    GraphDef g = Block(attrs, "Relu6");
    REQUIRE(Optimize(&g, OptimizeOptions(), nullptr).ok());
    auto nodes = ByName(g);
    REQUIRE(nodes.contains("dw"));
    CHECK(nodes.at("dw")->op() == "DepthwiseConv2dNative");
    CHECK(nodes.at("act")->op() == "Relu6");
  }
}

// Keras' ZeroPadding2D(((0, 1), (0, 1))) before a stride-2 'valid' 3x3
// depthwise conv (MobileNet's downsampling blocks) on a 4x4 input: SAME
// would pad 0 before and 1 after.
GraphDef PaddedBlock(const std::string& paddings) {
  const std::string pads =
      R"(node { name: "p" op: "Const" attr { key: "dtype" value { type: )"
      R"(DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 )"
      R"(tensor_shape { dim { size: 4 } dim { size: 2 } } )" +
      paddings + " } } } }\n";
  GraphDef g = Block(DepthwiseAttrs("1 i: 2 i: 2 i: 1", "VALID") +
                         R"( attr { key: "_output_shapes" value { list { )"
                         R"(shape { dim { size: -1 } dim { size: 2 } )"
                         R"(dim { size: 2 } dim { size: 2 } } } } })",
                     "Relu6", /*kernel=*/3);
  g.MergeFrom(testing::ParseTextProto<GraphDef>(
      pads + Node("pad", "Pad", {"x", "p"},
                  R"( attr { key: "Tpaddings" value { type: DT_INT32 } })"
                  R"( attr { key: "_output_shapes" value { list { shape { )"
                  R"(dim { size: -1 } dim { size: 5 } dim { size: 5 } )"
                  R"(dim { size: 2 } } } } })")));
  for (NodeDef& n : *g.mutable_node()) {
    if (n.name() == "dw") n.set_input(0, "pad");
  }
  return g;
}

TEST_CASE("a depthwise conv behind a ZeroPadding2D that is SAME padding fuses",
          "[optimize]") {
  GraphDef g = PaddedBlock(
      "int_val: 0 int_val: 0 int_val: 0 int_val: 1 int_val: 0 int_val: 1 "
      "int_val: 0 int_val: 0");
  OptimizeReport report;
  REQUIRE(Optimize(&g, OptimizeOptions(), &report).ok());
  auto nodes = ByName(g);
  CHECK_FALSE(nodes.contains("pad"));
  REQUIRE(nodes.contains("act"));
  CHECK(nodes.at("act")->op() == "_FusedDepthwiseConv2dNative");
  CHECK(nodes.at("act")->attr().at("padding").s() == "SAME");
  CHECK(nodes.at("act")->input(0) == "x");
  bool said = false;
  for (const Rewrite& r : report.rewrites) {
    said |= r.pass == "padfusion" &&
            r.why ==
                "a zero Pad of rows and columns is the convolution's "
                "SAME padding";
  }
  CHECK(said);
  // Padding on both sides is not what SAME gives: explicit, not fused.
  GraphDef both = PaddedBlock(
      "int_val: 0 int_val: 0 int_val: 1 int_val: 0 int_val: 1 int_val: 0 "
      "int_val: 0 int_val: 0");
  REQUIRE(Optimize(&both, OptimizeOptions(), nullptr).ok());
  auto kept = ByName(both);
  REQUIRE(kept.contains("dw"));
  CHECK(kept.at("dw")->attr().at("padding").s() == "EXPLICIT");
  CHECK(kept.at("act")->op() == "Relu6");
}

}  // namespace
}  // namespace dfg
