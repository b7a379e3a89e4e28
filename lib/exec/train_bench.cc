// One training step of an MLP 784-256-256-10 at batch 64 (the training-step
// figure dfg is held to): forward (MatMul, BiasAdd, Relu;
// SoftmaxCrossEntropyWithLogits), the gradients tf.gradients would build
// (BiasAddGrad, ReluGrad, MatMul with transposes) and six ApplyGradientDescent
// updates of ref variables, run through the Session with T intra-op threads:
//   BM_MlpTrainStep/T      the whole step
//   BM_MlpTrainGemmOnly/T  the step's eight GEMMs alone, as ParallelGemm
//                          calls on a pool of T threads (the reference: the
//                          step should take at most 1.3x this)
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "lib/exec/session.h"
#include "lib/exec/thread_pool.h"
#include "lib/kernels/blas_threads.h"

namespace dfg {
namespace {

constexpr int64_t kBatch = 64;
constexpr int64_t kDims[] = {784, 256, 256, 10};

void Node(GraphDef* g, const std::string& name, const std::string& op,
          std::vector<std::string> inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& i : inputs) n->add_input(i);
  if (op != "NoOp" && op != "Fill") {
    (*n->mutable_attr())[op == "Placeholder" || op == "VariableV2" ||
                                 op == "Const"
                             ? "dtype"
                             : "T"]
        .set_type(tensorflow::DT_FLOAT);
  }
}

NodeDef* Last(GraphDef* g) { return g->mutable_node(g->node_size() - 1); }

void ConstInt(GraphDef* g, const std::string& name, std::vector<int> v) {
  Node(g, name, "Const", {});
  auto& attr = *Last(g)->mutable_attr();
  attr["dtype"].set_type(tensorflow::DT_INT32);
  auto* t = attr["value"].mutable_tensor();
  t->set_dtype(tensorflow::DT_INT32);
  t->mutable_tensor_shape()->add_dim()->set_size(v.size());
  for (int x : v) t->add_int_val(x);
}

void ConstFloat(GraphDef* g, const std::string& name, float v) {
  Node(g, name, "Const", {});
  auto* t = (*Last(g)->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tensorflow::DT_FLOAT);
  t->add_float_val(v);
}

void Transpose(GraphDef* g, const char* attr) {
  (*Last(g)->mutable_attr())[attr].set_b(true);
}

// Variables w<i> [in, out] and b<i> [out], initialized by `init` to small
// constants; returns the graph with target `train`.
GraphDef TrainGraph() {
  GraphDef g;
  Node(&g, "x", "Placeholder", {});
  Node(&g, "labels", "Placeholder", {});
  ConstFloat(&g, "lr", 0.01f);
  std::vector<std::string> init, updates;
  std::string prev = "x";
  for (int l = 0; l < 3; ++l) {
    const std::string i = std::to_string(l);
    for (const char* v : {"w", "b"}) {
      const std::string name = v + i;
      Node(&g, name, "VariableV2", {});
      auto* shape = (*Last(&g)->mutable_attr())["shape"].mutable_shape();
      if (v[0] == 'w') shape->add_dim()->set_size(kDims[l]);
      shape->add_dim()->set_size(kDims[l + 1]);
      if (v[0] == 'w') {
        ConstInt(&g, name + "/dims", {int(kDims[l]), int(kDims[l + 1])});
      } else {
        ConstInt(&g, name + "/dims", {int(kDims[l + 1])});
      }
      ConstFloat(&g, name + "/value", v[0] == 'w' ? 0.01f : 0.0f);
      Node(&g, name + "/init_value", "Fill", {name + "/dims", name + "/value"});
      (*Last(&g)->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
      Node(&g, name + "/Assign", "Assign", {name, name + "/init_value"});
      init.push_back("^" + name + "/Assign");
    }
    Node(&g, "mm" + i, "MatMul", {prev, "w" + i});
    Node(&g, "z" + i, "BiasAdd", {"mm" + i, "b" + i});
    if (l < 2) Node(&g, "r" + i, "Relu", {"z" + i});
    prev = l < 2 ? "r" + i : "z" + i;
  }
  Node(&g, "xent", "SoftmaxCrossEntropyWithLogits", {"z2", "labels"});
  // Backward: dz2 = xent:1, then per layer dW = a^T dz, db = sum dz,
  // da = dz W^T, dz = ReluGrad(da, r).
  std::string dz = "xent:1";
  for (int l = 2; l >= 0; --l) {
    const std::string i = std::to_string(l);
    const std::string a = l == 0 ? "x" : "r" + std::to_string(l - 1);
    Node(&g, "dw" + i, "MatMul", {a, dz});
    Transpose(&g, "transpose_a");
    Node(&g, "db" + i, "BiasAddGrad", {dz});
    if (l > 0) {
      Node(&g, "da" + i, "MatMul", {dz, "w" + i});
      Transpose(&g, "transpose_b");
      Node(&g, "dz" + std::to_string(l - 1), "ReluGrad", {"da" + i, a});
      dz = "dz" + std::to_string(l - 1);
    }
    for (const char* v : {"w", "b"}) {
      Node(&g, std::string("update_") + v + i, "ApplyGradientDescent",
           {v + i, "lr", "d" + std::string(v) + i});
      updates.push_back(std::string("^update_") + v + i);
    }
  }
  Node(&g, "init", "NoOp", init);
  Node(&g, "train", "NoOp", updates);
  return g;
}

Tensor Filled(TensorShape shape, float v) {
  Tensor t(tensorflow::DT_FLOAT, shape);
  for (float& x : t.flat<float>()) x = v;
  return t;
}

void BM_MlpTrainStep(benchmark::State& state) {
  SessionOptions options;
  options.inter_op_threads = 1;
  options.intra_op_threads = static_cast<int>(state.range(0));
  auto session = Session::Create(TrainGraph(), options);
  if (!session.ok()) {
    state.SkipWithError(session.status().ToString().c_str());
    return;
  }
  std::vector<Tensor> out;
  Status s = (*session)->Run({}, {}, {"init"}, &out);
  Tensor labels = Filled(TensorShape({kBatch, kDims[3]}), 0.0f);
  for (int64_t r = 0; r < kBatch; ++r)
    labels.flat<float>()[r * 10 + r % 10] = 1;
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Filled(TensorShape({kBatch, kDims[0]}), 0.5f)}, {"labels", labels}};
  for (auto _ : state) {
    if (s.ok()) s = (*session)->Run(feeds, {}, {"train"}, &out);
  }
  if (!s.ok()) state.SkipWithError(s.ToString().c_str());
}
BENCHMARK(BM_MlpTrainStep)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// The same step's GEMMs: forward a·W per layer, then dW = aᵀ·dz per layer
// and da = dz·Wᵀ for layers 2 and 1.
void BM_MlpTrainGemmOnly(benchmark::State& state) {
  std::unique_ptr<ThreadPool> pool;
  if (state.range(0) > 1) pool = std::make_unique<ThreadPool>(state.range(0));
  std::vector<std::vector<float>> act(4), w(3), dw(3), dz(3);
  act[0].assign(kBatch * kDims[0], 0.5f);
  for (int l = 0; l < 3; ++l) {
    w[l].assign(kDims[l] * kDims[l + 1], 0.01f);
    dw[l].resize(w[l].size());
    act[l + 1].resize(kBatch * kDims[l + 1]);
    dz[l].assign(kBatch * kDims[l + 1], 0.1f);
  }
  std::vector<float> da(kBatch * 256);
  for (auto _ : state) {
    for (int l = 0; l < 3; ++l) {
      ParallelGemm(pool.get(), false, false, kBatch, kDims[l + 1], kDims[l],
                   act[l].data(), kDims[l], w[l].data(), kDims[l + 1],
                   act[l + 1].data(), kDims[l + 1]);
    }
    for (int l = 2; l >= 0; --l) {
      ParallelGemm(pool.get(), true, false, kDims[l], kDims[l + 1], kBatch,
                   act[l].data(), kDims[l], dz[l].data(), kDims[l + 1],
                   dw[l].data(), kDims[l + 1]);
      if (l > 0) {
        ParallelGemm(pool.get(), false, true, kBatch, kDims[l], kDims[l + 1],
                     dz[l].data(), kDims[l + 1], w[l].data(), kDims[l + 1],
                     da.data(), kDims[l]);
      }
    }
    benchmark::DoNotOptimize(dw[0].data());
  }
}
BENCHMARK(BM_MlpTrainGemmOnly)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dfg
