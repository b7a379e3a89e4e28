#include "lib/graph/graph_import.h"

#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

// Attr snippets for the text protos below.
const std::string kTFloat = R"(attr { key: "T" value { type: DT_FLOAT } })";
const std::string kTInt = R"(attr { key: "T" value { type: DT_INT32 } })";
const std::string kFloat = R"(attr { key: "dtype" value { type: DT_FLOAT } })";
const std::string kInt = R"(attr { key: "dtype" value { type: DT_INT32 } })";

// One NodeDef in text form.
std::string N(const std::string& name, const std::string& op,
              const std::vector<std::string>& inputs = {},
              const std::string& attrs = "") {
  std::string out = "node { name: '" + name + "' op: '" + op + "' ";
  for (const std::string& in : inputs) out += "input: '" + in + "' ";
  return out + attrs + " }\n";
}

GraphDef Parse(const std::string& text) {
  return testing::ParseTextProto<GraphDef>(text);
}

StatusOr<std::unique_ptr<Graph>> Import(const std::string& text,
                                        const ImportOptions& options = {}) {
  return ImportGraphDef(Parse(text), options);
}

std::unique_ptr<Graph> ImportOk(const std::string& text,
                                const ImportOptions& options = {}) {
  auto graph = Import(text, options);
  INFO(graph.status().ToString());
  REQUIRE(graph.ok());
  return std::move(graph).value();
}

Status ImportError(const std::string& text, const ImportOptions& options = {}) {
  auto graph = Import(text, options);
  REQUIRE_FALSE(graph.ok());
  return graph.status();
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

// Op node names in id order.
std::string Order(const Graph& g) {
  std::string out;
  for (Node* n : g.op_nodes()) out += n->name() + " ";
  return out;
}

std::vector<std::string> Inputs(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return {n.input().begin(), n.input().end()};
  }
  FAIL("no node " << name);
  return {};
}

TEST_CASE("import numbers nodes and edges as TensorFlow does", "[graph]") {
  auto g = ImportOk(
      N("A1", "Const", {}, kFloat) + N("B1", "Const", {}, kFloat) +
      N("B2", "AddV2", {"A1", "B1"}, kTFloat) + N("B3", "NoOp", {"^A1"}));
  CHECK(Order(*g) == "A1 B1 B2 B3 ");
  CHECK(g->FindNodeId(2)->name() == "A1");
  CHECK(Edges(*g) ==
        "0:_SOURCE:-1->_SINK:-1 1:A1:0->B2:0 2:B1:0->B2:1 3:A1:-1->B3:-1 "
        "4:_SOURCE:-1->A1:-1 5:_SOURCE:-1->B1:-1 6:B2:-1->_SINK:-1 "
        "7:B3:-1->_SINK:-1");
  CHECK(g->FindNodeId(4)->input_types() ==
        std::vector<DataType>{tensorflow::DT_FLOAT, tensorflow::DT_FLOAT});
}

TEST_CASE("import creates nodes in topological order, ties by file order",
          "[graph]") {
  auto g = ImportOk(N("c", "AddV2", {"a", "b"}, kTFloat) +
                    N("b", "Const", {}, kFloat) + N("a", "Const", {}, kFloat) +
                    N("d", "NoOp"));
  CHECK(Order(*g) == "b a c d ");
  CHECK(Edges(*g) ==
        "0:_SOURCE:-1->_SINK:-1 1:a:0->c:0 2:b:0->c:1 3:_SOURCE:-1->b:-1 "
        "4:_SOURCE:-1->a:-1 5:c:-1->_SINK:-1 6:_SOURCE:-1->d:-1 "
        "7:d:-1->_SINK:-1");
}

TEST_CASE("control inputs are sorted by source name and de-duplicated",
          "[graph]") {
  auto g =
      ImportOk(N("x", "Const", {}, kFloat) + N("y", "NoOp") + N("z", "NoOp") +
               N("n", "Identity", {"x", "^z", "^y", "^z"}, kTFloat));
  CHECK(Edges(*g) ==
        "0:_SOURCE:-1->_SINK:-1 1:x:0->n:0 2:y:-1->n:-1 3:z:-1->n:-1 "
        "4:_SOURCE:-1->x:-1 5:_SOURCE:-1->y:-1 6:_SOURCE:-1->z:-1 "
        "7:n:-1->_SINK:-1");
  CHECK(Inputs(g->ToGraphDef(), "n") ==
        std::vector<std::string>{"x", "^y", "^z"});
}

