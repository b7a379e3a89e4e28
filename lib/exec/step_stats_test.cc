// Step statistics of graphs that call functions: the body's nodes are
// recorded under the calling node's name, and the op table counts a call's
// time once.
#include "lib/exec/step_stats.h"

#include <algorithm>

#include "lib/exec/session.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

// y = outer(x), where outer(x) = inner(x) * x and inner(x) = x + x: a call
// whose body calls again.
const char kNestedCalls[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "call"
    op: "StatefulPartitionedCall"
    input: "x"
    attr {
      key: "Tin"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "Tout"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "f"
      value { func { name: "outer" } }
    }
  }
  library {
    function {
      signature {
        name: "inner"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "add:z:0" }
    }
    function {
      signature {
        name: "outer"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "twice"
        op: "PartitionedCall"
        input: "x"
        attr {
          key: "Tin"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "Tout"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "f"
          value { func { name: "inner" } }
        }
      }
      node_def {
        name: "mul"
        op: "Mul"
        input: "twice:output:0"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "mul:z:0" }
    }
  }
)pb";

const NodeStat* Find(const std::vector<NodeStat>& stats,
                     const std::string& node) {
  auto it = std::find_if(stats.begin(), stats.end(),
                         [&](const NodeStat& s) { return s.node == node; });
  return it == stats.end() ? nullptr : &*it;
}

TEST_CASE("the nodes of a called function are recorded under the call",
          "[exec][stats]") {
  SessionOptions options;
  options.inter_op_threads = 2;
  options.optimize = GENERATE(false, true);
  INFO("optimize " << options.optimize);
  // Optimized, the calls are inlined: their nodes are the graph's own.
  auto session =
      Session::Create(testing::ParseTextProto<GraphDef>(kNestedCalls), options);
  REQUIRE(session.ok());
  StepStatsCollector collector;
  RunOptions run;
  run.observer = &collector;
  std::vector<Tensor> out;
  REQUIRE((*session)
              ->Run({{"x", Tensor::Scalar<float>(3)}}, {"call"}, {}, &out, run)
              .ok());
  CHECK(out[0].scalar<float>() == 18);
  std::vector<NodeStat> stats = collector.Take();
  if (options.optimize) {
    CHECK(Find(stats, "call") == nullptr);
    return;
  }
  const NodeStat* call = Find(stats, "call");
  const NodeStat* mul = Find(stats, "call/mul");
  const NodeStat* add = Find(stats, "call/twice/add");
  REQUIRE(call != nullptr);
  REQUIRE(mul != nullptr);
  REQUIRE(add != nullptr);
  CHECK(call->caller.empty());
  CHECK(mul->caller == "call");
  CHECK(mul->op == "Mul");
  CHECK(add->caller == "call/twice");
  CHECK(add->device == call->device);
  // Inside the call's time, on its thread.
  CHECK(add->start_ns >= call->start_ns);
  CHECK(add->end_ns <= call->end_ns);
  CHECK(add->thread_id == call->thread_id);
  CHECK_THAT(StatsTable(stats), Contains("call/twice/add"));
}

NodeStat Stat(std::string node, std::string op, int64_t start_us,
              int64_t end_us, std::string caller = "") {
  NodeStat s;
  s.node = std::move(node);
  s.op = std::move(op);
  s.start_ns = start_us * 1000;
  s.end_ns = end_us * 1000;
  s.caller = std::move(caller);
  return s;
}

TEST_CASE("the op table counts a call's time once", "[exec][stats]") {
  // A 100 us call whose body's MatMul takes 60 us, and a 100 us Relu.
  std::vector<NodeStat> stats = {
      Stat("call", "StatefulPartitionedCall", 0, 100),
      Stat("call/dense/MatMul", "MatMul", 20, 80, "call"),
      Stat("relu", "Relu", 100, 200)};
  std::string table = StatsTable(stats);
  INFO(table);
  CHECK_THAT(table, Contains("Relu                                1        "
                             "100.0     100.00   50.0%"));
  CHECK_THAT(table, Contains("MatMul                              1         "
                             "60.0      60.00   30.0%"));
  CHECK_THAT(table, Contains("StatefulPartitionedCall             1         "
                             "40.0      40.00   20.0%"));
}

}  // namespace
}  // namespace dfg
