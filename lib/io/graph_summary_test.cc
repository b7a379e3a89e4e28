#include "lib/io/graph_summary.h"

#include <google/protobuf/text_format.h>

#include <nlohmann/json.hpp>

#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

constexpr const char* kGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: -1 }
          dim { size: 2 }
        }
      }
    }
  }
  node {
    name: "k"
    op: "PlaceholderWithDefault"
    input: "w"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value { shape { unknown_rank: true } }
    }
  }
  node {
    name: "w"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          tensor_content: "\000\000\200?\000\000\000@"
        }
      }
    }
  }
  node {
    name: "s"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape { dim { size: 3 } }
          string_val: "ab"
          string_val: "cde"
        }
      }
    }
  }
  node {
    name: "v"
    op: "VariableV2"
    device: "/device:GPU:0"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: 3 }
          dim { size: 4 }
        }
      }
    }
  }
  node { name: "init" op: "NoOp" input: "^v" }
  node {
    name: "y"
    op: "Mul"
    input: "x"
    input: "w:0"
    input: "^k"
    device: "/device:CPU:0"
  }
  node {
    name: "z"
    op: "Frobnicate"
    input: "y"
    input: "ghost:1"
    device: "/device:CPU:0"
  }
  node { name: "call" op: "my_fn" input: "y" }
  library {
    function {
      signature {
        name: "my_fn"
        input_arg { name: "a" type: DT_FLOAT }
        output_arg { name: "b" type: DT_FLOAT }
      }
      node_def { name: "n" op: "Identity" input: "a" }
      node_def { name: "m" op: "Mystery" input: "n:output:0" }
      ret { key: "b" value: "n:output:0" }
    }
  }
  versions { producer: 1087 }
)pb";

GraphSummary Summarize(const char* text = kGraph) {
  LoadedGraph loaded;
  loaded.graph = testing::ParseTextProto<tensorflow::GraphDef>(text);
  loaded.format = GraphFormat::kPbtxt;
  return SummarizeGraph(loaded, "g.pbtxt");
}

TEST_CASE("info counts nodes, data edges and control edges", "[io][info]") {
  GraphSummary s = Summarize();
  CHECK(s.nodes == 9);
  CHECK(s.data_edges == 6);
  CHECK(s.control_edges == 2);
  CHECK(s.producer == 1087);
}

TEST_CASE("info finds placeholders, variables and outputs as summarize_graph",
          "[io][info]") {
  GraphSummary s = Summarize();
  REQUIRE(s.inputs.size() == 1);
  CHECK(s.inputs[0].name == "x");
  CHECK(s.inputs[0].dtype == tensorflow::DT_FLOAT);
  CHECK(s.inputs[0].shape == "[?,2]");
  REQUIRE(s.defaulted_inputs.size() == 1);
  CHECK(s.defaulted_inputs[0].shape == "<unknown>");
  REQUIRE(s.variables.size() == 1);
  CHECK(s.variables[0].shape == "[3,4]");
  CHECK(s.variable_parameters == 12);
  // Nothing consumes init, z, s and call; summarize_graph leaves out NoOp and
  // Const.
  std::vector<std::string> outputs, unconsumed;
  for (const auto& o : s.outputs) outputs.push_back(o.name);
  for (const auto& o : s.unconsumed) unconsumed.push_back(o.name);
  CHECK(outputs == std::vector<std::string>{"z", "call"});
  CHECK(unconsumed == std::vector<std::string>{"s", "init", "z", "call"});
}

TEST_CASE("info counts constant elements and bytes", "[io][info]") {
  GraphSummary s = Summarize();
  CHECK(s.const_nodes == 2);
  CHECK(s.const_parameters == 5);
  // 8 bytes of tensor_content; strings "ab", "cde" and "cde" repeated.
  CHECK(s.const_bytes == 8 + 2 + 3 + 3);
}

TEST_CASE("info lists ops, devices, functions and unknown ops", "[io][info]") {
  GraphSummary s = Summarize();
  REQUIRE(s.op_counts.size() >= 3);
  CHECK(s.op_counts[0] == GraphSummary::Count{"Const", 2});
  // Ties are broken by name: Frobnicate, Identity, Mul, Mystery, NoOp...
  CHECK(s.op_counts[1] == GraphSummary::Count{"Frobnicate", 1});
  CHECK(s.devices == std::vector<GraphSummary::Count>{{"/device:CPU:0", 2},
                                                      {"/device:GPU:0", 1}});
  REQUIRE(s.functions.size() == 1);
  CHECK(s.functions[0].name == "my_fn");
  CHECK(s.functions[0].nodes == 2);
  CHECK(s.unknown_ops ==
        std::vector<GraphSummary::Count>{{"Frobnicate", 1}, {"Mystery", 1}});
  REQUIRE(s.invalid_inputs.size() == 1);
  CHECK(s.invalid_inputs[0].second == "ghost:1");
}