TEST_CASE("ToGraphDef after import writes the inputs TensorFlow writes",
          "[graph]") {
  auto g = ImportOk(
      N("s", "Const", {}, kFloat) + N("sw", "Switch", {"s", "p"}, kTFloat) +
      N("p", "Const", {}, R"(attr { key: "dtype" value { type: DT_BOOL } })") +
      N("i", "Identity", {"sw:1", "^s", "^p"}, kTFloat) +
      N("j", "Identity", {"sw:0"}, kTFloat));
  GraphDef out = g->ToGraphDef();
  CHECK(out.node(0).name() == "s");
  CHECK(out.node(1).name() == "p");
  CHECK(Inputs(out, "sw") == std::vector<std::string>{"s", "p"});
  CHECK(Inputs(out, "i") == std::vector<std::string>{"sw:1", "^p", "^s"});
  CHECK(Inputs(out, "j") == std::vector<std::string>{"sw"});
}

TEST_CASE("import from an arena GraphDef takes its NodeDefs over in place",
          "[graph]") {
  google::protobuf::Arena arena;
  auto* def = google::protobuf::Arena::CreateMessage<GraphDef>(&arena);
  *def =
      Parse(N("b", "Identity", {"a"}, kTFloat) + N("a", "Const", {}, kFloat));
  const NodeDef* b = &def->node(0);
  const NodeDef* a = &def->node(1);
  std::vector<Node*> by_index;
  std::vector<std::pair<int, std::string>> added;
  ImportOptions options;
  options.nodes_by_index = &by_index;
  options.added_defaults = &added;
  auto g = ImportGraphDef(def, options);
  REQUIRE(g.ok());
  CHECK(def->node_size() == 0);
  CHECK((*g)->arena() == &arena);
  REQUIRE(by_index.size() == 2);
  CHECK(&by_index[0]->def() == b);  // the same objects, not copies
  CHECK(&by_index[1]->def() == a);
  CHECK(by_index[0]->name() == "b");
  CHECK(by_index[1]->id() == 2);  // topological order: a first
  CHECK(added.empty());
}

TEST_CASE("import reports the first bad input in node order", "[graph]") {
  for (int gap : {1, 15, 16, 17, 40}) {
    GraphDef graph;
    for (int i = 0; i < 60; ++i) {
      NodeDef* node = graph.add_node();
      node->set_name("n" + std::to_string(i));
      node->set_op("NoOp");
      if (i > 0) node->add_input("^n" + std::to_string(i - 1));
    }
    graph.mutable_node(10)->set_input(0, "^missing_a");
    graph.mutable_node(10 + gap)->set_input(0, "^missing_b");
    auto g = ImportGraphDef(graph);
    REQUIRE_FALSE(g.ok());
    CHECK(g.status().message() ==
          "Node 'n10': Unknown input node '^missing_a'");
  }
}

TEST_CASE("import reports the attrs it fills in from OpDef defaults",
          "[graph]") {
  // Placeholder's shape has a default; Const's attrs do not.
  std::vector<std::pair<int, std::string>> added;
  ImportOptions options;
  options.added_defaults = &added;
  auto g = ImportOk(
      N("c", "Const", {}, kFloat) + N("p", "Placeholder", {}, kFloat), options);
  REQUIRE(added.size() == 1);
  CHECK(added[0].first == 1);
  CHECK(added[0].second == "shape");
}

TEST_CASE("a failed import from the heap or an arena leaves no node behind",
          "[graph]") {
  const std::string text =
      N("a", "Const", {}, kFloat) + N("b", "Identity", {"a:3"}, kTFloat);
  GraphDef heap = Parse(text);
  auto from_heap = ImportGraphDef(&heap);
  CHECK_FALSE(from_heap.ok());
  CHECK(heap.node_size() == 0);
  google::protobuf::Arena arena;
  auto* def = google::protobuf::Arena::CreateMessage<GraphDef>(&arena);
  *def = Parse(text);
  auto from_arena = ImportGraphDef(def);
  REQUIRE_FALSE(from_arena.ok());
  CHECK(from_arena.status().message() == from_heap.status().message());
}

