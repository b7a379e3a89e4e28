#include "lib/partition/partition.h"

#include <google/protobuf/util/message_differencer.h>

#include "lib/partition/partition_test_util.h"

namespace dfg {
namespace {

using namespace partition_test;  // NOLINT: test helpers

std::string In(const std::string& name, const std::string& dtype = "DT_FLOAT") {
  return N(name, "Placeholder", {}, "dtype: " + dtype);
}
std::string Add(const std::string& name, const std::string& a,
                const std::string& b, const std::string& control = "") {
  std::vector<std::string> inputs = {a, b};
  if (!control.empty()) inputs.push_back(control);
  return N(name, "Add", inputs, "T: DT_FLOAT");
}

std::map<std::string, GraphDef> MustPartition(
    const std::string& text,
    const PartitionOptions& options = HarnessOptions()) {
  auto parts = PartitionText(text, options);
  INFO(parts.status().ToString());
  REQUIRE(parts.ok());
  return std::move(parts).value();
}

TEST_CASE("moving attrs out of the graph gives the same partitions",
          "[partition]") {
  // Data, control, a string tensor and a shared recv across three devices.
  const std::string text =
      In("A1") + In("A3", "DT_STRING") + Add("B1", "A1", "A1", "^A3") +
      Add("C1", "B1", "A1") + Add("C2", "B1", "C1", "^B1") +
      N("B2", "Identity", {"A3"}, "T: DT_STRING");
  auto copied = MustPartition(text);
  PartitionOptions options = HarnessOptions();
  options.can_make_destructive_changes = true;
  auto moved = MustPartition(text, options);
  REQUIRE(copied.size() == 3);
  REQUIRE(moved.size() == copied.size());
  for (const auto& [key, graph] : copied) {
    INFO(key);
    REQUIRE(moved.count(key) == 1);
    CHECK(google::protobuf::util::MessageDifferencer::Equals(graph,
                                                             moved.at(key)));
  }
}

TEST_CASE("one device gives one partition holding the graph as it was",
          "[partition]") {
  auto parts = MustPartition(In("A1") + Add("A2", "A1", "A1"));
  REQUIRE(parts.size() == 1);
  const GraphDef& a = parts.at(kCpu0);
  CHECK(Lines(a) == "A1 = Placeholder()\nA2 = Add(A1, A1)\n");
  CHECK(a.node(1).device() == kCpu0);
  CHECK(a.node(1).attr().at("T").type() == tensorflow::DT_FLOAT);
}

TEST_CASE(
    "a data edge between devices becomes a _Send/_Recv pair with "
    "TensorFlow's attrs",
    "[partition]") {
  auto parts = MustPartition(In("A1") + In("B1") + Add("B2", "A1", "B1"));
  REQUIRE(parts.size() == 2);
  CHECK(Lines(parts.at(kCpu0)) == "A1 = Placeholder()\nA1/_0 = _Send(A1)\n");
  CHECK(Lines(parts.at(kCpu1)) ==
        "B1 = Placeholder()\nB2 = Add(A1/_1, B1)\nA1/_1 = _Recv()\n");

  const std::string common =
      "attr { key: 'tensor_name' value { s: 'edge_1_A1' } } "
      "attr { key: 'send_device' value { s: '/job:a/replica:0/task:0/cpu:0' } "
      "} "
      "attr { key: 'send_device_incarnation' value { i: 82 } } "
      "attr { key: 'recv_device' value { s: '/job:a/replica:0/task:0/cpu:1' } "
      "} "
      "attr { key: 'client_terminated' value { b: false } } "
      "attr { key: '_src' value { s: 'A1' } } "
      "attr { key: '_dst' value { s: 'B2' } } ";
  NodeDef send = ParseGraphText(
                     "node { name: 'A1/_0' op: '_Send' input: 'A1' "
                     "device: '/job:a/replica:0/task:0/cpu:0' " +
                     common + "attr { key: 'T' value { type: DT_FLOAT } } }")
                     .node(0);
  NodeDef recv =
      ParseGraphText(
          "node { name: 'A1/_1' op: '_Recv' "
          "device: '/job:a/replica:0/task:0/cpu:1' " +
          common + "attr { key: 'tensor_type' value { type: DT_FLOAT } } }")
          .node(0);
  using google::protobuf::util::MessageDifferencer;
  CHECK(MessageDifferencer::Equals(parts.at(kCpu0).node(1), send));
  CHECK(MessageDifferencer::Equals(parts.at(kCpu1).node(2), recv));
}

TEST_CASE(
    "a control edge between devices goes through a dummy Const and an "
    "Identity",
    "[partition]") {
  auto parts =
      MustPartition(In("A1") + In("B1") + Add("B2", "B1", "B1", "^A1"));
  CHECK(Lines(parts.at(kCpu0)) ==
        "A1 = Placeholder()\nA1/ctrl/_0 = Const(^A1)\nA1/_1 = "
        "_Send(A1/ctrl/_0)\n");
  CHECK(Lines(parts.at(kCpu1)) ==
        "B1 = Placeholder()\nB2 = Add(B1, B1, ^A1/_3)\nA1/_2 = _Recv()\n"
        "A1/_3 = Identity(A1/_2)\n");
  const GraphDef& a = parts.at(kCpu0);
  const NodeDef& dummy = a.node(1);
  CHECK(dummy.device() == kCpu0);
  CHECK(dummy.attr().at("dtype").type() == tensorflow::DT_FLOAT);
  const auto& value = dummy.attr().at("value").tensor();
  CHECK(value.dtype() == tensorflow::DT_FLOAT);
  REQUIRE(value.tensor_shape().dim_size() == 1);
  CHECK(value.tensor_shape().dim(0).size() == 0);
  CHECK(a.node(2).attr().at("tensor_name").s() == "edge_3_A1");
  CHECK(a.node(2).attr().at("T").type() == tensorflow::DT_FLOAT);
  const GraphDef& b = parts.at(kCpu1);
  CHECK(b.node(2).attr().at("tensor_type").type() == tensorflow::DT_FLOAT);
  CHECK(b.node(3).attr().at("T").type() == tensorflow::DT_FLOAT);
  CHECK(b.node(3).device() == kCpu1);
}

TEST_CASE("consumers of one tensor in one partition share a single pair",
          "[partition]") {
  auto parts = MustPartition(In("A1") + In("B1") + Add("B2", "A1", "B1") +
                             Add("B3", "A1", "A1"));
  CHECK(Lines(parts.at(kCpu0)) == "A1 = Placeholder()\nA1/_0 = _Send(A1)\n");
  CHECK(Lines(parts.at(kCpu1)) ==
        "B1 = Placeholder()\nB2 = Add(A1/_1, B1)\nA1/_1 = _Recv()\n"
        "B3 = Add(A1/_1, A1/_1)\n");
}

TEST_CASE(
    "control consumers of one node in one partition share a single "
    "Const, pair and Identity",
    "[partition]") {
  auto parts =
      MustPartition(In("A1") + In("B1") + Add("B2", "B1", "B1", "^A1") +
                    N("B3", "Placeholder", {"^A1"}, "dtype: DT_FLOAT"));
  CHECK(Lines(parts.at(kCpu0)) ==
        "A1 = Placeholder()\nA1/ctrl/_0 = Const(^A1)\nA1/_1 = "
        "_Send(A1/ctrl/_0)\n");
  CHECK(Lines(parts.at(kCpu1)) ==
        "B1 = Placeholder()\nB2 = Add(B1, B1, ^A1/_3)\nA1/_2 = _Recv()\n"
        "A1/_3 = Identity(A1/_2)\nB3 = Placeholder(^A1/_3)\n");
}

TEST_CASE(
    "data and control from one source are separate transfers, named "
    "A1/_0 to A1/_5 in creation order",
    "[partition]") {
  auto parts =
      MustPartition(In("A1") + In("B1") + Add("B2", "A1", "B1") +
                    N("B3", "Placeholder", {"^A1"}, "dtype: DT_FLOAT"));
  CHECK(Lines(parts.at(kCpu0)) ==
        "A1 = Placeholder()\nA1/_0 = _Send(A1)\nA1/ctrl/_2 = Const(^A1)\n"
        "A1/_3 = _Send(A1/ctrl/_2)\n");
  CHECK(Lines(parts.at(kCpu1)) ==
        "B1 = Placeholder()\nB2 = Add(A1/_1, B1)\nA1/_1 = _Recv()\n"
        "B3 = Placeholder(^A1/_5)\nA1/_4 = _Recv()\nA1/_5 = Identity(A1/_4)\n");
  CHECK(FindNode(parts.at(kCpu0), "A1/_0")->attr().at("tensor_name").s() ==
        "edge_1_A1");
  CHECK(FindNode(parts.at(kCpu0), "A1/_3")->attr().at("tensor_name").s() ==
        "edge_3_A1");
}

TEST_CASE("tensor_name is edge_<id>_<src> with TensorFlow's edge ids",
          "[partition]") {
  // Edges 1, 2: A1 -> A2 (both slots); 3: A2 -> B1:0; 4: A1 -> B1:1.
  auto parts =
      MustPartition(In("A1") + Add("A2", "A1", "A1") + Add("B1", "A2", "A1"));
  const GraphDef& a = parts.at(kCpu0);
  CHECK(FindNode(a, "A2/_0")->attr().at("tensor_name").s() == "edge_3_A2");
  CHECK(FindNode(a, "A1/_2")->attr().at("tensor_name").s() == "edge_4_A1");
  CHECK(Lines(parts.at(kCpu1)) ==
        "B1 = Add(A2/_1, A1/_3)\nA2/_1 = _Recv()\nA1/_3 = _Recv()\n");
}

TEST_CASE("consumers in different partitions get different pairs",
          "[partition]") {
  auto parts =
      MustPartition(In("A1") + N("B1", "Identity", {"A1"}, "T: DT_FLOAT") +
                    N("C1", "Identity", {"A1"}, "T: DT_FLOAT"));
  REQUIRE(parts.size() == 3);
  CHECK(Lines(parts.at(kCpu0)) ==
        "A1 = Placeholder()\nA1/_0 = _Send(A1)\nA1/_2 = _Send(A1)\n");
  CHECK(FindNode(parts.at(kCpu0), "A1/_2")->attr().at("recv_device").s() ==
        "/job:a/replica:0/task:0/cpu:2");
}

TEST_CASE(
    "string and resource tensors cross through _HostSend/_HostRecv, "
    "also between CPUs",
    "[partition]") {
  auto parts = MustPartition(
      In("A1", "DT_STRING") + N("B1", "Identity", {"A1"}, "T: DT_STRING") +
      N("A2", "VarHandleOp", {},
        "dtype: DT_FLOAT shape: { shape {} } "
        "container: '' shared_name: 'v'") +
      N("B2", "ReadVariableOp", {"A2"}, "dtype: DT_FLOAT") + In("A3") +
      N("B3", "Identity", {"A3"}, "T: DT_FLOAT"));
  CHECK(Lines(parts.at(kCpu0)) ==
        "A1 = Placeholder()\nA1/_0 = _HostSend(A1)\nA2 = VarHandleOp()\n"
        "A2/_2 = _HostSend(A2)\nA3 = Placeholder()\nA3/_4 = _Send(A3)\n");
  CHECK(
      Lines(parts.at(kCpu1)) ==
      "B1 = Identity(A1/_1)\nA1/_1 = _HostRecv()\nB2 = ReadVariableOp(A2/_3)\n"
      "A2/_3 = _HostRecv()\nB3 = Identity(A3/_5)\nA3/_5 = _Recv()\n");
  CHECK(FindNode(parts.at(kCpu0), "A1/_0")->attr().at("T").type() ==
        tensorflow::DT_STRING);
  CHECK(FindNode(parts.at(kCpu1), "A2/_3")->attr().at("tensor_type").type() ==
        tensorflow::DT_RESOURCE);
}

TEST_CASE(
    "int32 on a GPU and a kernel's host-memory arguments cross through "
    "host transfers, a same-device memory mismatch gets a local pair",
    "[partition]") {
  auto constant = [](const std::string& name, const std::string& dtype,
                     const std::string& value) {
    return N(name, "Const", {},
             "dtype: " + dtype + " value: { tensor { dtype: " + dtype +
                 " tensor_shape {} " + value + " } }");
  };
  const std::string reshape = "T: DT_FLOAT Tshape: DT_INT32";
  auto parts = MustPartition(
      constant("G1", "DT_INT32", "int_val: 3") +
      constant("G2", "DT_FLOAT", "float_val: 3") +
      N("B1", "Identity", {"G1"}, "T: DT_INT32") +
      N("B2", "Identity", {"G2"}, "T: DT_FLOAT") +
      constant("B3", "DT_INT32", "int_val: 1") +
      N("G3", "Reshape", {"G2", "B3"}, reshape) +
      N("G4", "Cast", {"G2"}, "SrcT: DT_FLOAT DstT: DT_INT32 Truncate: false") +
      N("G5", "Reshape", {"G2", "G4"}, reshape));
  // G1: int32 on the GPU lives in host memory (HostConstantOp); G3's shape
  // argument is HostMemory; G4's int32 output is in device memory while G5
  // wants it on the host: a pair within the GPU partition, the recv waiting
  // on the send.
  CHECK(Lines(parts.at(kGpu0)) ==
        "G1 = Const()\nG2 = Const()\nG1/_0 = _HostSend(G1)\nG2/_2 = _Send(G2)\n"
        "G3 = Reshape(G2, B3/_5)\nB3/_5 = _HostRecv()\nG4 = Cast(G2)\n"
        "G5 = Reshape(G2, G4/_7)\nG4/_6 = _Send(G4)\nG4/_7 = "
        "_HostRecv(^G4/_6)\n");
  CHECK(Lines(parts.at(kCpu1)) ==
        "B1 = Identity(G1/_1)\nG1/_1 = _Recv()\nB2 = Identity(G2/_3)\n"
        "G2/_3 = _Recv()\nB3 = Const()\nB3/_4 = _Send(B3)\n");
  const NodeDef* local = FindNode(parts.at(kGpu0), "G4/_7");
  CHECK(local->attr().at("send_device").s() == kGpu0);
  CHECK(local->attr().at("recv_device").s() == kGpu0);
}

TEST_CASE("new names continue a session-wide counter when one is given",
          "[partition]") {
  const std::string text = In("A1") + In("B1") + Add("B2", "A1", "B1");
  std::atomic<int64_t> counter{7};
  PartitionOptions options = HarnessOptions();
  options.name_counter = &counter;
  auto first = MustPartition(text, options);
  CHECK(Lines(first.at(kCpu0)) == "A1 = Placeholder()\nA1/_7 = _Send(A1)\n");
  auto second = MustPartition(text, options);
  CHECK(Lines(second.at(kCpu0)) == "A1 = Placeholder()\nA1/_9 = _Send(A1)\n");
  CHECK(counter.load() == 11);
  // Without a counter every call starts from 0.
  auto third = MustPartition(text);
  CHECK(Lines(third.at(kCpu0)) == "A1 = Placeholder()\nA1/_0 = _Send(A1)\n");
}

TEST_CASE(
    "every transfer gets the incarnation option, and _Send/_Recv "
    "missing one are filled in",
    "[partition]") {
  const std::string attrs =
      "T: DT_FLOAT client_terminated: false recv_device: 'B' "
      "send_device: 'A' send_device_incarnation: 0 tensor_name: 'test'";
  std::string text =
      N("A/Pi", "Const", {},
        "dtype: DT_FLOAT value: { tensor { dtype: DT_FLOAT tensor_shape {} "
        "float_val: 3.14 } }") +
      N("A", "_Send", {"A/Pi"}, attrs) +
      N("B", "_Recv", {}, attrs + " tensor_type: DT_FLOAT");
  auto parts = MustPartition(text);
  REQUIRE(parts.size() == 2);
  // Send device "A": (65 - 'A') + 100.
  CHECK(FindNode(parts.at(kCpu0), "A")
            ->attr()
            .at("send_device_incarnation")
            .i() == 100);
  CHECK(FindNode(parts.at(kCpu1), "B")
            ->attr()
            .at("send_device_incarnation")
            .i() == 100);

  PartitionOptions options;
  options.incarnation = 42;
  auto cut = MustPartition(In("A1") + Add("B1", "A1", "A1"), options);
  CHECK(FindNode(cut.at(kCpu0), "A1/_0")
            ->attr()
            .at("send_device_incarnation")
            .i() == 42);
  CHECK(FindNode(cut.at(kCpu1), "A1/_1")
            ->attr()
            .at("send_device_incarnation")
            .i() == 42);
}

TEST_CASE(
    "a ref tensor read across devices is not shared and waits for the "
    "reader's other inputs",
    "[partition]") {
  std::string var = N("A1", "VariableV2", {},
                      "dtype: DT_FLOAT shape: { shape {} } "
                      "container: '' shared_name: ''");
  auto parts = MustPartition(var + In("B1") + Add("B2", "B1", "A1") +
                             Add("B3", "A1", "B1"));
  CHECK(Lines(parts.at(kCpu1)) ==
        "B1 = Placeholder()\nB2 = Add(B1, A1/_1)\nA1/_1 = _Recv(^B1)\n"
        "B3 = Add(A1/_3, B1)\nA1/_3 = _Recv(^B1)\n");
  const NodeDef* recv = FindNode(parts.at(kCpu1), "A1/_1");
  CHECK(recv->attr().at("_start_time").i() == 0);
  CHECK(recv->attr().at("tensor_type").type() == tensorflow::DT_FLOAT);
}

TEST_CASE("by worker, devices of one task share a partition", "[partition]") {
  const std::string text = N("A1", "Placeholder", {}, "dtype: DT_FLOAT",
                             "/job:a/replica:0/task:0/device:CPU:0") +
                           N("A2", "Identity", {"A1"}, "T: DT_FLOAT",
                             "/job:a/replica:0/task:0/device:GPU:0") +
                           N("A3", "Identity", {"A2"}, "T: DT_FLOAT",
                             "/job:b/replica:0/task:1/device:CPU:0");
  PartitionOptions options = HarnessOptions();
  options.by = PartitionBy::kWorker;
  auto parts = MustPartition(text, options);
  REQUIRE(parts.size() == 2);
  CHECK(Lines(parts.at("/job:a/replica:0/task:0")) ==
        "A1 = Placeholder()\nA2 = Identity(A1)\nA2/_0 = _Send(A2)\n");
  CHECK(Lines(parts.at("/job:b/replica:0/task:1")) ==
        "A3 = Identity(A2/_1)\nA2/_1 = _Recv()\n");
  CHECK(FindNode(parts.at("/job:a/replica:0/task:0"), "A2")->device() ==
        "/job:a/replica:0/task:0/device:GPU:0");
}

TEST_CASE(
    "partitions carry the graph's versions and only the functions "
    "their nodes reach",
    "[partition]") {
  const std::string library = R"(
    library {
      function {
        signature { name: 'XTimesTwo' input_arg { name: 'x' type: DT_FLOAT }
                    output_arg { name: 'y' type: DT_FLOAT } }
        node_def { name: 'two' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
                   attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
        node_def { name: 'mul' op: 'Mul' input: 'x' input: 'two:output:0'
                   attr { key: 'T' value { type: DT_FLOAT } } }
        ret { key: 'y' value: 'mul:z:0' }
      }
      function {
        signature { name: 'XTimesFour' input_arg { name: 'x' type: DT_FLOAT }
                    output_arg { name: 'y' type: DT_FLOAT } }
        node_def { name: 'x2' op: 'XTimesTwo' input: 'x' }
        node_def { name: 'y4' op: 'XTimesTwo' input: 'x2:y:0' }
        ret { key: 'y' value: 'y4:y:0' }
      }
      function {
        signature { name: 'Unused' output_arg { name: 'y' type: DT_FLOAT } }
        node_def { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
                   attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
        ret { key: 'y' value: 'c:output:0' }
      }
    }
    versions { producer: 1087 min_consumer: 12 })";
  auto parts =
      MustPartition(In("A1") + In("B1") + N("A2", "XTimesTwo", {"A1"}) +
                    N("B2", "XTimesFour", {"B1"}) + library);
  auto names = [](const GraphDef& g) {
    std::string out;
    for (const auto& f : g.library().function())
      out += f.signature().name() + " ";
    return out;
  };
  CHECK(names(parts.at(kCpu0)) == "XTimesTwo ");
  CHECK(names(parts.at(kCpu1)) == "XTimesTwo XTimesFour ");
  for (const auto& [key, graph] : parts) {
    CHECK(graph.versions().producer() == 1087);
    CHECK(graph.versions().min_consumer() == 12);
  }
}

TEST_CASE("the cut lists every transfer with its producer and consumers",
          "[partition]") {
  std::vector<Transfer> transfers;
  PartitionOptions options = HarnessOptions();
  options.transfers = &transfers;
  MustPartition(In("A1") + In("B1") + Add("B2", "A1", "B1") +
                    Add("B3", "A1", "A1") +
                    N("B4", "Placeholder", {"^A1"}, "dtype: DT_FLOAT"),
                options);
  REQUIRE(transfers.size() == 2);
  CHECK(transfers[0].tensor_name == "edge_1_A1");
  CHECK(transfers[0].src == "A1");
  CHECK(transfers[0].src_output == 0);
  CHECK(transfers[0].send == "A1/_0");
  CHECK(transfers[0].recv == "A1/_1");
  CHECK(transfers[0].dsts == std::vector<std::string>{"B2", "B3", "B3"});
  CHECK(transfers[0].send_device == kCpu0);
  CHECK(transfers[0].recv_device == kCpu1);
  CHECK(transfers[1].control);
  CHECK(transfers[1].src_output == kControlSlot);
  CHECK(transfers[1].recv == "A1/_4");
  CHECK(transfers[1].dsts == std::vector<std::string>{"B4"});
}

TEST_CASE("the GraphDef form takes each node's device field, canonicalized",
          "[partition]") {
  // kCpu0 and kCpu1 are legacy spellings (".../cpu:0"): as `dfg partition`
  // does, the library keys partitions by the canonical name.
  const std::string cpu0 = "/job:a/replica:0/task:0/device:CPU:0";
  GraphDef graph =
      ParseGraphText(N("x", "Placeholder", {}, "dtype: DT_FLOAT", kCpu0) +
                     N("y", "Identity", {"x"}, "T: DT_FLOAT", kCpu1) +
                     N("z", "Identity", {"x"}, "T: DT_FLOAT", cpu0));
  auto parts = Partition(graph, PartitionOptions());
  REQUIRE(parts.ok());
  REQUIRE(parts->size() == 2);
  CHECK(Lines(parts->at(cpu0)) ==
        "x = Placeholder()\nx/_0 = _Send(x)\nz = Identity(x)\n");
  CHECK(FindNode(parts->at(cpu0), "x/_0")
            ->attr()
            .at("send_device_incarnation")
            .i() == 1);
}

TEST_CASE("partition errors name the node and say what is wrong",
          "[partition]") {
  SECTION("a partial device in the GraphDef form: not placed") {
    GraphDef graph =
        ParseGraphText(N("x", "Placeholder", {}, "dtype: DT_FLOAT", kCpu0) +
                       N("y", "Identity", {"x"}, "T: DT_FLOAT", "/cpu:0"));
    auto parts = Partition(graph, PartitionOptions());
    REQUIRE_FALSE(parts.ok());
    CHECK(parts.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(parts.status().message(),
               Catch::Contains("node 'y' (Identity) has device '/cpu:0', "
                               "which is not a full device name"));
  }
  SECTION("a node without a device") {
    GraphDef graph =
        ParseGraphText(N("x", "Placeholder", {}, "dtype: DT_FLOAT", kCpu0) +
                       N("y", "Identity", {"x"}, "T: DT_FLOAT"));
    auto parts = Partition(graph, PartitionOptions());
    REQUIRE_FALSE(parts.ok());
    CHECK(parts.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(parts.status().message(),
               Catch::Contains("'y' (Identity) has no assigned device"));
  }
  SECTION("a malformed device") {
    GraphDef graph = ParseGraphText(
        N("x", "Placeholder", {}, "dtype: DT_FLOAT", "/foo:bar"));
    auto parts = Partition(graph, PartitionOptions());
    REQUIRE_FALSE(parts.ok());
    CHECK(parts.status().code() == Code::kInternal);
    CHECK_THAT(parts.status().message(),
               Catch::Contains("Malformed assigned device '/foo:bar'"));
  }
  SECTION("a graph missing an input") {
    Graph graph;
    NodeDef def = ParseGraphText(N("N", "Add", {}, "T: DT_FLOAT")).node(0);
    auto node = graph.AddNode(def);
    REQUIRE(node.ok());
    (*node)->set_assigned_device_name(kCpu0);
    auto parts = Partition(&graph, PartitionOptions());
    REQUIRE_FALSE(parts.ok());
    CHECK(parts.status().code() == Code::kInvalidArgument);
    CHECK_THAT(parts.status().message(),
               Catch::Contains("Incomplete graph, missing 2 inputs for N"));
  }
  SECTION("by worker, a device without type and id") {
    GraphDef graph = ParseGraphText(
        N("x", "Placeholder", {}, "dtype: DT_FLOAT", "/job:a/replica:0"));
    PartitionOptions options;
    options.by = PartitionBy::kWorker;
    auto parts = Partition(graph, options);
    REQUIRE_FALSE(parts.ok());
    CHECK_THAT(parts.status().message(), Catch::Contains("node 'x'"));
  }
}

TEST_CASE("partition keys and file names", "[partition]") {
  CHECK(*PartitionKey(kCpu1, PartitionBy::kDevice) == kCpu1);
  CHECK(*PartitionKey(kGpu0, PartitionBy::kWorker) ==
        "/job:a/replica:0/task:0");
  CHECK(PartitionFileName("/job:localhost/replica:0/task:0/device:CPU:0") ==
        "job_localhost_replica_0_task_0_device_CPU_0");
  CHECK(PartitionFileName("/job:w/task:1") == "job_w_task_1");
}

}  // namespace
}  // namespace dfg