TEST_CASE("info text has summarize_graph's lines", "[io][info]") {
  std::string text = FormatGraphSummary(Summarize());
  CHECK_THAT(text, Contains("Graph: g.pbtxt (GraphDef, pbtxt)\n"));
  CHECK_THAT(text, Contains("Found 1 possible inputs: (name=x, type=float(1), "
                            "shape=[?,2])\n"));
  CHECK_THAT(text, Contains("Found 1 variables: (name=v, type=float(1), "
                            "shape=[3,4])\n"));
  CHECK_THAT(text, Contains("Found 2 possible outputs: (name=z, op=Frobnicate) "
                            "(name=call, op=my_fn)\n"));
  CHECK_THAT(text, Contains("Found 5 (5) const parameters, 12 (12) variable "
                            "parameters, and 2 control_edges\n"));
  CHECK_THAT(text, Contains("2 nodes assigned to device '/device:CPU:0'\n"));
  CHECK_THAT(text, Contains("Invalid input ghost:1 for node z\n"));
  CHECK_THAT(text, Contains("Op types used: 2 Const, 1 Frobnicate, "));
  CHECK_THAT(text, Contains("Ops dfg does not know: Frobnicate (1 node), "
                            "Mystery (1 node)\n"));
  CHECK_THAT(text, Contains("  my_fn: 1 inputs, 1 outputs, 2 nodes\n"));
}

TEST_CASE("info JSON carries the same facts", "[io][info]") {
  auto j = nlohmann::json::parse(GraphSummaryJson(Summarize()));
  CHECK(j["nodes"] == 9);
  CHECK(j["edges"]["control"] == 2);
  CHECK(j["inputs"][0]["shape"] == nlohmann::json::array({-1, 2}));
  CHECK(j["inputs_with_defaults"][0]["shape"].is_null());  // unknown rank
  CHECK(j["constants"]["bytes"] == 16);
  CHECK(j["unknown_ops"][0]["op"] == "Frobnicate");
  CHECK(j["functions"][0]["name"] == "my_fn");
  CHECK_FALSE(j.contains("signatures"));
}

TEST_CASE("info shows a SavedModel's tags and signatures", "[io][info]") {
  LoadedGraph loaded;
  loaded.container = GraphContainer::kSavedModel;
  loaded.tags = {"serve"};
  loaded.available_tag_sets = {{"serve"}, {"train"}};
  auto& sig = loaded.signatures["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  auto& in = (*sig.mutable_inputs())["x"];
  in.set_name("serving_default_x:0");
  in.set_dtype(tensorflow::DT_FLOAT);
  in.mutable_tensor_shape()->add_dim()->set_size(-1);
  GraphSummary s = SummarizeGraph(loaded, "saved_model.pb");
  std::string text = FormatGraphSummary(s);
  CHECK_THAT(text, Contains("Meta graph tags: [serve] (available: [serve], "
                            "[train])\n"));
  CHECK_THAT(
      text,
      Contains("  serving_default (tensorflow/serving/predict) [default]\n"
               "    input  x: serving_default_x:0 float [?]\n"));
  auto j = nlohmann::json::parse(GraphSummaryJson(s));
  const auto& x = j["signatures"]["serving_default"]["inputs"]["x"];
  CHECK(x["tensor"] == "serving_default_x:0");
  CHECK(x["shape"] == nlohmann::json::array({-1}));
  CHECK(j["tags"][0] == "serve");
}

TEST_CASE("info counts a variable once, not its copies and unused handles",
          "[io][info]") {
  // As a TF2 SavedModel's graph: `w` read by the computation, `w_unused` a
  // handle with only a read nothing consumes, `w_copy` assigned w's value.
  GraphSummary s = Summarize(R"pb(
    node {
      name: "w"
      op: "VarHandleOp"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value {
          shape {
            dim { size: 3 }
            dim { size: 4 }
          }
        }
      }
    }
    node {
      name: "w_unused"
      op: "VarHandleOp"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value {
          shape {
            dim { size: 3 }
            dim { size: 4 }
          }
        }
      }
    }
    node {
      name: "w_unused/Read"
      op: "ReadVariableOp"
      input: "w_unused"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "w_copy"
      op: "VarHandleOp"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value {
          shape {
            dim { size: 3 }
            dim { size: 4 }
          }
        }
      }
    }
    node {
      name: "w_copy/init"
      op: "ReadVariableOp"
      input: "w"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "w_copy/Assign"
      op: "AssignVariableOp"
      input: "w_copy"
      input: "w_copy/init"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "y"
      op: "ReadVariableOp"
      input: "w"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  CHECK(s.variables.size() == 3);
  CHECK(s.variable_parameters == 12);
  REQUIRE(s.uncounted_variables.size() == 2);
  CHECK(s.uncounted_variables[0].name == "w_unused");
  CHECK(s.uncounted_variables[0].copy_of.empty());
  CHECK(s.uncounted_variables[1].name == "w_copy");
  CHECK(s.uncounted_variables[1].copy_of == "w");
  std::string text = FormatGraphSummary(s);
  CHECK_THAT(text, Contains("Found 1 variables: (name=w, "));
  CHECK_THAT(text, Contains("w_unused (unused), w_copy (copy of w)\n"));
  auto j = nlohmann::json::parse(GraphSummaryJson(s));
  CHECK(j["variables"][2]["copy_of"] == "w");
  CHECK(j["variables"][0]["counted"] == true);
}

