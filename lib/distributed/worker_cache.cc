#include "lib/distributed/worker_cache.h"

#include "lib/distributed/cluster_spec.h"

namespace dfg {

WorkerCache::WorkerCache(tensorflow::ClusterDef cluster, TlsOptions tls)
    : cluster_(std::move(cluster)), tls_(std::move(tls)) {}

StatusOr<WorkerStubs*> WorkerCache::Get(const std::string& task_or_device) {
  DFG_ASSIGN_OR_RETURN(std::string task, TaskOfDevice(task_or_device));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = stubs_.find(task);
  if (it != stubs_.end()) return it->second.get();
  DFG_ASSIGN_OR_RETURN(std::string address, TaskAddress(cluster_, task));
  DFG_ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> channel,
                       NewChannel(address, tls_));
  auto stubs = std::make_unique<WorkerStubs>();
  stubs->task = task;
  stubs->address = address;
  stubs->stub = tensorflow::WorkerService::NewStub(channel);
  stubs->generic = std::make_unique<grpc::GenericStub>(channel);
  WorkerStubs* out = stubs.get();
  stubs_[task] = std::move(stubs);
  return out;
}

CompletionLoop* WorkerCache::loop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (loop_ == nullptr) {
    own_loop_ = std::make_unique<CompletionLoop>(
        std::make_unique<grpc::CompletionQueue>());
    loop_ = own_loop_.get();
  }
  return loop_;
}

void WorkerCache::SetLoop(CompletionLoop* loop) {
  std::lock_guard<std::mutex> lock(mu_);
  loop_ = loop;
}

}  // namespace dfg
