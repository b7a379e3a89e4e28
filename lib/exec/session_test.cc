#include "lib/exec/session.h"

#include "lib/io/graph_io.h"
#include "lib/tensor_io/tensor_io.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

GraphDef Parse(const std::string& text) {
  return testing::ParseTextProto<GraphDef>(text);
}

std::unique_ptr<Session> MakeSession(const GraphDef& def,
                                     std::vector<std::string> devices = {},
                                     int threads = 1) {
  SessionOptions options;
  options.devices = std::move(devices);
  options.inter_op_threads = threads;
  auto s = Session::Create(def, options);
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  return std::move(s).value();
}

const std::string kAxpy =
    testing::PlaceholderText("x", "DT_FLOAT", "dim { size: -1 }") +
    testing::ScalarConstText("a", "DT_FLOAT", "float_val: 2") + R"pb(
  node {
    name: "ax"
    op: "Mul"
    input: "a"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y"
    op: "AddV2"
    input: "ax"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    device: "/device:CPU:1"
  }
)pb";

Tensor Vec(std::vector<float> v) { return Tensor::Vector<float>(v); }

TEST_CASE("session runs a graph over two CPU devices through Send/Recv",
          "[exec]") {
  for (int threads : {1, 2}) {
    auto session = MakeSession(Parse(kAxpy), {"cpu:0", "cpu:1"}, threads);
    std::vector<Tensor> out;
    Status s = session->Run({{"x", Vec({1, 2, 3})}}, {"y"}, {}, &out);
    REQUIRE(s.ok());
    CHECK(out[0].flat<float>()[2] == 9);
    CHECK(session->last_partitions().size() == 2);
    bool has_send = false;
    for (auto& [device, g] : session->last_partitions()) {
      for (auto& n : g.node()) has_send |= n.op() == "_Send";
    }
    CHECK(has_send);
  }
}

TEST_CASE("by default a step that unstages what it stages gets a pool",
          "[exec]") {
  // Run inline (--threads 1), the Unstage would wait for ever for the
  // Stage; the default (inter_op_threads 0) runs a graph with such an op on
  // the inter-op pool, as every graph with --threads N.
  const std::string area =
      R"( attr { key: "dtypes" value { list { type: DT_FLOAT } } })"
      R"( attr { key: "shared_name" value { s: "area" } })";
  const std::string graph =
      R"(node { name: "un" op: "Unstage")" + area + " }\n" +
      testing::ScalarConstText("c", "DT_FLOAT", "float_val: 3") +
      R"(node { name: "st" op: "Stage" input: "c")" + area + " }\n";
  auto session = MakeSession(Parse(graph), {}, /*threads=*/0);
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    REQUIRE(session->Run({}, {"un"}, {"st"}, &out).ok());
    CHECK(out[0].scalar<float>() == 3);
  }
}

TEST_CASE("session without kept partitions runs the same and keeps none",
          "[exec]") {
  SessionOptions options;
  options.devices = {"cpu:0", "cpu:1"};
  options.inter_op_threads = 1;
  options.keep_partitions = false;
  auto session = Session::Create(Parse(kAxpy), options);
  REQUIRE(session.ok());
  for (int step = 0; step < 2; ++step) {
    std::vector<Tensor> out;
    REQUIRE((*session)->Run({{"x", Vec({1, 2, 3})}}, {"y"}, {}, &out).ok());
    CHECK(out[0].flat<float>()[2] == 9);
    CHECK((*session)->last_partitions().empty());
  }
}

TEST_CASE("a one-device graph without control flow runs unpartitioned",
          "[exec]") {
  auto graphs = [](const GraphDef& def, std::vector<std::string> devices,
                   std::vector<std::string> feeds,
                   std::vector<std::string> fetches) {
    SessionOptions options;
    options.devices = std::move(devices);
    auto state_options = SessionStateOptions(options);
    REQUIRE(state_options.ok());
    auto state = ExecutionState::Create(def, *state_options);
    REQUIRE(state.ok());
    std::atomic<int64_t> counter{0};
    OptimizeOptions optimize;
    auto g = BuildSessionGraphs(**state, feeds, fetches, {}, &counter,
                                &optimize, /*may_keep_whole=*/true);
    INFO(g.status().ToString());
    REQUIRE(g.ok());
    return std::move(g).value();
  };
  // One CPU: the client graph itself, every NodeDef naming its device.
  SessionGraphs one = graphs(Parse(kAxpy), {"cpu:0"}, {"x"}, {"y"});
  REQUIRE(one.whole != nullptr);
  CHECK(one.partitions.empty());
  CHECK(one.whole_device == "/job:localhost/replica:0/task:0/device:CPU:0");
  for (const Node* n : one.whole->op_nodes()) {
    CHECK(n->requested_device() == one.whole_device);
    CHECK(n->assigned_device_name() == one.whole_device);
  }
  // Two devices in use: partitioned, as before.
  SessionGraphs two = graphs(Parse(kAxpy), {"cpu:0", "cpu:1"}, {"x"}, {"y"});
  CHECK(two.whole == nullptr);
  CHECK(two.partitions.size() == 2);
  // A while loop on one device: partitioned (the partitioner's frame
  // checks and TensorFlow's partition of a loop stay on the way).
  std::istringstream none;
  auto loop =
      ReadGraph(testing::SourceDir() + "/testdata/models/loop.pbtxt", none);
  REQUIRE(loop.ok());
  bool has_loop = false;
  for (const auto& n : loop->graph.node()) has_loop |= n.op() == "Enter";
  REQUIRE(has_loop);
  SessionGraphs looped = graphs(loop->graph, {"cpu:0"}, {"x"}, {"result"});
  CHECK(looped.whole == nullptr);
  CHECK(looped.partitions.size() == 1);

  // The session runs the whole graph as it ran its one partition.
  auto session = MakeSession(Parse(kAxpy), {"cpu:0"});
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"x", Vec({1, 2, 3})}}, {"y"}, {}, &out).ok());
  CHECK(out[0].flat<float>()[2] == 9);
}

