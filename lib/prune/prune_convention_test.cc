// The rendezvous and placeholder conventions, colocation and library
// clean-up, and the Graph-level entry point the session uses.
#include "lib/graph/graph_import.h"
#include "lib/graph/pipeline_attrs.h"
#include "lib/prune/prune.h"
#include "lib/prune/prune_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using namespace prune_test;  // NOLINT
using Catch::Matchers::Contains;

GraphDef BaseGraph() {
  return Parse(FloatConst("a") + FloatConst("b") + Placeholder("p") +
               Add("c", "a", "b") + Add("d", "c", "p") + Identity("e", "d") +
               Identity("u", "a"));
}

TEST_CASE("the rendezvous convention adds client-terminated _Recv and _Send",
          "[prune]") {
  const std::string dev = "/job:w/replica:0/task:3/device:CPU:0";
  PruneOptions options = Options({"d:0"}, {"p"});
  options.convention = Convention::kRendezvous;
  options.client_device = dev;
  options.client_incarnation = 77;
  PruneResult result = PruneOk(BaseGraph(), options);
  CHECK(Render(result.graph) ==
        "a=Const()\nb=Const()\nc=AddV2(a,b)\nd=AddV2(c,_recv_p_0)\n"
        "_recv_p_0=_Recv()@" +
            dev + "\n_send_d_0=_Send(d)@" + dev + "\n");
  CHECK(AttrOf(result.graph, "_recv_p_0", "tensor_type") == "type: DT_FLOAT");
  CHECK(AttrOf(result.graph, "_recv_p_0", "tensor_name") == "s: \"p\"");
  CHECK(AttrOf(result.graph, "_send_d_0", "tensor_name") == "s: \"d:0\"");
  CHECK(AttrOf(result.graph, "_send_d_0", "T") == "type: DT_FLOAT");
  for (const char* node : {"_recv_p_0", "_send_d_0"}) {
    CHECK(AttrOf(result.graph, node, "send_device") == "s: \"" + dev + "\"");
    CHECK(AttrOf(result.graph, node, "recv_device") == "s: \"" + dev + "\"");
    CHECK(AttrOf(result.graph, node, "send_device_incarnation") == "i: 77");
    CHECK(AttrOf(result.graph, node, "client_terminated") == "b: true");
  }
}

TEST_CASE("nodes whose consumers were pruned are marked for dfg partition",
          "[prune]") {
  // d's consumer e is pruned; c keeps its consumer d; a lost u.
  PruneResult result = PruneOk(BaseGraph(), Options({"d:0"}, {"p"}, {"a"}));
  CHECK(AttrOf(result.graph, "d", kConsumersPrunedAttr) == "b: true");
  CHECK(AttrOf(result.graph, "a", kConsumersPrunedAttr) == "<none>");
  CHECK(AttrOf(result.graph, "c", kConsumersPrunedAttr) == "<none>");
  // e had no consumers: nothing to say.
  result = PruneOk(BaseGraph(), Options({"e"}, {"p"}));
  CHECK(AttrOf(result.graph, "e", kConsumersPrunedAttr) == "<none>");
  // Without feed or fetch nodes, and in the placeholder convention, nothing
  // is marked.
  result = PruneOk(BaseGraph(), Options({}, {}, {"d"}));
  CHECK(AttrOf(result.graph, "d", kConsumersPrunedAttr) == "<none>");
  PruneOptions options = Options({"d:0"}, {"p"});
  options.convention = Convention::kPlaceholder;
  result = PruneOk(BaseGraph(), options);
  CHECK(AttrOf(result.graph, "d", kConsumersPrunedAttr) == "<none>");
}

TEST_CASE("two rendezvous fetches of one tensor share a name, the later wins",
          "[prune]") {
  // TensorFlow finds fetch nodes again by name for the search, so only the
  // second _send_c_0 is a target and the first one is pruned.
  PruneOptions options = Options({"c", "c:0"});
  options.convention = Convention::kRendezvous;
  PruneResult result = PruneOk(BaseGraph(), options);
  CHECK(Render(result.graph) ==
        "a=Const()\nb=Const()\nc=AddV2(a,b)\n"
        "_send_c_0=_Send(c)@" +
            std::string(kCpu) + "\n");
  CHECK(AttrOf(result.graph, "_send_c_0", "tensor_name") == "s: \"c:0\"");
  CHECK_FALSE(result.report.created[0].kept);
  CHECK(result.report.created[1].kept);
}

