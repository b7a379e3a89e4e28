// The intra-op thread pool as kernels see it, and ParallelFor over it.
//
// lib/exec owns the real pool and implements ThreadPoolInterface; kernels get
// it from the step (may be null: then everything runs on the caller).
#ifndef DFG_LIB_KERNELS_INTRA_OP_POOL_H_
#define DFG_LIB_KERNELS_INTRA_OP_POOL_H_

#include <cstdint>
#include <functional>

namespace dfg {

class ThreadPoolInterface {
 public:
  virtual ~ThreadPoolInterface() = default;
  // Runs `fn` on some pool thread, soon. Must not block.
  virtual void Schedule(std::function<void()> fn) = 0;
  virtual int NumThreads() const = 0;
  // A step that may call ParallelFor starts / ends (PartitionStep). While
  // one runs, an idle pool keeps a thread polling for the step's next
  // parallel op instead of sleeping (see ThreadPool).
  virtual void StepStarted() {}
  virtual void StepEnded() {}
};

// Calls fn(begin, end) over disjoint ranges covering [0, total) and returns
// when all have run. Splits only when total * cost_per_unit (roughly CPU
// cycles) is large enough to pay for the hand-off; shards are claimed through
// an atomic counter and the caller runs shards too, so it never deadlocks
// when called from a pool thread. The caller and NumThreads() - 1 helpers
// share the shards: NumThreads() threads in all, one per core the pool was
// sized for. `pool` may be null.
void ParallelFor(ThreadPoolInterface* pool, int64_t total,
                 int64_t cost_per_unit,
                 const std::function<void(int64_t begin, int64_t end)>& fn);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_INTRA_OP_POOL_H_
