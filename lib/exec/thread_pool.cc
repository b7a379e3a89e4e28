#include "lib/exec/thread_pool.h"

#include <utility>

namespace dfg {
namespace {
thread_local int current_thread_id = -1;
}  // namespace

ThreadPool::ThreadPool(int num_threads, std::chrono::microseconds poll)
    : poll_(poll) {
  if (num_threads < 1) num_threads = 1;
  threads_.reserve(num_threads);
  for (int i = 0; i < num_threads; ++i) {
    threads_.emplace_back([this, i] { WorkerLoop(i); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::Schedule(std::function<void()> fn) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
    queued_.store(queue_.size(), std::memory_order_relaxed);
    // A polling worker takes the work when it next looks (under mu_, after
    // this push); a sleeper is woken only for work beyond the pollers'.
    wake = queue_.size() > static_cast<size_t>(polling_);
  }
  if (wake) cv_.notify_one();
}

int ThreadPool::CurrentThreadId() { return current_thread_id; }

void ThreadPool::WorkerLoop(int index) {
  current_thread_id = index;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // One worker at a time polls (as in Eigen's pool); the others sleep.
    if (queue_.empty() && !stopping_ && poll_.count() > 0 && polling_ == 0) {
      ++polling_;
      lock.unlock();
      auto queued = [this] {
        return queued_.load(std::memory_order_relaxed) > 0;
      };
      if (!PollFor(poll_, queued) && poll_ < kStepPoll &&
          steps_.load(std::memory_order_relaxed) > 0) {
        PollFor(kStepPoll - poll_, [&] {
          return queued() || steps_.load(std::memory_order_relaxed) == 0;
        });
      }
      lock.lock();
      --polling_;
    }
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    std::function<void()> fn = std::move(queue_.front());
    queue_.pop_front();
    queued_.store(queue_.size(), std::memory_order_relaxed);
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace dfg