TEST_CASE("the placeholder convention replaces fed tensors by Placeholders",
          "[prune]") {
  PruneOptions options = Options({"e"}, {"p", "c:0"});
  options.convention = Convention::kPlaceholder;
  PruneResult result = PruneOk(BaseGraph(), options);
  // The fed Placeholder keeps its name; c becomes an input named c.
  CHECK(Render(result.graph) ==
        "d=AddV2(c,p)\ne=Identity(d)\np=Placeholder()\nc=Placeholder()\n");
  CHECK(AttrOf(result.graph, "p", "dtype") == "type: DT_FLOAT");
  CHECK(AttrOf(result.graph, "p", "shape") == "shape { dim { size: 2 } }");
  CHECK(AttrOf(result.graph, "c", "shape") == "shape { unknown_rank: true }");
  CHECK(result.report.created.size() == 2);
  // The result is a model of its own.
  auto reimported = ImportGraphDef(result.graph);
  INFO(reimported.status().ToString());
  CHECK(reimported.ok());
}

TEST_CASE("placeholder shapes come from _output_shapes and Const values",
          "[prune]") {
  GraphDef graph = Parse(IntConst("dim") + FloatConst("v", "dim { size: 4 }") +
                         Op("s", "Split", {"dim", "v"},
                            Float() + Attr("num_split", "i: 2") +
                                Attr("_output_shapes",
                                     "list { shape { dim { size: 2 } } "
                                     "shape { dim { size: -1 } } }")) +
                         Add("sum", "s", "s:1") + Identity("w", "v"));
  PruneOptions options = Options({"sum", "w"}, {"s:1", "v"});
  options.convention = Convention::kPlaceholder;
  PruneResult result = PruneOk(graph, options);
  CHECK(Render(result.graph) ==
        "dim=Const()\ns=Split(dim,v)\nsum=AddV2(s,s_1)\nw=Identity(v)\n"
        "s_1=Placeholder()\nv=Placeholder()\n");
  CHECK(AttrOf(result.graph, "s_1", "shape") == "shape { dim { size: -1 } }");
  CHECK(AttrOf(result.graph, "s_1", "_output_shapes") ==
        "list { shape { dim { size: -1 } } }");
  CHECK(AttrOf(result.graph, "v", "shape") == "shape { dim { size: 4 } }");
  CHECK(AttrOf(result.graph, "v", "_output_shapes") == "<none>");
  CHECK(ImportGraphDef(result.graph).ok());
}

TEST_CASE("placeholders get no device, as strip_unused writes them",
          "[prune]") {
  GraphDef graph =
      Parse(Placeholder("p", "dim { size: 2 }", "device: '/device:GPU:0' ") +
            Identity("i", "p"));
  PruneOptions options = Options({"i"}, {"p"});
  options.convention = Convention::kPlaceholder;
  PruneResult result = PruneOk(graph, options);
  CHECK(Render(result.graph) == "i=Identity(p)\np=Placeholder()\n");
  CHECK(AttrOf(result.graph, "p", "shape") == "shape { dim { size: 2 } }");
}

TEST_CASE("a placeholder name taken by a kept node gets a numeric suffix",
          "[prune]") {
  GraphDef graph = Parse(
      IntConst("dim") + FloatConst("v", "dim { size: 4 }") +
      Op("s", "Split", {"dim", "v"}, Float() + Attr("num_split", "i: 2")) +
      Identity("s_1", "s") + Add("sum", "s_1", "s:1"));
  PruneOptions options = Options({"sum", "v:0"}, {"s:1", "v"});
  options.convention = Convention::kPlaceholder;
  PruneResult result = PruneOk(graph, options);
  // s:1 -> s_1 is taken; v is fetched as it is, so its feed is v_1.
  CHECK(Render(result.graph) ==
        "dim=Const()\nv=Const()\ns=Split(dim,v_1)\ns_1=Identity(s)\n"
        "sum=AddV2(s_1,s_1_1)\ns_1_1=Placeholder()\nv_1=Placeholder()\n");
  CHECK(ImportGraphDef(result.graph).ok());
}