const std::string kWhileLoop =
    N("init", "Const", {}, kInt) +
    N("enter", "Enter", {"init"},
      kTInt + R"(attr { key: "frame_name" value { s: "loop" } })") +
    N("merge", "Merge", {"enter", "next"},
      kTInt + R"(attr { key: "N" value { i: 2 } })") +
    N("limit", "Const", {}, kInt) +
    N("less", "Less", {"merge", "limit"}, kTInt) +
    N("cond", "LoopCond", {"less"}) +
    N("switch", "Switch", {"merge", "cond"}, kTInt) +
    N("exit", "Exit", {"switch"}, kTInt) +
    N("body", "Identity", {"switch:1"}, kTInt) +
    N("next", "NextIteration", {"body"}, kTInt);

TEST_CASE("a while loop imports with its back edge added after all nodes",
          "[graph]") {
  auto g = ImportOk(kWhileLoop);
  CHECK(Order(*g) == "init enter merge limit less cond switch exit body next ");
  CHECK(Edges(*g) ==
        "0:_SOURCE:-1->_SINK:-1 1:init:0->enter:0 2:enter:0->merge:0 "
        "3:merge:0->less:0 4:limit:0->less:1 5:less:0->cond:0 "
        "6:merge:0->switch:0 7:cond:0->switch:1 8:switch:0->exit:0 "
        "9:switch:1->body:0 10:body:0->next:0 11:next:0->merge:1 "
        "12:_SOURCE:-1->init:-1 13:_SOURCE:-1->limit:-1 "
        "14:exit:-1->_SINK:-1");
  CHECK(Inputs(g->ToGraphDef(), "merge") ==
        std::vector<std::string>{"enter", "next"});
}

TEST_CASE("a Merge with several forward inputs and a back edge imports",
          "[graph]") {
  // TensorFlow decrements the Merge's pending count past zero here (and
  // CHECK-fails); dfg records the late forward input as a back edge.
  auto g = ImportOk(N("a", "Const", {}, kFloat) +
                    N("m", "Merge", {"a", "b", "n"},
                      kTFloat + R"(attr { key: "N" value { i: 3 } })") +
                    N("b", "Identity", {"x"}, kTFloat) +
                    N("n", "NextIteration", {"m"}, kTFloat) +
                    N("x", "Const", {}, kFloat));
  CHECK(Order(*g) == "a m n x b ");
  CHECK_THAT(Edges(*g), Contains("4:b:0->m:1 5:n:0->m:2"));
}

TEST_CASE("a graph of one node gets its source and sink edges", "[graph]") {
  auto g = ImportOk(N("c", "Const", {}, kFloat));
  CHECK(g->num_op_nodes() == 1);
  CHECK(Edges(*g) ==
        "0:_SOURCE:-1->_SINK:-1 1:_SOURCE:-1->c:-1 2:c:-1->_SINK:-1");
  auto empty = ImportOk("");
  CHECK(empty->num_op_nodes() == 0);
  CHECK(Edges(*empty) == "0:_SOURCE:-1->_SINK:-1");
}

TEST_CASE("import keeps versions, library and debug info", "[graph]") {
  auto g =
      ImportOk(N("a", "Const", {}, kFloat) + N("call", "Twice", {"a"}) +
               R"(versions { producer: 1234 min_consumer: 12 bad_consumers: 7 }
         library { function { signature { name: "Twice"
             input_arg { name: "x" type: DT_FLOAT }
             output_arg { name: "y" type: DT_FLOAT }
             output_arg { name: "z" type: DT_INT32 } } } }
         debug_info { files: "model.py" })");
  CHECK(g->versions().producer() == 1234);
  CHECK(g->versions().min_consumer() == 12);
  CHECK(g->versions().bad_consumers_size() == 1);
  CHECK(g->library().function_size() == 1);
  CHECK(g->debug_info().files_size() == 1);
  Node* call = g->FindNodeId(3);
  CHECK(call->op_known());
  CHECK(call->output_types() ==
        std::vector<DataType>{tensorflow::DT_FLOAT, tensorflow::DT_INT32});
  GraphDef out = g->ToGraphDef();
  CHECK(out.versions().producer() == 1234);
  CHECK(out.library().function(0).signature().name() == "Twice");
}

