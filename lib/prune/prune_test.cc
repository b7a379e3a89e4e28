// TF-SEMANTICS.md §1.1-1.6: validation, feeds, fetches, reachability and the
// corner cases of §1.5, in the function convention.
#include "lib/prune/prune.h"

#include "lib/prune/prune_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using namespace prune_test;  // NOLINT
using Catch::Matchers::Contains;

// a, b: Const; p: Placeholder; c = a + b; d = c + p; e = Identity(d);
// u = Identity(a) (needed by nothing but itself).
GraphDef BaseGraph() {
  return Parse(FloatConst("a") + FloatConst("b") + Placeholder("p") +
               Add("c", "a", "b") + Add("d", "c", "p") + Identity("e", "d") +
               Identity("u", "a"));
}

TEST_CASE("prune keeps exactly the ancestors of the fetches", "[prune]") {
  PruneResult result = PruneOk(BaseGraph(), Options({"d"}));
  CHECK(Render(result.graph) ==
        "a=Const()\nb=Const()\np=Placeholder()\nc=AddV2(a,b)\nd=AddV2(c,p)\n"
        "_retval_d_0_0=_Retval(d)@" +
            std::string(kCpu) + "\n");
  CHECK(AttrOf(result.graph, "_retval_d_0_0", "T") == "type: DT_FLOAT");
  CHECK(AttrOf(result.graph, "_retval_d_0_0", "index") == "i: 0");
}

TEST_CASE("pruning in place on an arena gives Prune's graph", "[prune]") {
  GraphDef in = BaseGraph();
  in.mutable_debug_info()->add_files("model.py");  // ToGraphDef drops it
  PruneOptions options = Options({"e"}, {"p"});
  PruneResult expected = PruneOk(in, options);
  google::protobuf::Arena arena;
  auto* graph = google::protobuf::Arena::CreateMessage<GraphDef>(&arena);
  *graph = in;
  const NodeDef* c = &graph->node(3);
  PruneReport report;
  REQUIRE(PruneInPlace(graph, options, &report).ok());
  CHECK(graph->DebugString() == expected.graph.DebugString());
  CHECK_FALSE(graph->has_debug_info());
  CHECK(FindNode(*graph, "c") == c);  // kept where it was parsed, not copied
  CHECK(report.created.size() == expected.report.created.size());
}

TEST_CASE("prune without fetches or targets fails, feeds are not enough",
          "[prune]") {
  Status status = PruneError(BaseGraph(), Options({}, {"p"}));
  CHECK(status.code() == Code::kInvalidArgument);
  CHECK(status.message() ==
        "Must specify at least one target to fetch or execute.");
}

TEST_CASE("the same feed string twice is rejected before any lookup",
          "[prune]") {
  Status status = PruneError(BaseGraph(), Options({"d"}, {"a:0", "zz", "a:0"}));
  CHECK(status.code() == Code::kInvalidArgument);
  CHECK(status.message() == "Endpoint \"a:0\" fed more than once.");
}

TEST_CASE("a tensor string both fed and fetched is rejected", "[prune]") {
  Status status = PruneError(BaseGraph(), Options({"d", "a:0"}, {"a:0"}));
  CHECK(status.code() == Code::kInvalidArgument);
  CHECK(status.message() == "a:0 is both fed and fetched.");
}

TEST_CASE("feeding a and fetching a:0 reads the original a", "[prune]") {
  PruneResult result = PruneOk(BaseGraph(), Options({"a:0", "c"}, {"a"}));
  CHECK(Render(result.graph) ==
        "a=Const()\nb=Const()\nc=AddV2(_arg_a_0_0,b)\n_arg_a_0_0=_Arg()@" +
            std::string(kCpu) + "\n_retval_a_0_0=_Retval(a)@" + kCpu +
            "\n_retval_c_0_1=_Retval(c)@" + kCpu + "\n");
}

TEST_CASE("feeding a and a:0 makes two feed nodes and the second is pruned",
          "[prune]") {
  PruneResult result = PruneOk(BaseGraph(), Options({"c"}, {"a", "a:0"}));
  CHECK(Render(result.graph) ==
        "b=Const()\nc=AddV2(_arg_a_0_0,b)\n_arg_a_0_0=_Arg()@" +
            std::string(kCpu) + "\n_retval_c_0_0=_Retval(c)@" + kCpu + "\n");
  REQUIRE(result.report.created.size() == 3);
  CHECK(result.report.created[1].endpoint == "a:0");
  CHECK_FALSE(result.report.created[1].kept);
}

