// Busy polling before sleeping. A thread that waits for another's work in a
// short burst (a step's next message, the executor's next node) and sleeps
// pays for its wake-up: the waker's futex or socket wake, the scheduler, and
// on a virtual machine the hypervisor waking an idle virtual CPU (tens of
// microseconds each). Polling a little first, yielding the CPU to any other
// runnable thread between looks, lets the work arrive while the thread is
// still awake; the budget is short, so an idle process still sleeps. Eigen's
// pool (under TensorFlow's executor) and OpenMP runtimes do the same.
#ifndef DFG_LIB_BASE_POLL_H_
#define DFG_LIB_BASE_POLL_H_

#include <sched.h>

#include <chrono>

namespace dfg {

// How long dfg's waiting threads poll before they sleep, by default.
inline constexpr std::chrono::microseconds kIdlePoll{50};

// Calls `ready` until it returns true or `budget` has passed, yielding the
// CPU between calls. Returns the last result of `ready`.
template <typename Ready>
bool PollFor(std::chrono::microseconds budget, Ready&& ready) {
  if (ready()) return true;
  const auto until = std::chrono::steady_clock::now() + budget;
  while (std::chrono::steady_clock::now() < until) {
    sched_yield();
    if (ready()) return true;
  }
  return false;
}

}  // namespace dfg

#endif  // DFG_LIB_BASE_POLL_H_
