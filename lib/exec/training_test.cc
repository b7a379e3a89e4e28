// Training graphs of the corpus, stepped through a Session: an init target
// once, then the train target repeatedly with variables persisting across
// steps. The graphs check themselves: TensorFlow Rust's regression example
// expects w near 0.1 and b near 0.3; MNIST-style graphs lower their loss.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "lib/exec/session.h"
#include "lib/io/graph_io.h"
#include "lib/tensor_io/tensor_io.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

std::optional<GraphDef> CorpusGraph(const std::string& name) {
  auto dir = testing::CorpusDir();
  if (!dir) return std::nullopt;
  std::istringstream none;
  auto g = ReadGraph(*dir + "/" + name, none);
  REQUIRE(g.ok());
  return g->graph;
}

std::unique_ptr<Session> MakeSession(GraphDef graph) {
  SessionOptions options;
  options.inter_op_threads = 2;
  options.intra_op_threads = 1;
  auto s = Session::Create(std::move(graph), options);
  REQUIRE(s.ok());
  return std::move(s).value();
}

// TensorFlow Rust's examples/regression: 100 points with x in [-1, 1) and
// y = 0.1 x + 0.3, fed at every step.
void TrainRegression(Session& session, double* w, double* b) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor x(tensorflow::DT_FLOAT, TensorShape({100}));
  Tensor y(tensorflow::DT_FLOAT, TensorShape({100}));
  for (int i = 0; i < 100; ++i) {
    x.flat<float>()[i] = u(rng);
    y.flat<float>()[i] = 0.1f * x.flat<float>()[i] + 0.3f;
  }
  std::vector<Tensor> out;
  REQUIRE(session.Run({}, {}, {"init"}, &out).ok());
  for (int step = 0; step < 200; ++step) {
    Status s = session.Run({{"x", x}, {"y", y}}, {}, {"train"}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
  }
  REQUIRE(session.Run({}, {"w", "b"}, {}, &out).ok());
  *w = out[0].flat<float>()[0];
  *b = out[1].flat<float>()[0];
}

TEST_CASE("TensorFlow Rust's regression graphs train to w=0.1, b=0.3",
          "[exec][train][corpus]") {
  for (const char* name : {"tfrust__regression_model.pb",
                           "tfrust__regression_checkpoint_model.pb"}) {
    auto graph = CorpusGraph(name);
    if (!graph) {
      WARN("../shared/corpus is absent: skipping " << name);
      return;
    }
    INFO(name);
    auto session = MakeSession(*graph);
    double w = 0, b = 0;
    TrainRegression(*session, &w, &b);
    CHECK(std::abs(w - 0.1) < 1e-3);
    CHECK(std::abs(b - 0.3) < 1e-3);
  }
}

TEST_CASE("a train step before init names the uninitialized variable",
          "[exec][train][corpus]") {
  auto graph = CorpusGraph("tfrust__regression_model.pb");
  if (!graph) {
    WARN("../shared/corpus is absent: skipping");
    return;
  }
  auto session = MakeSession(*graph);
  Tensor x(tensorflow::DT_FLOAT, TensorShape({2}));
  x.flat<float>()[0] = x.flat<float>()[1] = 1;
  std::vector<Tensor> out;
  Status s = session->Run({{"x", x}, {"y", x}}, {}, {"train"}, &out);
  CHECK(s.code() == Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Catch::Matchers::Contains("uninitialized"));
}

// square(x) = x * x with a GradientDef naming square_grad(x, dy) = 2 x dy,
// and cube(x) without one.
const std::string kGradientGraph =
    testing::PlaceholderText("x", "DT_FLOAT") +
    testing::ScalarConstText("dy", "DT_FLOAT", "float_val: 3") +
    testing::CallNodeText("grad", "SymbolicGradient", {"x", "dy"},
                          {"DT_FLOAT", "DT_FLOAT"}, {"DT_FLOAT"}, "square") +
    testing::CallNodeText("no_grad", "SymbolicGradient", {"x", "dy"},
                          {"DT_FLOAT", "DT_FLOAT"}, {"DT_FLOAT"}, "cube") +
    R"pb(
  library {
    function {
      signature {
        name: "square"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "m"
        op: "Mul"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "m:z:0" }
    }
    function {
      signature {
        name: "cube"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      ret { key: "y" value: "x" }
    }
    function {
      signature {
        name: "square_grad"
        input_arg { name: "x" type: DT_FLOAT }
        input_arg { name: "dy" type: DT_FLOAT }
        output_arg { name: "dx" type: DT_FLOAT }
      }
      node_def {
        name: "two_x"
        op: "Add"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "dx"
        op: "Mul"
        input: "two_x:z:0"
        input: "dy"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "dx" value: "dx:z:0" }
    }
    gradient { function_name: "square" gradient_func: "square_grad" }
  }
    )pb";

