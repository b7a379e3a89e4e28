// Impossible placements: TensorFlow's error texts, with and without soft
// placement.
#include "lib/place/place.h"
#include "lib/place/place_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using namespace place_testing;  // NOLINT

const std::vector<std::string> kCpuGpu = {"cpu:0", "gpu:0"};

std::vector<std::string> TenGpus() {
  std::vector<std::string> devices = {"cpu:0"};
  for (int i = 0; i < 10; ++i) devices.push_back("gpu:" + std::to_string(i));
  return devices;
}

TEST_CASE("a malformed device spec is an error naming the node", "[place]") {
  Placed p = PlaceText(Const("c") + Unary("a", "Identity", "c", "/foo:bar"));
  REQUIRE_FALSE(p.status.ok());
  CHECK(p.status.code() == Code::kInvalidArgument);
  CHECK_THAT(p.status.message(),
             Contains("Malformed device specification '/foo:bar' in node: "
                      "{name:'a' id:3 op device:{requested: '/foo:bar', "
                      "assigned: ''} def:{{{node a}} = Identity["));
  CHECK_THAT(p.status.message(), Contains("\n\t [[{{node a}}]]"));
  CHECK(p.report.nodes.empty());
}

TEST_CASE("an empty device set is an error", "[place]") {
  StatusOr<std::unique_ptr<Graph>> graph =
      ImportGraphDef(ParseGraph(Const("c")));
  REQUIRE(graph.ok());
  Status status = Place(graph->get(), DeviceSet(), {});
  CHECK(status.code() == Code::kFailedPrecondition);
  CHECK(status.message() == "No devices are registered");
}

TEST_CASE("a request for a device that does not exist is an error", "[place]") {
  Placed p =
      PlaceText(Const("c") + Unary("a", "Identity", "c", "/device:GPU:0"));
  REQUIRE_FALSE(p.status.ok());
  CHECK(p.status.code() == Code::kInvalidArgument);
  CHECK_THAT(p.status.message(),
             Contains("Cannot assign a device for operation a: {{node a}} was "
                      "explicitly assigned to /device:GPU:0 but available "
                      "devices are [ "
                      "/job:localhost/replica:0/task:0/device:CPU:0 ]. Make "
                      "sure the device specification refers to a valid "
                      "device."));
  CHECK_THAT(p.status.message(), Contains("[[{{node a}}]]"));
  // As TensorFlow's build without CUDA says; not where GPUs are declared.
  CHECK_THAT(p.status.message(),
             Contains("device. The requested device appears to be a GPU, but "
                      "CUDA is not enabled."));
  Placed with_gpus = PlaceText(
      Const("c") + Unary("a", "Identity", "c", "/device:GPU:11"), TenGpus());
  REQUIRE_FALSE(with_gpus.status.ok());
  CHECK_THAT(with_gpus.status.message(), !Contains("CUDA is not enabled"));
}

TEST_CASE("a request for an unknown job is an error", "[place]") {
  Placed p = PlaceText(Const("c") + Unary("a", "Identity", "c", "/job:worker"));
  REQUIRE_FALSE(p.status.ok());
  CHECK_THAT(p.status.message(),
             Contains("was explicitly assigned to /job:worker but available"));
}

TEST_CASE("a nonexistent GPU id is an error, soft placement takes GPU:0",
          "[place]") {
  std::string graph =
      Const("c") + Unary("a", "Identity", "c", "/device:GPU:11");
  Placed hard = PlaceText(graph, TenGpus());
  REQUIRE_FALSE(hard.status.ok());
  CHECK_THAT(hard.status.message(),
             Contains("explicitly assigned to /device:GPU:11"));

  Placed soft = PlaceSoft(graph, TenGpus());
  INFO(soft.status.ToString());
  REQUIRE(soft.status.ok());
  CHECK(soft.placement == "a=GPU:0 c=GPU:0");
  CHECK(soft.Of("a").rule == PlacementRule::kSoftPlacement);
  CHECK(soft.Of("a").detail == "soft placement moved it from '/device:GPU:11'");
}

TEST_CASE("an op without a kernel on its requested device type", "[place]") {
  std::string graph = N("abort", "Abort", {}, "/device:GPU:0");
  Placed hard = PlaceText(graph, kCpuGpu);
  REQUIRE_FALSE(hard.status.ok());
  CHECK(hard.status.code() == Code::kInvalidArgument);
  const std::string& m = hard.status.message();
  CHECK_THAT(m, Contains("Cannot assign a device for operation abort: Could "
                         "not satisfy explicit device specification "
                         "'/device:GPU:0' because no supported kernel for GPU "
                         "devices is available."));
  CHECK_THAT(m, Contains("\nColocation Debug Info:\nColocation group had the "
                         "following types and supported devices: \nRoot "
                         "Member(assigned_device_name_index_=-1 "
                         "requested_device_name_='/device:GPU:0'"));
  CHECK_THAT(m, Contains("supported_device_types_=[CPU]"));
  CHECK_THAT(m, Contains("\nAbort: CPU \n"));
  CHECK_THAT(m, Contains("\n  abort (Abort) /device:GPU:0\n"));
  CHECK_THAT(m, Contains("\nOp: Abort\nNode attrs: "));
  CHECK_THAT(m, Contains("\nRegistered kernels:\n  device='CPU'\n"));

  Placed soft = PlaceSoft(graph, kCpuGpu);
  REQUIRE(soft.status.ok());
  CHECK(soft.placement == "abort=CPU:0");
}

