// Runs a step's partitions: one executor per partition graph, all on one
// step id and rendezvous, and a barrier that waits for every executor, keeps
// the first error and calls one `done` (the part TensorFlow writes twice, in
// DirectSession::RunInternal and GraphMgr::StartParallelExecutors). The
// local session runs a step synchronously (PartitionStep::Run); the
// distributed worker asynchronously (PartitionStep::Start), from a gRPC or
// completion-loop thread.
//
// On the first error (an executor's, or a Stop from outside: a deadline, a
// cancelled call) the step's rendezvous is aborted, so that the other
// executors' pending receives fail and the step ends. When every executor
// has finished, the step's own resources (the per-step container of each
// partition's ResourceMgr: TensorArrays, stacks) are removed, then `done`
// is called once.
#ifndef DFG_LIB_EXEC_PARTITION_RUNNER_H_
#define DFG_LIB_EXEC_PARTITION_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/exec/executor.h"
#include "lib/kernels/resource_mgr.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

// One partition's executor, and the ResourceMgr of its device.
struct PartitionExecutor {
  std::string device;  // full device name
  std::unique_ptr<Executor> executor;
  ResourceMgr* resources = nullptr;  // Not owned.
};

// Imports a partition graph (internal ops such as _Send/_Recv allowed),
// assigns each node the device it requests (partitioning placed them) and
// builds its executor for `device`, its kernels confined by `file_policy`
// (null: any path). Errors: those of ImportGraphDef and Executor::Create.
StatusOr<PartitionExecutor> CreatePartitionExecutor(
    const tensorflow::GraphDef& partition, const std::string& device,
    const std::string& device_type, ResourceMgr* resources,
    std::shared_ptr<const FilePolicy> file_policy = nullptr);
// The same, taking the nodes of `*partition` over instead of copying them
// (ImportGraphDef(GraphDef*)): `*partition` has no nodes afterwards.
StatusOr<PartitionExecutor> CreatePartitionExecutor(
    tensorflow::GraphDef* partition, const std::string& device,
    const std::string& device_type, ResourceMgr* resources,
    std::shared_ptr<const FilePolicy> file_policy = nullptr);
// The same for a graph already imported, every op node assigned to
// `device` (a session's client graph that needs no partitioning).
StatusOr<PartitionExecutor> CreatePartitionExecutor(
    std::unique_ptr<Graph> graph, const std::string& device,
    const std::string& device_type, ResourceMgr* resources,
    std::shared_ptr<const FilePolicy> file_policy = nullptr);

// Where PartitionStep::Start begins each executor (its root nodes run
// there, and inline successors after them).
enum class StartOn {
  kCaller,       // every executor on the calling thread, in order
  kPoolButLast,  // the last on the calling thread, the others on the pool
  kPool,         // every executor on the inter-op pool
};

struct PartitionStepArgs {
  int64_t step_id = 0;
  // Shared by the step's executors; must outlive `done`.
  RendezvousInterface* rendezvous = nullptr;  // Not owned.
  // The step's feeds and fetches; null when the partitions have no
  // _Arg/_Retval nodes.
  CallFrameInterface* call_frame = nullptr;  // Not owned.
  // Raised by Stop; the executors stop at their next node. Null: the step
  // keeps a flag of its own.
  std::atomic<bool>* cancelled = nullptr;  // Not owned.
  // Runs expensive nodes (and, by `start`, executors). Null: everything
  // runs inline on the calling thread; `start` must then be kCaller.
  ThreadPoolInterface* inter_op_pool = nullptr;  // Not owned.
  ThreadPoolInterface* intra_op_pool = nullptr;  // Not owned.
  ExecutionObserver* observer = nullptr;         // Not owned.
  MemoryBudget* memory_budget = nullptr;         // Not owned; may be null.
  // Executor::Args::continue_on_done_thread, for every executor.
  bool continue_on_done_thread = false;
  StartOn start = StartOn::kCaller;
};

// One step over a set of partition executors. The executors (and what
// `args` points to) must outlive the step's `done`; the PartitionStep
// object itself may go as soon as Start returns.
class PartitionStep {
 public:
  using Done = std::function<void(const Status&)>;

  PartitionStep(const std::vector<PartitionExecutor>& executors,
                const PartitionStepArgs& args);
  ~PartitionStep();
  PartitionStep(const PartitionStep&) = delete;
  PartitionStep& operator=(const PartitionStep&) = delete;

  // Starts every executor; `done` is called once, after the last one has
  // finished and the per-step containers are gone, with the first error or
  // OK (with no executors: at once, on this thread). Call at most once.
  void Start(Done done);
  // Start, then wait: a short poll (lib/base/poll.h: a step that ends on
  // another thread within microseconds costs no wake-up), then a sleep.
  Status Run();
  // Ends the step from outside (a deadline, a cancelled call): `why` becomes
  // the step's status unless an error came first, the cancellation flag is
  // raised and the rendezvous aborted. Thread-safe; any time before `done`
  // (later: no effect).
  void Stop(const Status& why);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace dfg

#endif  // DFG_LIB_EXEC_PARTITION_RUNNER_H_
