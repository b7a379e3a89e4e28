// The master (TensorFlow's Master): sessions by handle, each a
// MasterSession over the cluster's workers; callables; ListDevices and
// Reset over every task.
#ifndef DFG_LIB_DISTRIBUTED_MASTER_H_
#define DFG_LIB_DISTRIBUTED_MASTER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lib/distributed/master_session.h"
#include "lib/distributed/worker.h"
#include "lib/proto/master.pb.h"

namespace dfg {

class Master {
 public:
  // `master_task`: "/job:J/replica:0/task:T" of this server; `local` (may
  // be null) is that task's worker, called directly instead of over gRPC;
  // `pool` builds the graphs of a step's first run.
  Master(WorkerCache* cache, std::string master_task, ThreadPool* pool,
         Worker* local = nullptr);  // Not owned.
  ~Master();

  Status CreateSession(const tensorflow::CreateSessionRequest& request,
                       tensorflow::CreateSessionResponse* response);
  Status ExtendSession(const tensorflow::ExtendSessionRequest& request,
                       tensorflow::ExtendSessionResponse* response);
  // RunStep and RunCallable start the step and return (see
  // MasterSession::RunAsync); `done` is called once, from any thread, after
  // `response` is filled. `request` and `response` must live until then.
  void RunStep(const tensorflow::RunStepRequest* request,
               tensorflow::RunStepResponse* response,
               std::shared_ptr<StepCancellation> cancel,
               std::function<void(const Status&)> done);
  Status CloseSession(const tensorflow::CloseSessionRequest& request,
                      tensorflow::CloseSessionResponse* response);
  Status ListDevices(const tensorflow::ListDevicesRequest& request,
                     tensorflow::ListDevicesResponse* response);
  Status Reset(const tensorflow::ResetRequest& request,
               tensorflow::ResetResponse* response);
  Status MakeCallable(const tensorflow::MakeCallableRequest& request,
                      tensorflow::MakeCallableResponse* response);
  void RunCallable(const tensorflow::RunCallableRequest* request,
                   tensorflow::RunCallableResponse* response,
                   std::shared_ptr<StepCancellation> cancel,
                   std::function<void(const Status&)> done);
  Status ReleaseCallable(const tensorflow::ReleaseCallableRequest& request,
                         tensorflow::ReleaseCallableResponse* response);

  // Closes every session (server shutdown).
  void CloseAll();

 private:
  struct Callable {
    std::vector<std::string> feeds, fetches, targets;
    int64_t timeout_ms = 0;
  };
  struct Entry {
    std::shared_ptr<MasterSession> session;
    std::map<int64_t, Callable> callables;
    int64_t next_callable = 0;
  };
  struct StepArgs;
  Status Find(const std::string& handle,
              std::shared_ptr<MasterSession>* session);
  int64_t StepMemoryLimit() const {
    return local_ != nullptr ? local_->step_memory_limit() : 0;
  }

  WorkerCache* const cache_;
  const std::string master_task_;
  ThreadPool* const pool_;
  Worker* const local_;
  std::mutex mu_;
  std::map<std::string, Entry> sessions_;  // guarded by mu_
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_MASTER_H_