TEST_CASE("SymbolicGradient calls the function's GradientDef",
          "[exec][train]") {
  GraphDef def = testing::ParseTextProto<GraphDef>(kGradientGraph);
  auto session = MakeSession(def);
  std::vector<Tensor> out;
  Status s =
      session->Run({{"x", Tensor::Scalar<float>(5)}}, {"grad"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].scalar<float>() == 30.0f);  // 2 * 5 * 3
  s = session->Run({{"x", Tensor::Scalar<float>(5)}}, {"no_grad"}, {}, &out);
  CHECK(s.code() == Code::kUnimplemented);
  CHECK_THAT(s.message(), Catch::Matchers::Contains(
                              "SymbolicGradient of 'cube': the library has no "
                              "GradientDef for it"));
}

// testdata/models/make_dynamic_rnn_model.py: a TF1 v1-loop RNN over
// TensorArrays and its GradientDescent step (TensorArrayGradV3, the
// gradient loop's stacks). Reference losses from TensorFlow 2.21.
TEST_CASE("a dynamic_rnn-style TensorArray loop trains as in TensorFlow",
          "[exec][train]") {
  const std::string dir = testing::SourceDir() + "/testdata/models/";
  std::istringstream none;
  auto g = ReadGraph(dir + "dynamic_rnn.pbtxt", none);
  REQUIRE(g.ok());
  auto x = LoadTensorFile(dir + "dynamic_rnn_x.npy");
  REQUIRE(x.ok());
  auto session = MakeSession(g->graph);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {"init"}, &out).ok());
  Status s = session->Run({{"x", *x}}, {"loss"}, {"train"}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].scalar<float>() == Approx(0.5733901f).epsilon(1e-5));
  REQUIRE(session->Run({{"x", *x}}, {"loss"}, {}, &out).ok());
  CHECK(out[0].scalar<float>() == Approx(0.055665504f).epsilon(1e-4));
  // The step container is gone: the next step makes its arrays afresh.
  REQUIRE(session->Run({{"x", *x}}, {"loss"}, {"train"}, &out).ok());
}

