#include "lib/optimize/optimize.h"

#include <map>

#include "lib/graph/tensor_id.h"
#include "lib/optimize/pass.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using testing::ParseTextProto;
using testing::ScalarConstText;

std::string FloatAttr() {
  return R"( attr { key: "T" value { type: DT_FLOAT } })";
}

std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs,
               const std::string& attrs = FloatAttr()) {
  std::string s = "node { name: \"" + name + "\" op: \"" + op + "\"";
  for (const std::string& in : inputs) s += " input: \"" + in + "\"";
  return s + attrs + " }\n";
}

std::string Retval(const std::string& name, const std::string& input) {
  return "node { name: \"" + name + R"(" op: "_Retval" input: ")" + input +
         R"(" attr { key: "T" value { type: DT_FLOAT } })" +
         R"( attr { key: "index" value { i: 0 } } })" + "\n";
}

std::string Arg(const std::string& name) {
  return "node { name: \"" + name +
         R"(" op: "_Arg" attr { key: "T" value { type: DT_FLOAT } })" +
         R"( attr { key: "index" value { i: 0 } } })" + "\n";
}

// name -> "op(inputs...)", the graph in a canonical form.
std::map<std::string, std::string> Shape(const GraphDef& g) {
  std::map<std::string, std::string> m;
  for (const auto& n : g.node()) {
    std::string s = n.op() + "(";
    for (int i = 0; i < n.input_size(); ++i) s += (i ? "," : "") + n.input(i);
    m[n.name()] = s + ")";
  }
  return m;
}

OptimizeReport Run(GraphDef* g, std::vector<std::string> passes = {},
                   std::vector<std::string> preserve = {}) {
  OptimizeOptions options;
  options.passes = std::move(passes);
  options.preserve = std::move(preserve);
  OptimizeReport report;
  REQUIRE(Optimize(g, options, &report).ok());
  return report;
}

TEST_CASE("constant folding computes constant subgraphs with the kernels",
          "[optimize]") {
  GraphDef g = ParseTextProto<GraphDef>(
      ScalarConstText("a", "DT_FLOAT", "float_val: 3") +
      ScalarConstText("b", "DT_FLOAT", "float_val: 4") + Arg("x") +
      Op("ab", "Mul", {"a", "b"}) + Op("y", "AddV2", {"x", "ab"}) +
      Retval("out", "y"));
  OptimizeReport report = Run(&g);
  auto shape = Shape(g);
  CHECK(shape.at("ab") == "Const()");
  CHECK(shape.at("y") == "AddV2(x,ab)");
  CHECK_FALSE(shape.contains("a"));  // orphaned, then pruned
  for (const auto& n : g.node()) {
    if (n.name() == "ab") {
      CHECK(n.attr().at("value").tensor().float_val(0) == 12.0f);
    }
  }
  CHECK(report.nodes_before == 6);
  CHECK(report.nodes_after == 4);
}

TEST_CASE("constant folding leaves stateful and preserved nodes alone",
          "[optimize]") {
  GraphDef g = ParseTextProto<GraphDef>(
      ScalarConstText("a", "DT_FLOAT", "float_val: 3") +
      Op("kept", "Neg", {"a"}) + Op("r", "Neg", {"kept"}) +
      R"pb(node {
             name: "rand"
             op: "RandomUniform"
             input: "shape"
             attr {
               key: "T"
               value { type: DT_INT32 }
             }
             attr {
               key: "dtype"
               value { type: DT_FLOAT }
             }
           })pb" +
      ScalarConstText("shape", "DT_INT32", "int_val: 1") + Retval("out", "r"));
  Run(&g, {"constfold"}, {"kept"});
  auto shape = Shape(g);
  CHECK(shape.at("kept") == "Neg(a)");
  CHECK(shape.at("r") == "Neg(kept)");
  CHECK(shape.at("rand") == "RandomUniform(shape)");
}