TEST_CASE("a feed naming no node is NotFound with a suggestion", "[prune]") {
  Status status = PruneError(BaseGraph(), Options({"d"}, {"cc:0"}));
  CHECK(status.code() == Code::kNotFound);
  CHECK_THAT(status.message(),
             Contains("FeedInputs: unable to find feed output cc:0"));
  CHECK_THAT(status.message(), Contains("did you mean 'c'"));
}

TEST_CASE("a feed port past the node's outputs is rejected", "[prune]") {
  GraphDef graph = Parse(
      IntConst("dim") + FloatConst("v", "dim { size: 4 }") +
      Op("x", "Split", {"dim", "v"}, Float() + Attr("num_split", "i: 2")));
  Status status = PruneError(graph, Options({"x:1"}, {"x:5"}));
  CHECK(status.code() == Code::kInvalidArgument);
  CHECK(status.message() == "FeedInputs: x:5 should have output index < 2");
}

TEST_CASE("fetch errors use TensorFlow's messages", "[prune]") {
  GraphDef graph =
      Parse(FloatConst("x") + Op("n", "NoOp", {"^x"}) + Identity("i", "x"));
  SECTION("node not found") {
    Status status = PruneError(graph, Options({"ii:0"}));
    CHECK(status.code() == Code::kNotFound);
    CHECK_THAT(status.message(), Contains("FetchOutputs node ii:0: not found"));
    CHECK_THAT(status.message(), Contains("did you mean 'i'"));
  }
  SECTION("a node without outputs") {
    Status status = PruneError(graph, Options({"n"}));
    CHECK(status.code() == Code::kInvalidArgument);
    CHECK(status.message() ==
          "Tried to fetch data for 'n', which produces no output.  To run to "
          "a node but not fetch any data, pass 'n' as an argument to the "
          "'target_node_names' argument of the Session::Run API.");
  }
  SECTION("port too large") {
    Status status = PruneError(graph, Options({"x:1"}));
    CHECK(status.code() == Code::kInvalidArgument);
    CHECK(status.message() ==
          "FetchOutputs x:1: output index too large, must be < 1");
  }
  SECTION("a control name as fetch or feed") {
    Status status = PruneError(graph, Options({"^x"}));
    CHECK(status.code() == Code::kOutOfRange);
    CHECK(status.message() ==
          "Node 'x' (type: 'Const', num of outputs: 1) does not have output "
          "-1");
    CHECK(PruneError(graph, Options({"i"}, {"^x"})).code() ==
          Code::kOutOfRange);
  }
}

TEST_CASE("missing targets are all listed, each followed by a space",
          "[prune]") {
  Status status = PruneError(BaseGraph(), Options({"d"}, {}, {"zzz", "ee"}));
  CHECK(status.code() == Code::kNotFound);
  CHECK_THAT(status.message(),
             Contains("PruneForTargets: Some target nodes not found: zzz ee "));
  CHECK_THAT(status.message(), Contains("'ee' (did you mean 'e'?)"));
}

TEST_CASE("targets may be written x:0 or ^x and keep node x", "[prune]") {
  for (const char* target : {"c:0", "^c", "c"}) {
    PruneResult result = PruneOk(BaseGraph(), Options({}, {}, {target}));
    CHECK(Render(result.graph) == "a=Const()\nb=Const()\nc=AddV2(a,b)\n");
  }
}

TEST_CASE("a fed tensor's consumers read the _Arg node", "[prune]") {
  PruneResult result = PruneOk(BaseGraph(), Options({"e"}, {"c", "p:0"}));
  CHECK(Render(result.graph) ==
        "d=AddV2(_arg_c_0_0,_arg_p_0_1)\ne=Identity(d)\n_arg_c_0_0=_Arg()@" +
            std::string(kCpu) + "\n_arg_p_0_1=_Arg()@" + kCpu +
            "\n_retval_e_0_0=_Retval(e)@" + kCpu + "\n");
  CHECK(AttrOf(result.graph, "_arg_c_0_0", "T") == "type: DT_FLOAT");
  CHECK(AttrOf(result.graph, "_arg_c_0_0", "index") == "i: 0");
  CHECK(AttrOf(result.graph, "_arg_p_0_1", "index") == "i: 1");
  REQUIRE(result.report.feed_types.size() == 2);
  CHECK(result.report.feed_types[1] == tensorflow::DT_FLOAT);
}

