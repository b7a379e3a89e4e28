#include "lib/distributed/completion_loop.h"

namespace dfg {

CompletionLoop::CompletionLoop(std::unique_ptr<grpc::CompletionQueue> cq)
    : cq_(std::move(cq)) {
  thread_ = std::thread([this] {
    void* tag = nullptr;
    bool ok = false;
    while (cq_->Next(&tag, &ok)) static_cast<CqTag*>(tag)->OnEvent(ok);
  });
}

CompletionLoop::~CompletionLoop() { Shutdown(); }

bool CompletionLoop::Start(
    const std::function<void(grpc::CompletionQueue*)>& start) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shut_down_) return false;
  start(cq_.get());
  return true;
}

void CompletionLoop::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_) return;
    shut_down_ = true;
    cq_->Shutdown();
  }
  thread_.join();
}

}  // namespace dfg