TEST_CASE("the dependency pass bypasses Identity nodes", "[optimize]") {
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") + Op("i1", "Identity", {"x"}) + Op("i2", "Identity", {"i1"}) +
      Op("n", "Neg", {"i2"}) + Op("after", "NoOp", {"^i2"}, "") +
      Retval("out", "n"));
  Run(&g, {"dependency", "prune"});
  auto shape = Shape(g);
  CHECK_FALSE(shape.contains("i1"));
  CHECK_FALSE(shape.contains("i2"));
  CHECK(shape.at("n") == "Neg(x)");
  CHECK(shape.at("after") == "NoOp(^x)");
}

TEST_CASE("control edges out of constants go, and NoOps are bypassed",
          "[optimize]") {
  // A frozen SavedModel function: its output control NoOp waits on every
  // variable read, constants now; k (a Const with an input) keeps its edge.
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") + ScalarConstText("c1", "DT_FLOAT", "float_val: 1") +
      ScalarConstText("c2", "DT_FLOAT", "float_val: 2") +
      Op("k", "Const", {"^x"},
         R"( attr { key: "dtype" value { type: DT_FLOAT } })"
         R"( attr { key: "value" value { tensor { dtype: DT_FLOAT)"
         R"( tensor_shape {} float_val: 3 } } })") +
      Op("reads", "NoOp", {"^c1", "^c2"}, "") +
      Op("outputs", "NoOp", {"^reads"}, "") +
      Op("n", "Neg", {"x", "^outputs", "^k"}) +
      // 3 inputs x 2 consumers: 6 edges bypassed for 5 kept, so it stays.
      Op("a", "Neg", {"x"}) + Op("b", "Neg", {"x"}) + Op("c", "Neg", {"x"}) +
      Op("wide", "NoOp", {"^a", "^b", "^c"}, "") +
      Op("p", "Neg", {"n", "^wide"}) + Op("q", "Neg", {"n", "^wide"}) +
      // 2 inputs x 1 consumer: its consumer waits for both itself.
      Op("pair", "NoOp", {"^a", "^b"}, "") +
      Op("r", "AddN", {"p", "q"},
         R"( attr { key: "T" value { type: DT_FLOAT } })"
         R"( attr { key: "N" value { i: 2 } })") +
      Op("s", "Neg", {"r", "^pair"}) + Retval("out", "s") +
      // A target NoOp is preserved; its control inputs on constants go.
      Op("target", "NoOp", {"^c1", "^a"}, ""));
  OptimizeReport report = Run(&g, {"dependency", "prune"}, {"target"});
  auto shape = Shape(g);
  CHECK_FALSE(shape.contains("reads"));
  CHECK_FALSE(shape.contains("outputs"));
  CHECK_FALSE(shape.contains("pair"));
  CHECK_FALSE(shape.contains("c1"));
  CHECK_FALSE(shape.contains("c2"));
  CHECK(shape.at("n") == "Neg(x,^k)");
  CHECK(shape.at("wide") == "NoOp(^a,^b,^c)");
  CHECK(shape.at("p") == "Neg(n,^wide)");
  CHECK(shape.at("s") == "Neg(r,^a,^b)");
  CHECK(shape.at("target") == "NoOp(^a)");
  int dropped = 0, bypassed = 0;
  for (const Rewrite& r : report.rewrites) {
    if (r.why.find("from constants dropped") != std::string::npos) ++dropped;
    if (r.why.find("a NoOp") != std::string::npos) ++bypassed;
  }
  CHECK(dropped == 2);   // reads, target
  CHECK(bypassed == 3);  // reads, outputs, pair
}