TEST_CASE("feeding one port keeps the node for its other ports", "[prune]") {
  GraphDef graph = Parse(
      IntConst("dim") + FloatConst("v", "dim { size: 4 }") +
      Op("s", "Split", {"dim", "v"}, Float() + Attr("num_split", "i: 2")) +
      Add("sum", "s", "s:1"));
  PruneResult result = PruneOk(graph, Options({"sum"}, {"s:1"}));
  CHECK(Render(result.graph) ==
        "dim=Const()\nv=Const()\ns=Split(dim,v)\nsum=AddV2(s,_arg_s_1_0)\n"
        "_arg_s_1_0=_Arg()@" +
            std::string(kCpu) + "\n_retval_sum_0_0=_Retval(sum)@" + kCpu +
            "\n");
}

TEST_CASE("a fed Placeholder's control out-edges move to the feed node",
          "[prune]") {
  GraphDef graph =
      Parse(Placeholder("p") + FloatConst("k") + Identity("i", "k", {"^p"}) +
            FloatConst("q") + Identity("j", "k", {"^q"}));
  PruneResult result = PruneOk(graph, Options({"i", "j"}, {"p", "q"}));
  // p is gone (its ^p edge moved); q is not a Placeholder, so j still
  // depends on q itself.
  CHECK(Render(result.graph) ==
        "k=Const()\ni=Identity(k,^_arg_p_0_0)\nq=Const()\nj=Identity(k,^q)\n"
        "_arg_p_0_0=_Arg()@" +
            std::string(kCpu) + "\n_retval_i_0_0=_Retval(i)@" + kCpu +
            "\n_retval_j_0_1=_Retval(j)@" + kCpu + "\n");
}

TEST_CASE("control inputs keep their sources alive", "[prune]") {
  GraphDef graph =
      Parse(FloatConst("x") + FloatConst("y") + Op("init", "NoOp", {"^y"}) +
            Identity("out", "x", {"^init"}));
  PruneResult result = PruneOk(graph, Options({"out"}));
  CHECK(Render(result.graph) ==
        "x=Const()\ny=Const()\ninit=NoOp(^y)\nout=Identity(x,^init)\n"
        "_retval_out_0_0=_Retval(out)@" +
            std::string(kCpu) + "\n");
}

TEST_CASE("a feed nothing needs is pruned without error", "[prune]") {
  PruneResult result = PruneOk(BaseGraph(), Options({"c"}, {"u"}));
  CHECK(Render(result.graph) ==
        "a=Const()\nb=Const()\nc=AddV2(a,b)\n"
        "_retval_c_0_0=_Retval(c)@" +
            std::string(kCpu) + "\n");
  CHECK_FALSE(result.report.created[0].kept);
}

TEST_CASE("nodes downstream of the targets are removed", "[prune]") {
  PruneResult result = PruneOk(BaseGraph(), Options({}, {}, {"c"}));
  CHECK(Render(result.graph) == "a=Const()\nb=Const()\nc=AddV2(a,b)\n");
}

TEST_CASE("a target that is also fed is kept", "[prune]") {
  PruneResult result = PruneOk(BaseGraph(), Options({"d"}, {"c"}, {"c"}));
  CHECK(Render(result.graph) ==
        "a=Const()\nb=Const()\np=Placeholder()\nc=AddV2(a,b)\n"
        "d=AddV2(_arg_c_0_0,p)\n_arg_c_0_0=_Arg()@" +
            std::string(kCpu) + "\n_retval_d_0_0=_Retval(d)@" + kCpu + "\n");
}

