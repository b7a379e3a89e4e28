// Busy polling before sleeping. A thread that waits for another's work in a
// short burst (a step's next message, the executor's next node) and sleeps
// pays for its wake-up: the waker's futex or socket wake, the scheduler, and
// on a virtual machine the hypervisor waking an idle virtual CPU (tens of
// microseconds each). Polling a little first lets the work arrive while the
// thread is still awake; the budget is short, so an idle process still
// sleeps. Eigen's pool (under TensorFlow's executor) and OpenMP runtimes do
// the same.
//
// Polling pays only while the machine has idle cores. A poll never yields
// the CPU (sched_yield): a thread that yields to a busy thread of another
// process is runnable but not running when its work arrives, and may wait a
// whole scheduler slice (milliseconds) to notice.
#ifndef DFG_LIB_BASE_POLL_H_
#define DFG_LIB_BASE_POLL_H_

#include <chrono>

namespace dfg {

// How long a thread waiting for another process (a step's next message)
// polls before it sleeps, by default.
inline constexpr std::chrono::microseconds kIdlePoll{50};
// How long a thread waiting for another thread of its process (the pool's
// next function, a step's executors) polls: handoffs within a process take
// microseconds, and a shorter poll takes less from a busy machine.
inline constexpr std::chrono::microseconds kHandoffPoll{20};
// How long an intra-op pool thread polls for the next parallel op while a
// step runs: a model's parallel ops come every 10-200 us with serial work
// between them, and a worker that slept would make each pay a wake-up
// (15-40 us on a virtual machine) that costs more than the op's second
// half. Bounded, so a step that waits (on a queue, the network) leaves the
// core after a millisecond.
inline constexpr std::chrono::microseconds kStepPoll{1000};

// A pause of a few dozen cycles between looks: it leaves the core's
// resources to its sibling hyper-thread and keeps the look cheap.
inline void PollPause() {
  for (int i = 0; i < 16; ++i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
}

// Calls `ready` until it returns true or `budget` has passed, pausing
// between calls. Returns the last result of `ready`.
template <typename Ready>
bool PollFor(std::chrono::microseconds budget, Ready&& ready) {
  if (ready()) return true;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < budget) {
    PollPause();
    if (ready()) return true;
  }
  return false;
}

}  // namespace dfg

#endif  // DFG_LIB_BASE_POLL_H_