TEST_CASE("a NoOp that keeps a device crossing to one edge stays",
          "[optimize]") {
  // Grappler's rule: bypassing must not add edges between devices. g1 and
  // g2 are on the GPU, the rest on the CPU.
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") + Op("g1", "Neg", {"x"}) + Op("g2", "Neg", {"x"}) +
      // One input across, two consumers here: one crossing would be two.
      Op("fan_out", "NoOp", {"^g1"}, "") + Op("u1", "Neg", {"x", "^fan_out"}) +
      Op("u2", "Neg", {"x", "^fan_out"}) +
      // Two inputs here, one consumer across: likewise.
      Op("fan_in", "NoOp", {"^u1", "^u2"}, "") +
      Op("g3", "Neg", {"x", "^fan_in"}) +
      // On the GPU between g1 and a CPU consumer: the crossing stays one.
      Op("hop", "NoOp", {"^g1"}, "") + Op("u3", "Neg", {"x", "^hop"}) +
      Retval("o1", "u1") + Retval("o2", "u2") + Retval("o3", "g3") +
      Retval("o4", "u3"));
  const std::string cpu = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  for (NodeDef& n : *g.mutable_node()) {
    const std::string& name = n.name();
    n.set_device(name == "g1" || name == "g2" || name == "g3" || name == "hop"
                     ? gpu
                     : cpu);
  }
  Run(&g, {"dependency"});
  auto shape = Shape(g);
  CHECK(shape.at("fan_out") == "NoOp(^g1)");
  CHECK(shape.at("u1") == "Neg(x,^fan_out)");
  CHECK(shape.at("fan_in") == "NoOp(^u1,^u2)");
  CHECK(shape.at("g3") == "Neg(x,^fan_in)");
  CHECK_FALSE(shape.contains("hop"));
  CHECK(shape.at("u3") == "Neg(x,^g1)");
}

TEST_CASE("optimizing in place gives what optimizing a copy gives",
          "[optimize]") {
  const GraphDef given = ParseTextProto<GraphDef>(
      Arg("x") + Op("i1", "Identity", {"x"}) + Op("n", "Neg", {"i1"}) +
      Op("i2", "Identity", {"n"}) + Op("m", "Neg", {"i2"}) +
      Retval("out", "m"));
  GraphDef copied = given, in_place = given;
  OptimizeOptions options;
  OptimizeReport copied_report, in_place_report;
  REQUIRE(Optimize(&copied, options, &copied_report).ok());
  options.unchanged_on_error = false;
  REQUIRE(Optimize(&in_place, options, &in_place_report).ok());
  CHECK(in_place.DebugString() == copied.DebugString());
  CHECK(in_place_report.nodes_after == copied_report.nodes_after);
  CHECK_FALSE(Shape(in_place).contains("i1"));
}

TEST_CASE("graph index finds each name, the first of a repeated one",
          "[optimize]") {
  GraphDef g =
      ParseTextProto<GraphDef>(Arg("x") + Op("a", "Neg", {"x"}) +
                               Op("b", "Neg", {"a"}) + Op("a", "Neg", {"b"}));
  optimize::GraphIndex index(g);
  CHECK(index.Find("x") == 0);
  CHECK(index.Find("a") == 1);
  CHECK(index.Find("b") == 2);
  CHECK(index.Find("c") == -1);
  CHECK(index.Find("") == -1);
  REQUIRE(index.AllDataUses(1).size() == 1);
  CHECK(index.AllDataUses(1)[0].node == 2);
}

TEST_CASE("graph index resolves every input's producer once", "[optimize]") {
  // "a" twice: its readers read the first, as Find and TensorFlow's import
  // resolve it, also right after the second.
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") + Op("a", "Neg", {"x"}) + Op("a", "Neg", {"x"}) +
      Op("b", "Add", {"a", "x:0", "^a", "^nowhere"}) + Op("c", "Neg", {"b"}));
  optimize::GraphIndex index(g);
  CHECK(index.Producer(1, 0) == 0);
  CHECK(index.Producer(3, 0) == 1);
  CHECK(index.Producer(3, 1) == 0);
  CHECK(index.Producer(3, 2) == 1);
  CHECK(index.Producer(3, 3) == -1);
  CHECK(index.Producer(4, 0) == 3);
  // An input added after the index was built is looked up by its name.
  g.mutable_node(4)->add_input("^x");
  CHECK(index.Producer(4, 1) == 0);
}