TEST_CASE("a kernel on a device of another task is taken on trust", "[place]") {
  // The first device (localhost) is the local address space; Abort has no
  // GPU kernel here, but a request naming another task's GPU is believed.
  std::vector<std::string> devices = {"gpu:0", "/job:worker/task:1/gpu:0"};
  Placed remote = PlaceText(
      N("abort", "Abort", {}, "/job:worker/task:1/device:GPU:0"), devices);
  INFO(remote.status.ToString());
  REQUIRE(remote.status.ok());
  CHECK(remote.placement == "abort=/job:worker/replica:0/task:1/device:GPU:0");

  Placed local = PlaceText(N("abort", "Abort", {}, "/device:GPU:0"), devices);
  REQUIRE_FALSE(local.status.ok());
  CHECK_THAT(local.status.message(),
             Contains("No OpKernel was registered to support Op 'Abort'"));
}

TEST_CASE("a type-less request that no kernel satisfies", "[place]") {
  Placed p = PlaceText(N("abort", "Abort", {}, "/job:localhost/task:0"),
                       {"gpu:0", "/job:other/cpu:0"});
  REQUIRE_FALSE(p.status.ok());
  CHECK_THAT(p.status.message(),
             Contains("Could not satisfy explicit device specification "
                      "'/job:localhost/task:0'\nColocation Debug Info:"));
}

TEST_CASE("a node colocated with an incompatible request names both",
          "[place]") {
  // abort (CPU-only) is placed first; its group asks for a GPU.
  Placed p = PlaceText(
      N("abort", "Abort", {}, "", {{"_class", ClassAttr({"loc:@c"})}}) +
          Const("c", "/device:GPU:0"),
      kCpuGpu);
  REQUIRE_FALSE(p.status.ok());
  CHECK_THAT(p.status.message(),
             Contains("Could not satisfy explicit device specification '' "
                      "because the node {{colocation_node abort}} was "
                      "colocated with a group of nodes that required "
                      "incompatible device '/device:GPU:0'. All available "
                      "devices [/job:localhost/replica:0/task:0/device:CPU:0, "
                      "/job:localhost/replica:0/task:0/device:GPU:0]. "));
  CHECK_THAT(p.status.message(), Contains("\n  c (Const) /device:GPU:0"));
}

TEST_CASE("an op with no kernel for any device type is an error", "[place]") {
  Placed p = PlaceText(N("abort", "Abort"), {"gpu:0"});
  REQUIRE_FALSE(p.status.ok());
  CHECK(p.status.code() == Code::kInvalidArgument);
  CHECK_THAT(p.status.message(),
             Contains("No OpKernel was registered to support Op 'Abort' used "
                      "by {{node abort}} with these attrs: ["));
  CHECK_THAT(p.status.message(),
             Contains("]\nRegistered devices: [GPU]\nRegistered kernels:\n  "
                      "device='CPU'\n"));
}

TEST_CASE("pre-assigned devices must exist and support the op", "[place]") {
  PlaceOptions keep;
  keep.keep_assigned = true;
  Placed missing = PlaceText(
      N("abort", "Abort", {}, "/job:localhost/replica:0/task:0/device:CPU:3"),
      kCpuGpu, keep);
  REQUIRE_FALSE(missing.status.ok());
  CHECK(missing.status.code() == Code::kInternal);
  CHECK_THAT(missing.status.message(),
             Contains("Assigned device "
                      "'/job:localhost/replica:0/task:0/device:CPU:3' does not "
                      "match any device."));

  Placed unsupported = PlaceText(
      N("abort", "Abort", {}, "/job:localhost/replica:0/task:0/device:GPU:0"),
      kCpuGpu, keep);
  REQUIRE_FALSE(unsupported.status.ok());
  CHECK(unsupported.status.code() == Code::kInternal);
  CHECK_THAT(unsupported.status.message(),
             Contains("Assigned device "
                      "'/job:localhost/replica:0/task:0/device:GPU:0' does "
                      "not have registered OpKernel support for Abort"));
}

TEST_CASE("a failed placement leaves the graph unplaced", "[place]") {
  StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(
      ParseGraph(Const("c") + Unary("a", "Identity", "c", "/device:GPU:3")));
  REQUIRE(graph.ok());
  REQUIRE_FALSE(Place(graph->get(), Devices(kCpuGpu), {}).ok());
  for (const Node* node : (*graph)->op_nodes()) {
    CHECK(node->assigned_device_name().empty());
  }
}

}  // namespace
}  // namespace dfg
