#include "lib/pipeline/execution_state.h"

#include <google/protobuf/arena.h>

#include <set>

#include "lib/place/device_set.h"
#include "lib/prune/prune.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

// x is fed on CPU:0 and read on CPU:1 (m); z, a scalar Const, is read on
// CPU:0 (n) and CPU:1 (m), so that the POST_REWRITE_FOR_EXEC pass copies it;
// m's result crosses back to CPU:0.
const std::string kGraph =
    testing::ScalarConstText("z", "DT_FLOAT", "float_val: 2") + R"pb(
  node {
    name: "x"
    op: "Placeholder"
    device: "/device:CPU:0"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "m"
    op: "Mul"
    input: "x"
    input: "z"
    device: "/device:CPU:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "n"
    op: "AddV2"
    input: "z"
    input: "m"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  versions { producer: 1000 }
)pb";

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

DeviceSet Devices(const std::vector<std::string>& flags) {
  auto set = DeviceSetFromFlags(flags);
  REQUIRE(set.ok());
  return std::move(set).value();
}

std::unique_ptr<ExecutionState> MakeState(const std::string& text,
                                          ExecutionStateOptions options = {}) {
  if (options.devices.devices().empty()) {
    options.devices = Devices({"cpu:0", "cpu:1"});
  }
  auto state =
      ExecutionState::Create(testing::ParseTextProto<GraphDef>(text), options);
  INFO(state.status().ToString());
  REQUIRE(state.ok());
  return std::move(state).value();
}

PruneOptions Signature() {
  PruneOptions options;
  options.feeds = {"x:0"};
  options.fetches = {"n:0"};
  options.client_device = kCpu0;
  return options;
}

std::string Render(const std::map<std::string, GraphDef>& parts) {
  std::string out;
  for (const auto& [device, def] : parts) {
    out += "# " + device + "\n" + def.DebugString();
  }
  return out;
}

TEST_CASE("execution state places the whole graph once", "[pipeline]") {
  auto state = MakeState(kGraph);
  const GraphDef placed = state->placed_graph();
  REQUIRE(placed.node_size() == 4);
  for (const NodeDef& node : placed.node()) {
    CHECK(node.device() == (node.name() == "m" ? kCpu1 : kCpu0));
  }
  REQUIRE(state->FindNode("m") != nullptr);
  CHECK(state->DeviceOf(*state->FindNode("m")) == kCpu1);
  CHECK(state->FindNode("nope") == nullptr);
}

TEST_CASE("execution state puts nodes without a job on the default task",
          "[pipeline]") {
  ExecutionStateOptions options;
  options.devices = Devices(
      {"/job:w/task:0/cpu:0", "/job:w/task:1/cpu:0", "/job:w/task:1/cpu:1"});
  options.default_task = "/job:w/replica:0/task:1";
  auto state = MakeState(kGraph, options);
  const GraphDef placed = state->placed_graph();
  for (const NodeDef& node : placed.node()) {
    INFO(node.name());
    CHECK(node.device() == (node.name() == "m"
                                ? "/job:w/replica:0/task:1/device:CPU:1"
                                : "/job:w/replica:0/task:1/device:CPU:0"));
  }
  options.default_task.clear();
  auto plain = MakeState(kGraph, options);
  CHECK(plain->DeviceOf(*plain->FindNode("n")) ==
        "/job:w/replica:0/task:0/device:CPU:0");
}

TEST_CASE("execution state refuses a removed op only when asked",
          "[pipeline]") {
  const std::string text = R"pb(
    node {
      name: "x"
      op: "PlaceholderV2"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    versions { producer: 23 }
  )pb";
  ExecutionStateOptions options;
  options.devices = Devices({"cpu:0"});
  options.check_op_deprecations = true;
  auto checked =
      ExecutionState::Create(testing::ParseTextProto<GraphDef>(text), options);
  REQUIRE(checked.status().code() == Code::kUnimplemented);
  CHECK_THAT(checked.status().message(),
             Catch::Matchers::Contains("It has been removed in version 23"));
  options.check_op_deprecations = false;
  auto unchecked =
      ExecutionState::Create(testing::ParseTextProto<GraphDef>(text), options);
  CHECK(unchecked.ok());
}

