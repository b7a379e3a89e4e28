// One master session (TensorFlow's MasterSession): the session's graph,
// placed over the devices every task of the cluster reports (GetStatus),
// pruned per (feeds, fetches, targets) with client-terminated _Recv/_Send on
// the master's CPU:0, split by task (lib/pipeline composes these stages) and
// registered once per signature; a step is one RunGraph per task with one
// random step id, then CleanupGraph.
#ifndef DFG_LIB_DISTRIBUTED_MASTER_SESSION_H_
#define DFG_LIB_DISTRIBUTED_MASTER_SESSION_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/distributed/worker.h"
#include "lib/distributed/worker_cache.h"
#include "lib/exec/thread_pool.h"
#include "lib/graph/graph.h"
#include "lib/kernels/tensor.h"
#include "lib/pipeline/execution_state.h"
#include "lib/place/device_set.h"
#include "lib/proto/config.pb.h"
#include "lib/proto/device_attributes.pb.h"
#include "lib/proto/step_stats.pb.h"

namespace dfg {

// The devices of every task (GetStatus, `timeout_ms` each), the master's
// task first. Errors: a task that does not answer, named.
StatusOr<std::vector<tensorflow::DeviceAttributes>> DiscoverDevices(
    WorkerCache* cache, const std::string& master_task, int64_t timeout_ms);

// A caller's cancellation of its step: the server's call raises it, the
// running step stops on it.
class StepCancellation {
 public:
  // Idempotent; runs the action (once).
  void Cancel();
  // Sets the action; runs it at once if already cancelled.
  void OnCancel(std::function<void()> action);

 private:
  std::mutex mu_;
  bool cancelled_ = false;        // guarded by mu_
  std::function<void()> action_;  // guarded by mu_
};

// The master's placed graph: every node without a job goes to
// `master_task` first. Errors: ExecutionState::Create's.
StatusOr<std::unique_ptr<ExecutionState>> PlaceMasterGraph(
    tensorflow::GraphDef graph, const DeviceSet& devices,
    bool allow_soft_placement, const std::string& master_task);

struct MasterPartitionOptions {
  std::string client_device;  // the master task's CPU:0, full name
  uint64_t client_incarnation = 0;
  // Each device's incarnation, by full name (0 for one not listed).
  const std::map<std::string, uint64_t>* incarnations = nullptr;  // Not owned.
  // The session's counter of "<prefix>_S<k>" names.
  std::atomic<int64_t>* name_counter = nullptr;  // Not owned.
  // Run lib/optimize on the client graph (the session's ConfigProto
  // graph_options.rewrite_options.disable_meta_optimizer turns it off).
  bool optimize = true;
};

// How the master partitions: by worker, new names "<prefix>_S<k>", each
// device's send incarnation from `options` (they must outlive the result).
PartitionOptions MasterPartitioning(const MasterPartitionOptions& options);

// The graphs the master registers for one signature (feeds, fetches and
// targets sorted), by task: the client graph in the rendezvous convention,
// partitioned by worker. Errors: those of BuildClientGraph and
// PartitionClientGraph.
StatusOr<std::map<std::string, tensorflow::GraphDef>> MasterPartitions(
    const ExecutionState& state, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets,
    const MasterPartitionOptions& options);

class MasterSession {
 public:
  static StatusOr<std::unique_ptr<MasterSession>> Create(
      std::string handle, tensorflow::GraphDef graph,
      tensorflow::ConfigProto config, WorkerCache* cache,
      std::string master_task, ThreadPool* pool, Worker* local = nullptr);
  ~MasterSession();

  // Adds nodes. Errors: kFailedPrecondition on a version mismatch,
  // kInvalidArgument for a node name already in the graph.
  Status Extend(const tensorflow::GraphDef& nodes, int64_t current_version,
                int64_t* new_version);

