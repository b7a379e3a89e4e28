// The executor's cost inside functional control flow (the figures the
// Keras LSTM/GRU and tf.while_loop models pay per loop step):
//   BM_WhileLoop/N/T      a functional While of N iterations; per iteration
//                         the cond (3 _Arg, Less, _Retval) and the body
//                         (3 _Arg, Const, AddV2, 4 Neg, 3 _Retval) run: 17
//                         scalar nodes. `ns_per_iter` and `ns_per_node`.
//   BM_FunctionCall/M/T   a chain of M PartitionedCall nodes, each calling a
//                         one-Neg function (_Arg, Neg, _Retval): `ns_per_call`.
// T inter-op threads: 1 runs every node inline on the calling thread (as
// `dfg run --threads 1`), 2 gives the executor a 2-thread pool runner.
// Compare ns_per_node with BM_IdentityChain's straight-line ns per node
// (1e9 / items_per_second) in exec_bench.cc.
#include <benchmark/benchmark.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "lib/exec/call_frame.h"
#include "lib/exec/executor.h"
#include "lib/exec/rendezvous.h"
#include "lib/exec/thread_pool.h"
#include "lib/graph/graph_import.h"

namespace dfg {
namespace {

constexpr int kNodesPerIteration = 17;

// Loop variables (i: int32, limit: int32, x: float).
constexpr char kLoopLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "below_limit"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "limit" type: DT_INT32 }
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "c" type: DT_BOOL }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "limit"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "c" value: "less:z:0" }
    }
    function {
      signature {
        name: "step"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "limit" type: DT_INT32 }
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "limit_next" type: DT_INT32 }
        output_arg { name: "x_next" type: DT_FLOAT }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 1
            }
          }
        }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "n1"
        op: "Neg"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "n2"
        op: "Neg"
        input: "n1:y:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "n3"
        op: "Neg"
        input: "n2:y:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "n4"
        op: "Neg"
        input: "n3:y:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "i_next" value: "add:z:0" }
      ret { key: "limit_next" value: "limit" }
      ret { key: "x_next" value: "n4:y:0" }
    }
    function {
      signature {
        name: "negate"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "neg"
        op: "Neg"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "neg:y:0" }
    }
  }
)pb";

// _Arg i, _Arg limit, _Arg x -> While -> _Retval x.
constexpr char kLoopGraph[] = R"pb(
  node {
    name: "i"
    op: "_Arg"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
    attr {
      key: "index"
      value { i: 0 }
    }
  }
  node {
    name: "limit"
    op: "_Arg"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
    attr {
      key: "index"
      value { i: 1 }
    }
  }
  node {
    name: "x"
    op: "_Arg"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "index"
      value { i: 2 }
    }
  }
  node {
    name: "loop"
    op: "While"
    input: "i"
    input: "limit"
    input: "x"
    attr {
      key: "T"
      value { list { type: DT_INT32 type: DT_INT32 type: DT_FLOAT } }
    }
    attr {
      key: "cond"
      value { func { name: "below_limit" } }
    }
    attr {
      key: "body"
      value { func { name: "step" } }
    }
  }
  node {
    name: "out"
    op: "_Retval"
    input: "loop:2"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "index"
      value { i: 0 }
    }
  }
)pb";

// _Arg x -> call0 -> ... -> call{M-1} -> _Retval.
std::string CallChainGraph(int calls) {
  std::string text = R"pb(
    node {
      name: "x"
      op: "_Arg"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "index"
        value { i: 0 }
      }
    }
  )pb";
  std::string prev = "x";
  for (int i = 0; i < calls; ++i) {
    const std::string name = "call" + std::to_string(i);
    text += "node { name: '" + name + "' op: 'PartitionedCall' input: '" +
            prev +
            "' attr { key: 'Tin' value { list { type: DT_FLOAT } } }"
            " attr { key: 'Tout' value { list { type: DT_FLOAT } } }"
            " attr { key: 'f' value { func { name: 'negate' } } } }\n";
    prev = name;
  }
  return text + "node { name: 'out' op: '_Retval' input: '" + prev +
         "' attr { key: 'T' value { type: DT_FLOAT } }"
         " attr { key: 'index' value { i: 0 } } }\n";
}

// Runs `graph_text` (with the library) once per benchmark iteration with
// `args`; `state.range(1)` inter-op threads. Returns the wall time of the
// timed loop in ns per iteration.
double RunGraph(benchmark::State& state, const std::string& graph_text,
                std::vector<DataType> arg_types, std::vector<Tensor> args) {
  GraphDef def;
  if (!google::protobuf::TextFormat::ParseFromString(graph_text + kLoopLibrary,
                                                     &def)) {
    state.SkipWithError("graph text does not parse");
    return 0;
  }
  auto graph = ImportGraphDef(std::move(def));
  if (!graph.ok()) {
    state.SkipWithError(graph.status().ToString().c_str());
    return 0;
  }
  ExecutorOptions options;
  options.device = "/job:localhost/replica:0/task:0/device:CPU:0";
  auto exec = Executor::Create(std::move(graph).value(), options);
  if (!exec.ok()) {
    state.SkipWithError(exec.status().ToString().c_str());
    return 0;
  }
  std::unique_ptr<ThreadPool> pool;
  if (state.range(1) > 1) pool = std::make_unique<ThreadPool>(state.range(1));
  ResourceMgr resources;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    CallFrame frame(arg_types, {tensorflow::DT_FLOAT});
    (void)frame.SetArgs(args);
    LocalRendezvous rendezvous;
    Executor::Args run;
    run.call_frame = &frame;
    run.rendezvous = &rendezvous;
    run.resource_mgr = &resources;
    if (pool != nullptr) {
      run.runner = [p = pool.get()](std::function<void()> fn) {
        p->Schedule(std::move(fn));
      };
    }
    Status s = (*exec)->Run(run);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return 0;
    }
  }
  const std::chrono::duration<double, std::nano> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / std::max<int64_t>(1, state.iterations());
}

void BM_WhileLoop(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const double ns = RunGraph(
      state, kLoopGraph,
      {tensorflow::DT_INT32, tensorflow::DT_INT32, tensorflow::DT_FLOAT},
      {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(n),
       Tensor::Scalar<float>(1)});
  state.counters["ns_per_iter"] = ns / n;
  state.counters["ns_per_node"] = ns / (n * kNodesPerIteration);
}
BENCHMARK(BM_WhileLoop)
    ->Args({100, 1})
    ->Args({100, 2})
    ->Unit(benchmark::kMicrosecond);

void BM_FunctionCall(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0));
  const double ns = RunGraph(state, CallChainGraph(m), {tensorflow::DT_FLOAT},
                             {Tensor::Scalar<float>(1)});
  state.counters["ns_per_call"] = ns / m;
}
BENCHMARK(BM_FunctionCall)
    ->Args({100, 1})
    ->Args({100, 2})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dfg
