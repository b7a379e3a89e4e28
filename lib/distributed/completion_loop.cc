#include "lib/distributed/completion_loop.h"

#include <sched.h>

namespace dfg {

grpc::CompletionQueue::NextStatus NextEvent(
    grpc::CompletionQueue* cq, void** tag, bool* ok,
    std::chrono::steady_clock::time_point poll_until, gpr_timespec deadline) {
  while (std::chrono::steady_clock::now() < poll_until) {
    // A deadline in the past: one look at the sockets, without sleeping.
    auto status = cq->AsyncNext(tag, ok, gpr_time_0(GPR_CLOCK_MONOTONIC));
    if (status != grpc::CompletionQueue::TIMEOUT) return status;
    sched_yield();
  }
  return cq->AsyncNext(tag, ok, deadline);
}

CompletionLoop::CompletionLoop(std::unique_ptr<grpc::CompletionQueue> cq,
                               std::chrono::microseconds busy_poll)
    : cq_(std::move(cq)) {
  thread_ = std::thread([this, busy_poll] { Run(busy_poll); });
}

CompletionLoop::~CompletionLoop() { Shutdown(); }

void CompletionLoop::Run(std::chrono::microseconds busy_poll) {
  const gpr_timespec forever = gpr_inf_future(GPR_CLOCK_REALTIME);
  auto poll_until = std::chrono::steady_clock::now();
  while (true) {
    void* tag = nullptr;
    bool ok = false;
    auto status = NextEvent(cq_.get(), &tag, &ok, poll_until, forever);
    if (status == grpc::CompletionQueue::SHUTDOWN) return;
    if (status != grpc::CompletionQueue::GOT_EVENT) continue;
    static_cast<CqTag*>(tag)->OnEvent(ok);
    poll_until = std::chrono::steady_clock::now() + busy_poll;
  }
}

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
