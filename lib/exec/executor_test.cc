#include "lib/exec/executor.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "lib/exec/call_frame.h"
#include "lib/exec/rendezvous.h"
#include "lib/exec/thread_pool.h"
#include "lib/graph/graph_import.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";

ExecutorOptions CpuOptions() {
  ExecutorOptions options;
  options.device = kCpu0;
  return options;
}
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

std::unique_ptr<Graph> Import(const std::string& text) {
  auto graph = ImportGraphDef(testing::ParseTextProto<GraphDef>(text));
  INFO(graph.status().ToString());
  REQUIRE(graph.ok());
  return std::move(graph).value();
}

std::unique_ptr<Executor> Make(const std::string& text,
                               const std::string& device = kCpu0) {
  ExecutorOptions options;
  options.device = device;
  auto exec = Executor::Create(Import(text), options);
  INFO(exec.status().ToString());
  REQUIRE(exec.ok());
  return std::move(exec).value();
}

// Types of the graph's _Arg / _Retval nodes by index.
void FrameTypes(const Graph& g, std::vector<DataType>* args,
                std::vector<DataType>* rets) {
  std::map<int64_t, DataType> a, r;
  for (Node* n : g.op_nodes()) {
    if (n->IsArg())
      a[n->def().attr().at("index").i()] = n->def().attr().at("T").type();
    if (n->IsRetval())
      r[n->def().attr().at("index").i()] = n->def().attr().at("T").type();
  }
  for (auto& [i, t] : a) args->push_back(t);
  for (auto& [i, t] : r) rets->push_back(t);
}

struct Result {
  Status status;
  std::vector<Tensor> rets;
};

Result RunOne(Executor& exec, std::vector<Tensor> feeds,
              ThreadPool* pool = nullptr,
              RendezvousInterface* rendezvous = nullptr,
              MemoryBudget* budget = nullptr) {
  std::vector<DataType> arg_types, ret_types;
  FrameTypes(exec.graph(), &arg_types, &ret_types);
  CallFrame frame(arg_types, ret_types);
  // No Catch assertions here: RunOne also runs on a second thread.
  Result result;
  result.status = frame.SetArgs(std::move(feeds));
  if (!result.status.ok()) return result;
  LocalRendezvous local;
  ResourceMgr resources;
  Executor::Args args;
  args.call_frame = &frame;
  args.rendezvous = rendezvous != nullptr ? rendezvous : &local;
  args.resource_mgr = &resources;
  args.memory_budget = budget;
  if (pool != nullptr) {
    args.runner = [pool](std::function<void()> fn) {
      pool->Schedule(std::move(fn));
    };
  }
  result.status = exec.Run(args);
  if (result.status.ok()) result.status = frame.ConsumeRetvals(&result.rets);
  return result;
}

std::string ScalarConst(const std::string& name, const std::string& dtype,
                        const std::string& value_field,
                        const std::string& ctrl = "") {
  std::string in = ctrl.empty() ? "" : "input: '^" + ctrl + "' ";
  return "node { name: '" + name + "' op: 'Const' " + in +
         "attr { key: 'dtype' value { type: " + dtype +
         " } } "
         "attr { key: 'value' value { tensor { dtype: " +
         dtype + " tensor_shape {} " + value_field + " } } } }\n";
}

std::string Retval(const std::string& name, const std::string& input, int index,
                   const std::string& dtype = "DT_FLOAT") {
  return "node { name: '" + name + "' op: '_Retval' input: '" + input +
         "' attr { key: 'T' value { type: " + dtype +
         " } } attr { key: 'index' value { i: " + std::to_string(index) +
         " } } }\n";
}

std::string Arg(const std::string& name, int index,
                const std::string& dtype = "DT_FLOAT") {
  return "node { name: '" + name +
         "' op: '_Arg' attr { key: 'T' value { type: " + dtype +
         " } } attr { key: 'index' value { i: " + std::to_string(index) +
         " } } }\n";
}

std::string Unary(const std::string& name, const std::string& op,
                  const std::string& input,
                  const std::string& dtype = "DT_FLOAT") {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + input +
         "' attr { key: 'T' value { type: " + dtype + " } } }\n";
}

std::string Binary(const std::string& name, const std::string& op,
                   const std::string& a, const std::string& b,
                   const std::string& dtype = "DT_FLOAT") {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + a +
         "' input: '" + b + "' attr { key: 'T' value { type: " + dtype +
         " } } }\n";
}

