#include "lib/kernels/memory_budget.h"

namespace dfg {
namespace {

thread_local MemoryBudget* current_budget = nullptr;

}  // namespace

bool MemoryBudget::Charge(size_t bytes) {
  const auto want = static_cast<int64_t>(bytes);
  if (want < 0) return false;
  int64_t used = used_.load(std::memory_order_relaxed);
  do {
    if (want > limit_ - used) return false;
  } while (!used_.compare_exchange_weak(used, used + want,
                                        std::memory_order_relaxed));
  Ref();
  return true;
}

void MemoryBudget::Credit(size_t bytes) {
  used_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  Unref();
}

MemoryBudget* MemoryBudget::Current() { return current_budget; }

ScopedMemoryBudget::ScopedMemoryBudget(MemoryBudget* budget)
    : previous_(current_budget), set_(budget != nullptr) {
  if (set_) current_budget = budget;
}

ScopedMemoryBudget::~ScopedMemoryBudget() {
  if (set_) current_budget = previous_;
}

}  // namespace dfg
