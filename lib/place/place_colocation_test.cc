// Colocation: ref and resource edges, `_class` groups, soft placement of
// groups.
#include "lib/place/place.h"
#include "lib/place/place_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using namespace place_testing;  // NOLINT

const std::vector<std::string> kCpuGpu = {"cpu:0", "gpu:0"};

std::string WithClass(const std::string& name, const std::string& op,
                      const std::vector<std::string>& inputs,
                      const std::vector<std::string>& groups,
                      const std::string& device = "") {
  return N(name, op, inputs, device,
           {{"T", "type: DT_FLOAT"}, {"_class", ClassAttr(groups)}});
}

TEST_CASE("ref consumers follow their producer, whatever they request",
          "[place]") {
  Placed p = PlaceText(Variable("v", "/device:CPU:0") + Const("init") +
                           Assign("assign", "v", "init", "/device:GPU:0"),
                       kCpuGpu);
  INFO(p.status.ToString());
  REQUIRE(p.status.ok());
  CHECK(p.placement == "assign=CPU:0 init=CPU:0 v=CPU:0");
  CHECK(p.Of("assign").rule == PlacementRule::kRefEdge);
  CHECK_THAT(p.Of("assign").detail, Contains("ref edge from 'v'"));
  CHECK_THAT(p.Of("assign").detail, Contains("replaced by '/device:CPU:0'"));
}

TEST_CASE("a ref producer without a request goes where its group can",
          "[place]") {
  Placed p = PlaceText(
      Variable("v") + Const("init") + Assign("assign", "v", "init"), kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "assign=GPU:0 init=GPU:0 v=GPU:0");
}

TEST_CASE("resource consumers follow their VarHandleOp", "[place]") {
  Placed p = PlaceText(VarHandle("h", "/device:CPU:0") +
                           ReadVariable("read", "h", "/device:GPU:0"),
                       kCpuGpu);
  INFO(p.status.ToString());
  REQUIRE(p.status.ok());
  CHECK(p.placement == "h=CPU:0 read=CPU:0");
}

TEST_CASE("a VarHandleOp is placed with the readers that decided first",
          "[place]") {
  // The handle is a generator: ReadVariableOp is placed in the first pass
  // and the handle joins its group's device.
  Placed p = PlaceText(VarHandle("h") + ReadVariable("read", "h"), kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "h=GPU:0 read=GPU:0");
  CHECK(p.Of("h").rule == PlacementRule::kRefEdge);
  CHECK_THAT(p.Of("h").detail, Contains("resource edge to 'read'"));
}

TEST_CASE("IdentityN is exempt from resource-input colocation", "[place]") {
  Placed p = PlaceText(VarHandle("h", "/device:CPU:0") +
                           N("idn", "IdentityN", {"h"}, "/device:GPU:0",
                             {{"T", "list { type: DT_RESOURCE }"}}),
                       kCpuGpu);
  INFO(p.status.ToString());
  REQUIRE(p.status.ok());
  CHECK(p.placement == "h=CPU:0 idn=GPU:0");
}