TEST_CASE("rewrites are counted, not listed, when not recorded", "[optimize]") {
  const GraphDef given = ParseTextProto<GraphDef>(
      Arg("x") + Op("i1", "Identity", {"x"}) + Op("n", "Neg", {"i1"}) +
      Op("m", "Neg", {"n"}) + Retval("out", "m"));
  GraphDef listed = given, counted = given;
  OptimizeOptions options;
  OptimizeReport listed_report, counted_report;
  REQUIRE(Optimize(&listed, options, &listed_report).ok());
  options.record_rewrites = false;
  REQUIRE(Optimize(&counted, options, &counted_report).ok());
  CHECK(counted.DebugString() == listed.DebugString());
  // Neg(Neg(i1)) undone, i1 bypassed, what is left unused pruned.
  CHECK(listed_report.rewrites.size() >= 3);
  CHECK(counted_report.rewrites.empty());
  CHECK(counted_report.nodes_after == listed_report.nodes_after);
  CHECK(counted_report.pass_node_counts == listed_report.pass_node_counts);
  CHECK_FALSE(Shape(counted).contains("i1"));
}

TEST_CASE("an Identity after a Switch stays", "[optimize]") {
  GraphDef g = ParseTextProto<GraphDef>(Arg("x") +
                                        R"pb(node {
                                               name: "p"
                                               op: "Const"
                                               attr {
                                                 key: "dtype"
                                                 value { type: DT_BOOL }
                                               }
                                               attr {
                                                 key: "value"
                                                 value {
                                                   tensor {
                                                     dtype: DT_BOOL
                                                     tensor_shape {}
                                                     bool_val: true
                                                   }
                                                 }
                                               }
                                             })pb" +
                                        Op("s", "Switch", {"x", "p"}) +
                                        Op("t", "Identity", {"s:1"}) +
                                        Retval("out", "t"));
  Run(&g, {"dependency"});
  CHECK(Shape(g).at("t") == "Identity(s:1)");
}

TEST_CASE("the remapper fuses MatMul, BiasAdd and Relu under the Relu's name",
          "[optimize]") {
  const std::string mm = R"( attr { key: "T" value { type: DT_FLOAT } })"
                         R"( attr { key: "transpose_a" value { b: false } })"
                         R"( attr { key: "transpose_b" value { b: true } })";
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") + Arg("w") + Arg("b") + Op("mm", "MatMul", {"x", "w"}, mm) +
      Op("bias", "BiasAdd", {"mm", "b", "^x"}) + Op("relu", "Relu", {"bias"}) +
      Retval("out", "relu"));
  OptimizeReport report = Run(&g, {"remapper"});
  auto shape = Shape(g);
  CHECK_FALSE(shape.contains("mm"));
  CHECK_FALSE(shape.contains("bias"));
  CHECK(shape.at("relu") == "_FusedMatMul(x,w,b,^x)");
  for (const auto& n : g.node()) {
    if (n.name() != "relu") continue;
    CHECK(n.attr().at("fused_ops").list().s(0) == "BiasAdd");
    CHECK(n.attr().at("fused_ops").list().s(1) == "Relu");
    CHECK(n.attr().at("num_args").i() == 1);
    CHECK(n.attr().at("transpose_b").b());
  }
  REQUIRE(report.rewrites.size() == 1);
  CHECK(FormatRewrite(report.rewrites[0]) ==
        "remapper: mm (MatMul), bias (BiasAdd), relu (Relu) -> relu "
        "(_FusedMatMul): fused_ops BiasAdd,Relu");
}

TEST_CASE("the remapper leaves a contraction whose output is also used",
          "[optimize]") {
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") + Arg("w") + Arg("b") + Op("mm", "MatMul", {"x", "w"}) +
      Op("bias", "BiasAdd", {"mm", "b"}) + Op("other", "Neg", {"mm"}) +
      Op("sum", "AddV2", {"bias", "other"}) + Retval("out", "sum"));
  Run(&g, {"remapper"});
  CHECK(Shape(g).at("bias") == "BiasAdd(mm,b)");
}