TEST_CASE("executor runs a long Identity chain", "[exec]") {
  std::string g = Arg("x", 0);
  std::string prev = "x";
  for (int i = 0; i < 2000; ++i) {
    std::string name = "id" + std::to_string(i);
    g += Unary(name, "Identity", prev);
    prev = name;
  }
  g += Retval("out", prev, 0);
  auto exec = Make(g);
  Result r = RunOne(*exec, {Tensor::Scalar<float>(3.5f)});
  REQUIRE(r.status.ok());
  CHECK(r.rets[0].scalar<float>() == 3.5f);
  ThreadPool pool(2);
  Result r2 = RunOne(*exec, {Tensor::Scalar<float>(1.5f)}, &pool);
  REQUIRE(r2.status.ok());
  CHECK(r2.rets[0].scalar<float>() == 1.5f);
}

std::string CondGraph() {
  // x -> Switch(x, pred); false branch: x + x; true branch: x * x; Merge.
  return Arg("x", 0) + Arg("pred", 1, "DT_BOOL") +
         "node { name: 'sw' op: 'Switch' input: 'x' input: 'pred' "
         "attr { key: 'T' value { type: DT_FLOAT } } }\n" +
         Binary("f", "AddV2", "sw", "sw") + Binary("t", "Mul", "sw:1", "sw:1") +
         "node { name: 'm' op: 'Merge' input: 'f' input: 't' "
         "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'N' value { "
         "i: 2 } } }\n" +
         Retval("out", "m", 0) + Retval("idx", "m:1", 1, "DT_INT32");
}

TEST_CASE("executor takes the live branch of a Switch and Merges it",
          "[exec]") {
  auto exec = Make(CondGraph());
  Result t =
      RunOne(*exec, {Tensor::Scalar<float>(3), Tensor::Scalar<bool>(true)});
  REQUIRE(t.status.ok());
  CHECK(t.rets[0].scalar<float>() == 9);
  CHECK(t.rets[1].scalar<int32_t>() == 1);
  Result f =
      RunOne(*exec, {Tensor::Scalar<float>(3), Tensor::Scalar<bool>(false)});
  REQUIRE(f.status.ok());
  CHECK(f.rets[0].scalar<float>() == 6);
  CHECK(f.rets[1].scalar<int32_t>() == 0);
}

TEST_CASE("executor leaves a dead fetch without a value", "[exec]") {
  std::string g = Arg("x", 0) + Arg("pred", 1, "DT_BOOL") +
                  "node { name: 'sw' op: 'Switch' input: 'x' input: 'pred' "
                  "attr { key: 'T' value { type: DT_FLOAT } } }\n" +
                  Unary("t", "Identity", "sw:1") + Retval("out", "t", 0);
  auto exec = Make(g);
  Result r =
      RunOne(*exec, {Tensor::Scalar<float>(1), Tensor::Scalar<bool>(false)});
  CHECK(r.status.code() == Code::kInternal);
  CHECK(r.status.message() == "Retval[0] does not have value");
}

