#include "lib/graph/graph.h"

#include <google/protobuf/text_format.h>

#include "lib/graph/tensor_id.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using tensorflow::DT_FLOAT;
using tensorflow::DT_INT32;

NodeDef Def(const std::string& name, const std::string& op,
            std::vector<std::string> inputs = {}) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  for (auto& in : inputs) def.add_input(in);
  return def;
}

// "id:src:out->dst:in" for every live edge, in id order.
std::string Edges(const Graph& g) {
  std::string out;
  for (int id = 0; id < g.num_edge_ids(); ++id) {
    const Edge* e = g.FindEdgeId(id);
    if (e == nullptr) continue;
    if (!out.empty()) out += " ";
    out += std::to_string(id) + ":" + e->src->name() + ":" +
           std::to_string(e->src_output) + "->" + e->dst->name() + ":" +
           std::to_string(e->dst_input);
  }
  return out;
}

std::string Ids(const EdgeList& edges) {
  std::string out;
  for (const Edge* e : edges) out += std::to_string(e->id) + ",";
  return out;
}

std::string Text(const GraphDef& g) {
  std::string out;
  google::protobuf::TextFormat::PrintToString(g, &out);
  return out;
}

TEST_CASE("a new graph holds _SOURCE, _SINK and the edge between them",
          "[graph]") {
  Graph g;
  CHECK(g.source_node()->id() == 0);
  CHECK(g.sink_node()->id() == 1);
  CHECK(g.source_node()->name() == "_SOURCE");
  CHECK(g.sink_node()->name() == "_SINK");
  CHECK(g.source_node()->op() == "NoOp");
  CHECK(g.source_node()->IsSource());
  CHECK(g.sink_node()->IsSink());
  CHECK_FALSE(g.source_node()->IsOp());
  CHECK(Edges(g) == "0:_SOURCE:-1->_SINK:-1");
  CHECK(g.FindEdgeId(0)->IsControlEdge());
  CHECK(g.num_op_nodes() == 0);
  CHECK(g.num_edges() == 1);
  CHECK(g.op_nodes().empty());
  CHECK(g.nodes().size() == 2);
  CHECK(g.ToGraphDef().node_size() == 0);
}

TEST_CASE("node and edge ids are sequential and never reused", "[graph]") {
  Graph g;
  Node* a = g.AddNode(Def("a", "X"), {}, {DT_FLOAT});
  Node* b = g.AddNode(Def("b", "X"), {DT_FLOAT}, {});
  CHECK(a->id() == 2);
  CHECK(b->id() == 3);
  const Edge* e = g.AddEdge(a, 0, b, 0);
  CHECK(e->id == 1);
  g.RemoveEdge(e);
  CHECK(g.FindEdgeId(1) == nullptr);
  CHECK(g.AddEdge(a, 0, b, 0)->id == 2);
  g.RemoveNode(a);
  CHECK(g.FindNodeId(2) == nullptr);
  CHECK(g.num_op_nodes() == 1);
  CHECK(g.num_node_ids() == 4);
  CHECK(g.num_edges() == 1);
  CHECK(b->in_edges().empty());
  Node* c = g.AddNode(Def("c", "X"), {}, {});
  CHECK(c->id() == 4);
  CHECK(g.AddControlEdge(c, b)->id == 3);
  CHECK(g.op_nodes() == std::vector<Node*>{b, c});
  CHECK(g.FindNodeId(-1) == nullptr);
  CHECK(g.FindNodeId(99) == nullptr);
  CHECK(g.FindEdgeId(99) == nullptr);
}