TEST_CASE("the arithmetic pass removes involutions and no-op casts",
          "[optimize]") {
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") + Op("n1", "Neg", {"x"}) + Op("n2", "Neg", {"n1"}) +
      Op("c", "Cast", {"n2"},
         R"( attr { key: "SrcT" value { type: DT_FLOAT } })"
         R"( attr { key: "DstT" value { type: DT_FLOAT } })") +
      Retval("out", "c"));
  Run(&g);
  CHECK(Shape(g) == std::map<std::string, std::string>{{"x", "_Arg()"},
                                                       {"out", "_Retval(x)"}});
}

std::string FloatConst(const std::string& name, const std::string& shape,
                       const std::string& values) {
  return "node { name: \"" + name +
         R"(" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } })" +
         R"( attr { key: "value" value { tensor { dtype: DT_FLOAT )" +
         "tensor_shape { " + shape + " } " + values + " } } } }\n";
}

// A float 1x1 SAME Conv2D's attrs (the folding cases below).
constexpr char kConvAttrs[] =
    R"( attr { key: "T" value { type: DT_FLOAT } })"
    R"( attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } })"
    R"( attr { key: "padding" value { s: "SAME" } })";

TEST_CASE(
    "a per-channel Mul and Add of a convolution become its filter and "
    "bias, then one _FusedConv2D",
    "[optimize]") {
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") +
      FloatConst("w",
                 "dim { size: 1 } dim { size: 1 } dim { size: 1 } "
                 "dim { size: 2 }",
                 "float_val: 1 float_val: 2") +
      FloatConst("scale", "dim { size: 2 }", "float_val: 3 float_val: 4") +
      FloatConst(
          "shift",
          "dim { size: 1 } dim { size: 1 } dim { size: 1 } dim { size: 2 }",
          "float_val: 5 float_val: 6") +
      Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
      Op("mul", "Mul", {"conv", "scale"}) +
      Op("add", "AddV2", {"mul", "shift"}) + Op("relu", "Relu6", {"add"}) +
      Retval("out", "relu"));
  OptimizeReport report = Run(&g);
  auto shape = Shape(g);
  CHECK(shape.at("relu") == "_FusedConv2D(x,conv,shift/bias_vector)");
  CHECK(shape.at("conv") == "Const()");  // the scaled filter, folded
  CHECK_FALSE(shape.contains("mul"));
  CHECK_FALSE(shape.contains("add"));
  for (const auto& n : g.node()) {
    if (n.name() == "conv") {
      auto w = Tensor::FromProto(n.attr().at("value").tensor());
      REQUIRE(w.ok());
      CHECK(w->flat<float>()[0] == 3.0f);
      CHECK(w->flat<float>()[1] == 8.0f);
    }
    if (n.name() == "relu") {
      CHECK(n.attr().at("fused_ops").list().s(0) == "BiasAdd");
      CHECK(n.attr().at("fused_ops").list().s(1) == "Relu6");
    }
  }
}

TEST_CASE(
    "a per-channel Mul and Add after a convolution's BiasAdd fold into its "
    "filter and bias",
    "[optimize]") {
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") +
      FloatConst("w",
                 "dim { size: 1 } dim { size: 1 } dim { size: 1 } "
                 "dim { size: 2 }",
                 "float_val: 1 float_val: 2") +
      FloatConst("b", "dim { size: 2 }", "float_val: 10 float_val: 20") +
      FloatConst(
          "scale",
          "dim { size: 1 } dim { size: 1 } dim { size: 1 } dim { size: 2 }",
          "float_val: 3 float_val: 4") +
      FloatConst("shift", "dim { size: 2 }", "float_val: 5 float_val: 6") +
      Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
      Op("biased", "BiasAdd", {"conv", "b"}) +
      Op("mul", "Mul", {"scale", "biased"}) +
      Op("add", "AddV2", {"mul", "shift"}) + Op("relu", "Relu", {"add"}) +
      Retval("out", "relu"));
  Run(&g);
  auto shape = Shape(g);
  CHECK_FALSE(shape.contains("mul"));
  CHECK_FALSE(shape.contains("add"));
  REQUIRE(shape.contains("relu"));
  CHECK(shape.at("relu").starts_with("_FusedConv2D(x,"));
  std::map<std::string, std::vector<float>> consts;
  for (const auto& n : g.node()) {
    if (n.op() != "Const") continue;
    auto t = Tensor::FromProto(n.attr().at("value").tensor());
    REQUIRE(t.ok());
    consts[n.name()].assign(t->flat<float>().begin(), t->flat<float>().end());
  }
  for (const auto& n : g.node()) {
    if (n.name() != "relu") continue;
    CHECK(n.attr().at("fused_ops").list().s(0) == "BiasAdd");
    CHECK(n.attr().at("fused_ops").list().s(1) == "Relu");
    // The filter scaled by channel, the bias b * scale + shift.
    const std::string filter(ParseTensorNameView(n.input(1)).node);
    const std::string bias(ParseTensorNameView(n.input(2)).node);
    CHECK(consts.at(filter) == std::vector<float>{3, 8});
    CHECK(consts.at(bias) == std::vector<float>{35, 86});
  }
}

