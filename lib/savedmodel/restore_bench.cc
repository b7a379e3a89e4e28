// Restoring the 1 GiB checkpoint of bench_checkpoint.h through the path of
// `dfg run graph --checkpoint PREFIX`: LoadSavedModel over a graph with 64
// VariableV2s and the restore ops of a tf.compat.v1.train.Saver
// (save/Const, save/RestoreV2, save/Assign_N, save/restore_all), so a
// Session runs RestoreV2 on its intra-op pool and Assign keeps the restored
// buffers. bytes_per_second is the restore's bandwidth, to set beside
// BM_CatFiles (lib/checkpoint/checkpoint_bench.cc).
//   BM_RestoreSession/T        a new Session each iteration, in this process,
//                              T intra-op threads. Freed tensor blocks are
//                              kept for reuse (tensor.h), so from the second
//                              iteration the memory is already faulted in:
//                              the CPU cost of the restore path itself
//   BM_RestoreFreshProcess/T   each iteration in a forked child that exits
//                              after the restore, as the CLI: fresh tensor
//                              memory, page faults included (the wall time
//                              from fork to exit, manual time)
#include <benchmark/benchmark.h>
#include <google/protobuf/text_format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lib/checkpoint/bench_checkpoint.h"
#include "lib/savedmodel/loader.h"

namespace dfg {
namespace {

using bench_checkpoint::Checkpoint;
using bench_checkpoint::kTensorBytes;
using bench_checkpoint::kTensors;
using bench_checkpoint::TensorKey;

std::string StringsNode(const std::string& name, int n, bool keys) {
  std::string vals;
  for (int t = 0; t < n; ++t) {
    vals += " string_val: \"" + (keys ? TensorKey(t) : std::string()) + "\"";
  }
  return "node { name: \"" + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_STRING } } "
         "attr { key: \"value\" value { tensor { dtype: DT_STRING "
         "tensor_shape { dim { size: " +
         std::to_string(n) + " } }" + vals + " } } } }\n";
}

GraphDef RestoreGraph() {
  const int rows = static_cast<int>(kTensorBytes / sizeof(float) / 1024);
  std::string text =
      "node { name: \"save/Const\" op: \"Const\" attr { key: \"dtype\" value "
      "{ type: DT_STRING } } attr { key: \"value\" value { tensor { dtype: "
      "DT_STRING tensor_shape {} string_val: \"model\" } } } }\n" +
      StringsNode("save/RestoreV2/tensor_names", kTensors, true) +
      StringsNode("save/RestoreV2/shape_and_slices", kTensors, false);
  std::string dtypes, restore_all;
  for (int t = 0; t < kTensors; ++t) {
    const std::string i = std::to_string(t);
    dtypes += " type: DT_FLOAT";
    restore_all += " input: \"^save/Assign_" + i + "\"";
    text += "node { name: \"" + TensorKey(t) +
            "\" op: \"VariableV2\" attr { key: \"dtype\" value { type: "
            "DT_FLOAT } } attr { key: \"shape\" value { shape { dim { size: " +
            std::to_string(rows) + " } dim { size: 1024 } } } } }\n";
    text += "node { name: \"save/Assign_" + i + "\" op: \"Assign\" input: \"" +
            TensorKey(t) + "\" input: \"save/RestoreV2:" + i +
            "\" attr { key: \"T\" value { type: DT_FLOAT } } attr { key: "
            "\"validate_shape\" value { b: true } } }\n";
  }
  text +=
      "node { name: \"save/RestoreV2\" op: \"RestoreV2\" input: "
      "\"save/Const\" input: \"save/RestoreV2/tensor_names\" input: "
      "\"save/RestoreV2/shape_and_slices\" attr { key: \"dtypes\" value { "
      "list {" +
      dtypes + " } } } }\n";
  text +=
      "node { name: \"save/restore_all\" op: \"NoOp\"" + restore_all + " }\n";
  GraphDef graph;
  if (!google::protobuf::TextFormat::ParseFromString(text, &graph)) abort();
  return graph;
}

// One `dfg run --checkpoint`: session, restore, then the session's end.
void RestoreOnce(const GraphDef& graph, int threads) {
  LoadOptions options;
  options.checkpoint = Checkpoint().prefix();
  options.session.intra_op_threads = threads;
  auto session = LoadSavedModel(graph, tensorflow::MetaGraphDef(), options);
  if (!session.ok()) {
    fprintf(stderr, "%s\n", session.status().ToString().c_str());
    abort();
  }
}

void BM_RestoreSession(benchmark::State& state) {
  const GraphDef graph = RestoreGraph();
  RestoreOnce(graph, 1);  // the blocks are faulted in and kept from here on
  for (auto _ : state) RestoreOnce(graph, static_cast<int>(state.range(0)));
  state.SetBytesProcessed(int64_t(state.iterations()) * kTensors *
                          int64_t(kTensorBytes));
}
BENCHMARK(BM_RestoreSession)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_RestoreFreshProcess(benchmark::State& state) {
  const GraphDef graph = RestoreGraph();
  Checkpoint();  // written before the clock starts
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
      RestoreOnce(graph, static_cast<int>(state.range(0)));
      ::_exit(0);  // no static destructors: the checkpoint stays
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid || status != 0) abort();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kTensors *
                          int64_t(kTensorBytes));
}
BENCHMARK(BM_RestoreFreshProcess)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace
}  // namespace dfg
