#include "lib/distributed/completion_loop.h"

namespace dfg {
namespace {

// The next event of `cq` (grpc::CompletionQueue::AsyncNext's result),
// waiting until `deadline`: polls the sockets without sleeping for `poll`
// first (PollFor), then blocks.
grpc::CompletionQueue::NextStatus NextEvent(grpc::CompletionQueue* cq,
                                            void** tag, bool* ok,
                                            std::chrono::microseconds poll,
                                            gpr_timespec deadline) {
  auto status = grpc::CompletionQueue::TIMEOUT;
  // A deadline in the past: one look at the sockets, without sleeping.
  if (poll.count() > 0 && PollFor(poll, [&] {
        status = cq->AsyncNext(tag, ok, gpr_time_0(GPR_CLOCK_MONOTONIC));
        return status != grpc::CompletionQueue::TIMEOUT;
      })) {
    return status;
  }
  return cq->AsyncNext(tag, ok, deadline);
}

}  // namespace

CompletionLoop::CompletionLoop(std::unique_ptr<grpc::CompletionQueue> cq,
                               std::chrono::microseconds poll)
    : cq_(std::move(cq)) {
  thread_ = std::thread([this, poll] { Run(poll); });
}

CompletionLoop::~CompletionLoop() { Shutdown(); }

void CompletionLoop::Run(std::chrono::microseconds poll) {
  const gpr_timespec forever = gpr_inf_future(GPR_CLOCK_REALTIME);
  // No poll before the first event: a loop that has served nothing sleeps.
  std::chrono::microseconds next_poll{0};
  while (true) {
    void* tag = nullptr;
    bool ok = false;
    auto status = NextEvent(cq_.get(), &tag, &ok, next_poll, forever);
    if (status == grpc::CompletionQueue::SHUTDOWN) return;
    if (status != grpc::CompletionQueue::GOT_EVENT) continue;
    static_cast<CqTag*>(tag)->OnEvent(ok);
    next_poll = poll;
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