TEST_CASE("import adds default attrs unless told not to", "[graph]") {
  std::string text =
      N("a", "Const", {}, kFloat) + N("m", "MatMul", {"a", "a"}, kTFloat);
  auto g = ImportOk(text);
  CHECK(g->FindNodeId(3)->def().attr().count("transpose_a") == 1);
  ImportOptions options;
  options.add_default_attributes = false;
  auto h = ImportOk(text, options);
  CHECK(h->FindNodeId(3)->def().attr().count("transpose_a") == 0);
}

TEST_CASE("node names are checked as TensorFlow checks them", "[graph]") {
  Status s = ImportError(N("a b", "NoOp"));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() == "Node 'a b': Node name contains invalid characters");
  CHECK(ImportError(N("a>_b", "NoOp")).message() ==
        "Node 'a>_b': Node name contains invalid characters");
  CHECK_THAT(ImportError(N("", "NoOp")).message(),
             Contains("Node name contains invalid characters"));
  CHECK_THAT(ImportError(N("a>", "NoOp")).message(),
             Contains("Node name contains invalid characters"));
  CHECK_THAT(ImportError(N("-a", "NoOp")).message(),
             Contains("Node name contains invalid characters"));
  ImportOptions strict;
  strict.allow_internal_ops = false;
  CHECK_THAT(ImportError(N("_arg", "NoOp"), strict).message(),
             Contains("Node '_arg': Node name contains invalid characters"));
  ImportOk(N("_arg", "NoOp"));
  ImportOk(N("a>b.c/d-e_f>.g", "NoOp"));
  ImportOk(N("3x", "NoOp"), strict);
}

TEST_CASE("duplicate names, missing ops and late data inputs are rejected",
          "[graph]") {
  CHECK(ImportError(N("a", "NoOp") + N("a", "NoOp")).message() ==
        "Node 'a' is not unique");
  CHECK(ImportError(N("a", "")).message() ==
        "Node 'a' does not specify an operation");
  CHECK(ImportError(N("c", "Const", {}, kFloat) +
                    N("b", "Identity", {"^c", "c"}, kTFloat))
            .message() ==
        "Node 'b': Control dependencies must come after regular dependencies");
}

TEST_CASE("every name is checked before any input is resolved", "[graph]") {
  Status s =
      ImportError(N("b", "Identity", {"nowhere"}, kTFloat) + N("b", "NoOp"));
  CHECK(s.message() == "Node 'b' is not unique");
}

TEST_CASE("an unknown input node is reported with the raw input", "[graph]") {
  CHECK(ImportError(N("c", "Const", {}, kFloat) +
                    N("b", "Identity", {"c", "^zz"}, kTFloat))
            .message() == "Node 'b': Unknown input node '^zz'");
  Status s = ImportError(N("b", "Identity", {"q:3"}, kTFloat));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() == "Node 'b': Unknown input node 'q:3'");
}

TEST_CASE("a cycle without a Merge is reported with its size", "[graph]") {
  Status s = ImportError(
      N("c", "Const", {}, kFloat) + N("a", "Identity", {"b"}, kTFloat) +
      N("b", "Identity", {"a"}, kTFloat) + N("d", "Identity", {"a"}, kTFloat));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() == "3 nodes in a cycle");
}

TEST_CASE("an output index beyond the source's outputs is rejected",
          "[graph]") {
  Status s = ImportError(N("c", "Const", {}, kFloat) +
                         N("i", "Identity", {"c:3"}, kTFloat));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() ==
        "Node 'i': Connecting to invalid output 3 of source node c which has "
        "1 outputs.");
}

TEST_CASE("too many or too few data inputs are rejected", "[graph]") {
  Status more = ImportError(N("c", "Const", {}, kFloat) +
                            N("i", "Identity", {"c", "c"}, kTFloat));
  CHECK(more.message() ==
        "Input 1 of node i does not exist. Node only has 1 "
        "inputs.");
  Status fewer = ImportError(N("c", "Const", {}, kFloat) +
                             N("add", "AddV2", {"c", "^c"}, kTFloat));
  CHECK(fewer.code() == Code::kInvalidArgument);
  CHECK_THAT(fewer.message(),
             Contains("NodeDef expected inputs 'float, float' do not match 1 "
                      "inputs specified"));
}

