// A fixed-size thread pool: the session's inter-op pool (executors run
// expensive nodes on it) and the kernels' intra-op pool.
#ifndef DFG_LIB_EXEC_THREAD_POOL_H_
#define DFG_LIB_EXEC_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/kernels/intra_op_pool.h"

namespace dfg {

class ThreadPool : public ThreadPoolInterface {
 public:
  // Starts `num_threads` (>= 1) threads.
  explicit ThreadPool(int num_threads);
  // Runs every scheduled function, then joins.
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> fn) override;
  int NumThreads() const override { return static_cast<int>(threads_.size()); }

  // The calling thread's index in its pool, or -1 outside any pool.
  static int CurrentThreadId();

 private:
  void WorkerLoop(int index);

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace dfg

#endif  // DFG_LIB_EXEC_THREAD_POOL_H_