TEST_CASE("execution state validates feeds, then fetches", "[pipeline]") {
  auto state = MakeState(kGraph);
  CHECK(state->ValidateFeedsAndFetches({"x:0"}, {"n:0"}).ok());
  Status missing = state->ValidateFeedsAndFetches({"nn:0"}, {"m:3"});
  CHECK(missing.code() == Code::kInvalidArgument);
  CHECK_THAT(missing.message(),
             Catch::Matchers::Contains(
                 "Tensor nn:0, specified in either feed_devices or "
                 "fetch_devices was not found in the Graph"));
  Status range = state->ValidateFeedsAndFetches({"x:0"}, {"m:3"});
  CHECK(range.code() == Code::kOutOfRange);
  CHECK_THAT(range.message(),
             Catch::Matchers::Contains("does not have output 3"));
}

TEST_CASE("client graph is a rewritten copy, the placed graph unchanged",
          "[pipeline]") {
  auto state = MakeState(kGraph);
  const std::string before = state->placed_graph().DebugString();
  auto client = state->BuildClientGraph(Signature());
  REQUIRE(client.ok());
  CHECK(client->feed_types == std::vector<DataType>{DataType::DT_FLOAT});
  CHECK(client->fetch_types == std::vector<DataType>{DataType::DT_FLOAT});
  int args = 0, rets = 0;
  for (const Node* n : client->graph->op_nodes()) {
    CHECK(!n->assigned_device_name().empty());
    if (n->op() == "_Arg") {
      ++args;
      CHECK(n->assigned_device_name() == kCpu0);
    }
    if (n->op() == "_Retval") ++rets;
    CHECK(n->name() != "x");
  }
  CHECK(args == 1);
  CHECK(rets == 1);
  CHECK(state->placed_graph().DebugString() == before);

  PruneOptions bad = Signature();
  bad.fetches = {"q:0"};
  CHECK(!state->BuildClientGraph(bad).ok());
}

TEST_CASE("client graph partitions replicate small constants first",
          "[pipeline]") {
  auto state = MakeState(kGraph);
  auto client = state->BuildClientGraph(Signature());
  REQUIRE(client.ok());
  auto parts = PartitionClientGraph(client->graph.get(), PartitionOptions());
  REQUIRE(parts.ok());
  REQUIRE(parts->size() == 2);
  std::set<std::string> sent;
  for (const auto& [device, def] : *parts) {
    for (const NodeDef& node : def.node()) {
      CHECK(node.name() != "z");  // one copy per device instead
      if (node.op() == "_Send") sent.insert(node.attr().at("tensor_name").s());
    }
  }
  // Edge ids of TensorFlow's second copy of the client graph: 2 + the rank
  // among the live edges after _SOURCE->_SINK, once z's edges are gone: m->n
  // first (import order), n->_SINK, then the rewrite's _SOURCE->_arg and
  // _arg->m.
  CHECK(sent == std::set<std::string>{"edge_3_m", "edge_6__arg_x_0_0"});
}

