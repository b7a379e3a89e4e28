#include "lib/exec/partition_runner.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "lib/exec/call_frame.h"
#include "lib/exec/rendezvous.h"
#include "lib/exec/thread_pool.h"
#include "lib/kernels/step_container.h"
#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

PartitionExecutor Make(const std::string& text, const std::string& device,
                       ResourceMgr* resources) {
  auto exec = CreatePartitionExecutor(testing::ParseTextProto<GraphDef>(text),
                                      device, "CPU", resources);
  INFO(exec.status().ToString());
  REQUIRE(exec.ok());
  return std::move(exec).value();
}

std::string Arg(const std::string& name, int index) {
  return "node { name: '" + name +
         "' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } "
         "attr { key: 'index' value { i: " +
         std::to_string(index) + " } } }\n";
}

std::string Retval(const std::string& name, const std::string& input,
                   int index) {
  return "node { name: '" + name + "' op: '_Retval' input: '" + input +
         "' attr { key: 'T' value { type: DT_FLOAT } } "
         "attr { key: 'index' value { i: " +
         std::to_string(index) + " } } }\n";
}

std::string Unary(const std::string& name, const std::string& op,
                  const std::string& input) {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + input +
         "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
}

std::string ScalarConst(const std::string& name, float value) {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
         "attr { key: 'value' value { tensor { dtype: DT_FLOAT "
         "tensor_shape {} float_val: " +
         std::to_string(value) + " } } } }\n";
}

// a + b of the frame's args 0 and 1: fails when their shapes differ.
std::string Add(const std::string& name) {
  return Arg(name + "_a", 0) + Arg(name + "_b", 1) + "node { name: '" + name +
         "' op: 'AddV2' input: '" + name + "_a' input: '" + name +
         "_b' attr { key: 'T' value { type: DT_FLOAT } } }\n";
}

std::string TransferAttrs(const std::string& tensor_name) {
  return "attr { key: 'tensor_name' value { s: '" + tensor_name +
         "' } } attr { key: 'send_device' value { s: '" + kCpu0 +
         "' } } attr { key: 'recv_device' value { s: '" + kCpu1 +
         "' } } attr { key: 'send_device_incarnation' value { i: 1 } } "
         "attr { key: 'client_terminated' value { b: false } } ";
}

std::string Recv(const std::string& name, const std::string& tensor_name) {
  return "node { name: '" + name +
         "' op: '_Recv' attr { key: 'tensor_type' value { type: DT_FLOAT } } " +
         TransferAttrs(tensor_name) + "}\n";
}

std::string Send(const std::string& name, const std::string& input,
                 const std::string& tensor_name) {
  return "node { name: '" + name + "' op: '_Send' input: '" + input +
         "' attr { key: 'T' value { type: DT_FLOAT } } " +
         TransferAttrs(tensor_name) + "}\n";
}

// Records how `done` is called.
struct DoneLog {
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0;
  Status status;

  PartitionStep::Done Callback() {
    return [this](const Status& s) {
      std::lock_guard<std::mutex> lock(mu);
      ++calls;
      status = s;
      cv.notify_all();
    };
  }
  void WaitForCall() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return calls > 0; });
  }
};

TEST_CASE("partition step keeps the first error and aborts pending receives",
          "[exec]") {
  ResourceMgr resources;
  std::vector<PartitionExecutor> executors;
  // Waits for a value no partition sends: only an abort ends it.
  executors.push_back(Make(Recv("recv", "never") + Retval("out", "recv", 0),
                           kCpu1, &resources));
  executors.push_back(Make(Add("first"), kCpu0, &resources));
  executors.push_back(Make(Add("second"), kCpu0, &resources));
  CallFrame frame({tensorflow::DT_FLOAT, tensorflow::DT_FLOAT},
                  {tensorflow::DT_FLOAT});
  REQUIRE(frame
              .SetArgs({Tensor(tensorflow::DT_FLOAT, TensorShape({2})),
                        Tensor(tensorflow::DT_FLOAT, TensorShape({3}))})
              .ok());
  LocalRendezvous rendezvous;
  PartitionStepArgs args;
  args.rendezvous = &rendezvous;
  args.call_frame = &frame;
  // No pool: the executors start in order on this thread, deterministically.
  DoneLog log;
  PartitionStep(executors, args).Start(log.Callback());
  REQUIRE(log.calls == 1);
  CHECK(log.status.code() == Code::kInvalidArgument);
  CHECK_THAT(log.status.message(),
             Catch::Matchers::Contains("[[{{node first}}]]"));
  CHECK_FALSE(rendezvous.status().ok());
}