TEST_CASE("info from bytes, with the graph in an arena, says the same",
          "[io][info]") {
  tensorflow::SavedModel model;
  auto* meta = model.add_meta_graphs();
  meta->mutable_meta_info_def()->add_tags("serve");
  *meta->mutable_graph_def() =
      testing::ParseTextProto<tensorflow::GraphDef>(kGraph);
  // `dfg info` refuses kGraph's input naming no node (the structure check).
  for (auto& node : *meta->mutable_graph_def()->mutable_node()) {
    if (node.name() == "z") node.mutable_input()->RemoveLast();
  }
  (*meta->mutable_signature_def())["sig"].set_method_name("m");
  std::string bytes = model.SerializeAsString();
  auto loaded = ParseGraph(bytes, "sm.pb");
  REQUIRE(loaded.ok());
  auto summary = SummarizeGraphBytes(bytes, "sm.pb");
  REQUIRE(summary.ok());
  CHECK(summary->container == GraphContainer::kSavedModel);
  CHECK(summary->nodes == 9);
  CHECK(GraphSummaryJson(*summary) ==
        GraphSummaryJson(SummarizeGraph(*loaded, "sm.pb")));
  auto error = SummarizeGraphBytes(bytes, "sm.pb", ReadOptions{"gpu"});
  REQUIRE_FALSE(error.ok());
  CHECK_THAT(error.status().message(),
             Contains("no meta graph with tag 'gpu'"));
}

TEST_CASE("HumanReadableNum matches TensorFlow's", "[io][info]") {
  CHECK(HumanReadableNum(999) == "999");
  CHECK(HumanReadableNum(1200) == "1.20k");
  CHECK(HumanReadableNum(1200000) == "1.20M");
  CHECK(HumanReadableNum(3456789012) == "3.46B");
  CHECK(HumanReadableNum(-5000) == "-5.00k");
  CHECK(HumanReadableNum(2000000000000000) == "2E+15");
}

TEST_CASE("dfg info's summary of bytes checks the structure and names the file",
          "[io]") {
  std::string text = R"pb(
    node { name: "a" op: "Const" }
    node { name: "a" op: "Const" }
  )pb";
  auto from_text = SummarizeGraphBytes(text, "dup.pbtxt");
  REQUIRE_FALSE(from_text.ok());
  CHECK(from_text.status().message() == "dup.pbtxt: Node 'a' is not unique");

  // The binary fast path makes the same check.
  tensorflow::GraphDef cycle =
      testing::ParseTextProto<tensorflow::GraphDef>(R"pb(
        node { name: "a" op: "Identity" input: "b" }
        node { name: "b" op: "Identity" input: "a" }
      )pb");
  std::string binary = cycle.SerializeAsString();
  auto from_binary = SummarizeGraphBytes(binary, "cycle.pb");
  REQUIRE_FALSE(from_binary.ok());
  CHECK_THAT(std::string(from_binary.status().message()),
             Contains("cycle.pb: 2 nodes in a cycle"));
}

}  // namespace
}  // namespace dfg
