// Stubs for the workers of a cluster, one channel per task, made on first
// use and kept (TensorFlow's GrpcWorkerCache).
#ifndef DFG_LIB_DISTRIBUTED_WORKER_CACHE_H_
#define DFG_LIB_DISTRIBUTED_WORKER_CACHE_H_

#include <grpcpp/generic/generic_stub.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "lib/base/status.h"
#include "lib/distributed/completion_loop.h"
#include "lib/distributed/grpc_util.h"
#include "lib/distributed/worker_service.grpc.pb.h"
#include "lib/proto/cluster.pb.h"

namespace dfg {

// The hand-written method path TensorFlow uses for RecvTensor.
inline constexpr char kRecvTensorMethod[] =
    "/tensorflow.WorkerService/RecvTensor";

struct WorkerStubs {
  std::string task;     // "/job:J/replica:0/task:T"
  std::string address;  // host:port
  std::unique_ptr<tensorflow::WorkerService::Stub> stub;
  std::unique_ptr<grpc::GenericStub> generic;  // RecvTensor as raw bytes
};

class WorkerCache {
 public:
  WorkerCache(tensorflow::ClusterDef cluster, TlsOptions tls);

  // The stubs of a task ("/job:J/replica:R/task:T" or any device name in
  // it). Errors (kInvalidArgument): the task is not in the cluster.
  StatusOr<WorkerStubs*> Get(const std::string& task_or_device);

  const tensorflow::ClusterDef& cluster() const { return cluster_; }

  // The loop that completes the async calls to the workers: the server's
  // (SetLoop, before the first call), or one of the cache's own.
  CompletionLoop* loop();
  void SetLoop(CompletionLoop* loop);  // Not owned.

 private:
  const tensorflow::ClusterDef cluster_;
  const TlsOptions tls_;
  std::mutex mu_;
  CompletionLoop* loop_ = nullptr;                             // guarded by mu_
  std::unique_ptr<CompletionLoop> own_loop_;                   // guarded by mu_
  std::map<std::string, std::unique_ptr<WorkerStubs>> stubs_;  // guarded by mu_
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_WORKER_CACHE_H_