TEST_CASE("edge lists stay in ascending edge-id order through removals",
          "[graph]") {
  Graph g;
  Node* a = g.AddNode(Def("a", "X"), {}, {DT_FLOAT, DT_FLOAT});
  Node* b = g.AddNode(Def("b", "X"), {DT_FLOAT, DT_FLOAT, DT_FLOAT}, {});
  std::vector<const Edge*> edges;
  for (int i = 0; i < 3; ++i) edges.push_back(g.AddEdge(a, i % 2, b, i));
  for (int i = 0; i < 12; ++i) edges.push_back(g.AddControlEdge(a, b));
  // AddControlEdge does not duplicate an existing control edge.
  CHECK(edges.back() == edges[3]);
  Node* c = g.AddNode(Def("c", "X"), {}, {});
  for (int i = 0; i < 10; ++i)
    g.AddControlEdge(g.AddNode(Def("n", "X"), {}, {}), c);
  CHECK(Ids(b->in_edges()) == "1,2,3,4,");
  g.RemoveEdge(edges[1]);
  CHECK(Ids(b->in_edges()) == "1,3,4,");
  CHECK(Ids(a->out_edges()) == "1,3,4,");
  const Edge* late = g.AddEdge(a, 1, b, 1);
  CHECK(Ids(b->in_edges()) == "1,3,4," + std::to_string(late->id) + ",");
  CHECK(c->in_edges().size() == 10);
  for (size_t i = 1; i < c->in_edges().size(); ++i) {
    CHECK(c->in_edges()[i - 1]->id < c->in_edges()[i]->id);
  }
}

TEST_CASE("input_edge finds the data edge of a slot", "[graph]") {
  Graph g;
  Node* a = g.AddNode(Def("a", "X"), {}, {DT_FLOAT, DT_INT32});
  Node* b = g.AddNode(Def("b", "X"), {DT_INT32, DT_FLOAT}, {});
  g.AddControlEdge(a, b);
  const Edge* e1 = g.AddEdge(a, 1, b, 0);
  CHECK(b->input_edge(0) == e1);
  CHECK(b->input_edge(1) == nullptr);
  CHECK(b->num_inputs() == 2);
  CHECK(b->input_type(0) == DT_INT32);
  CHECK(a->output_types() == std::vector<DataType>{DT_FLOAT, DT_INT32});
}

TEST_CASE("RemoveNode removes the node's edges from its neighbours",
          "[graph]") {
  Graph g;
  Node* a = g.AddNode(Def("a", "X"), {}, {DT_FLOAT});
  Node* b = g.AddNode(Def("b", "X"), {DT_FLOAT}, {DT_FLOAT});
  Node* c = g.AddNode(Def("c", "X"), {DT_FLOAT}, {});
  g.AddEdge(a, 0, b, 0);
  g.AddEdge(b, 0, c, 0);
  g.AddControlEdge(b, b);  // a self-loop
  g.AddControlEdge(a, c);
  g.RemoveNode(b);
  CHECK(Edges(g) == "0:_SOURCE:-1->_SINK:-1 4:a:-1->c:-1");
  CHECK(Ids(a->out_edges()) == "4,");
  CHECK(Ids(c->in_edges()) == "4,");
  CHECK(g.num_edges() == 2);
}

TEST_CASE("Graph::AddNode resolves signatures through the op registry",
          "[graph]") {
  Graph g;
  NodeDef def = Def("add", "AddV2", {"x", "y"});
  (*def.mutable_attr())["T"].set_type(DT_INT32);
  auto node = g.AddNode(def);
  REQUIRE(node.ok());
  CHECK((*node)->input_types() == std::vector<DataType>{DT_INT32, DT_INT32});
  CHECK((*node)->output_types() == std::vector<DataType>{DT_INT32});
  CHECK((*node)->op_known());

  auto unknown = g.AddNode(Def("f", "Frobnicate"));
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == Code::kNotFound);
  CHECK_THAT(unknown.status().message(),
             Catch::Matchers::Contains(
                 "Op type not registered 'Frobnicate' in binary running on"));

  auto missing_attr = g.AddNode(Def("i", "Identity", {"x"}));
  REQUIRE_FALSE(missing_attr.ok());
  CHECK(missing_attr.status().code() == Code::kInvalidArgument);
  CHECK_THAT(missing_attr.status().message(), Catch::Matchers::Contains("'T'"));
  CHECK(g.num_op_nodes() == 1);
}

TEST_CASE("Graph::AddNode knows the functions of the graph's library",
          "[graph]") {
  Graph g;
  auto* f = g.mutable_library()->add_function();
  f->mutable_signature()->set_name("MyFunc");
  auto* in = f->mutable_signature()->add_input_arg();
  in->set_name("x");
  in->set_type(DT_FLOAT);
  auto* out = f->mutable_signature()->add_output_arg();
  out->set_name("y");
  out->set_type(DT_INT32);
  auto node = g.AddNode(Def("call", "MyFunc", {"a"}));
  REQUIRE(node.ok());
  CHECK((*node)->input_types() == std::vector<DataType>{DT_FLOAT});
  CHECK((*node)->output_types() == std::vector<DataType>{DT_INT32});
}

