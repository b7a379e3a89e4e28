#include "lib/dot/dot_model.h"

#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg::dot_internal {
namespace {

using tensorflow::GraphDef;

GraphDef Parse(const std::string& text) {
  return testing::ParseTextProto<GraphDef>(text);
}

// "a->b(data) c->d(control)" style rendering of a view, names from the model.
std::string Render(const DotModel& model, const DotView& view) {
  auto name = [&](int v) {
    const ViewNode& n = view.nodes[v];
    std::string text = n.model_node >= 0
                           ? std::string(model.nodes[n.model_node].name)
                           : n.scope + "[" + std::to_string(n.count) + "]";
    return n.link_to >= 0 ? "@" + text : text;
  };
  std::string out;
  for (const ViewEdge& e : view.edges) {
    static const char* kKinds[] = {"data", "back", "sendrecv", "control"};
    out += name(e.src) + "->" + name(e.dst) + "(" +
           kKinds[static_cast<int>(e.kind)];
    if (e.tensors > 1) out += " x" + std::to_string(e.tensors);
    out += ") ";
  }
  return out;
}

const std::string kGraph = testing::PlaceholderText("in", "DT_FLOAT") + R"pb(
  node {
    name: "s/a"
    op: "Neg"
    input: "in"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "s/b"
    op: "Neg"
    input: "in"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "s/t/c"
    op: "Add"
    input: "s/a"
    input: "s/b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "out"
    op: "Add"
    input: "s/a"
    input: "s/t/c"
    input: "^s/b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST_CASE("FoldKey keeps the first depth components of a name", "[dot]") {
  CHECK(FoldKey("a/b/c", 1) == "a");
  CHECK(FoldKey("a/b/c", 2) == "a/b");
  CHECK(FoldKey("a/b/c", 3) == "a/b/c");
  CHECK(FoldKey("a/b/c", 9) == "a/b/c");
  CHECK(FoldKey("a", 1) == "a");
  CHECK(FoldKey("a/b", -1) == "a/b");
}

TEST_CASE("roles come from the op and client_terminated", "[dot]") {
  GraphDef g = Parse(R"pb(
    node {
      name: "r"
      op: "_Recv"
      attr {
        key: "client_terminated"
        value { b: true }
      }
    }
    node { name: "r2" op: "_HostRecv" }
    node { name: "v" op: "VariableV2" }
    node { name: "x" op: "Exit" }
    node { name: "ret" op: "_Retval" }
  )pb");
  CHECK(RoleOf(g.node(0)) == Role::kFeed);
  CHECK(RoleOf(g.node(1)) == Role::kSendRecv);
  CHECK(RoleOf(g.node(2)) == Role::kVariable);
  CHECK(RoleOf(g.node(3)) == Role::kControlFlow);
  CHECK(RoleOf(g.node(4)) == Role::kFetch);
}

TEST_CASE("folding merges parallel edges and drops those inside a scope",
          "[dot]") {
  GraphDef g = Parse(kGraph);
  DotModel model = BuildModel({&g});
  std::vector<bool> all(model.nodes.size(), true);
  CHECK(Render(model, MakeView(model, all, {})) ==
        "in->s/a(data) in->s/b(data) s/a->s/t/c(data) s/b->s/t/c(data) "
        "s/a->out(data) s/t/c->out(data) s/b->out(control) ");
  // At depth 1 the data edges into "out" come from two tensors, and the
  // control edge joins the same two nodes, so it is not drawn.
  CHECK(Render(model, MakeView(model, all, {1, false})) ==
        "in->s[3](data) s[3]->out(data x2) ");
  CHECK(CountFolded(model, all, {1, false}) == 3);
  CHECK(CountFolded(model, all, {2, false}) == 5);
}

TEST_CASE("the fold depth chosen is the deepest under the limit", "[dot]") {
  GraphDef g = Parse(kGraph);
  DotModel model = BuildModel({&g});
  std::vector<bool> all(model.nodes.size(), true);
  CHECK(ChooseFoldDepth(model, all, 4, false) == 1);
  CHECK(ChooseFoldDepth(model, all, 5, false) == 2);
  CHECK(ChooseFoldDepth(model, all, 1, false) == 1);  // nothing does: 1
}

TEST_CASE("a focus of radius 1 keeps the node and its direct neighbours",
          "[dot]") {
  GraphDef g = Parse(kGraph);
  DotModel model = BuildModel({&g});
  StatusOr<std::vector<bool>> mask = FocusMask(model, "s/b", 1);
  REQUIRE(mask.ok());
  CHECK(*mask == std::vector<bool>{true, false, true, true, true});
  CHECK(FocusMask(model, "s/b", 0).value() ==
        std::vector<bool>{false, false, true, false, false});
  CHECK(FocusMask(model, "nope", 1).status().code() == Code::kNotFound);
}

TEST_CASE(
    "an unknown focus suggests a near name or a longer one, not a far one",
    "[dot]") {
  GraphDef g = Parse(
      "node { name: 'layer500/id' op: 'Placeholder' }\n"
      "node { name: 'layer500/kernel' op: 'Const' }\n"
      "node { name: 'dense/BiasAdd' op: 'Neg' input: 'layer500/id' }\n");
  DotModel model = BuildModel({&g});
  auto message = [&](const char* focus) {
    return std::string(FocusMask(model, focus, 1).status().message());
  };
  // Three edits away: a third of the length would have offered layer500/id.
  CHECK(message("layer500000") == "--focus: no node named 'layer500000'");
  CHECK_THAT(message("dense/BiasAd"),
             Catch::Matchers::EndsWith("(did you mean 'dense/BiasAdd'?)"));
  CHECK_THAT(message("layer5"),
             Catch::Matchers::EndsWith("(did you mean 'layer500/id'?)"));
}

TEST_CASE("long edges over budget end at a link beside their consumer",
          "[dot]") {
  // A chain of 12 with "in" feeding the first and the last node.
  std::string text =
      "node { name: 'in' op: 'Placeholder' }\n"
      "node { name: 'n0' op: 'Neg' input: 'in' }\n";
  for (int i = 1; i < 12; ++i) {
    text += "node { name: 'n" + std::to_string(i) + "' op: 'Neg' input: 'n" +
            std::to_string(i - 1) + "'" + (i == 11 ? " input: 'in'" : "") +
            " }\n";
  }
  GraphDef g = Parse(text);
  DotModel model = BuildModel({&g});
  std::vector<bool> all(model.nodes.size(), true);
  DotView view = MakeView(model, all, {});
  DotView kept = view;
  CHECK(CutLongEdges(kept, 100, 4) == 0);  // 11 virtual nodes fit
  CHECK(kept.nodes.size() == view.nodes.size());
  CHECK(CutLongEdges(view, 5, 4) == 1);
  REQUIRE(view.nodes.size() == 14);
  CHECK(view.nodes[13].link_to == 0);
  CHECK(view.nodes[13].anchor == 12);
  CHECK(Render(model, view).find("@in->n11(data)") != std::string::npos);
}

TEST_CASE("tensor labels give dtype and shape from what the graph says",
          "[dot]") {
  GraphDef g =
      Parse(testing::PlaceholderText("p", "DT_INT32", "unknown_rank: true") +
            testing::ScalarConstText("c", "DT_FLOAT", "") + R"pb(
        node {
          name: "u"
          op: "Switch"
          input: "p"
          input: "c"
          attr {
            key: "T"
            value { type: DT_INT32 }
          }
          attr {
            key: "_output_shapes"
            value {
              list {
                shape { dim { size: -1 } }
                shape { dim { size: 4 } }
              }
            }
          }
        }
        node {
          name: "custom"
          op: "NotAnOp"
          attr {
            key: "T"
            value { type: DT_DOUBLE }
          }
        }
        node { name: "bare" op: "NotAnOpEither" }
      )pb");
  DotModel model = BuildModel({&g});
  CHECK(TensorLabel(model, 0, 0) == "int32");
  CHECK(TensorLabel(model, 1, 0) == "float[]");
  CHECK(TensorLabel(model, 2, 0) == "int32[?]");
  CHECK(TensorLabel(model, 2, 1) == "int32[4]");
  CHECK(TensorLabel(model, 3, 0) == "double");
  CHECK(TensorLabel(model, 4, 0) == "");
}

TEST_CASE("Send and Recv with the same key are linked, others are not",
          "[dot]") {
  GraphDef a = Parse(R"pb(
    node {
      name: "s"
      op: "_Send"
      attr {
        key: "tensor_name"
        value { s: "t" }
      }
      attr {
        key: "send_device"
        value { s: "A" }
      }
      attr {
        key: "recv_device"
        value { s: "B" }
      }
    }
  )pb");
  GraphDef b = Parse(R"pb(
    node {
      name: "r"
      op: "_Recv"
      attr {
        key: "tensor_name"
        value { s: "t" }
      }
      attr {
        key: "send_device"
        value { s: "A" }
      }
      attr {
        key: "recv_device"
        value { s: "B" }
      }
    }
    node {
      name: "other"
      op: "_Recv"
      attr {
        key: "tensor_name"
        value { s: "t" }
      }
      attr {
        key: "send_device"
        value { s: "A" }
      }
      attr {
        key: "recv_device"
        value { s: "C" }
      }
    }
  )pb");
  DotModel model = BuildModel({&a, &b});
  REQUIRE(model.edges.size() == 1);
  CHECK(model.edges[0].src == 0);
  CHECK(model.edges[0].dst == 1);
  CHECK(model.edges[0].kind == EdgeKind::kSendRecv);
  CHECK(model.nodes[1].partition == 1);
}

}  // namespace
}  // namespace dfg::dot_internal
