// The rendezvous of one step on one worker (TensorFlow's
// RpcRemoteRendezvous): Send stores locally and never blocks; a Recv whose
// sending device lives on another task asks that task for the tensor with a
// RecvTensor call (the receiver pulls); a Recv from a local device waits
// locally. StartAbort fails local waiters and cancels calls in flight.
//
// RendezvousMgr keeps one per step id, made on first use (a RecvTensor may
// arrive before the RunGraph of its step) and dropped by CleanupGraph.
#ifndef DFG_LIB_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
#define DFG_LIB_DISTRIBUTED_REMOTE_RENDEZVOUS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "lib/distributed/worker_cache.h"
#include "lib/exec/rendezvous.h"

namespace dfg {

class RemoteRendezvous : public RendezvousInterface,
                         public std::enable_shared_from_this<RemoteRendezvous> {
 public:
  // `local_task`: "/job:J/replica:R/task:T" of this worker.
  RemoteRendezvous(int64_t step_id, std::string local_task,
                   WorkerCache* cache);  // Not owned.
  ~RemoteRendezvous() override;

  Status Send(const ParsedKey& key, const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;

  // Receives from the local table only (the RecvTensor service).
  void RecvLocalAsync(const ParsedKey& key, DoneCallback done);

  int64_t step_id() const { return step_id_; }

 private:
  struct Call;
  void RecvRemote(const ParsedKey& key, DoneCallback done);

  const int64_t step_id_;
  const std::string local_task_;
  WorkerCache* const cache_;
  LocalRendezvous local_;
  std::mutex mu_;
  std::set<Call*> calls_;  // guarded by mu_
  Status aborted_;         // guarded by mu_
};

class RendezvousMgr {
 public:
  RendezvousMgr(std::string local_task, WorkerCache* cache);
  // The step's rendezvous, made if absent.
  std::shared_ptr<RemoteRendezvous> Find(int64_t step_id);
  // Aborts the step's rendezvous (Cancelled "Cleanup <step_id>") and
  // forgets it.
  void Cleanup(int64_t step_id);
  void CleanupAll();
  // Steps with a rendezvous now (tests: the master cleans up every step).
  int size();

 private:
  const std::string local_task_;
  WorkerCache* const cache_;
  std::mutex mu_;
  std::map<int64_t, std::shared_ptr<RemoteRendezvous>> table_;  // guarded
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
