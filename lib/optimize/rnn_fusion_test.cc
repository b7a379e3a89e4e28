// The rnn pass on a real Keras LSTM loop: testdata/golden/optimize/
// lstm.pbtxt is `dfg freeze` of a Keras 3 Sequential([Input((4, 2)),
// LSTM(3)]) SavedModel written by TensorFlow 2.21 (names shortened). The
// values the fused graph computes are TensorFlow's oracle's business
// (testdata/tf_oracle, savedmodel section: k_lstm, k_lstm_sequences,
// k_bidirectional); here: when the rewrite happens and what it makes.
#include <algorithm>

#include "lib/kernels/tensor.h"
#include "lib/optimize/optimize.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

constexpr char kWhile[] = "lstm_1/while";
constexpr char kFused[] = "lstm_1/while/BlockLSTMV2";
constexpr char kStack[] = "lstm_1/TensorArrayV2Stack/TensorListStack";

GraphDef KerasLstm() {
  return testing::ParseTextProto<GraphDef>(testing::ReadFileOrDie(
      testing::SourceDir() + "/testdata/golden/optimize/lstm.pbtxt"));
}

const NodeDef* Find(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

int Count(const GraphDef& g, const std::string& op) {
  return static_cast<int>(
      std::count_if(g.node().begin(), g.node().end(),
                    [&](const NodeDef& n) { return n.op() == op; }));
}

// The body function's node that takes `input` with op `op`.
NodeDef* BodyNode(GraphDef* g, const std::string& op,
                  const std::string& input) {
  for (auto& f : *g->mutable_library()->mutable_function()) {
    if (f.signature().name().find("while_body") == std::string::npos) continue;
    for (NodeDef& n : *f.mutable_node_def()) {
      if (n.op() == op && std::find(n.input().begin(), n.input().end(),
                                    input) != n.input().end()) {
        return &n;
      }
    }
  }
  FAIL("no " << op << " reads " << input);
  return nullptr;
}

OptimizeReport Optimize(GraphDef* g, std::vector<std::string> preserve = {}) {
  OptimizeOptions options;
  options.preserve = std::move(preserve);
  OptimizeReport report;
  REQUIRE(Optimize(g, options, &report).ok());
  return report;
}

int RnnRewrites(const OptimizeReport& report) {
  return static_cast<int>(
      std::count_if(report.rewrites.begin(), report.rewrites.end(),
                    [](const Rewrite& r) { return r.pass == "rnn"; }));
}

TEST_CASE("the rnn pass makes a Keras LSTM loop one BlockLSTMV2",
          "[optimize]") {
  GraphDef g = KerasLstm();
  REQUIRE(Count(g, "While") == 1);
  OptimizeReport report = Optimize(&g);
  REQUIRE(RnnRewrites(report) == 1);
  CHECK(Count(g, "While") == 0);
  CHECK(Count(g, "TensorListFromTensor") == 0);
  CHECK(Count(g, "TensorListReserve") == 0);
  CHECK(g.library().function_size() == 0);  // cond and body went too
  const NodeDef* lstm = Find(g, kFused);
  REQUIRE(lstm != nullptr);
  CHECK(lstm->op() == "BlockLSTMV2");
  CHECK(lstm->attr().at("cell_clip").f() == 0.0f);
  CHECK_FALSE(lstm->attr().at("use_peephole").b());
  // x comes straight from the time-major transpose; the weight is folded.
  CHECK(lstm->input(1) == "lstm_1/transpose");
  const NodeDef* w = Find(g, lstm->input(4));
  REQUIRE(w != nullptr);
  CHECK(w->op() == "Const");
  auto value = Tensor::FromProto(w->attr().at("value").tensor());
  REQUIRE(value.ok());
  CHECK(value->shape().DebugString() == "[5,12]");  // [input + units, 4 units]
  const NodeDef* steps = Find(g, lstm->input(0));
  REQUIRE(steps != nullptr);
  CHECK(Tensor::FromProto(steps->attr().at("value").tensor())
            ->flat<int64_t>()[0] == 4);
  // The stack keeps its name and reads the last step of h.
  const NodeDef* stack = Find(g, kStack);
  REQUIRE(stack != nullptr);
  CHECK(stack->op() == "StridedSlice");
  CHECK(stack->input(0) == std::string(kFused) + ":6");
  // A second run finds nothing left to fuse.
  CHECK(RnnRewrites(Optimize(&g)) == 0);
}

TEST_CASE("the rnn pass leaves a loop alone unless everything matches",
          "[optimize]") {
  GraphDef g = KerasLstm();
  std::vector<std::string> preserve;
  SECTION("a recurrent activation other than sigmoid") {
    BodyNode(&g, "Sigmoid",
             "sequential_1/lstm_1/while/lstm_cell_1/split:output:3")
        ->set_op("Tanh");
  }
  SECTION("an activation other than tanh") {
    BodyNode(&g, "Tanh", "sequential_1/lstm_1/while/lstm_cell_1/split:output:2")
        ->set_op("Relu");
  }
  SECTION("a transposed kernel") {
    NodeDef* mm = BodyNode(
        &g, "MatMul",
        "sequential_1/lstm_1/while/lstm_cell_1/Cast/ReadVariableOp:output:0");
    (*mm->mutable_attr())["transpose_b"].set_b(true);
  }
  SECTION("fewer iterations than steps") {
    NodeDef* max = g.mutable_node(0);
    for (NodeDef& n : *g.mutable_node()) {
      if (n.name() == "lstm_1/Max") max = &n;
    }
    REQUIRE(max->name() == "lstm_1/Max");
    max->clear_input();
    max->clear_attr();
    max->set_op("Const");
    (*max->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
    Tensor::Scalar<int32_t>(3).ToProto(
        (*max->mutable_attr())["value"].mutable_tensor());
  }
  SECTION("the loop's counter is read") {
    NodeDef* read = g.add_node();
    read->set_name("steps_taken");
    read->set_op("Identity");
    read->add_input(std::string(kWhile) + ":0");
    (*read->mutable_attr())["T"].set_type(tensorflow::DT_INT32);
  }
  SECTION("weights that are not an LSTM's of the state's size") {
    for (NodeDef& n : *g.mutable_node()) {
      if (n.name() != kWhile) continue;
      auto* shapes = (*n.mutable_attr())["output_shapes"].mutable_list();
      // h and c: [?, 3] -> [?, 6], the kernel stays [2, 12].
      for (int v : {4, 5})
        shapes->mutable_shape(v)->mutable_dim(1)->set_size(6);
    }
  }
  SECTION("the loop is fetched") { preserve.push_back(kWhile); }
  SECTION("the stacked outputs are fetched") { preserve.push_back(kStack); }
  OptimizeReport report = Optimize(&g, preserve);
  CHECK(RnnRewrites(report) == 0);
  CHECK(Count(g, "While") == 1);
  CHECK(Count(g, "BlockLSTMV2") == 0);
}

}  // namespace
}  // namespace dfg