// while (i < n) { i += 1; v = v + v }: a lowered while loop.
std::string WhileGraph(int parallel_iterations,
                       const std::string& frame = "loop") {
  auto enter = [&](const std::string& name, const std::string& in,
                   const std::string& dtype, bool constant) {
    return "node { name: '" + name + "' op: 'Enter' input: '" + in +
           "' attr { key: 'T' value { type: " + dtype +
           " } } attr { key: 'frame_name' value { s: '" + frame +
           "' } } attr { key: 'is_constant' value { b: " +
           (constant ? "true" : "false") +
           " } } attr { key: 'parallel_iterations' value { i: " +
           std::to_string(parallel_iterations) + " } } }\n";
  };
  auto merge = [](const std::string& name, const std::string& a,
                  const std::string& b, const std::string& dtype) {
    return "node { name: '" + name + "' op: 'Merge' input: '" + a +
           "' input: '" + b + "' attr { key: 'T' value { type: " + dtype +
           " } } attr { key: 'N' value { i: 2 } } }\n";
  };
  auto sw = [](const std::string& name, const std::string& a,
               const std::string& dtype) {
    return "node { name: '" + name + "' op: 'Switch' input: '" + a +
           "' input: 'cond' attr { key: 'T' value { type: " + dtype +
           " } } }\n";
  };
  return Arg("x", 0) + Arg("n", 1, "DT_INT32") +
         ScalarConst("i0", "DT_INT32", "int_val: 0") +
         enter("e_i", "i0", "DT_INT32", false) +
         enter("e_v", "x", "DT_FLOAT", false) +
         enter("e_n", "n", "DT_INT32", true) +
         merge("m_i", "e_i", "next_i", "DT_INT32") +
         merge("m_v", "e_v", "next_v", "DT_FLOAT") +
         Binary("less", "Less", "m_i", "e_n", "DT_INT32") +
         "node { name: 'cond' op: 'LoopCond' input: 'less' }\n" +
         sw("s_i", "m_i", "DT_INT32") + sw("s_v", "m_v", "DT_FLOAT") +
         Unary("body_i", "Identity", "s_i:1", "DT_INT32") +
         Unary("body_v", "Identity", "s_v:1") +
         ScalarConst("one", "DT_INT32", "int_val: 1", "body_i") +
         Binary("add_i", "AddV2", "body_i", "one", "DT_INT32") +
         Binary("add_v", "AddV2", "body_v", "body_v") +
         Unary("next_i", "NextIteration", "add_i", "DT_INT32") +
         Unary("next_v", "NextIteration", "add_v") +
         Unary("exit_i", "Exit", "s_i", "DT_INT32") +
         Unary("exit_v", "Exit", "s_v") + Retval("out_v", "exit_v", 0) +
         Retval("out_i", "exit_i", 1, "DT_INT32");
}

TEST_CASE("executor runs a while loop through frames and iterations",
          "[exec]") {
  for (int pi : {1, 2, 10}) {
    INFO("parallel_iterations " << pi);
    auto exec = Make(WhileGraph(pi));
    Result r = RunOne(
        *exec, {Tensor::Scalar<float>(1.5f), Tensor::Scalar<int32_t>(6)});
    REQUIRE(r.status.ok());
    CHECK(r.rets[0].scalar<float>() == 1.5f * 64);
    CHECK(r.rets[1].scalar<int32_t>() == 6);
    ThreadPool pool(2);
    for (int rep = 0; rep < 20; ++rep) {
      Result p =
          RunOne(*exec, {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(10)},
                 &pool);
      REQUIRE(p.status.ok());
      CHECK(p.rets[0].scalar<float>() == 1024);
    }
  }
}

TEST_CASE("executor runs a loop that never iterates", "[exec]") {
  auto exec = Make(WhileGraph(10));
  Result r =
      RunOne(*exec, {Tensor::Scalar<float>(2), Tensor::Scalar<int32_t>(0)});
  REQUIRE(r.status.ok());
  CHECK(r.rets[0].scalar<float>() == 2);
  CHECK(r.rets[1].scalar<int32_t>() == 0);
}

// The attrs of a _Send/_Recv pair for `tensor_name` (incarnation 1, not
// client-terminated), as node text.
std::string TransferAttrs(const std::string& tensor_name,
                          const std::string& send_device,
                          const std::string& recv_device) {
  return "attr { key: 'tensor_name' value { s: '" + tensor_name +
         "' } } attr { key: 'send_device' value { s: '" + send_device +
         "' } } attr { key: 'recv_device' value { s: '" + recv_device +
         "' } } attr { key: 'send_device_incarnation' value { i: 1 } } "
         "attr { key: 'client_terminated' value { b: false } } ";
}

TEST_CASE("executor passes tensors between partitions through the rendezvous",
          "[exec]") {
  std::string send_attrs = TransferAttrs("edge_1_x", kCpu0, kCpu1);
  std::string p0 = Arg("x", 0) + Unary("sq", "Square", "x") +
                   "node { name: 'send' op: '_Send' input: 'sq' "
                   "attr { key: 'T' value { type: DT_FLOAT } } " +
                   send_attrs + "}\n";
  std::string p1 =
      "node { name: 'recv' op: '_Recv' "
      "attr { key: 'tensor_type' value { type: DT_FLOAT } } " +
      send_attrs + "}\n" + Unary("neg", "Neg", "recv") +
      Retval("out", "neg", 0);
  auto e0 = Make(p0, kCpu0);
  auto e1 = Make(p1, kCpu1);
  LocalRendezvous rendezvous;
  // The receiver starts first and waits.
  Result r1;
  std::thread t([&] { r1 = RunOne(*e1, {}, nullptr, &rendezvous); });
  Result r0 = RunOne(*e0, {Tensor::Scalar<float>(3)}, nullptr, &rendezvous);
  t.join();
  REQUIRE(r0.status.ok());
  REQUIRE(r1.status.ok());
  CHECK(r1.rets[0].scalar<float>() == -9);
}

