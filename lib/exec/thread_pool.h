// A fixed-size thread pool: the session's inter-op pool (executors run
// expensive nodes on it) and the kernels' intra-op pool.
//
// A worker that runs out of work polls the queue for a short while before it
// sleeps (lib/base/poll.h), one worker at a time; Schedule() wakes a sleeper
// only for work the polling worker cannot take. While a step runs
// (StepStarted), the polling worker keeps polling up to kStepPoll.
#ifndef DFG_LIB_EXEC_THREAD_POOL_H_
#define DFG_LIB_EXEC_THREAD_POOL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/base/poll.h"
#include "lib/kernels/intra_op_pool.h"

namespace dfg {

class ThreadPool : public ThreadPoolInterface {
 public:
  // Starts `num_threads` (>= 1) threads that poll for `poll` when idle.
  explicit ThreadPool(int num_threads,
                      std::chrono::microseconds poll = kHandoffPoll);
  // Runs every scheduled function, then joins.
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> fn) override;
  int NumThreads() const override { return static_cast<int>(threads_.size()); }
  void StepStarted() override {
    steps_.fetch_add(1, std::memory_order_relaxed);
  }
  void StepEnded() override { steps_.fetch_sub(1, std::memory_order_relaxed); }

  // The calling thread's index in its pool, or -1 outside any pool.
  static int CurrentThreadId();

 private:
  void WorkerLoop(int index);

  const std::chrono::microseconds poll_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  int polling_ = 0;                          // 0 or 1; guarded by mu_
  std::atomic<size_t> queued_{0};            // queue_.size(), read unlocked
  std::atomic<int> steps_{0};                // steps running (StepStarted)
  std::vector<std::thread> threads_;
};

}  // namespace dfg

#endif  // DFG_LIB_EXEC_THREAD_POOL_H_