  struct StepOptions {
    int64_t timeout_ms = 0;
    // When set, every task records the step's node statistics into it.
    tensorflow::StepStats* stats = nullptr;  // Not owned.
  };
  // One step, started now (on any thread, the loop's too: nothing here
  // blocks once the signature's graphs are registered; registering them the
  // first time runs on `pool`). `done` is called once, from any thread,
  // with `outputs` in fetch order; everything passed must live until then.
  // The first error of any task (named "From <task>:") is the result; the
  // others are cancelled, as on `cancel`, the timeout or Close.
  void RunAsync(const std::vector<std::pair<std::string, Tensor>>* feeds,
                const std::vector<std::string>* fetches,
                const std::vector<std::string>* targets,
                const StepOptions& options,
                std::shared_ptr<StepCancellation> cancel,
                std::vector<Tensor>* outputs,
                std::function<void(const Status&)> done);

  // Deregisters every graph and deletes the worker sessions.
  void Close();

  const std::string& handle() const { return handle_; }
  int64_t graph_version() const { return version_; }
  const std::vector<tensorflow::DeviceAttributes>& devices() const {
    return devices_;
  }

  struct Signature;
  struct Step;

 private:
  MasterSession() = default;
  // lib/pipeline's SignatureKey of the lists, sorted here.
  static std::string SignatureKey(std::vector<std::string> feeds,
                                  std::vector<std::string> fetches,
                                  std::vector<std::string> targets);
  // The signature if built already (never blocks); null if not. Errors: the
  // session is closed.
  StatusOr<std::shared_ptr<Signature>> CachedSignature(const std::string& key);
  // Builds and registers it if needed (blocks on the workers).
  StatusOr<std::shared_ptr<Signature>> GetSignature(
      std::vector<std::string> feeds, std::vector<std::string> fetches,
      std::vector<std::string> targets);
  // Stops every running step with `why`.
  void StopSteps(const Status& why);
  void StartStep(std::shared_ptr<Signature> sig,
                 const std::vector<std::pair<std::string, Tensor>>* feeds,
                 const std::vector<std::string>* fetches,
                 const StepOptions& options,
                 std::shared_ptr<StepCancellation> cancel,
                 std::vector<Tensor>* outputs,
                 std::function<void(const Status&)> done);
  Status EnsurePlaced();
  Status RegisterPart(const WorkerStubs& stubs,
                      const tensorflow::RegisterGraphRequest& request,
                      tensorflow::RegisterGraphResponse* response);
  StatusOr<std::shared_ptr<Signature>> Build(std::vector<std::string> feeds,
                                             std::vector<std::string> fetches,
                                             std::vector<std::string> targets);

  std::string handle_;
  std::string master_task_;
  std::string client_device_;
  uint64_t client_incarnation_ = 0;
  WorkerCache* cache_ = nullptr;  // Not owned.
  ThreadPool* pool_ = nullptr;    // Not owned.
  Worker* local_ = nullptr;       // Not owned; the master task's worker
  tensorflow::ConfigProto config_;
  std::vector<tensorflow::DeviceAttributes> devices_;
  std::map<std::string, uint64_t> incarnations_;  // by full name
  DeviceSet device_set_;
  std::vector<std::string> tasks_;  // every task with a worker session
  std::atomic<int64_t> name_counter_{0};

  // Steps running now, stopped by Close.
  std::mutex steps_mu_;
  std::set<Step*> steps_;  // guarded by steps_mu_

  // Lookups of built signatures (cache_map_) take sig_mu_ only, never held
  // while a call is made; mu_ is held while building.
  std::mutex sig_mu_;
  std::mutex mu_;
  tensorflow::GraphDef graph_;  // guarded by mu_
  int64_t version_ = 0;         // guarded by mu_
  // The placed graph of version_; null until a step needs it.
  std::unique_ptr<ExecutionState> state_;  // guarded by mu_
  // Guarded by sig_mu_ (written with mu_ held too).
  std::map<std::string, std::shared_ptr<Signature>> cache_map_;
  bool closed_ = false;  // written with mu_ and sig_mu_ held
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_MASTER_SESSION_H_
