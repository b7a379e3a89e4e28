// Executor and rendezvous overhead (the `dfg run` issue's figures):
//   BM_IdentityChain/10000   a 10,000-node Identity chain
//   BM_FanOutFanIn/10000     a 10,000-wide fan-out/fan-in
// (ns per node = 1e9 / items_per_second)
//   BM_SendRecvScalar        one scalar Send + Recv through the rendezvous
// One inter-op thread: nodes run inline on the calling thread.
#include <benchmark/benchmark.h>
#include <google/protobuf/text_format.h>

#include <string>

#include "lib/exec/call_frame.h"
#include "lib/exec/executor.h"
#include "lib/exec/rendezvous.h"
#include "lib/graph/graph_import.h"

namespace dfg {
namespace {

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";

NodeDef MakeNode(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
  NodeDef n;
  n.set_name(name);
  n.set_op(op);
  for (auto& i : inputs) n.add_input(i);
  return n;
}

void SetType(NodeDef* n, const char* key, DataType t) {
  (*n->mutable_attr())[key].set_type(t);
}

void SetInt(NodeDef* n, const char* key, int64_t v) {
  (*n->mutable_attr())[key].set_i(v);
}

GraphDef ArgRetvalGraph(int width, bool chain) {
  GraphDef g;
  NodeDef* arg = g.add_node();
  *arg = MakeNode("x", "_Arg", {});
  SetType(arg, "T", tensorflow::DT_FLOAT);
  SetInt(arg, "index", 0);
  std::string prev = "x";
  NodeDef* sum = nullptr;
  if (!chain) {
    sum = g.add_node();
    *sum = MakeNode("sum", "IdentityN", {});
  }
  std::vector<DataType> types;
  for (int i = 0; i < width; ++i) {
    std::string name = "id" + std::to_string(i);
    NodeDef* n = g.add_node();
    *n = MakeNode(name, "Identity", {chain ? prev : "x"});
    SetType(n, "T", tensorflow::DT_FLOAT);
    prev = name;
  }
  NodeDef* ret = g.add_node();
  if (chain) {
    *ret = MakeNode("out", "_Retval", {prev});
  } else {
    // Fan-in: a NoOp waits on every branch; the retval reads x after it.
    NodeDef* join = sum;
    *join = MakeNode("join", "NoOp", {});
    for (int i = 0; i < width; ++i) join->add_input("^id" + std::to_string(i));
    *ret = MakeNode("out", "_Retval", {"x", "^join"});
  }
  SetType(ret, "T", tensorflow::DT_FLOAT);
  SetInt(ret, "index", 0);
  return g;
}

void RunSteps(benchmark::State& state, bool chain) {
  const int width = static_cast<int>(state.range(0));
  auto graph = ImportGraphDef(ArgRetvalGraph(width, chain));
  if (!graph.ok()) {
    state.SkipWithError(graph.status().ToString().c_str());
    return;
  }
  auto exec =
      Executor::Create(std::move(graph).value(), ExecutorOptions{kCpu0});
  if (!exec.ok()) {
    state.SkipWithError(exec.status().ToString().c_str());
    return;
  }
  ResourceMgr resources;
  for (auto _ : state) {
    CallFrame frame({tensorflow::DT_FLOAT}, {tensorflow::DT_FLOAT});
    (void)frame.SetArgs({Tensor::Scalar<float>(1)});
    LocalRendezvous rendezvous;
    Executor::Args args;
    args.call_frame = &frame;
    args.rendezvous = &rendezvous;
    args.resource_mgr = &resources;
    Status s = (*exec)->Run(args);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  // items_per_second = nodes per second; ns per node = 1e9 / that.
  state.SetItemsProcessed(static_cast<int64_t>(width + 2) * state.iterations());
}

void BM_IdentityChain(benchmark::State& state) { RunSteps(state, true); }
BENCHMARK(BM_IdentityChain)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_FanOutFanIn(benchmark::State& state) { RunSteps(state, false); }
BENCHMARK(BM_FanOutFanIn)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_SendRecvScalar(benchmark::State& state) {
  LocalRendezvous rendezvous;
  ParsedKey key;
  (void)ParseKey(
      CreateKey(kCpu0, 1, "/job:localhost/replica:0/task:0/device:CPU:1",
                "edge_7_x", {}),
      &key);
  Tensor value = Tensor::Scalar<float>(1);
  for (auto _ : state) {
    (void)rendezvous.Send(key, value, false);
    rendezvous.RecvAsync(key, [](const Status&, const Tensor& v, bool) {
      benchmark::DoNotOptimize(v.data());
    });
  }
}
BENCHMARK(BM_SendRecvScalar);

}  // namespace
}  // namespace dfg