TEST_CASE("partition step with no partitions is done at once", "[exec]") {
  std::vector<PartitionExecutor> none;
  LocalRendezvous rendezvous;
  PartitionStepArgs args;
  args.rendezvous = &rendezvous;
  DoneLog log;
  PartitionStep(none, args).Start(log.Callback());
  CHECK(log.calls == 1);
  CHECK(log.status.ok());
  ThreadPool pool(2);
  args.inter_op_pool = &pool;
  args.start = StartOn::kPool;
  CHECK(PartitionStep(none, args).Run().ok());
}

TEST_CASE("partition step Stop cancels a waiting step once", "[exec]") {
  ResourceMgr resources;
  std::vector<PartitionExecutor> executors;
  executors.push_back(Make(Recv("recv", "never") + Retval("out", "recv", 0),
                           kCpu1, &resources));
  CallFrame frame({}, {tensorflow::DT_FLOAT});
  LocalRendezvous rendezvous;
  std::atomic<bool> cancelled{false};
  PartitionStepArgs args;
  args.rendezvous = &rendezvous;
  args.call_frame = &frame;
  args.cancelled = &cancelled;
  DoneLog log;
  PartitionStep step(executors, args);
  step.Start(log.Callback());
  REQUIRE(log.calls == 0);  // the Recv waits
  step.Stop(Cancelled("stopped by test"));
  REQUIRE(log.calls == 1);
  CHECK(log.status.code() == Code::kCancelled);
  CHECK(log.status.message() == "stopped by test");
  CHECK(cancelled.load());
  CHECK(rendezvous.status().code() == Code::kCancelled);
  // A stop after the end changes nothing.
  step.Stop(DeadlineExceeded("too late"));
  CHECK(log.calls == 1);
  CHECK(log.status.code() == Code::kCancelled);
}

TEST_CASE("partition step removes its step container when it ends", "[exec]") {
  ResourceMgr resources;
  REQUIRE(resources.LookupOrCreate(StepContainer(7), "ta", tensorflow::DT_FLOAT)
              .ok());
  REQUIRE(resources.LookupOrCreate(StepContainer(8), "ta", tensorflow::DT_FLOAT)
              .ok());
  REQUIRE(
      resources.LookupOrCreate("localhost", "v", tensorflow::DT_FLOAT).ok());
  std::vector<PartitionExecutor> executors;
  executors.push_back(
      Make(ScalarConst("c", 1) + Retval("out", "c", 0), kCpu0, &resources));
  CallFrame frame({}, {tensorflow::DT_FLOAT});
  LocalRendezvous rendezvous;
  PartitionStepArgs args;
  args.step_id = 7;
  args.rendezvous = &rendezvous;
  args.call_frame = &frame;
  REQUIRE(PartitionStep(executors, args).Run().ok());
  CHECK(resources.Lookup(StepContainer(7), "ta").status().code() ==
        Code::kNotFound);
  CHECK(resources.Lookup(StepContainer(8), "ta").ok());
  CHECK(resources.Lookup("localhost", "v").ok());
}

// Two independent partitions, each a Const fetched into the frame.
std::vector<PartitionExecutor> TwoConsts(ResourceMgr* resources) {
  std::vector<PartitionExecutor> executors;
  executors.push_back(
      Make(ScalarConst("c0", 1) + Retval("r0", "c0", 0), kCpu0, resources));
  executors.push_back(
      Make(ScalarConst("c1", 2) + Retval("r1", "c1", 1), kCpu1, resources));
  return executors;
}

