#include "lib/pipeline/registered_graph.h"

#include <fmt/format.h>

#include "lib/graph/graph_import.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

constexpr char kCpu0[] = "/job:worker/replica:0/task:1/device:CPU:0";
constexpr char kCpu1[] = "/job:worker/replica:0/task:1/device:CPU:1";

// c has no device (the worker's first), m asks for CPU:1 by its short name.
const std::string kGraph =
    testing::ScalarConstText("c", "DT_FLOAT", "float_val: 3") + R"pb(
  node {
    name: "m"
    op: "Neg"
    input: "c"
    device: "/device:CPU:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  versions { producer: 1000 }
)pb";

std::unique_ptr<Graph> Import(const std::string& text) {
  auto graph = ImportGraphDef(testing::ParseTextProto<GraphDef>(text));
  INFO(graph.status().ToString());
  REQUIRE(graph.ok());
  return std::move(graph).value();
}

RegisteredGraphOptions WorkerOptions(int* counter) {
  RegisteredGraphOptions options;
  options.devices = {kCpu0, kCpu1};
  options.new_name = [counter](std::string_view prefix) {
    return fmt::format("{}_G{}", prefix, (*counter)++);
  };
  options.get_incarnation = [](std::string_view device) {
    return device == kCpu0 ? uint64_t{11} : uint64_t{22};
  };
  return options;
}

TEST_CASE("registered graph is cut per device of the worker", "[pipeline]") {
  auto graph = Import(kGraph);
  int counter = 0;
  auto parts = PartitionRegisteredGraph(graph.get(), WorkerOptions(&counter));
  INFO(parts.status().ToString());
  REQUIRE(parts.ok());
  REQUIRE(parts->size() == 2);
  REQUIRE(parts->count(kCpu0) == 1);
  REQUIRE(parts->count(kCpu1) == 1);
  // The transfer c -> m: a _Send on CPU:0 and a _Recv on CPU:1, named by the
  // worker's counter and carrying the sender's incarnation.
  bool send = false, recv = false;
  for (const NodeDef& node : parts->at(kCpu0).node()) {
    if (node.op() != "_Send") continue;
    send = true;
    CHECK(node.name().find("_G") != std::string::npos);
    CHECK(node.attr().at("send_device_incarnation").i() == 11);
  }
  for (const NodeDef& node : parts->at(kCpu1).node()) {
    if (node.op() == "_Recv") recv = true;
  }
  CHECK(send);
  CHECK(recv);
  CHECK(counter > 0);
}

TEST_CASE("registered graph refuses a device the worker does not have",
          "[pipeline]") {
  auto graph = Import(R"pb(
    node {
      name: "c"
      op: "NoOp"
      device: "/job:worker/replica:0/task:1/device:CPU:7"
    }
    versions { producer: 1000 }
  )pb");
  int counter = 0;
  auto parts = PartitionRegisteredGraph(graph.get(), WorkerOptions(&counter));
  REQUIRE_FALSE(parts.ok());
  CHECK(parts.status().code() == Code::kInvalidArgument);
  CHECK_THAT(parts.status().message(),
             Catch::Matchers::Contains("doesn't exist in the list of "
                                       "available devices"));
}

}  // namespace
}  // namespace dfg
