// A budget of bytes for the tensors of one step: while a budget is current
// on a thread (ScopedMemoryBudget, set by the executor around each kernel
// call), every tensor buffer allocated there is charged to it and gives its
// bytes back when it is freed, so the budget bounds what the step holds at
// once. An allocation that would go over it fails as TensorFlow's failed
// allocations do (kResourceExhausted "OOM when allocating tensor with
// shape[...] ..."), and the server goes on serving. A server sets one per
// step (`dfg server --step-memory-limit`); without one nothing is counted.
#ifndef DFG_LIB_KERNELS_MEMORY_BUDGET_H_
#define DFG_LIB_KERNELS_MEMORY_BUDGET_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>

namespace dfg {

class MemoryBudget {
 public:
  // A budget of `limit` bytes, with one reference (the caller's).
  static MemoryBudget* New(int64_t limit) { return new MemoryBudget(limit); }
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // Takes `bytes` (and a reference, for the buffer that holds them); false,
  // taking nothing, when they do not fit.
  bool Charge(size_t bytes);
  // Gives back what Charge took, and its reference.
  void Credit(size_t bytes);

  int64_t limit() const { return limit_; }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }

  // The budget current on this thread, or null.
  static MemoryBudget* Current();

 private:
  explicit MemoryBudget(int64_t limit) : limit_(limit) {}
  ~MemoryBudget() = default;
  const int64_t limit_;
  std::atomic<int64_t> used_{0};
  std::atomic<int32_t> refs_{1};
};

struct MemoryBudgetUnref {
  void operator()(MemoryBudget* budget) const { budget->Unref(); }
};
// One reference to a budget.
using MemoryBudgetRef = std::unique_ptr<MemoryBudget, MemoryBudgetUnref>;

// Makes `budget` current on this thread for the scope; a null budget keeps
// the current one (a function's body runs within its caller's kernel call).
class ScopedMemoryBudget {
 public:
  explicit ScopedMemoryBudget(MemoryBudget* budget);
  ~ScopedMemoryBudget();
  ScopedMemoryBudget(const ScopedMemoryBudget&) = delete;
  ScopedMemoryBudget& operator=(const ScopedMemoryBudget&) = delete;

 private:
  MemoryBudget* previous_;
  bool set_;
};

// What Tensor(dtype, shape) throws when its buffer cannot be allocated (out
// of memory, or over the thread's budget), which the executor turns into the
// node's kResourceExhausted error: what() is TensorFlow's "OOM when
// allocating tensor with shape[...] and type ... on cpu".
class TensorAllocationError : public std::bad_alloc {
 public:
  explicit TensorAllocationError(std::string message)
      : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Frees the big freed tensor blocks kept for reuse (tensor.h): a server calls
// it when a session ends, so that a step's peak does not stay resident.
void ReleaseCachedTensorMemory();

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_MEMORY_BUDGET_H_
