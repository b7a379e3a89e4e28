// Placement without colocation: device preference, kernels, requested
// specs, heuristics, pre-assigned nodes and the report.
#include "lib/place/place.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "lib/place/place_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using namespace place_testing;  // NOLINT

const std::vector<std::string> kCpuGpu = {"cpu:0", "gpu:0"};

TEST_CASE("every node gets a canonical full device name", "[place]") {
  Placed p = PlaceText(Const("a") + Unary("b", "Identity", "a"));
  REQUIRE(p.status.ok());
  for (const Node* node : p.graph->op_nodes()) {
    CHECK(node->assigned_device_name() ==
          "/job:localhost/replica:0/task:0/device:CPU:0");
  }
}

TEST_CASE("GPU is preferred over CPU when both have kernels", "[place]") {
  Placed p = PlaceText(Const("a") + Const("b") + MatMul("m", "a", "b"),
                       {"cpu:0", "gpu:0"});
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=GPU:0 b=GPU:0 m=GPU:0");
  CHECK(p.Of("m").rule == PlacementRule::kDefault);
  CHECK(
      p.Of("m").candidates ==
      std::vector<std::string>{"/job:localhost/replica:0/task:0/device:GPU:0",
                               "/job:localhost/replica:0/task:0/device:CPU:0"});
}

TEST_CASE("equal candidates are ordered by full name as strings", "[place]") {
  Placed p = PlaceText(Const("a") + Unary("b", "Identity", "a"),
                       {"gpu:2", "gpu:10", "cpu:0"});
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=GPU:10 b=GPU:10");
  CHECK(p.Of("b").candidates.size() == 3);
  CHECK(Short(p.Of("b").candidates[1]) == "GPU:2");
}

TEST_CASE("ops without a GPU kernel stay on CPU when GPUs exist", "[place]") {
  Placed p = PlaceText(N("abort", "Abort"), {"gpu:0", "cpu:0"});
  REQUIRE(p.status.ok());
  CHECK(p.placement == "abort=CPU:0");
}

TEST_CASE("string variables stay on CPU while float ones go to GPU",
          "[place]") {
  Placed p =
      PlaceText(Variable("s", "", "DT_STRING") + Const("sv", "", "DT_STRING") +
                    Assign("sa", "s", "sv", "", "DT_STRING") + Variable("f") +
                    Const("fv") + Assign("fa", "f", "fv"),
                kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "f=GPU:0 fa=GPU:0 fv=GPU:0 s=CPU:0 sa=CPU:0 sv=CPU:0");
}

TEST_CASE("a full requested device is honoured", "[place]") {
  Placed p =
      PlaceText(Const("a") + Unary("b", "Identity", "a", "/device:CPU:0") +
                    Unary("c", "Identity", "a",
                          "/job:localhost/replica:0/task:0/device:GPU:1"),
                {"cpu:0", "gpu:0", "gpu:1"});
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=GPU:0 b=CPU:0 c=GPU:1");
  CHECK(p.Of("b").rule == PlacementRule::kRequested);
  CHECK_THAT(p.Of("b").detail, Contains("'/device:CPU:0'"));
}

TEST_CASE("partial requested specs choose among the devices they match",
          "[place]") {
  std::vector<std::string> devices = {
      "/job:worker/task:0/cpu:0", "/job:worker/task:1/cpu:0",
      "/job:worker/task:1/gpu:0", "/job:worker/task:1/gpu:1",
      "/job:ps/task:0/cpu:0"};
  Placed p = PlaceText(
      Const("a", "/job:ps") + Unary("by_job", "Identity", "a", "/job:ps") +
          Unary("any_gpu", "Identity", "a", "/device:GPU:*") +
          Unary("legacy", "Identity", "a", "/gpu:1") +
          Unary("task", "Identity", "a", "/job:worker/task:1") +
          Unary("cpu_task0", "Identity", "a",
                "/job:worker/task:0/device:CPU:*"),
      devices);
  INFO(p.status.ToString());
  REQUIRE(p.status.ok());
  CHECK(p.placement ==
        "a=/job:ps/replica:0/task:0/device:CPU:0 "
        "any_gpu=/job:worker/replica:0/task:1/device:GPU:0 "
        "by_job=/job:ps/replica:0/task:0/device:CPU:0 "
        "cpu_task0=/job:worker/replica:0/task:0/device:CPU:0 "
        "legacy=/job:worker/replica:0/task:1/device:GPU:1 "
        "task=/job:worker/replica:0/task:1/device:GPU:0");
}

