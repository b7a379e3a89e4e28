#include "lib/partition/check.h"

#include "lib/partition/partition_test_util.h"

namespace dfg {
namespace {

using namespace partition_test;  // NOLINT: test helpers

struct Fixture {
  GraphDef original;
  std::map<std::string, GraphDef> parts;
};

// A1 on cpu:0 feeds B2 on cpu:1 by data and B3 by control.
Fixture Partitioned() {
  std::unique_ptr<Graph> graph =
      ImportPlaced(N("A1", "Placeholder", {}, "dtype: DT_FLOAT") +
                   N("B1", "Placeholder", {}, "dtype: DT_FLOAT") +
                   N("B2", "Add", {"A1", "B1"}, "T: DT_FLOAT") +
                   N("B3", "Placeholder", {"^A1"}, "dtype: DT_FLOAT"));
  Fixture f;
  f.original = graph->ToGraphDef();
  auto parts = Partition(graph.get(), HarnessOptions());
  REQUIRE(parts.ok());
  f.parts = std::move(parts).value();
  return f;
}

NodeDef* Mutable(GraphDef* graph, const std::string& name) {
  for (NodeDef& node : *graph->mutable_node()) {
    if (node.name() == name) return &node;
  }
  FAIL("no node " << name);
  return nullptr;
}

void ExpectViolation(const Fixture& f, const std::string& phrase) {
  Status s = CheckPartitions(f.original, f.parts);
  INFO(s.ToString());
  CHECK(s.code() == Code::kInternal);
  CHECK_THAT(s.message(), Catch::Contains(phrase));
}

TEST_CASE("the checker accepts Partition's output", "[partition][check]") {
  Fixture f = Partitioned();
  Status s = CheckPartitions(f.original, f.parts);
  INFO(s.ToString());
  CHECK(s.ok());
}

TEST_CASE("the checker finds each broken invariant", "[partition][check]") {
  Fixture f = Partitioned();
  GraphDef& b = f.parts.at(kCpu1);
  GraphDef& a = f.parts.at(kCpu0);
  SECTION("a lost node") {
    b.mutable_node()->DeleteSubrange(0, 1);  // B1
    ExpectViolation(f, "original node 'B1' is in no partition");
  }
  SECTION("a node in two partitions") {
    *a.add_node() = b.node(0);
    a.mutable_node(a.node_size() - 1)->set_device(kCpu0);
    ExpectViolation(f, "node 'B1' is in partition");
  }
  SECTION("a node in the wrong partition") {
    Mutable(&b, "B1")->set_device(kCpu0);
    ExpectViolation(f, "node 'B1' on '/job:a/replica:0/task:0/cpu:0'");
  }
  SECTION("a read across partitions") {
    Mutable(&b, "B2")->set_input(0, "A1");
    ExpectViolation(f, "reads 'A1', which is not in its partition");
  }
  SECTION("a recv without its send") {
    (*Mutable(&b, "A1/_1")->mutable_attr())["tensor_name"].set_s("edge_9_A1");
    ExpectViolation(f, "recv 'A1/_1' has no matching send");
  }
  SECTION("a send with another incarnation") {
    (*Mutable(&a, "A1/_0")->mutable_attr())["send_device_incarnation"].set_i(7);
    ExpectViolation(f, "no matching send");
  }
  SECTION("a send reading the wrong port") {
    Mutable(&a, "A1/_0")->set_input(0, "A1:1");
    ExpectViolation(f, "which does not read 'A1:0'");
  }
  SECTION("a lost control edge") {
    Mutable(&b, "B3")->clear_input();
    ExpectViolation(f, "the control edge ^A1 -> 'B3' is lost");
  }
  SECTION("an unexpected added node") {
    NodeDef* extra = b.add_node();
    extra->set_name("extra");
    extra->set_op("Add");
    extra->set_device(kCpu1);
    ExpectViolation(f, "'extra' (Add) that the original graph does not have");
  }
}

}  // namespace
}  // namespace dfg
