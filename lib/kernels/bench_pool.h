// A small fixed thread pool for the kernel benchmarks (ParallelFor and
// ParallelGemm need one; lib/exec's pool is out of reach of lib/kernels).
#ifndef DFG_LIB_KERNELS_BENCH_POOL_H_
#define DFG_LIB_KERNELS_BENCH_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/kernels/intra_op_pool.h"

namespace dfg {

class BenchPool : public ThreadPoolInterface {
 public:
  explicit BenchPool(int n) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Loop(); });
  }
  ~BenchPool() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void Schedule(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(fn));
    }
    cv_.notify_one();
  }
  int NumThreads() const override { return static_cast<int>(threads_.size()); }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        fn = std::move(queue_.front());
        queue_.pop_front();
      }
      fn();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_BENCH_POOL_H_