TEST_CASE("a trained checkpoint graph saves, and a fresh session restores",
          "[exec][train][corpus]") {
  auto graph = CorpusGraph("tfrust__regression_checkpoint_model.pb");
  if (!graph) {
    WARN("../shared/corpus is absent: skipping");
    return;
  }
  const std::string prefix =
      (std::filesystem::temp_directory_path() /
       ("dfg_train_ckpt_" + std::to_string(::getpid())) / "model")
          .string();
  const Tensor path = Tensor::Scalar<std::string>(prefix);
  double w = 0, b = 0;
  {
    auto session = MakeSession(*graph);
    TrainRegression(*session, &w, &b);
    std::vector<Tensor> out;
    Status s = session->Run({{"save/Const", path}}, {"save/control_dependency"},
                            {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
  }
  auto fresh = MakeSession(*graph);
  std::vector<Tensor> out;
  Status s = fresh->Run({{"save/Const", path}}, {}, {"save/restore_all"}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(fresh->Run({}, {"w", "b"}, {}, &out).ok());
  CHECK(out[0].flat<float>()[0] == static_cast<float>(w));
  CHECK(out[1].flat<float>()[0] == static_cast<float>(b));
  std::filesystem::remove_all(std::filesystem::path(prefix).parent_path());
}

// tbgraphtest's Adam graph: an MLP whose MatMuls call a library function
// (straight-through quantization) differentiated by SymbolicGradient through
// its GradientDef, trained by ApplyAdam, with seeded dropout. The init's two
// TruncatedNormal outputs are fed (deterministic values); the reference
// losses are TensorFlow 2.21's for this graph with the same feeds (Session
// runs of init, then Mean with target Adam five times), the dropout's
// seeded Philox stream included.
TEST_CASE("tbgraphtest's Adam steps match TensorFlow",
          "[exec][train][corpus]") {
  auto graph = CorpusGraph("tbgraphtest__graph.pbtxt");
  if (!graph) {
    WARN("../shared/corpus is absent: skipping");
    return;
  }
  auto session = MakeSession(*graph);
  Tensor tn1(tensorflow::DT_FLOAT, TensorShape({256, 128}));
  Tensor tn2(tensorflow::DT_FLOAT, TensorShape({128, 16}));
  for (int64_t i = 0; i < tn1.NumElements(); ++i) {
    tn1.flat<float>()[i] = static_cast<float>(0.1 * std::sin(i * 0.37));
  }
  for (int64_t i = 0; i < tn2.NumElements(); ++i) {
    tn2.flat<float>()[i] = static_cast<float>(0.1 * std::cos(i * 0.11));
  }
  std::vector<Tensor> out;
  Status s = session->Run(
      {{"fc1/weight/Initializer/truncated_normal/TruncatedNormal", tn1},
       {"out/weight/Initializer/truncated_normal/TruncatedNormal", tn2}},
      {}, {"init"}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  Tensor images(tensorflow::DT_FLOAT, TensorShape({32, 256}));
  for (int64_t i = 0; i < images.NumElements(); ++i) {
    images.flat<float>()[i] = static_cast<float>(std::fmod(i * 0.618, 1.0));
  }
  Tensor label(tensorflow::DT_INT64, TensorShape({32, 16}));
  for (int64_t& v : label.flat<int64_t>()) v = 0;
  for (int r = 0; r < 32; ++r) label.flat<int64_t>()[r * 16 + (r * 7) % 16] = 1;
  Tensor ones1(tensorflow::DT_FLOAT, TensorShape({256, 128}));
  Tensor ones2(tensorflow::DT_FLOAT, TensorShape({128, 16}));
  for (float& v : ones1.flat<float>()) v = 1;
  for (float& v : ones2.flat<float>()) v = 1;
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"images", images},
      {"label", label},
      {"lr", Tensor::Scalar<float>(0.001f)},
      {"weight_decay", Tensor::Scalar<float>(1e-4f)},
      {"mask_fc1", ones1},
      {"mask_out", ones2}};
  const double want[] = {2.7725930213928223, 2.7697410583496094,
                         2.7679874897003174, 2.764749765396118,
                         2.7604026794433594};
  for (double w : want) {
    s = session->Run(feeds, {"Mean"}, {"Adam"}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(out[0].scalar<float>() == Approx(w).epsilon(1e-5));
  }
}

// cppflow's MNIST graph: resource variables, ResourceApplyGradientDescent,
// float64 feeds. One fixed random batch: the loss must go down.
TEST_CASE("cppflow's MNIST training step lowers its loss",
          "[exec][train][corpus]") {
  auto graph = CorpusGraph("cppflow__mnist_model.pb");
  if (!graph) {
    WARN("../shared/corpus is absent: skipping");
    return;
  }
  auto session = MakeSession(*graph);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Tensor x(tensorflow::DT_DOUBLE, TensorShape({64, 784}));
  Tensor y(tensorflow::DT_DOUBLE, TensorShape({64, 10}));
  // Mostly-zero pixels in [0, 1), as MNIST digits are.
  for (double& v : x.flat<double>()) v = u(rng) < 0.8 ? 0.0 : u(rng);
  for (double& v : y.flat<double>()) v = 0;
  for (int i = 0; i < 64; ++i) y.flat<double>()[i * 10 + rng() % 10] = 1;
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {"init"}, &out).ok());
  std::vector<double> losses;
  for (int step = 0; step < 30; ++step) {
    Status s = session->Run({{"input", x}, {"label", y}}, {"Mean"},
                            {"GradientDescent"}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    losses.push_back(out[0].scalar<double>());
  }
  INFO("first loss " << losses.front() << ", last " << losses.back());
  CHECK(std::isfinite(losses.back()));
  CHECK(losses.back() < 0.5 * losses.front());
}

}  // namespace
}  // namespace dfg
