#include "lib/exec/partition_runner.h"

#include <condition_variable>
#include <mutex>
#include <utility>

#include "lib/base/poll.h"
#include "lib/graph/graph_import.h"
#include "lib/kernels/intra_op_pool.h"
#include "lib/kernels/step_container.h"

namespace dfg {

StatusOr<PartitionExecutor> CreatePartitionExecutor(
    const tensorflow::GraphDef& partition, const std::string& device,
    const std::string& device_type, ResourceMgr* resources,
    std::shared_ptr<const FilePolicy> file_policy) {
  tensorflow::GraphDef copy = partition;
  return CreatePartitionExecutor(&copy, device, device_type, resources,
                                 std::move(file_policy));
}

StatusOr<PartitionExecutor> CreatePartitionExecutor(
    tensorflow::GraphDef* partition, const std::string& device,
    const std::string& device_type, ResourceMgr* resources,
    std::shared_ptr<const FilePolicy> file_policy) {
  ImportOptions import_options;
  import_options.allow_internal_ops = true;
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                       ImportGraphDef(partition, import_options));
  for (Node* n : graph->op_nodes())
    n->set_assigned_device_name(n->requested_device());
  return CreatePartitionExecutor(std::move(graph), device, device_type,
                                 resources, std::move(file_policy));
}

StatusOr<PartitionExecutor> CreatePartitionExecutor(
    std::unique_ptr<Graph> graph, const std::string& device,
    const std::string& device_type, ResourceMgr* resources,
    std::shared_ptr<const FilePolicy> file_policy) {
  ExecutorOptions options;
  options.device = device;
  options.device_type = device_type;
  options.file_policy = std::move(file_policy);
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                       Executor::Create(std::move(graph), options));
  return PartitionExecutor{device, std::move(executor), resources};
}

// Shared by the PartitionStep and every executor's done callback, so that
// the step lives until the last of them has returned.
struct PartitionStep::State {
  const std::vector<PartitionExecutor>* executors;  // Not owned.
  PartitionStepArgs args;
  std::atomic<bool> own_cancelled{false};

  std::mutex mu;
  std::condition_variable cv;  // Run waits on it for `finished`
  // Executors not finished, plus one per Stop in progress: the step cannot
  // finish (and its rendezvous go) while an abort is under way.
  int pending = 0;  // guarded by mu
  Status status;    // the first error; guarded by mu
  Done done;        // set before the first executor starts
  // Set under mu after `done`; read without it while Run polls.
  std::atomic<bool> finished{false};

  void ExecutorDone(const Status& s);
  void Release();
  void Finish();
};

void PartitionStep::State::ExecutorDone(const Status& s) {
  if (!s.ok()) {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (status.ok()) {
        status = s;
        first = true;
      }
    }
    // Before this executor counts as finished: the rendezvous outlives the
    // step. (The executor aborted it already; this holds for any executor.)
    if (first) args.rendezvous->StartAbort(s);
  }
  Release();
}

void PartitionStep::State::Release() {
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    last = --pending == 0;
  }
  if (last) Finish();
}

void PartitionStep::State::Finish() {
  // The step's own resources (TensorArrays, stacks) end with it.
  for (const PartitionExecutor& pe : *executors) {
    if (pe.resources != nullptr) {
      pe.resources->Cleanup(StepContainer(args.step_id));
    }
  }
  Status s;
  {
    std::lock_guard<std::mutex> lock(mu);
    s = status;
  }
  if (args.intra_op_pool != nullptr) args.intra_op_pool->StepEnded();
  Done d = std::move(done);
  d(s);
}

PartitionStep::PartitionStep(const std::vector<PartitionExecutor>& executors,
                             const PartitionStepArgs& args)
    : state_(std::make_shared<State>()) {
  state_->executors = &executors;
  state_->args = args;
  if (state_->args.cancelled == nullptr) {
    state_->args.cancelled = &state_->own_cancelled;
  }
  state_->pending = static_cast<int>(executors.size());
}

PartitionStep::~PartitionStep() = default;

void PartitionStep::Start(Done done) {
  State* state = state_.get();
  const PartitionStepArgs& args = state->args;
  const std::vector<PartitionExecutor>& executors = *state->executors;
  state->done = std::move(done);
  if (args.intra_op_pool != nullptr) args.intra_op_pool->StepStarted();
  if (executors.empty()) {
    state->Finish();
    return;
  }
  Executor::Args a;
  a.step_id = args.step_id;
  a.rendezvous = args.rendezvous;
  a.call_frame = args.call_frame;
  a.cancelled = args.cancelled;
  a.intra_op_pool = args.intra_op_pool;
  a.observer = args.observer;
  a.memory_budget = args.memory_budget;
  a.continue_on_done_thread = args.continue_on_done_thread;
  ThreadPoolInterface* pool = args.inter_op_pool;
  if (pool != nullptr) {
    a.runner = [pool](std::function<void()> fn) {
      pool->Schedule(std::move(fn));
    };
  }
  auto executor_done = [keep = state_](const Status& s) {
    keep->ExecutorDone(s);
  };
  const size_t n = executors.size();
  for (size_t i = 0; i < n; ++i) {
    // Read before the executor starts: once the last has started the step
    // may end, and the executors go, before RunAsync returns.
    Executor* exec = executors[i].executor.get();
    a.resource_mgr = executors[i].resources;
    const bool here = pool == nullptr || args.start == StartOn::kCaller ||
                      (args.start == StartOn::kPoolButLast && i + 1 == n);
    if (here) {
      exec->RunAsync(a, executor_done);
    } else {
      pool->Schedule(
          [exec, a, executor_done] { exec->RunAsync(a, executor_done); });
    }
  }
}

Status PartitionStep::Run() {
  State* state = state_.get();
  Status result;
  Start([state, &result](const Status& s) {
    std::lock_guard<std::mutex> lock(state->mu);
    result = s;
    state->finished.store(true);
    state->cv.notify_all();
  });
  // A step that ends on another thread within microseconds is polled for.
  // Either way the wait ends under mu, so `done` has written `result`.
  PollFor(kHandoffPoll, [state] { return state->finished.load(); });
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [state] { return state->finished.load(); });
  return result;
}

void PartitionStep::Stop(const Status& why) {
  State* state = state_.get();
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (state->pending == 0) return;  // finished, or finishing
    ++state->pending;
    // Before the flag: an executor that sees it fails with its own
    // cancellation error, which must not win over `why`.
    if (state->status.ok()) state->status = why;
  }
  state->args.cancelled->store(true);
  state->args.rendezvous->StartAbort(why);
  state->Release();
}

}  // namespace dfg