TEST_CASE("a one-value 1x1x1x1 Mul and Add after a BiasAdd fold as scalars",
          "[optimize]") {
  const std::string ones4 =
      "dim { size: 1 } dim { size: 1 } dim { size: 1 } dim { size: 1 }";
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") +
      FloatConst("w",
                 "dim { size: 1 } dim { size: 1 } dim { size: 1 } "
                 "dim { size: 2 }",
                 "float_val: 1 float_val: 2") +
      FloatConst("b", "dim { size: 2 }", "float_val: 10 float_val: 20") +
      // As constant folding writes them: tensor_content, one float each
      // (3 and 5), which a [2] shape would leave short.
      FloatConst("scale", ones4, R"(tensor_content: "\000\000@@")") +
      FloatConst("shift", ones4, R"(tensor_content: "\000\000\240@")") +
      Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
      Op("biased", "BiasAdd", {"conv", "b"}) +
      Op("mul", "Mul", {"biased", "scale"}) +
      Op("add", "AddV2", {"mul", "shift"}) + Retval("out", "add"));
  Run(&g);
  std::map<std::string, std::vector<float>> consts;
  std::map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& n : g.node()) {
    nodes[n.name()] = &n;
    if (n.op() != "Const") continue;
    auto t = Tensor::FromProto(n.attr().at("value").tensor());
    REQUIRE(t.ok());
    consts[n.name()].assign(t->flat<float>().begin(), t->flat<float>().end());
  }
  CHECK_FALSE(nodes.contains("mul"));
  CHECK_FALSE(nodes.contains("add"));
  const std::string read(ParseTensorNameView(nodes.at("out")->input(0)).node);
  const tensorflow::NodeDef& fused = *nodes.at(read);
  REQUIRE(fused.op() == "_FusedConv2D");
  const std::string filter(ParseTensorNameView(fused.input(1)).node);
  const std::string bias(ParseTensorNameView(fused.input(2)).node);
  CHECK(consts.at(filter) == std::vector<float>{3, 6});
  CHECK(consts.at(bias) == std::vector<float>{35, 65});
}

TEST_CASE("the variables pass freezes reads only when nothing writes",
          "[optimize]") {
  const std::string handle =
      R"(node { name: "v" op: "VarHandleOp" )"
      R"(attr { key: "dtype" value { type: DT_FLOAT } } )"
      R"(attr { key: "shape" value { shape {} } } )"
      R"(attr { key: "shared_name" value { s: "v" } } )"
      R"(attr { key: "container" value { s: "" } } })"
      "\n";
  const std::string read =
      R"(node { name: "r" op: "ReadVariableOp" input: "v" )"
      R"(attr { key: "dtype" value { type: DT_FLOAT } } })"
      "\n";
  OptimizeOptions options;
  options.variable_value = [](const tensorflow::NodeDef& h) {
    return std::optional<Tensor>(Tensor::Scalar<float>(2.5f));
  };
  SECTION("read only") {
    GraphDef g = ParseTextProto<GraphDef>(handle + read + Retval("out", "r"));
    OptimizeReport report;
    REQUIRE(Optimize(&g, options, &report).ok());
    CHECK(Shape(g) == std::map<std::string, std::string>{
                          {"r", "Const()"}, {"out", "_Retval(r)"}});
    CHECK(report.frozen_variables == 1);
    CHECK_FALSE(report.writes_resources);
  }
  SECTION("written") {
    GraphDef g = ParseTextProto<GraphDef>(
        handle + read + Retval("out", "r") +
        R"(node { name: "assign" op: "AssignVariableOp" input: "v" input: "r" )"
        R"(attr { key: "dtype" value { type: DT_FLOAT } } })");
    OptimizeReport report;
    REQUIRE(Optimize(&g, options, &report).ok());
    CHECK(Shape(g).at("r") == "ReadVariableOp(v)");
    CHECK(report.writes_resources);
  }
}