TEST_CASE("a generator follows its consumers when they agree", "[place]") {
  Placed p = PlaceText(
      Const("a") + Const("b") + MatMul("m", "a", "b", "/device:CPU:0"),
      kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=CPU:0 b=CPU:0 m=CPU:0");
  CHECK(p.Of("a").rule == PlacementRule::kGenerator);
}

TEST_CASE("a generator whose consumers disagree takes the default", "[place]") {
  Placed p = PlaceText(Const("a") + Unary("c", "Identity", "a", "/cpu:0") +
                           Unary("g", "Identity", "a", "/gpu:0"),
                       kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=GPU:0 c=CPU:0 g=GPU:0");
  CHECK(p.Of("a").rule == PlacementRule::kDefault);
}

TEST_CASE("a generator without consumers takes the default", "[place]") {
  Placed p = PlaceText(Const("a"), kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=GPU:0");
}

TEST_CASE("Shape, Size and Rank follow their input, ShapeN does not",
          "[place]") {
  std::string graph = Const("c") +
                      Unary("x", "Identity", "c", "/device:CPU:0") +
                      Unary("shape", "Shape", "x") +
                      Unary("size", "Size", "x") + Unary("rank", "Rank", "x") +
                      N("shape_n", "ShapeN", {"x"}, "",
                        {{"T", "type: DT_FLOAT"}, {"N", "i: 1"}});
  Placed p = PlaceText(graph, kCpuGpu);
  INFO(p.status.ToString());
  REQUIRE(p.status.ok());
  CHECK(p.placement ==
        "c=CPU:0 rank=CPU:0 shape=CPU:0 shape_n=GPU:0 size=CPU:0 x=CPU:0");
  CHECK(p.Of("shape").rule == PlacementRule::kMetadata);
  CHECK_THAT(p.Of("shape").detail, Contains("'x'"));
}

TEST_CASE("a metadata op whose input is not placed yet takes the default",
          "[place]") {
  // The Const generator is placed after Shape (second pass).
  Placed p = PlaceText(Const("c", "/device:CPU:0") + Unary("s", "Shape", "c"),
                       kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "c=CPU:0 s=GPU:0");
}

TEST_CASE("a pre-assigned node is never moved", "[place]") {
  StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(
      ParseGraph(Const("a") + Unary("b", "Identity", "a", "/device:CPU:0")));
  REQUIRE(graph.ok());
  Graph& g = **graph;
  for (Node* node : g.op_nodes()) {
    if (node->name() == "b") {
      node->set_assigned_device_name(
          "/job:localhost/replica:0/task:0/device:GPU:1");
    }
  }
  PlacementReport report;
  PlaceOptions options;
  options.explain = true;
  REQUIRE(
      Place(&g, Devices({"cpu:0", "gpu:0", "gpu:1"}), options, &report).ok());
  CHECK(Rendering(g) == "a=GPU:1 b=GPU:1");
  CHECK(report.nodes[1].rule == PlacementRule::kPreAssigned);
}

TEST_CASE("keep_assigned treats full device names as assignments", "[place]") {
  std::string graph =
      Const("a") +
      Unary("b", "Identity", "a", "/job:localhost/replica:0/task:0/gpu:1") +
      Unary("c", "Identity", "a", "/device:CPU:0");
  PlaceOptions keep;
  keep.keep_assigned = true;
  Placed kept = PlaceText(graph, {"cpu:0", "gpu:0", "gpu:1"}, keep);
  REQUIRE(kept.status.ok());
  CHECK(kept.placement == "a=GPU:0 b=GPU:1 c=CPU:0");
  CHECK(kept.Of("b").rule == PlacementRule::kPreAssigned);
  CHECK(kept.Of("c").rule == PlacementRule::kRequested);

  Placed plain = PlaceText(graph, {"cpu:0", "gpu:0", "gpu:1"});
  REQUIRE(plain.status.ok());
  CHECK(plain.Of("b").rule == PlacementRule::kRequested);
}

TEST_CASE("warnings are reported without explain", "[place]") {
  StatusOr<std::unique_ptr<Graph>> graph =
      ImportGraphDef(ParseGraph(N("f", "FancyCustomOp")));
  REQUIRE(graph.ok());
  PlacementReport report;
  REQUIRE(Place(graph->get(), Devices(kCpuGpu), {}, &report).ok());
  CHECK(report.nodes.empty());
  CHECK(report.warnings.size() == 1);
}

TEST_CASE("unknown ops are CPU-only, with a warning", "[place]") {
  Placed p = PlaceText(Const("a") + N("f", "FancyCustomOp", {"a"}), kCpuGpu);
  INFO(p.status.ToString());
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=CPU:0 f=CPU:0");
  REQUIRE(p.report.warnings.size() == 1);
  CHECK_THAT(p.report.warnings[0], Contains("'FancyCustomOp'"));
  CHECK_THAT(p.report.warnings[0], Contains("CPU-only"));
}

TEST_CASE("library function calls run on any device type", "[place]") {
  std::string graph = Const("a") + N("call", "Twice", {"a"}) +
                      "library { function { signature { name: 'Twice' "
                      "input_arg { name: 'x' type: DT_FLOAT } "
                      "output_arg { name: 'y' type: DT_FLOAT } } "
                      "node_def { name: 'i' op: 'Identity' input: 'x' "
                      "attr { key: 'T' value { type: DT_FLOAT } } } "
                      "ret { key: 'y' value: 'i:output:0' } } }\n";
  Placed p = PlaceText(graph, kCpuGpu);
  INFO(p.status.ToString());
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=GPU:0 call=GPU:0");
  CHECK(p.report.warnings.empty());
}

TEST_CASE("placement is deterministic", "[place]") {
  std::string graph = Const("a") + Const("b") + MatMul("m", "a", "b") +
                      Unary("s", "Shape", "m") + N("abort", "Abort");
  Placed first = PlaceText(graph, {"gpu:1", "cpu:0", "gpu:0"});
  Placed second = PlaceText(graph, {"gpu:0", "gpu:1", "cpu:0"});
  REQUIRE(first.status.ok());
  REQUIRE(second.status.ok());
  CHECK(first.placement == second.placement);
  CHECK(first.placement == "a=GPU:0 abort=CPU:0 b=GPU:0 m=GPU:0 s=GPU:0");
}

TEST_CASE("PlaceGraphDef keeps the graph and sets every device", "[place]") {
  GraphDef in = ParseGraph(Const("b") + Const("a") + MatMul("m", "b", "a") +
                           N("n", "NoOp", {"^m"}));
  StatusOr<GraphDef> out = PlaceGraphDef(in, Devices(kCpuGpu), {});
  REQUIRE(out.ok());
  REQUIRE(out->node_size() == 4);
  CHECK(out->node(0).name() == "b");
  CHECK(out->node(2).input(0) == "b");
  CHECK(out->node(3).input(0) == "^m");
  for (const NodeDef& node : out->node()) {
    CHECK(node.device() == "/job:localhost/replica:0/task:0/device:GPU:0");
  }
}

// Deterministic binary form (map entries sorted by key).
std::string Bytes(const GraphDef& graph) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  graph.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

TEST_CASE("placing in place changes devices only, on the heap or an arena",
          "[place]") {
  // MatMul gets transpose_a/transpose_b from its defaults during the import;
  // they must not come back, nor an empty library or debug_info.
  GraphDef in = ParseGraph(Const("b") + Const("a") + MatMul("m", "b", "a") +
                           N("n", "NoOp", {"^m"}));
  in.mutable_versions()->set_producer(27);
  GraphDef expected = in;
  for (NodeDef& node : *expected.mutable_node()) {
    node.set_device("/job:localhost/replica:0/task:0/device:GPU:0");
  }
  GraphDef heap = in;
  REQUIRE(PlaceGraphDefInPlace(&heap, Devices(kCpuGpu), {}).ok());
  CHECK(Bytes(heap) == Bytes(expected));
  CHECK_FALSE(heap.has_library());
  google::protobuf::Arena arena;
  auto* on_arena = google::protobuf::Arena::CreateMessage<GraphDef>(&arena);
  *on_arena = in;
  const NodeDef* m = &on_arena->node(2);
  REQUIRE(PlaceGraphDefInPlace(on_arena, Devices(kCpuGpu), {}).ok());
  CHECK(Bytes(*on_arena) == Bytes(expected));
  CHECK(&on_arena->node(2) == m);  // the same NodeDef, not a copy
  in.mutable_library()->add_function()->mutable_signature()->set_name("f");
  in.mutable_debug_info()->add_files("model.py");
  REQUIRE(PlaceGraphDefInPlace(&in, Devices(kCpuGpu), {}).ok());
  CHECK(in.library().function_size() == 1);
  CHECK(in.debug_info().files_size() == 1);
}

TEST_CASE("explain lines name the device, the rule and the candidates",
          "[place]") {
  Placed p = PlaceText(
      Const("a") + Const("b") + MatMul("m", "a", "b", "/device:CPU:0"),
      kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(ExplainLine(p.Of("m")) ==
        "m (MatMul): /job:localhost/replica:0/task:0/device:CPU:0; "
        "requested: requested spec '/device:CPU:0'; candidates "
        "[/job:localhost/replica:0/task:0/device:CPU:0]");
  CHECK(
      ExplainJson(p.Of("a")) ==
      R"({"node":"a","op":"Const","device":"/job:localhost/replica:0/task:0/device:CPU:0",)"
      R"("candidates":["/job:localhost/replica:0/task:0/device:GPU:0","/job:localhost/replica:0/task:0/device:CPU:0"],)"
      R"("rule":"generator","detail":"generator follows its consumer 'm'"})");
}

}  // namespace
}  // namespace dfg