// The pool thread (or -1: the caller) each Const ran on.
class ConstThreads : public ExecutionObserver {
 public:
  void NodeDone(const NodeExecRecord& record) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (record.node->op() == "Const") {
      threads_[record.node->name()] = record.thread_id;
    }
  }
  int thread(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    return threads_.at(name);
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> threads_;
};

int RunConstsFrom(StartOn start, ConstThreads* threads) {
  ResourceMgr resources;
  std::vector<PartitionExecutor> executors = TwoConsts(&resources);
  CallFrame frame({}, {tensorflow::DT_FLOAT, tensorflow::DT_FLOAT});
  LocalRendezvous rendezvous;
  ThreadPool pool(2);
  PartitionStepArgs args;
  args.rendezvous = &rendezvous;
  args.call_frame = &frame;
  args.inter_op_pool = &pool;
  args.observer = threads;
  args.start = start;
  Status s = PartitionStep(executors, args).Run();
  std::vector<Tensor> rets;
  if (s.ok()) s = frame.ConsumeRetvals(&rets);
  return s.ok() ? static_cast<int>(rets[0].scalar<float>() +
                                   10 * rets[1].scalar<float>())
                : -1;
}

TEST_CASE("partition step starts executors where StartOn says", "[exec]") {
  ConstThreads caller, but_last, pool;
  CHECK(RunConstsFrom(StartOn::kCaller, &caller) == 21);
  CHECK(caller.thread("c0") == -1);
  CHECK(caller.thread("c1") == -1);
  CHECK(RunConstsFrom(StartOn::kPoolButLast, &but_last) == 21);
  CHECK(but_last.thread("c0") >= 0);
  CHECK(but_last.thread("c1") == -1);
  CHECK(RunConstsFrom(StartOn::kPool, &pool) == 21);
  CHECK(pool.thread("c0") >= 0);
  CHECK(pool.thread("c1") >= 0);
}

// x -> Square -> (cpu:0 to cpu:1) -> Neg -> out, with a Stop racing the
// step from another thread (or none): `done` is called once either way.
TEST_CASE("partition step calls done once while a stop races it", "[exec]") {
  ResourceMgr resources;
  std::vector<PartitionExecutor> executors;
  executors.push_back(Make(
      Arg("x", 0) + Unary("sq", "Square", "x") + Send("send", "sq", "edge_1"),
      kCpu0, &resources));
  executors.push_back(Make(Recv("recv", "edge_1") +
                               Unary("neg", "Neg", "recv") +
                               Retval("out", "neg", 0),
                           kCpu1, &resources));
  ThreadPool pool(2);
  for (int i = 0; i < 200; ++i) {
    const bool stop = i % 2 == 1;
    CallFrame frame({tensorflow::DT_FLOAT}, {tensorflow::DT_FLOAT});
    REQUIRE(frame.SetArgs({Tensor::Scalar<float>(3)}).ok());
    LocalRendezvous rendezvous;
    PartitionStepArgs args;
    args.step_id = i;
    args.rendezvous = &rendezvous;
    args.call_frame = &frame;
    args.inter_op_pool = &pool;
    args.start = i % 4 < 2 ? StartOn::kPool : StartOn::kPoolButLast;
    DoneLog log;
    {
      PartitionStep step(executors, args);
      std::thread stopper;
      if (stop) {
        stopper = std::thread([&step] { step.Stop(Cancelled("raced")); });
      }
      step.Start(log.Callback());
      if (stop) stopper.join();
    }
    log.WaitForCall();
    // The pool may still be returning from the executors' last callbacks:
    // a second call would come before the pool drains.
    std::lock_guard<std::mutex> lock(log.mu);
    REQUIRE(log.calls == 1);
    if (log.status.ok()) {
      std::vector<Tensor> rets;
      REQUIRE(frame.ConsumeRetvals(&rets).ok());
      CHECK(rets[0].scalar<float>() == -9);
    } else {
      CHECK(stop);
      CHECK(log.status.message() == "raced");
    }
  }
}

}  // namespace
}  // namespace dfg
