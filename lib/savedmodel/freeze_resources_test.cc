#include "lib/savedmodel/freeze_resources.h"

#include <google/protobuf/text_format.h>

#include <set>

#include "lib/savedmodel/freeze.h"
#include "lib/savedmodel/savedmodel_test_util.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "subcommands/run/step.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;

std::string CapturedVariables() {
  return testing::SourceDir() + "/testdata/savedmodels/captured_variables";
}

GraphDef ParseGraph(const std::string& text) {
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &graph));
  return graph;
}

std::vector<Tensor> RunFrozen(const GraphDef& frozen, const std::string& flag) {
  LoadedGraph loaded;
  loaded.graph = frozen;
  StepRequest request;
  request.feeds = {"x=[1, 2]", "flag=" + flag};
  request.fetches = {"looped", "branched", "rows"};
  return testing::RunModel(std::move(loaded), request);
}

std::vector<float> Values(const Tensor& t) {
  auto flat = t.flat<float>();
  return {flat.begin(), flat.end()};
}

TEST_CASE(
    "variables passed to While and If bodies and nested calls freeze into "
    "constants",
    "[savedmodel][freeze]") {
  LoadedGraph model = testing::ReadModel(CapturedVariables());
  auto frozen = FreezeSavedModel(model, FreezeOptions());
  INFO(frozen.status().ToString());
  REQUIRE(frozen.ok());
  std::set<std::string> ops;
  for (const auto& n : frozen->node()) ops.insert(n.op());
  CHECK(ops.count("VarHandleOp") == 0);
  CHECK(ops.count("ResourceGather") == 0);
  CHECK(ops.count("GatherV2") == 1);
  // Every function left takes values, not handles, and reads none.
  std::set<std::string> functions;
  for (const auto& f : frozen->library().function()) {
    functions.insert(f.signature().name());
    for (const auto& arg : f.signature().input_arg()) {
      CHECK(arg.type() != tensorflow::DT_RESOURCE);
    }
    for (const auto& n : f.node_def()) CHECK(n.op() != "ReadVariableOp");
  }
  CHECK(functions ==
        std::set<std::string>{"loop_body_frozen", "loop_cond_frozen",
                              "scale_then_frozen", "scale_fn_frozen",
                              "shift_else_frozen"});

  auto then = RunFrozen(*frozen, "true");
  CHECK(Values(then[0]) == std::vector<float>{3.375f, -16.0f});
  CHECK(Values(then[1]) == std::vector<float>{1.5f, -4.0f});
  CHECK(Values(then[2]) == std::vector<float>{5, 6, 1, 2});
  auto otherwise = RunFrozen(*frozen, "false");
  CHECK(Values(otherwise[1]) == std::vector<float>{-0.5f, 4.0f});
}

TEST_CASE("a branch that changes a captured variable is refused",
          "[savedmodel][freeze]") {
  LoadedGraph model = testing::ReadModel(CapturedVariables());
  FreezeOptions options;
  options.signature = "assign";
  auto frozen = FreezeSavedModel(model, options);
  REQUIRE(frozen.status().code() == Code::kInvalidArgument);
  CHECK_THAT(frozen.status().message(),
             Catch::Matchers::Contains("(AssignAddVariableOp) in function") &&
                 Catch::Matchers::Contains("changes a variable"));
}

constexpr char kGatherGraph[] = R"pb(
  node {
    name: "v"
    op: "VarHandleOp"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "i"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_INT64 }
    }
  }
  node {
    name: "pass"
    op: "Identity"
    input: "v"
    attr {
      key: "T"
      value { type: DT_RESOURCE }
    }
  }
  node {
    name: "read"
    op: "ReadVariableOp"
    input: "v"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "g"
    op: "ResourceGather"
    input: "pass"
    input: "i"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tindices"
      value { type: DT_INT64 }
    }
    attr {
      key: "batch_dims"
      value { i: 0 }
    }
  }
)pb";

TEST_CASE("ops that write a variable are told from pure scatters",
          "[savedmodel][freeze]") {
  for (const char* op :
       {"AssignVariableOp", "AssignAdd", "ScatterNdUpdate", "ScatterAdd",
        "ResourceScatterAdd", "ResourceApplyAdam", "ResourceSparseApplyFtrl"}) {
    INFO(op);
    CHECK(ChangesVariable(op));
  }
  for (const char* op : {"ScatterNd", "ScatterNdNonAliasingAdd",
                         "TensorScatterAdd", "ReadVariableOp", "GatherV2"}) {
    INFO(op);
    CHECK_FALSE(ChangesVariable(op));
  }
}

TEST_CASE("a handle read only by ReadVariableOp is not captured",
          "[savedmodel][freeze]") {
  GraphDef graph = ParseGraph(kGatherGraph);
  CHECK(CapturedHandles(graph, {"v", "read"}).empty());
  CHECK(CapturedHandles(graph, {"v", "pass", "g", "i"}) ==
        std::vector<std::string>{"v"});
}

