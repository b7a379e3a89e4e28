// Node statistics through TensorFlow's StepStats and back, as a master's
// client receives every task's.
#include "lib/distributed/step_stats_proto.h"

#include "lib/testing/catch.h"

namespace dfg {
namespace {

NodeStat Stat(std::string node, int64_t start_us, int64_t end_us,
              std::string caller = "") {
  NodeStat s;
  s.node = std::move(node);
  s.op = "Op";
  s.device = "/job:worker/replica:0/task:0/device:CPU:0";
  s.start_ns = start_us * 1000 + 123;
  s.end_ns = end_us * 1000 + 456;
  s.thread_id = 0;
  s.caller = std::move(caller);
  return s;
}

TEST_CASE("a function body's nodes get their caller back from StepStats",
          "[distributed]") {
  tensorflow::StepStats proto;
  AppendStepStats({Stat("call", 0, 100), Stat("call/loop", 10, 90, "call"),
                   Stat("call/loop/mul", 20, 30, "call/loop"),
                   // A name scope, not a call: it does not nest in time.
                   Stat("dense", 200, 210), Stat("dense/MatMul", 210, 220)},
                  &proto);
  std::vector<NodeStat> back = NodeStatsFromStepStats(proto);
  REQUIRE(back.size() == 5);
  CHECK(back[0].node == "call");
  CHECK(back[0].caller.empty());
  CHECK(back[1].caller == "call");
  CHECK(back[2].caller == "call/loop");
  CHECK(back[3].caller.empty());
  CHECK(back[4].node == "dense/MatMul");
  CHECK(back[4].caller.empty());
}

}  // namespace
}  // namespace dfg