TEST_CASE("_class loc:@ groups share the group's requested device", "[place]") {
  Placed p =
      PlaceText(Const("c") + Unary("a", "Identity", "c", "/device:CPU:0") +
                    WithClass("b", "Identity", {"c"}, {"loc:@a"}),
                kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=CPU:0 b=CPU:0 c=CPU:0");
  CHECK(p.Of("b").rule == PlacementRule::kColocation);
  CHECK_THAT(p.Of("b").detail, Contains("'loc:@a'"));
}

TEST_CASE("a group is limited to the device types all its members support",
          "[place]") {
  Placed p = PlaceText(
      Const("c") + Unary("x", "Identity", "c") +
          N("abort", "Abort", {}, "", {{"_class", ClassAttr({"loc:@x"})}}),
      kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "abort=CPU:0 c=CPU:0 x=CPU:0");
}

TEST_CASE("a node joins every _class group it lists, in list order",
          "[place]") {
  Placed p =
      PlaceText(Const("c") + Unary("a", "Identity", "c", "/job:localhost") +
                    Unary("b", "Identity", "c", "/device:CPU:0") +
                    WithClass("m", "Identity", {"c"}, {"loc:@a", "loc:@b"}),
                kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=CPU:0 b=CPU:0 c=CPU:0 m=CPU:0");
}

TEST_CASE("a group name that matches no node is just a shared label",
          "[place]") {
  Placed p = PlaceText(
      Const("c") + WithClass("a", "Identity", {"c"}, {"loc:@nowhere"}) +
          WithClass("b", "Identity", {"c"}, {"loc:@nowhere"}, "/cpu:0"),
      kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=CPU:0 b=CPU:0 c=CPU:0");
}

TEST_CASE("a _class that is a single string is ignored with a warning",
          "[place]") {
  Placed p =
      PlaceText(Const("c") + Unary("a", "Identity", "c", "/cpu:0") +
                    N("b", "Identity", {"c"}, "",
                      {{"T", "type: DT_FLOAT"}, {"_class", "s: 'loc:@a'"}}),
                kCpuGpu);
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=CPU:0 b=GPU:0 c=GPU:0");
  REQUIRE(p.report.warnings.size() == 1);
  CHECK_THAT(p.report.warnings[0], Contains("not a single string"));
}

TEST_CASE("conflicting _class requests are errors without soft placement",
          "[place]") {
  std::string graph = Const("c") + Unary("a", "Identity", "c", "/cpu:0") +
                      WithClass("b", "Identity", {"c"}, {"loc:@a"}, "/gpu:0");
  Placed hard = PlaceText(graph, kCpuGpu);
  REQUIRE_FALSE(hard.status.ok());
  CHECK(hard.status.code() == Code::kInvalidArgument);
  CHECK_THAT(hard.status.message(),
             Contains("Cannot colocate nodes {{colocation_node b}} and "
                      "{{colocation_node a}}: Cannot merge devices with "
                      "incompatible types"));
  CHECK_THAT(hard.status.message(), Contains("[[{{node b}}]]"));

  // Soft merging of /gpu:0 and /cpu:0 drops type and id: the group keeps no
  // request at all, as in TensorFlow.
  Placed soft = PlaceSoft(graph, kCpuGpu);
  INFO(soft.status.ToString());
  REQUIRE(soft.status.ok());
  CHECK(soft.placement == "a=GPU:0 b=GPU:0 c=GPU:0");
}

TEST_CASE("soft placement ignores _class groups it cannot form", "[place]") {
  std::string graph =
      Variable("v1", "/cpu:0") + N("v2", "VariableV2", {}, "/gpu:0",
                                   {{"dtype", "type: DT_FLOAT"},
                                    {"shape", "shape {}"},
                                    {"_class", ClassAttr({"loc:@v1"})}});
  Placed hard = PlaceText(graph, kCpuGpu);
  REQUIRE_FALSE(hard.status.ok());
  CHECK_THAT(hard.status.message(),
             Contains("Cannot colocate nodes {{colocation_node v2}} and "
                      "{{colocation_node v1}}: Cannot merge devices with "
                      "incompatible types"));

  Placed soft = PlaceSoft(graph, kCpuGpu);
  INFO(soft.status.ToString());
  REQUIRE(soft.status.ok());
  CHECK(soft.placement == "v1=CPU:0 v2=GPU:0");
  CHECK_THAT(soft.Of("v2").detail,
             Contains("ignored its colocation with loc:@v1"));
}

TEST_CASE("soft placement merges conflicting ids of one type", "[place]") {
  // Soft merging of /gpu:0 and /gpu:1 leaves /device:GPU:* for the group.
  Placed p =
      PlaceSoft(Const("c") + Unary("a", "Identity", "c", "/gpu:1") +
                    WithClass("b", "Identity", {"c"}, {"loc:@a"}, "/gpu:0"),
                {"cpu:0", "gpu:0", "gpu:1"});
  REQUIRE(p.status.ok());
  CHECK(p.placement == "a=GPU:0 b=GPU:0 c=GPU:0");
}

TEST_CASE("a ref edge between different resource devices is an error",
          "[place]") {
  Placed p = PlaceText(Variable("v1", "/cpu:0") + Variable("v2", "/gpu:0") +
                           N("merge", "RefMerge", {"v1", "v2"}, "",
                             {{"T", "type: DT_FLOAT"}, {"N", "i: 2"}}),
                       kCpuGpu);
  REQUIRE_FALSE(p.status.ok());
  CHECK(p.status.code() == Code::kInvalidArgument);
  CHECK_THAT(p.status.message(),
             Contains("Cannot place the graph because a reference or resource "
                      "edge connects colocation groups with incompatible "
                      "resource devices: /device:GPU:0 vs /device:CPU:0. The "
                      "edge src node is v2 , and the dst node is merge"));
}

TEST_CASE("an op with no kernel on any device of the set is an error",
          "[place]") {
  // dfg's VariableV2 has no GPU kernel for strings.
  std::string graph = Variable("v", "", "DT_STRING") +
                      Const("init", "", "DT_STRING") +
                      Assign("assign", "v", "init", "", "DT_STRING");
  Placed p = PlaceText(graph, {"gpu:0"});
  REQUIRE_FALSE(p.status.ok());
  CHECK_THAT(p.status.message(),
             Contains("No OpKernel was registered to support Op 'VariableV2' "
                      "used by {{node v}}"));
  CHECK_THAT(p.status.message(), Contains("Registered devices: [GPU]"));
}

TEST_CASE("soft placement moves a whole group off an unsupported request",
          "[place]") {
  Placed p = PlaceSoft(
      Const("c") + Unary("x", "Identity", "c", "/gpu:0") +
          N("abort", "Abort", {}, "", {{"_class", ClassAttr({"loc:@x"})}}),
      kCpuGpu);
  INFO(p.status.ToString());
  REQUIRE(p.status.ok());
  CHECK(p.placement == "abort=CPU:0 c=CPU:0 x=CPU:0");
  CHECK(p.Of("x").rule == PlacementRule::kSoftPlacement);
  CHECK_THAT(p.Of("x").detail, Contains("moved it from '/device:GPU:0'"));
  CHECK(p.Of("abort").rule == PlacementRule::kColocation);
}

}  // namespace
}  // namespace dfg