TEST_CASE("fetching one tensor twice makes two kept _Retval nodes", "[prune]") {
  PruneResult result = PruneOk(BaseGraph(), Options({"c", "c:0"}));
  CHECK(Render(result.graph) ==
        "a=Const()\nb=Const()\nc=AddV2(a,b)\n_retval_c_0_0=_Retval(c)@" +
            std::string(kCpu) + "\n_retval_c_0_1=_Retval(c)@" + kCpu + "\n");
  CHECK(AttrOf(result.graph, "_retval_c_0_1", "index") == "i: 1");
}

TEST_CASE("a node already named like a generated one gives a duplicate name",
          "[prune]") {
  GraphDef graph = Parse(FloatConst("x") + Identity("_arg_x_0_0", "x") +
                         Add("y", "x", "_arg_x_0_0"));
  PruneResult result = PruneOk(graph, Options({"y"}, {"x"}));
  CHECK(Render(result.graph) ==
        "_arg_x_0_0=Identity(_arg_x_0_0)\ny=AddV2(_arg_x_0_0,_arg_x_0_0)\n"
        "_arg_x_0_0=_Arg()@" +
            std::string(kCpu) + "\n_retval_y_0_0=_Retval(y)@" + kCpu + "\n");
}

TEST_CASE("a fed ref tensor gets the base dtype", "[prune]") {
  GraphDef graph = Parse(Op("v", "VariableV2", {},
                            Attr("dtype", "type: DT_FLOAT") +
                                Attr("shape", "shape { dim { size: 2 } }")) +
                         Identity("r", "v"));
  PruneResult result = PruneOk(graph, Options({"r", "v"}, {"v:0"}));
  CHECK(AttrOf(result.graph, "_arg_v_0_0", "T") == "type: DT_FLOAT");
  CHECK(AttrOf(result.graph, "_retval_v_0_1", "T") == "type: DT_FLOAT");
  CHECK(result.report.fetch_types[1] == tensorflow::DT_FLOAT);
}

TEST_CASE("a while loop is kept whole, NextIteration back edge included",
          "[prune]") {
  GraphDef graph = Parse(
      FloatConst("init") + FloatConst("limit") + FloatConst("unused") +
      Op("enter", "Enter", {"init"},
         Float() + Attr("frame_name", "s: 'loop'")) +
      Op("merge", "Merge", {"enter", "next"}, Float() + Attr("N", "i: 2")) +
      Op("less", "Less", {"merge", "limit_enter"}, Float()) +
      Op("limit_enter", "Enter", {"limit"},
         Float() + Attr("frame_name", "s: 'loop'") +
             Attr("is_constant", "b: true")) +
      Op("cond", "LoopCond", {"less"}) +
      Op("switch", "Switch", {"merge", "cond"}, Float()) +
      Identity("body", "switch:1") +
      Op("next", "NextIteration", {"body"}, Float()) +
      Op("exit", "Exit", {"switch"}, Float()));
  PruneResult result = PruneOk(graph, Options({"exit"}));
  std::string kept;
  for (const NodeDef& node : result.graph.node()) kept += node.name() + " ";
  CHECK(kept ==
        "init limit enter merge limit_enter less cond switch body next exit "
        "_retval_exit_0_0 ");
  CHECK(AttrOf(result.graph, "merge", "N") == "i: 2");
  CHECK(FindNode(result.graph, "merge")->input(1) == "next");
}

TEST_CASE("the explain report names a fetch or target needing each node",
          "[prune]") {
  PruneOptions options = Options({"c", "e"}, {"p"}, {"u"});
  options.explain = true;
  PruneResult result = PruneOk(BaseGraph(), options);
  std::string kept;
  for (const KeptNode& k : result.report.kept) {
    kept += k.name + "<" + k.needed_by + " ";
  }
  CHECK(kept == "a<u b<c c<c d<e e<e u<u ");
  CHECK(result.report.removed == std::vector<std::string>{"p"});
  REQUIRE(result.report.created.size() == 3);
  CHECK(result.report.created[0].name == "_arg_p_0_0");
  CHECK(result.report.created[2].name == "_retval_e_0_1");
  std::string json = PruneReportToJson(result.report);
  CHECK_THAT(json, Contains("\"needed_by\": \"e\""));
  CHECK_THAT(json, Contains("\"feed\": \"p\""));
}

}  // namespace
}  // namespace dfg
