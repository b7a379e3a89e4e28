// Executor and rendezvous overhead (the figures `dfg run` is held to):
//   BM_IdentityChain/10000   a 10,000-node Identity chain
//   BM_FanOutFanIn/10000     a 10,000-wide fan-out/fan-in
// (ns per node = 1e9 / items_per_second)
//   BM_SendRecvScalar        one scalar Send + Recv through the rendezvous
//   BM_MlpStep/T             the dense-model figure: an 8-layer MLP
//                            (x [256,1024], eight 1024x1024 MatMul + BiasAdd
//                            + Relu) through the Session, T intra-op
//                            threads; compare with
//                            BM_MlpSgemmOnly/T in lib/kernels/kernels_bench.cc
// One inter-op thread: nodes run inline on the calling thread.
#include <benchmark/benchmark.h>
#include <google/protobuf/text_format.h>

#include <string>

#include "lib/exec/call_frame.h"
#include "lib/exec/executor.h"
#include "lib/exec/rendezvous.h"
#include "lib/exec/session.h"
#include "lib/graph/graph_import.h"

namespace dfg {
namespace {

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";

ExecutorOptions CpuOptions() {
  ExecutorOptions options;
  options.device = kCpu0;
  return options;
}

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
  auto exec = Executor::Create(std::move(graph).value(), CpuOptions());
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

constexpr int kMlpLayers = 8, kMlpBatch = 256, kMlpWidth = 1024;

NodeDef FloatNode(const std::string& name, const std::string& op,
                  std::vector<std::string> inputs) {
  NodeDef n = MakeNode(name, op, std::move(inputs));
  SetType(&n, op == "Placeholder" ? "dtype" : "T", tensorflow::DT_FLOAT);
  return n;
}

Tensor FilledTensor(std::vector<int64_t> dims, float v) {
  Tensor t(tensorflow::DT_FLOAT, TensorShape(std::span<const int64_t>(dims)));
  float* p = static_cast<float*>(t.data());
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = v;
  return t;
}

// x -> 8 x (MatMul w_i, BiasAdd b_i, Relu) -> fetch; weights are fed.
void BM_MlpStep(benchmark::State& state) {
  GraphDef g;
  *g.add_node() = FloatNode("x", "Placeholder", {});
  std::string prev = "x";
  std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", FilledTensor({kMlpBatch, kMlpWidth}, 0.01f)}};
  for (int i = 0; i < kMlpLayers; ++i) {
    const std::string l = std::to_string(i);
    *g.add_node() = FloatNode("w" + l, "Placeholder", {});
    *g.add_node() = FloatNode("b" + l, "Placeholder", {});
    *g.add_node() = FloatNode("mm" + l, "MatMul", {prev, "w" + l});
    *g.add_node() = FloatNode("bias" + l, "BiasAdd", {"mm" + l, "b" + l});
    *g.add_node() = FloatNode("relu" + l, "Relu", {"bias" + l});
    prev = "relu" + l;
    feeds.push_back({"w" + l, FilledTensor({kMlpWidth, kMlpWidth}, 0.001f)});
    feeds.push_back({"b" + l, FilledTensor({kMlpWidth}, 0.1f)});
  }
  SessionOptions options;
  options.inter_op_threads = 1;
  options.intra_op_threads = static_cast<int>(state.range(0));
  auto session = Session::Create(std::move(g), options);
  if (!session.ok()) {
    state.SkipWithError(session.status().ToString().c_str());
    return;
  }
  std::vector<Tensor> outputs;
  for (auto _ : state) {
    Status s = (*session)->Run(feeds, {prev + ":0"}, {}, &outputs);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(outputs[0].data());
  }
  state.SetItemsProcessed(state.iterations() * 2LL * kMlpLayers * kMlpBatch *
                          kMlpWidth * kMlpWidth);
}
BENCHMARK(BM_MlpStep)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dfg
