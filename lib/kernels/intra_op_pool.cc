// ParallelFor: shards claimed through an atomic counter by the caller and by
// helper tasks on the pool, so a pool thread calling it never waits on work
// that is queued behind itself.
#include "lib/kernels/intra_op_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "lib/base/poll.h"

namespace dfg {
namespace {

// Below this many cycles of work (about 10 us), a hand-off costs more than it
// saves. Within a step a pool thread is polling (ThreadPool::StepStarted)
// and takes a shard within a microsecond; a sleeping one takes 15-40 us to
// wake on a virtual machine.
constexpr int64_t kMinCostPerShard = 30000;

struct ForState {
  const std::function<void(int64_t, int64_t)>* fn;
  int64_t total;
  int64_t shard_size;
  int64_t num_shards;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex mu;  // for cv; taken by the shard that finishes last
  std::condition_variable cv;

  bool Finished() const {
    return done.load(std::memory_order_acquire) == num_shards;
  }

  // Runs shards until none is left.
  void Work() {
    int64_t finished = 0;
    for (;;) {
      const int64_t shard = next.fetch_add(1, std::memory_order_relaxed);
      if (shard >= num_shards) break;
      const int64_t begin = shard * shard_size;
      (*fn)(begin, std::min(total, begin + shard_size));
      ++finished;
    }
    if (finished > 0 &&
        done.fetch_add(finished, std::memory_order_acq_rel) + finished ==
            num_shards) {
      std::lock_guard<std::mutex> lock(mu);
      cv.notify_all();
    }
  }
};

}  // namespace

void ParallelFor(ThreadPoolInterface* pool, int64_t total,
                 int64_t cost_per_unit,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  const int threads = pool ? pool->NumThreads() : 1;
  const int64_t cost = std::max<int64_t>(1, cost_per_unit);
  int64_t max_shards = std::max<int64_t>(1, total * cost / kMinCostPerShard);
  if (total * cost / kMinCostPerShard <= 0) max_shards = 1;
  const int64_t num_shards =
      std::min<int64_t>({max_shards, int64_t{threads} * 4, total});
  if (pool == nullptr || threads <= 1 || num_shards <= 1) {
    fn(0, total);
    return;
  }
  auto state = std::make_shared<ForState>();
  state->fn = &fn;
  state->total = total;
  state->shard_size = (total + num_shards - 1) / num_shards;
  state->num_shards = (total + state->shard_size - 1) / state->shard_size;
  // The caller works too: threads - 1 helpers make `threads` in all (one
  // more would share a core with them and hold a shard while descheduled).
  const int helpers =
      static_cast<int>(std::min<int64_t>(threads - 1, state->num_shards - 1));
  for (int i = 0; i < helpers; ++i) {
    pool->Schedule([state] { state->Work(); });
  }
  state->Work();
  // A helper finishing its shard is microseconds away: polling first spares
  // the caller a sleep and a wake-up that cost more than the shard.
  if (PollFor(kHandoffPoll, [&] { return state->Finished(); })) return;
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->Finished(); });
}

}  // namespace dfg