TEST_CASE("data edges must carry the type the input expects", "[graph]") {
  Status s = ImportError(N("c", "Const", {}, kInt) +
                         N("i", "Identity", {"c"}, kTFloat));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() ==
        "Input 0 of node i was passed int32 from c:0 incompatible with "
        "expected float.");
}

TEST_CASE("a ref output feeds a plain input but not the other way round",
          "[graph]") {
  const std::string var =
      N("v", "VariableV2", {},
        kFloat + R"(attr { key: "shape" value { shape {} } })");
  auto g = ImportOk(var + N("i", "Identity", {"v"}, kTFloat));
  CHECK(g->FindNodeId(2)->output_type(0) == tensorflow::DT_FLOAT_REF);
  ImportOk(var + N("c", "Const", {}, kFloat) +
           N("a", "Assign", {"v", "c"}, kTFloat));
  Status s = ImportError(N("c", "Const", {}, kFloat) +
                         N("a", "Assign", {"c", "c"}, kTFloat));
  CHECK(s.message() ==
        "Input 0 of node a was passed float from c:0 incompatible with "
        "expected float_ref.");
}

TEST_CASE("a missing type attr is an error", "[graph]") {
  Status s =
      ImportError(N("c", "Const", {}, kFloat) + N("i", "Identity", {"c"}));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Contains("'T'"));
}

TEST_CASE("unknown ops fail with TensorFlow's message when not allowed",
          "[graph]") {
  ImportOptions options;
  options.allow_unknown_ops = false;
  Status s = ImportError(N("m", "Mystery"), options);
  CHECK(s.code() == Code::kNotFound);
  CHECK_THAT(s.message(),
             Contains("Op type not registered 'Mystery' in binary running on"));
}

TEST_CASE("unknown ops get their outputs from the graph's own uses",
          "[graph]") {
  std::vector<std::string> warnings;
  ImportOptions options;
  options.warnings = &warnings;
  auto g = ImportOk(
      N("u", "Mystery", {},
        R"(attr { key: "_output_types" value { list { type: DT_INT32 type: DT_FLOAT } } }
           attr { key: "_output_shapes" value { list { shape {} shape {} shape {} shape {} } } })") +
          N("v", "Mystery", {"u:1", "^u"}) + N("w", "Other", {"v:5"}) +
          N("i", "Identity", {"u:2"}, kTFloat) +
          N("j", "Identity", {"u:1"}, kTFloat),
      options);
  Node* u = g->FindNodeId(2);
  Node* v = g->FindNodeId(3);
  Node* w = g->FindNodeId(4);
  CHECK_FALSE(u->op_known());
  CHECK(u->output_types() ==
        std::vector<DataType>{tensorflow::DT_INT32, tensorflow::DT_FLOAT,
                              tensorflow::DT_INVALID, tensorflow::DT_INVALID});
  CHECK(v->num_outputs() == 6);
  CHECK(v->input_types() == std::vector<DataType>{tensorflow::DT_INVALID});
  CHECK(w->num_outputs() == 0);
  CHECK(w->num_inputs() == 1);
  CHECK(warnings ==
        std::vector<std::string>{
            "op 'Mystery' is not known to dfg (2 nodes); its outputs are "
            "inferred from the graph",
            "op 'Other' is not known to dfg (1 node); its outputs are inferred "
            "from the graph"});
  CHECK(Inputs(g->ToGraphDef(), "v") == std::vector<std::string>{"u:1", "^u"});

  Status s = ImportError(
      N("u", "Mystery", {},
        R"(attr { key: "_output_types" value { list { type: DT_INT32 } } })") +
      N("k", "Identity", {"u"}, kTFloat));
  CHECK(s.message() ==
        "Input 0 of node k was passed int32 from u:0 incompatible with "
        "expected float.");

  CHECK_THAT(ImportError(N("u", "Mystery") +
                         N("k", "Identity", {"u:2147483647"}, kTFloat))
                 .message(),
             Contains("Node 'u': output 2147483647 is used, but an op dfg "
                      "does not know ('Mystery') is given at most"));
  // Beyond int range the name itself is wrong, whatever the op.
  CHECK(ImportError(N("u", "Mystery") +
                    N("k", "Identity", {"u:99999999999"}, kTFloat))
            .message() ==
        "Node 'k': invalid tensor name 'u:99999999999' (the output index is "
        "out of range)");
}

}  // namespace
}  // namespace dfg