TEST_CASE("session fetches one tensor twice and feeds any tensor", "[exec]") {
  auto session = MakeSession(Parse(kAxpy));
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"x", Vec({1})}}, {"y:0", "ax", "y:0"}, {}, &out).ok());
  REQUIRE(out.size() == 3);
  CHECK(out[0].flat<float>()[0] == 3);
  CHECK(out[1].flat<float>()[0] == 2);
  CHECK(out[2].flat<float>()[0] == 3);
  // Feeding an intermediate tensor cuts what is above it.
  REQUIRE(
      session->Run({{"ax", Vec({10})}, {"x", Vec({1})}}, {"y"}, {}, &out).ok());
  CHECK(out[0].flat<float>()[0] == 11);
}

TEST_CASE("running an op dfg does not know is TF's 'not registered' error",
          "[exec]") {
  auto session = MakeSession(
      Parse(testing::ScalarConstText("c", "DT_FLOAT", "float_val: 2") + R"pb(
        node { name: "mystery" op: "Frobnicate" input: "c" }
        node {
          name: "user"
          op: "Identity"
          input: "mystery"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
      )pb"));
  std::vector<Tensor> out;
  // Unneeded, the unknown op is no obstacle (the graph imports).
  REQUIRE(session->Run({}, {"c"}, {}, &out).ok());
  for (const char* fetch : {"mystery", "user"}) {
    Status s = session->Run({}, {fetch}, {}, &out);
    CHECK(s.code() == Code::kNotFound);
    CHECK_THAT(
        s.message(),
        Catch::Matchers::Contains(
            "Op type not registered 'Frobnicate' in binary running on "));
    CHECK_THAT(s.message(),
               Catch::Matchers::Contains(
                   "Make sure the Op and Kernel are registered in the binary "
                   "running in this process."));
  }
}

TEST_CASE("session errors come in DirectSession's order and wording",
          "[exec]") {
  auto session = MakeSession(Parse(kAxpy));
  std::vector<Tensor> out;
  Status s = session->Run({}, {"nope"}, {}, &out);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(),
             Catch::Matchers::Contains(
                 "Tensor nope:0, specified in either feed_devices or "
                 "fetch_devices was not found in the Graph"));
  s = session->Run({}, {"y:3"}, {}, &out);
  CHECK(s.code() == Code::kOutOfRange);
  CHECK_THAT(s.message(),
             Catch::Matchers::Contains(
                 "Node 'y' (type: 'AddV2', num of outputs: 1) does not "
                 "have output 3"));
  s = session->Run({{"x", Vec({1})}}, {"x"}, {}, &out);
  CHECK_THAT(s.message(),
             Catch::Matchers::Contains("x is both fed and fetched"));
  s = session->Run({}, {"y"}, {}, &out);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(),
             Catch::Matchers::Contains(
                 "You must feed a value for placeholder tensor 'x' with "
                 "dtype float and shape [?]"));
  s = session->Run({{"x", Tensor::Vector<int32_t>({1})}}, {"y"}, {}, &out);
  CHECK_THAT(s.message(), Catch::Matchers::Contains(
                              "Type mismatch: actual int32 vs. expect float"));
  s = session->Run({{"x", Tensor(tensorflow::DT_FLOAT, TensorShape({2, 2}))}},
                   {"y"}, {}, &out);
  CHECK_THAT(s.message(),
             Catch::Matchers::Contains(
                 "Cannot feed value of shape (2, 2) for Tensor x:0, "
                 "which has shape (None,)"));
  s = session->Run({}, {}, {}, &out);
  CHECK_THAT(s.message(),
             Catch::Matchers::Contains(
                 "Must specify at least one target to fetch or execute."));
}