TEST_CASE("Node::Is* classify nodes by op name", "[graph]") {
  Graph g;
  auto is = [&](const char* op) { return g.AddNode(Def("n", op), {}, {}); };
  CHECK(is("Switch")->IsSwitch());
  CHECK(is("RefSwitch")->IsSwitch());
  CHECK(is("_SwitchN")->IsSwitch());
  CHECK(is("Merge")->IsMerge());
  CHECK(is("_XlaMerge")->IsMerge());
  CHECK(is("RefEnter")->IsEnter());
  CHECK(is("Exit")->IsExit());
  CHECK(is("RefNextIteration")->IsNextIteration());
  CHECK(is("LoopCond")->IsLoopCond());
  CHECK(is("ControlTrigger")->IsControlTrigger());
  CHECK(is("_HostSend")->IsSend());
  CHECK(is("_Recv")->IsRecv());
  CHECK(is("_Arg")->IsArg());
  CHECK(is("_Retval")->IsRetval());
  CHECK(is("HostConst")->IsConstant());
  CHECK(is("PlaceholderV2")->IsPlaceholder());
  CHECK(is("Enter")->IsControlFlow());
  CHECK(is("LoopCond")->IsControlFlow());
  Node* add = is("AddV2");
  CHECK_FALSE(add->IsControlFlow());
  CHECK_FALSE(add->IsMerge());
  CHECK_FALSE(add->IsConstant());
  CHECK_FALSE(is("Identity")->IsSend());
}

TEST_CASE("NewName counts per graph from 0", "[graph]") {
  Graph g;
  CHECK(g.NewName("a") == "a/_0");
  CHECK(g.NewName("b/c") == "b/c/_1");
  Graph h;
  CHECK(h.NewName("a") == "a/_0");
}