std::string IntPaddings(const std::string& name,
                        const std::vector<int>& values) {
  std::string v;
  for (int x : values) v += " int_val: " + std::to_string(x);
  return "node { name: \"" + name +
         R"(" op: "Const" attr { key: "dtype" value { type: DT_INT32 } })" +
         R"( attr { key: "value" value { tensor { dtype: DT_INT32 )" +
         "tensor_shape { dim { size: 4 } dim { size: 2 } }" + v + " } } } }\n";
}

TEST_CASE("a zero Pad of rows and columns becomes a convolution's padding",
          "[optimize]") {
  const std::string valid =
      R"( attr { key: "T" value { type: DT_FLOAT } })"
      R"( attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } })"
      R"( attr { key: "padding" value { s: "VALID" } })";
  const std::string same =
      R"( attr { key: "T" value { type: DT_FLOAT } })"
      R"( attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } })"
      R"( attr { key: "padding" value { s: "SAME" } })";
  GraphDef g = ParseTextProto<GraphDef>(
      Arg("x") + Arg("w") + IntPaddings("p", {0, 0, 0, 1, 1, 1, 0, 0}) +
      IntPaddings("q", {0, 0, 1, 1, 1, 1, 0, 2}) +
      Op("pad", "Pad", {"x", "p", "^w"}) +
      Op("dw", "DepthwiseConv2dNative", {"pad", "w"}, valid) +
      // Pads the channels: stays.
      Op("pad2", "Pad", {"dw", "q"}) +
      Op("c2", "Conv2D", {"pad2", "w"}, valid) +
      // SAME padding: its amounts depend on the padded size; stays.
      Op("pad3", "Pad", {"c2", "p"}) + Op("c3", "Conv2D", {"pad3", "w"}, same) +
      Retval("out", "c3"));
  OptimizeReport report = Run(&g, {"padfusion"});
  auto shape = Shape(g);
  CHECK_FALSE(shape.contains("pad"));
  CHECK(shape.at("dw") == "DepthwiseConv2dNative(x,w,^w)");
  CHECK(shape.at("c2") == "Conv2D(pad2,w)");
  CHECK(shape.at("c3") == "Conv2D(pad3,w)");
  for (const auto& n : g.node()) {
    if (n.name() != "dw") continue;
    CHECK(n.attr().at("padding").s() == "EXPLICIT");
    const auto& e = n.attr().at("explicit_paddings").list();
    CHECK(std::vector<int64_t>(e.i().begin(), e.i().end()) ==
          std::vector<int64_t>{0, 0, 0, 1, 1, 1, 0, 0});
  }
  REQUIRE(report.rewrites.size() == 1);
  CHECK(FormatRewrite(report.rewrites[0]) ==
        "padfusion: pad (Pad), dw (DepthwiseConv2dNative) -> dw "
        "(DepthwiseConv2dNative): a zero Pad of rows and columns is the "
        "convolution's explicit padding [0,0,0,1,1,1,0,0]");
}

TEST_CASE("an unknown pass is an error naming the passes", "[optimize]") {
  GraphDef g;
  OptimizeOptions options;
  options.passes = {"remaper"};
  Status s = Optimize(&g, options, nullptr);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Matchers::Contains("did you mean 'remapper'"));
}

}  // namespace
}  // namespace dfg