TEST_CASE("colocation entries naming removed nodes are dropped with a warning",
          "[prune]") {
  GraphDef graph =
      Parse(Op("v", "VariableV2", {},
               Attr("dtype", "type: DT_FLOAT") + Attr("shape", "shape {}")) +
            FloatConst("b") +
            Op("a", "Const", {},
               Attr("dtype", "type: DT_FLOAT") +
                   Attr("value", "tensor { dtype: DT_FLOAT float_val: 1 }") +
                   Attr("_class", "list { s: 'loc:@v' s: 'loc:@b' }")) +
            Op("c", "AddV2", {"a", "b"},
               Float() + Attr("_class", "list { s: 'loc:@a' }")) +
            Op("d", "Identity", {"c"},
               Float() + Attr("_class", "list { s: 'loc:@v' }")));
  PruneResult result = PruneOk(graph, Options({"d"}));
  CHECK(AttrOf(result.graph, "a", "_class") == "list { s: \"loc:@b\" }");
  CHECK(AttrOf(result.graph, "c", "_class") == "list { s: \"loc:@a\" }");
  CHECK(AttrOf(result.graph, "d", "_class") == "<none>");
  CHECK(result.report.dropped_colocations ==
        std::vector<std::string>{"a: loc:@v", "d: loc:@v"});
  REQUIRE(result.report.warnings.size() == 1);
  CHECK_THAT(result.report.warnings[0],
             Contains("dropped 2 colocation constraints naming removed nodes"));
}

