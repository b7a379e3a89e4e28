// The gRPC services: TensorFlow's WorkerService and MasterService method
// paths over a Worker and a Master, served with gRPC's async API on the
// server's CompletionLoop. Quick methods answer on the loop's thread;
// RunGraph and RunStep start their step there and finish when it ends (a
// cancelled call stops the step); methods that wait for other tasks or
// build graphs run on a pool. RecvTensor answers with hand-encoded bytes
// (tensor_coding.h).
#ifndef DFG_LIB_DISTRIBUTED_SERVICES_H_
#define DFG_LIB_DISTRIBUTED_SERVICES_H_

#include <grpcpp/grpcpp.h>

#include <memory>

#include "lib/distributed/completion_loop.h"
#include "lib/distributed/master.h"
#include "lib/distributed/worker.h"
#include "lib/exec/thread_pool.h"

namespace dfg {

class ServiceSet {
 public:
  virtual ~ServiceSet() = default;
  // To register with the ServerBuilder.
  virtual grpc::Service* service() = 0;
  // Once the server started: waits for calls of every method on `cq`,
  // which `loop` polls.
  virtual void Serve(CompletionLoop* loop, grpc::ServerCompletionQueue* cq) = 0;
};

// Not owned: `worker`, `master`, `pool`.
std::unique_ptr<ServiceSet> NewWorkerService(Worker* worker, ThreadPool* pool);
std::unique_ptr<ServiceSet> NewMasterService(Master* master, ThreadPool* pool);

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_SERVICES_H_