// A Recv of graph `g` that the test thread completes with Send, outside any
// executor: which thread runs the rest of the step?
struct DoneThreadRun {
  int runner_calls = 0;
  bool done_on_sender = false;
  float out = 0;
};

DoneThreadRun RunRecvCompletedBySend(bool continue_on_done_thread) {
  std::string attrs = TransferAttrs("t", kCpu0, kCpu0);
  std::string g =
      "node { name: 'recv' op: '_Recv' "
      "attr { key: 'tensor_type' value { type: DT_FLOAT } } " +
      attrs + "}\n" + Unary("neg", "Neg", "recv") + Retval("out", "neg", 0);
  auto exec = Make(g);
  CallFrame frame({}, {tensorflow::DT_FLOAT});
  LocalRendezvous rendezvous;
  ResourceMgr resources;
  ThreadPool pool(1);
  DoneThreadRun run;
  std::atomic<int> runner_calls{0};
  Executor::Args args;
  args.call_frame = &frame;
  args.rendezvous = &rendezvous;
  args.resource_mgr = &resources;
  args.runner = [&](std::function<void()> fn) {
    runner_calls++;
    pool.Schedule(std::move(fn));
  };
  args.continue_on_done_thread = continue_on_done_thread;
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Status status;
  std::thread::id done_thread;
  exec->RunAsync(args, [&](const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    status = s;
    done_thread = std::this_thread::get_id();
    finished = true;
    cv.notify_all();
  });
  ParsedKey key;
  REQUIRE(ParseKey(CreateKey(kCpu0, 1, kCpu0, "t", {}), &key).ok());
  REQUIRE(rendezvous.Send(key, Tensor::Scalar<float>(2), false).ok());
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  REQUIRE(status.ok());
  std::vector<Tensor> rets;
  REQUIRE(frame.ConsumeRetvals(&rets).ok());
  run.out = rets[0].scalar<float>();
  run.runner_calls = runner_calls.load();
  run.done_on_sender = done_thread == std::this_thread::get_id();
  return run;
}

TEST_CASE(
    "continue_on_done_thread: nodes after a recv run on the thread that "
    "completed it",
    "[exec]") {
  DoneThreadRun on = RunRecvCompletedBySend(true);
  CHECK(on.out == -2);
  CHECK(on.runner_calls == 0);
  CHECK(on.done_on_sender);
  DoneThreadRun off = RunRecvCompletedBySend(false);
  CHECK(off.out == -2);
  CHECK(off.runner_calls > 0);
  CHECK_FALSE(off.done_on_sender);
}

TEST_CASE("executor fails a recv whose dtype differs from the send", "[exec]") {
  std::string attrs = TransferAttrs("t", kCpu0, kCpu0);
  std::string g =
      "node { name: 'recv' op: '_Recv' "
      "attr { key: 'tensor_type' value { type: DT_INT32 } } " +
      attrs + "}\n" + Retval("out", "recv", 0, "DT_INT32");
  auto exec = Make(g);
  LocalRendezvous rendezvous;
  ParsedKey key;
  REQUIRE(ParseKey(CreateKey(kCpu0, 1, kCpu0, "t", {}), &key).ok());
  REQUIRE(rendezvous.Send(key, Tensor::Scalar<float>(1), false).ok());
  Result r = RunOne(*exec, {}, nullptr, &rendezvous);
  CHECK(r.status.code() == Code::kInternal);
  CHECK_THAT(r.status.message(),
             Catch::Matchers::Contains("[[{{node recv}}]]"));
}

TEST_CASE("executor returns the abort status of its rendezvous", "[exec]") {
  std::string attrs = TransferAttrs("never", kCpu0, kCpu0);
  std::string g =
      "node { name: 'recv' op: '_Recv' "
      "attr { key: 'tensor_type' value { type: DT_FLOAT } } " +
      attrs + "}\n" + Retval("out", "recv", 0);
  auto exec = Make(g);
  LocalRendezvous rendezvous;
  rendezvous.StartAbort(Aborted("stopped by test"));
  Result r = RunOne(*exec, {}, nullptr, &rendezvous);
  CHECK(r.status.code() == Code::kAborted);
  CHECK_THAT(r.status.message(), Catch::Matchers::Contains("stopped by test"));
}