// Functions reached by op name, by a func attr, inside a body, through a
// gradient; `via_attr` and `unused` are reached only by removed nodes.
constexpr char kLibrary[] = R"(
library {
  function {
    signature { name: "used_by_op" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "i" op: "Identity" input: "x"
               attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "i:output:0" }
  }
  function {
    signature { name: "outer" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "call" op: "inner" input: "x" }
    ret { key: "y" value: "call:y:0" }
  }
  function {
    signature { name: "inner" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    ret { key: "y" value: "x" }
  }
  function {
    signature { name: "via_attr" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    ret { key: "y" value: "x" }
  }
  function {
    signature { name: "grad_fn" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    ret { key: "y" value: "x" }
  }
  function {
    signature { name: "unused" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    ret { key: "y" value: "x" }
  }
  gradient { function_name: "used_by_op" gradient_func: "grad_fn" }
  gradient { function_name: "unused" gradient_func: "unused" }
}
)";

std::string Call(const std::string& name, const std::string& function) {
  return Op(name, "PartitionedCall", {"x"},
            Attr("Tin", "list { type: DT_FLOAT }") +
                Attr("Tout", "list { type: DT_FLOAT }") +
                Attr("f", "func { name: '" + function + "' }"));
}

TEST_CASE("library functions no kept node reaches are dropped", "[prune]") {
  GraphDef graph =
      Parse(FloatConst("x") + Op("f1", "used_by_op", {"x"}) +
            Call("f2", "outer") + Call("f3", "via_attr") + kLibrary);
  PruneResult result = PruneOk(graph, Options({"f1", "f2"}));
  std::string kept;
  for (const auto& f : result.graph.library().function()) {
    kept += f.signature().name() + " ";
  }
  CHECK(kept == "used_by_op outer inner grad_fn ");
  REQUIRE(result.graph.library().gradient_size() == 1);
  CHECK(result.graph.library().gradient(0).gradient_func() == "grad_fn");
  CHECK(result.report.dropped_functions ==
        std::vector<std::string>{"via_attr", "unused"});
}

TEST_CASE("If branches count as uses of their functions", "[prune]") {
  GraphDef graph =
      Parse(FloatConst("x") +
            Op("t", "Const", {},
               Attr("dtype", "type: DT_BOOL") +
                   Attr("value", "tensor { dtype: DT_BOOL bool_val: true }")) +
            Op("if", "If", {"t", "x"},
               Attr("Tcond", "type: DT_BOOL") +
                   Attr("Tin", "list { type: DT_FLOAT }") +
                   Attr("Tout", "list { type: DT_FLOAT }") +
                   Attr("then_branch", "func { name: 'inner' }") +
                   Attr("else_branch", "func { name: 'via_attr' }")) +
            kLibrary);
  PruneResult result = PruneOk(graph, Options({"if"}));
  std::string kept;
  for (const auto& f : result.graph.library().function()) {
    kept += f.signature().name() + " ";
  }
  CHECK(kept == "inner via_attr ");
}

TEST_CASE("the Graph-level rewrite keeps assigned devices and fixes edges",
          "[prune]") {
  auto imported = ImportGraphDef(BaseGraph());
  REQUIRE(imported.ok());
  Graph& graph = **imported;
  const std::string gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  for (Node* n : graph.op_nodes()) n->set_assigned_device_name(gpu);
  PruneReport report;
  REQUIRE(
      RewriteGraphForExecution(&graph, Options({"d"}, {"c"}), &report).ok());
  REQUIRE(report.created.size() == 2);
  Node* arg = graph.FindNodeId(report.created[0].id);
  REQUIRE(arg != nullptr);
  CHECK(arg->name() == "_arg_c_0_0");
  CHECK(arg->assigned_device_name() == kCpu);
  std::string kept;
  for (Node* n : graph.op_nodes()) {
    kept += n->name() + (n->assigned_device_name() == gpu ? "@gpu " : " ");
    // Roots hang off _SOURCE and leaves off _SINK again.
    CHECK_FALSE(n->in_edges().empty());
    CHECK_FALSE(n->out_edges().empty());
    if (n->name() == "p") CHECK(n->in_edges()[0]->src->IsSource());
  }
  CHECK(kept == "p@gpu d@gpu _arg_c_0_0 _retval_d_0_0 ");
  CHECK(graph.ToGraphDef().node_size() == 4);
}

// Each node's edges as "id:src->dst" in list order.
std::string EdgeLists(const Graph& graph) {
  std::string out;
  for (Node* n : graph.nodes()) {
    out += n->name() + " in";
    for (const Edge* e : n->in_edges()) out += " " + std::to_string(e->id);
    out += " out";
    for (const Edge* e : n->out_edges()) out += " " + std::to_string(e->id);
    out += "\n";
  }
  return out + std::to_string(graph.num_edges()) + " edges\n";
}

TEST_CASE("RemoveNodes leaves the graph RemoveNode one by one leaves",
          "[prune]") {
  GraphDef def = Parse(FloatConst("a") + FloatConst("b") + Placeholder("p") +
                       Add("c", "a", "b", {"^p"}) + Add("d", "c", "p") +
                       Identity("e", "d", {"^a"}) + Identity("u", "a") +
                       Add("w", "u", "u"));
  auto one = ImportGraphDef(def);
  auto bulk = ImportGraphDef(def);
  REQUIRE(one.ok());
  REQUIRE(bulk.ok());
  // Keep a, c, d (and the pseudo-nodes); remove b, p, e, u, w.
  std::vector<bool> keep((*one)->num_node_ids(), false);
  for (Node* n : (*one)->nodes()) {
    keep[n->id()] =
        n->name() == "a" || n->name() == "c" || n->name() == "d" || !n->IsOp();
  }
  for (Node* n : (*one)->op_nodes()) {
    if (!keep[n->id()]) (*one)->RemoveNode(n);
  }
  (*bulk)->RemoveNodes(keep);
  CHECK(EdgeLists(**bulk) == EdgeLists(**one));
  CHECK((*bulk)->num_op_nodes() == 3);
  CHECK((*bulk)->FindNodeId(keep.size() - 1) == nullptr);
}

}  // namespace
}  // namespace dfg
