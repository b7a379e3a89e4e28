// The worker side of TensorFlow's distributed runtime (GrpcWorker +
// GraphMgr + SessionMgr), transport aside: devices and incarnations, worker
// sessions, registered graphs (each split again per local device, one
// executor per device), steps run with a RemoteRendezvous, and RecvTensor
// answered from the step's local table.
//
// Errors use TensorFlow's wording: an unknown graph handle is kAborted
// "Graph handle is not found: <h>. Possibly this worker just restarted.",
// an unknown session kAborted "Session handle is not found: <h>. Possibly
// this worker (\"<task>\") just restarted.", a key with another incarnation
// kAborted "RecvTensor expects a different device incarnation: ...".
#ifndef DFG_LIB_DISTRIBUTED_WORKER_H_
#define DFG_LIB_DISTRIBUTED_WORKER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/distributed/grpc_util.h"
#include "lib/distributed/remote_rendezvous.h"
#include "lib/distributed/worker_cache.h"
#include "lib/exec/partition_runner.h"
#include "lib/exec/thread_pool.h"
#include "lib/kernels/file_policy.h"
#include "lib/kernels/memory_budget.h"
#include "lib/proto/worker.pb.h"

namespace dfg {

struct WorkerOptions {
  tensorflow::ClusterDef cluster;
  std::string job = "worker";
  int task = 0;
  int num_cpus = 1;          // CPU:0 .. CPU:n-1
  int inter_op_threads = 0;  // 0: the number of cores
  int intra_op_threads = 0;  // 0: the number of cores
  TlsOptions tls;            // for calls to other tasks
  // The bytes of tensors one RunGraph may hold at once (its feeds and what
  // its kernels allocate): more fails the step with kResourceExhausted.
  // 0: no limit.
  int64_t step_memory_limit = 0;
  // The paths the graphs' file ops may touch (dfg server --allow-path).
  // Null: none (graphs come from the network; see FilePolicy).
  std::shared_ptr<const FilePolicy> file_policy;
};

// The policy of a server that allows `dirs` (none: no path at all); its
// refusals name the --allow-path flag. Errors: FilePolicy::Create's.
StatusOr<std::shared_ptr<const FilePolicy>> ServerFilePolicy(
    const std::vector<std::string>& dirs);

class Worker {
 public:
  explicit Worker(WorkerOptions options);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  const std::string& task_name() const { return task_name_; }
  // WorkerOptions::step_memory_limit (the master limits its feeds too).
  int64_t step_memory_limit() const { return options_.step_memory_limit; }
  const std::vector<tensorflow::DeviceAttributes>& devices() const {
    return devices_;
  }
  WorkerCache* cache() { return &cache_; }

  Status GetStatus(const tensorflow::GetStatusRequest& request,
                   tensorflow::GetStatusResponse* response);
  Status CreateWorkerSession(
      const tensorflow::CreateWorkerSessionRequest& request,
      tensorflow::CreateWorkerSessionResponse* response);
  Status DeleteWorkerSession(
      const tensorflow::DeleteWorkerSessionRequest& request,
      tensorflow::DeleteWorkerSessionResponse* response);
  Status RegisterGraph(const tensorflow::RegisterGraphRequest& request,
                       tensorflow::RegisterGraphResponse* response);
  Status DeregisterGraph(const tensorflow::DeregisterGraphRequest& request,
                         tensorflow::DeregisterGraphResponse* response);
  // Runs the step; `done` is called once with its status, after `response`
  // holds the tensors of every recv_key. Both must outlive the call.
  void RunGraph(const tensorflow::RunGraphRequest* request,
                tensorflow::RunGraphResponse* response,
                std::function<void(const Status&)> done);
  // Cancels a running step (its RunGraph call was cancelled).
  void AbortStep(int64_t step_id, const Status& status);
  // Cancels every running step and fails every parked RecvTensor.
  void AbortAll();
  Status CleanupGraph(const tensorflow::CleanupGraphRequest& request,
                      tensorflow::CleanupGraphResponse* response);
  Status CleanupAll(const tensorflow::CleanupAllRequest& request,
                    tensorflow::CleanupAllResponse* response);
  using RecvDone =
      std::function<void(const Status&, const Tensor& value, bool is_dead)>;
  void RecvTensor(const tensorflow::RecvTensorRequest& request, RecvDone done);
  // A RecvTensor call of `step_id` that its caller cancelled (or whose
  // deadline passed): as TensorFlow's worker does, the step's rendezvous is
  // aborted, which ends the call's wait; a rendezvous no running step holds
  // (made by RecvTensor calls alone) is forgotten as well. The error names
  // the receiving device of `rendezvous_key` (the task that went away or
  // gave up), so that a step failing this way says which task it lost.
  void RecvTensorCancelled(int64_t step_id, const std::string& rendezvous_key);

  // Steps running now (tests: a cancelled step leaves none).
  int num_running_steps();
  // Graphs registered in every session (tests: CloseSession leaves none).
  int num_registered_graphs();
  // Steps whose rendezvous CleanupGraph has not dropped yet.
  int num_step_rendezvous();

  struct GraphItem;
  struct WorkerSession;

 private:
  StatusOr<std::shared_ptr<WorkerSession>> FindSession(
      const std::string& handle, bool create_worker_session_called);
  StatusOr<std::shared_ptr<GraphItem>> FindGraph(
      const tensorflow::RunGraphRequest& request);
  Status SendFeeds(const tensorflow::RunGraphRequest& request,
                   RemoteRendezvous* rendezvous);
  StatusOr<std::shared_ptr<GraphItem>> BuildGraphItem(
      const tensorflow::GraphDef& graph, WorkerSession* session);
  // Runs the graph's executors for the request's step, then FinishStep.
  void StartExecutors(const tensorflow::RunGraphRequest* request,
                      tensorflow::RunGraphResponse* response,
                      std::shared_ptr<GraphItem> item,
                      std::shared_ptr<RemoteRendezvous> rendezvous,
                      MemoryBudgetRef budget,
                      std::function<void(const Status&)> done);
  void FinishStep(const tensorflow::RunGraphRequest* request,
                  tensorflow::RunGraphResponse* response,
                  std::shared_ptr<RemoteRendezvous> rendezvous, Status status,
                  std::function<void(const Status&)> done);

  const WorkerOptions options_;
  const std::string task_name_;
  std::shared_ptr<const FilePolicy> file_policy_;  // never null
  std::vector<tensorflow::DeviceAttributes> devices_;
  std::map<std::string, uint64_t> incarnations_;  // full and legacy names
  WorkerCache cache_;
  RendezvousMgr rendezvous_mgr_;
  std::unique_ptr<ThreadPool> inter_op_pool_;
  std::unique_ptr<ThreadPool> intra_op_pool_;
  std::atomic<int64_t> name_counter_{0};
  std::atomic<uint64_t> next_handle_{1};

  // A running step. AbortStep ends it through PartitionStep::Stop, so
  // that the reason (a peer that went away, a shutdown) is the step's
  // error rather than the executors' bare "Step was cancelled".
  struct StepState {
    std::atomic<bool> cancelled{false};
    std::shared_ptr<RemoteRendezvous> rendezvous;
    MemoryBudgetRef budget;  // null without a limit
    // Set before the step is registered in steps_.
    std::unique_ptr<PartitionStep> run;
  };
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<WorkerSession>> sessions_;  // guarded
  std::multimap<int64_t, std::shared_ptr<StepState>> steps_;        // guarded
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_WORKER_H_