TEST_CASE("ToGraphDef rebuilds inputs from edges", "[graph]") {
  Graph g;
  g.mutable_versions()->set_producer(27);
  Node* z = g.AddNode(Def("z", "X"), {}, {DT_FLOAT, DT_FLOAT});
  Node* a = g.AddNode(Def("a", "X"), {}, {DT_FLOAT});
  NodeDef def = Def("n", "Y", {"orig0", "orig1:3", "orig2", "^gone"});
  def.set_device("/device:CPU:0");
  Node* n = g.AddNode(def, {DT_FLOAT, DT_FLOAT, DT_FLOAT}, {});
  g.AddControlEdge(z, n);
  g.AddEdge(z, 1, n, 2);
  g.AddControlEdge(a, n);
  g.AddEdge(a, 0, n, 0);
  g.AddControlEdge(g.source_node(), n);
  n->set_assigned_device_name("/job:localhost/replica:0/task:0/device:CPU:0");
  GraphDef out = g.ToGraphDef();
  REQUIRE(out.node_size() == 3);
  const NodeDef& written = out.node(2);
  // Data in slot order (slot 1 has no edge: its original input), then the
  // control inputs sorted by name; the edge from _SOURCE is not written.
  CHECK(std::vector<std::string>(written.input().begin(),
                                 written.input().end()) ==
        std::vector<std::string>{"a", "orig1:3", "z:1", "^a", "^z"});
  CHECK(written.device() == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(out.node(0).name() == "z");
  CHECK(out.versions().producer() == 27);
}

TEST_CASE("ToGraphDef writes nodes in id order with their requested device",
          "[graph]") {
  Graph g;
  NodeDef b = Def("b", "X");
  b.set_device("/device:GPU:0");
  g.AddNode(b, {}, {});
  Node* a = g.AddNode(Def("a", "X"), {}, {});
  g.AddNode(Def("c", "X"), {}, {});
  g.RemoveNode(a);
  CHECK(Text(g.ToGraphDef()) ==
        "node {\n  name: \"b\"\n  op: \"X\"\n  device: \"/device:GPU:0\"\n}\n"
        "node {\n  name: \"c\"\n  op: \"X\"\n}\n"
        "library {\n}\nversions {\n}\n");
}

TEST_CASE("FixupSourceAndSinkEdges links unconnected nodes in id order",
          "[graph]") {
  Graph g;
  Node* a = g.AddNode(Def("a", "X"), {}, {DT_FLOAT});
  Node* b = g.AddNode(Def("b", "X"), {DT_FLOAT}, {});
  g.AddNode(Def("c", "X"), {}, {});
  g.AddEdge(a, 0, b, 0);
  FixupSourceAndSinkEdges(&g);
  CHECK(Edges(g) ==
        "0:_SOURCE:-1->_SINK:-1 1:a:0->b:0 2:_SOURCE:-1->a:-1 "
        "3:b:-1->_SINK:-1 4:_SOURCE:-1->c:-1 5:c:-1->_SINK:-1");
}

TEST_CASE("BuildNameIndex maps names to the first live node", "[graph]") {
  Graph g;
  Node* a1 = g.AddNode(Def("a", "X"), {}, {});
  g.AddNode(Def("a", "X"), {}, {});
  Node* b = g.AddNode(Def("b", "X"), {}, {});
  auto index = g.BuildNameIndex();
  CHECK(index.size() == 2);
  CHECK(index.at("a") == a1);
  CHECK(index.at("b") == b);
  CHECK(index.count("_SOURCE") == 0);
}

// A small graph built through AddNode, with a device assigned, a control
// input and a data slot whose edge was removed.
void BuildForExport(Graph* g) {
  Node* a = g->AddNode(Def("a", "Const"), {}, {DT_FLOAT});
  Node* b = g->AddNode(Def("b", "Const"), {}, {DT_FLOAT});
  Node* c = g->AddNode(Def("c", "AddV2", {"a", "b", "^b"}),
                       {DT_FLOAT, DT_FLOAT}, {DT_FLOAT});
  g->AddEdge(a, 0, c, 0);
  const Edge* from_b = g->AddEdge(b, 0, c, 1);
  g->AddControlEdge(a, c);
  g->RemoveEdge(from_b);
  c->set_assigned_device_name("/job:localhost/replica:0/task:0/device:CPU:0");
  g->mutable_library()->add_function()->mutable_signature()->set_name("f");
  g->mutable_versions()->set_producer(7);
}

TEST_CASE("MoveToGraphDef gives ToGraphDef's GraphDef on the heap and arenas",
          "[graph]") {
  Graph reference;
  BuildForExport(&reference);
  const std::string expected = Text(reference.ToGraphDef());
  CHECK(expected.find("input: \"^a\"") != std::string::npos);
  {
    GraphDef out;  // outlives the graph
    Graph g;
    BuildForExport(&g);
    g.MoveToGraphDef(&out);
    CHECK(Text(out) == expected);
  }
  google::protobuf::Arena arena;
  {
    Graph g(&arena);
    BuildForExport(&g);
    const NodeDef* c = &g.FindNodeId(4)->def();
    CHECK(c->GetArena() == &arena);
    auto* out = google::protobuf::Arena::CreateMessage<GraphDef>(&arena);
    g.MoveToGraphDef(out);
    CHECK(Text(*out) == expected);
    CHECK(&out->node(2) == c);  // handed over, not copied
  }
  {
    GraphDef out;
    Graph g(&arena);  // onto the heap from an arena: copied
    BuildForExport(&g);
    g.MoveToGraphDef(&out);
    CHECK(Text(out) == expected);
  }
}

TEST_CASE("ReleaseNodeDefs appends the definitions in the order given",
          "[graph]") {
  GraphDef out;
  Graph g;
  BuildForExport(&g);
  g.ReleaseNodeDefs({g.FindNodeId(4), g.FindNodeId(2)}, &out);
  REQUIRE(out.node_size() == 2);
  CHECK(out.node(0).name() == "c");
  CHECK(out.node(1).name() == "a");
  CHECK(&g.FindNodeId(4)->def() == &out.node(0));
  CHECK(out.node(0).input_size() == 3);  // as they were: nothing rebuilt
}

}  // namespace
}  // namespace dfg