const std::string kCounter =
    R"pb(
      node {
        name: "v"
        op: "VariableV2"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
        attr {
          key: "shape"
          value { shape {} }
        }
      }
    )pb" +
    testing::ScalarConstText("zero", "DT_FLOAT", "float_val: 0") +
    testing::ScalarConstText("one", "DT_FLOAT", "float_val: 1") + R"pb(
  node {
    name: "init"
    op: "Assign"
    input: "v"
    input: "zero"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "read"
    op: "Identity"
    input: "v"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "next"
    op: "AddV2"
    input: "read"
    input: "one"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "inc"
    op: "Assign"
    input: "v"
    input: "next"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST_CASE("session keeps variables across steps", "[exec]") {
  auto session = MakeSession(Parse(kCounter));
  std::vector<Tensor> out;
  Status s = session->Run({}, {"read"}, {}, &out);
  CHECK(s.code() == Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Catch::Matchers::Contains(
                              "Attempting to use uninitialized value v"));
  REQUIRE(session->Run({}, {}, {"init"}, &out).ok());
  for (int i = 0; i < 3; ++i) REQUIRE(session->Run({}, {}, {"inc"}, &out).ok());
  REQUIRE(session->Run({}, {"read"}, {}, &out).ok());
  CHECK(out[0].scalar<float>() == 3);
}

TEST_CASE("session times out a step that waits forever", "[exec]") {
  // A while loop whose condition never turns false.
  GraphDef def;
  std::string text =
      testing::ScalarConstText("i0", "DT_INT32", "int_val: 0") + R"pb(
    node {
      name: "e"
      op: "Enter"
      input: "i0"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "frame_name"
        value { s: "f" }
      }
    }
    node {
      name: "m"
      op: "Merge"
      input: "e"
      input: "n"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "N"
        value { i: 2 }
      }
    }
    node {
      name: "t"
      op: "Const"
      input: "^m"
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
    }
    node { name: "c" op: "LoopCond" input: "t" }
    node {
      name: "s"
      op: "Switch"
      input: "m"
      input: "c"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "n"
      op: "NextIteration"
      input: "s:1"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "x"
      op: "Exit"
      input: "s"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
  )pb";
  auto session = MakeSession(Parse(text), {}, 2);
  RunOptions options;
  options.timeout_ms = 100;
  std::vector<Tensor> out;
  Status s = session->Run({}, {"x"}, {}, &out, options);
  CHECK(s.code() == Code::kDeadlineExceeded);
}

TEST_CASE("session runs the corpus graphs INDEX.md lists as runnable",
          "[exec][corpus]") {
  auto dir = testing::CorpusDir();
  if (!dir) {
    WARN("../shared/corpus is absent: skipping the corpus models");
    return;
  }
  std::istringstream none;
  {
    auto g = ReadGraph(*dir + "/grappler__while_loop.pbtxt", none);
    REQUIRE(g.ok());
    auto session = MakeSession(g->graph, {"cpu:0", "cpu:1"}, 2);
    std::vector<Tensor> out;
    Status s = session->Run({}, {"while/Exit:0", "while/Exit_1:0"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(out[0].scalar<int32_t>() == 10);
    CHECK(out[1].shape() == TensorShape({2048, 2}));
    CHECK(out[1].flat<float>()[4095] == 1.0f);
  }
  {
    auto g = ReadGraph(*dir + "/tflite_e2e__control_flow_v1.pbtxt", none);
    REQUIRE(g.ok());
    auto session = MakeSession(g->graph);
    Tensor x(tensorflow::DT_FLOAT, TensorShape({1, 2}));
    x.flat<float>()[0] = 1;
    x.flat<float>()[1] = 1;
    std::vector<Tensor> out;
    REQUIRE(session
                ->Run({{"Placeholder", x},
                       {"Placeholder_1", Tensor::Scalar<bool>(true)}},
                      {"cond/Merge:0", "cond/Merge:1"}, {}, &out)
                .ok());
    CHECK(out[0].shape() == TensorShape({1, 2}));
    CHECK(out[0].flat<float>()[0] == Approx(0.4f));
    CHECK(out[1].scalar<int32_t>() == 1);
    REQUIRE(session
                ->Run({{"Placeholder", x},
                       {"Placeholder_1", Tensor::Scalar<bool>(false)}},
                      {"cond/Merge:0"}, {}, &out)
                .ok());
    CHECK(out[0].shape() == TensorShape({2, 2}));
  }
  {
    auto g = ReadGraph(*dir + "/ngraph__sample_graph.pb", none);
    REQUIRE(g.ok());
    auto session = MakeSession(g->graph);
    std::vector<Tensor> out;
    Tensor x = Vec(std::vector<float>(10, 0.5f)),
           y = Vec(std::vector<float>(10, -0.25f));
    REQUIRE(session->Run({{"x", x}, {"y", y}}, {"out_node:0"}, {}, &out).ok());
    CHECK(out[0].flat<float>()[3] == Approx(0.5f));  // sigmoid(0.5 - 0.5)
  }
}

}  // namespace
}  // namespace dfg