TEST_CASE("a gathered variable becomes GatherV2 of a Const on axis 0",
          "[savedmodel][freeze]") {
  GraphDef graph = ParseGraph(kGatherGraph);
  std::map<std::string, Tensor> values = {
      {"v", Tensor::Vector<float>({1, 2, 3})}};
  Status s =
      ConvertCapturedVariables(&graph, values, {"v", "pass", "g", "i"}, "here");
  INFO(s.ToString());
  REQUIRE(s.ok());
  std::map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& n : graph.node()) nodes[n.name()] = &n;
  CHECK(nodes.at("v")->op() == "Const");
  CHECK(nodes.at("pass")->attr().at("T").type() == tensorflow::DT_FLOAT);
  const auto& g = *nodes.at("g");
  CHECK(g.op() == "GatherV2");
  CHECK(std::vector<std::string>(g.input().begin(), g.input().end()) ==
        std::vector<std::string>{"pass", "i", "g/axis"});
  CHECK(g.attr().at("Tparams").type() == tensorflow::DT_FLOAT);
  CHECK(g.attr().at("Taxis").type() == tensorflow::DT_INT64);
  auto axis =
      Tensor::FromProto(nodes.at("g/axis")->attr().at("value").tensor());
  REQUIRE(axis.ok());
  CHECK(axis->scalar<int64_t>() == 0);
  // A ReadVariableOp no needed node reaches is left to pruning.
  CHECK(nodes.at("read")->op() == "ReadVariableOp");
}

TEST_CASE("a ResourceGatherNd of a variable becomes GatherNd",
          "[savedmodel][freeze]") {
  GraphDef graph = ParseGraph(kGatherGraph);
  for (auto& n : *graph.mutable_node()) {
    if (n.name() == "g") {
      n.set_op("ResourceGatherNd");
      n.mutable_attr()->erase("batch_dims");
    }
  }
  std::map<std::string, Tensor> values = {
      {"v", Tensor::Vector<float>({1, 2, 3})}};
  Status s =
      ConvertCapturedVariables(&graph, values, {"v", "pass", "g", "i"}, "here");
  INFO(s.ToString());
  REQUIRE(s.ok());
  for (const auto& n : graph.node()) {
    if (n.name() != "g") continue;
    CHECK(n.op() == "GatherNd");
    CHECK(n.input_size() == 2);
    CHECK(n.attr().at("Tparams").type() == tensorflow::DT_FLOAT);
    CHECK(n.attr().count("dtype") == 0);
  }
  CHECK(graph.node_size() == 5);
}

constexpr char kBranchGraph[] = R"pb(
  node {
    name: "v"
    op: "VarHandleOp"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "p"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
  }
  node {
    name: "branch"
    op: "StatelessIf"
    input: "p"
    input: "v"
    attr {
      key: "Tin"
      value { list { type: DT_RESOURCE } }
    }
    attr {
      key: "then_branch"
      value { func { name: "rows" } }
    }
    attr {
      key: "else_branch"
      value { func { name: "rows" } }
    }
  }
  library {
    function {
      signature {
        name: "rows"
        input_arg { name: "t" type: DT_RESOURCE }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "i"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "g"
        op: "ResourceGather"
        input: "t"
        input: "i:output:0"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
        attr {
          key: "Tindices"
          value { type: DT_INT32 }
        }
      }
      ret { key: "y" value: "g:output:0" }
    }
  }
)pb";

TEST_CASE("a gather inside a branch function reads the variable's value",
          "[savedmodel][freeze]") {
  GraphDef graph = ParseGraph(kBranchGraph);
  std::map<std::string, Tensor> values = {
      {"v", Tensor::Vector<float>({1, 2, 3})}};
  Status s =
      ConvertCapturedVariables(&graph, values, {"v", "p", "branch"}, "here");
  INFO(s.ToString());
  REQUIRE(s.ok());
  const auto& branch = graph.node(2);
  CHECK(branch.attr().at("Tin").list().type(0) == tensorflow::DT_FLOAT);
  // Both branches name the one copy.
  CHECK(branch.attr().at("then_branch").func().name() == "rows_frozen");
  CHECK(branch.attr().at("else_branch").func().name() == "rows_frozen");
  REQUIRE(graph.library().function_size() == 2);
  const auto& copy = graph.library().function(1);
  CHECK(copy.signature().input_arg(0).type() == tensorflow::DT_FLOAT);
  std::map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& n : copy.node_def()) nodes[n.name()] = &n;
  REQUIRE(nodes.count("g/axis") == 1);
  CHECK(nodes.at("g")->op() == "GatherV2");
  CHECK(nodes.at("g")->input(2) == "g/axis:output:0");
  // The original stays for callers that pass it a handle.
  CHECK(graph.library().function(0).node_def(1).op() == "ResourceGather");
}

TEST_CASE("a gather with batch_dims is refused as TensorFlow's freeze does",
          "[savedmodel][freeze]") {
  GraphDef graph = ParseGraph(kGatherGraph);
  for (auto& n : *graph.mutable_node()) {
    if (n.name() == "g") (*n.mutable_attr())["batch_dims"].set_i(1);
  }
  std::map<std::string, Tensor> values = {
      {"v", Tensor::Vector<float>({1, 2, 3})}};
  Status s =
      ConvertCapturedVariables(&graph, values, {"v", "pass", "g", "i"}, "here");
  REQUIRE(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Matchers::Contains(
                              "batch_dims must be 0 for freeze_graph"));
}

}  // namespace
}  // namespace dfg