TEST_CASE(
    "the first client graph, made of the placed graph, equals the later ones",
    "[pipeline]") {
  // Nodes listed consumers first and control inputs out of order: the
  // import reorders both, and the first client graph (the placed graph
  // itself) must number nodes and edges as those imported anew from the
  // placed GraphDef do.
  const std::string graph =
      R"pb(
        node {
          name: "n"
          op: "AddV2"
          input: "z"
          input: "m"
          input: "^q"
          input: "^p"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node {
          name: "m"
          op: "Mul"
          input: "x"
          input: "z"
          device: "/device:CPU:1"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node { name: "q" op: "NoOp" device: "/device:CPU:1" }
        node { name: "p" op: "NoOp" }
        node {
          name: "x"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
        }
        versions { producer: 1000 }
      )pb" +
      testing::ScalarConstText("z", "DT_FLOAT", "float_val: 2");
  auto state = MakeState(graph);
  const std::string placed = state->placed_graph().DebugString();
  std::vector<std::string> rendered;
  for (int i = 0; i < 3; ++i) {
    auto client = state->BuildClientGraph(Signature());
    INFO(client.status().ToString());
    REQUIRE(client.ok());
    std::string ids;
    for (const Node* n : client->graph->op_nodes()) {
      ids += std::to_string(n->id()) + " " + n->name() + "\n";
    }
    auto parts = PartitionClientGraph(client->graph.get(), PartitionOptions());
    REQUIRE(parts.ok());
    REQUIRE(parts->size() == 2);
    rendered.push_back(ids + Render(*parts));
  }
  CHECK(rendered[0] == rendered[1]);
  CHECK(rendered[1] == rendered[2]);
  CHECK(state->placed_graph().DebugString() == placed);
}

TEST_CASE("dfg partition's path gives the session's partitions", "[pipeline]") {
  auto state = MakeState(kGraph);
  auto client = state->BuildClientGraph(Signature());
  REQUIRE(client.ok());
  auto direct = PartitionClientGraph(client->graph.get(), PartitionOptions());
  REQUIRE(direct.ok());

  // dfg place | dfg prune | dfg partition, on an arena as the command does.
  PruneOptions prune;
  prune.feeds = {"x:0"};
  prune.fetches = {"n:0"};
  prune.client_device = kCpu0;
  auto pruned = Prune(state->placed_graph(), prune);
  REQUIRE(pruned.ok());
  google::protobuf::Arena arena;
  auto* def = google::protobuf::Arena::CreateMessage<GraphDef>(&arena);
  *def = pruned->graph;
  std::map<std::string, GraphDef> via_command;
  {
    auto graph = ImportPlacedClientGraph(def, PlacedClientGraphOptions());
    REQUIRE(graph.ok());
    auto parts = PartitionClientGraphOnArena(graph->get(), PartitionOptions());
    REQUIRE(parts.ok());
    via_command = CopyPartitions(*parts);
  }
  CHECK(Render(via_command) == Render(*direct));
}

TEST_CASE("placed client graph needs devices or a placed input", "[pipeline]") {
  GraphDef unplaced = testing::ParseTextProto<GraphDef>(kGraph);
  GraphDef copy = unplaced;
  auto carried = ImportPlacedClientGraph(&copy, PlacedClientGraphOptions());
  CHECK(carried.status().code() == Code::kFailedPrecondition);

  PlacedClientGraphOptions options;
  options.devices = Devices({"cpu:0", "cpu:1"});
  copy = unplaced;
  auto placed = ImportPlacedClientGraph(&copy, options);
  REQUIRE(placed.ok());
  for (const Node* n : (*placed)->op_nodes()) {
    CHECK(n->assigned_device_name() == (n->name() == "m" ? kCpu1 : kCpu0));
  }
}

TEST_CASE("signature key tells feeds, fetches and targets apart",
          "[pipeline]") {
  CHECK(SignatureKey({"a:0"}, {}, {}) != SignatureKey({}, {"a:0"}, {}));
  CHECK(SignatureKey({}, {"a:0"}, {}) != SignatureKey({}, {}, {"a:0"}));
  CHECK(SignatureKey({"a:0", "b:0"}, {}, {}) !=
        SignatureKey({"a:0"}, {"b:0"}, {}));
  CHECK(SignatureKey({"a:0"}, {"b:0"}, {"c"}) ==
        SignatureKey({"a:0"}, {"b:0"}, {"c"}));
}

}  // namespace
}  // namespace dfg