TEST_CASE("executor names the node of a failing kernel", "[exec]") {
  std::string g = Arg("a", 0) + Arg("b", 1) + Binary("add", "AddV2", "a", "b") +
                  Retval("out", "add", 0);
  auto exec = Make(g);
  Tensor a(tensorflow::DT_FLOAT, TensorShape({2}));
  Tensor b(tensorflow::DT_FLOAT, TensorShape({3}));
  Result r = RunOne(*exec, {a, b});
  CHECK(r.status.code() == Code::kInvalidArgument);
  CHECK_THAT(r.status.message(),
             Catch::Matchers::Contains("Incompatible shapes"));
  CHECK_THAT(r.status.message(), Catch::Matchers::Contains("[[{{node add}}]]"));
}

TEST_CASE("executor creation fails for an op without a kernel", "[exec]") {
  std::string g = Arg("a", 0, "DT_HALF") +
                  Unary("w", "Erfinv", "a", "DT_HALF") +
                  Retval("out", "w", 0, "DT_HALF");
  // Erfinv's kernels are float and double only (as TensorFlow's): a known
  // op without a kernel for half.
  auto graph = ImportGraphDef(testing::ParseTextProto<GraphDef>(g));
  REQUIRE(graph.ok());
  auto exec = Executor::Create(std::move(graph).value(), CpuOptions());
  REQUIRE_FALSE(exec.ok());
  CHECK_THAT(exec.status().message(),
             Catch::Matchers::Contains(
                 "No OpKernel was registered to support Op 'Erfinv'"));
  CHECK_THAT(exec.status().message(), Catch::Matchers::Contains("{{node w}}"));
}

TEST_CASE("executor fails a kernel over the step's memory budget", "[exec]") {
  std::string g = Arg("dims", 0, "DT_INT32") + Arg("v", 1) +
                  "node { name: 'fill' op: 'Fill' input: 'dims' input: 'v' "
                  "attr { key: 'T' value { type: DT_FLOAT } } "
                  "attr { key: 'index_type' value { type: DT_INT32 } } }\n" +
                  Retval("out", "fill", 0);
  auto exec = Make(g);
  MemoryBudgetRef budget(MemoryBudget::New(1000));
  Result r =
      RunOne(*exec, {Tensor::Vector<int32_t>({1000}), Tensor::Scalar<float>(1)},
             nullptr, nullptr, budget.get());
  CHECK(r.status.code() == Code::kResourceExhausted);
  CHECK_THAT(r.status.message(),
             Catch::Matchers::Contains(
                 "OOM when allocating tensor with shape[1000] and type float"));
  CHECK_THAT(r.status.message(), Catch::Matchers::Contains("{{node fill}}"));
  {
    Result fits = RunOne(
        *exec, {Tensor::Vector<int32_t>({100}), Tensor::Scalar<float>(1)},
        nullptr, nullptr, budget.get());
    REQUIRE(fits.status.ok());
    CHECK(budget->used() >= 400);  // the result is charged while it lives
  }
  CHECK(budget->used() == 0);
}

TEST_CASE("executor fails a step whose tensor no allocator gives", "[exec]") {
  // 2^62 floats, without a budget: TensorFlow's OOM error, no abort.
  std::string g = Arg("dims", 0, "DT_INT64") + Arg("v", 1) +
                  "node { name: 'fill' op: 'Fill' input: 'dims' input: 'v' "
                  "attr { key: 'T' value { type: DT_FLOAT } } "
                  "attr { key: 'index_type' value { type: DT_INT64 } } }\n" +
                  Retval("out", "fill", 0);
  auto exec = Make(g);
  Result r =
      RunOne(*exec, {Tensor::Vector<int64_t>({int64_t{1} << 40, 1 << 22}),
                     Tensor::Scalar<float>(1)});
  CHECK(r.status.code() == Code::kResourceExhausted);
  CHECK_THAT(r.status.message(),
             Catch::Matchers::Contains("OOM when allocating tensor"));
}

}  // namespace
}  // namespace dfg
