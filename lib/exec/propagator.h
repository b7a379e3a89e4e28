// The frame and iteration bookkeeping of one executor step (TensorFlow's
// PropagatorState, TF-SEMANTICS.md §4.4): where a finished node's outputs go,
// which nodes that makes ready, and the life of while-loop frames and their
// iterations. Dead tensors travel through Switch/Merge; Enter, Exit and
// NextIteration move values between frames and iterations, with at most
// `parallel_iterations` iterations of a frame in flight.
//
// Graphs without control flow (Executor::Impl::simple) have one frame and
// one iteration: propagation there takes no lock, only an atomic decrement
// of the destination's pending count, and none when the destination has a
// single input.
#ifndef DFG_LIB_EXEC_PROPAGATOR_H_
#define DFG_LIB_EXEC_PROPAGATOR_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/exec/executor_impl.h"

namespace dfg {

// A value in an input slot or on an output port: the kernel's output slot
// type, so that outputs propagate without a copy.
using Entry = OpOutput;

// Empties an input slot: releases its buffer (a moved-out value has none)
// and clears the flags; a stale dtype and shape without a buffer may remain,
// as a slot is read only when has_value and written whole. Cheaper than
// assigning Entry().
inline void ClearEntry(Entry* e) {
  if (e->value.IsInitialized()) {
    std::destroy_at(&e->value);
    std::construct_at(&e->value);
  }
  e->ref = nullptr;
  e->ref_mu = nullptr;
  e->has_value = false;
}

// Input slots and pending/dead counts of one iteration of one frame.
struct IterationState {
  explicit IterationState(const FrameTemplate& frame);
  // Back to the state of a new iteration. `slots_empty`: every input slot
  // was consumed (a step that ran every node), so the slots need no sweep.
  void Reset(const FrameTemplate& frame, bool slots_empty);

  std::unique_ptr<Entry[]> inputs;
  std::unique_ptr<int[]> pending;
  std::unique_ptr<int[]> dead;
  int num_inputs = 0;
  int outstanding_ops = 0;
  int outstanding_frame_count = 0;
};

struct FrameState {
  const FrameTemplate* tmpl = nullptr;  // Not owned.
  int tmpl_index = 0;                   // in Executor::Impl::frames
  uint64_t frame_id = 0;
  FrameState* parent = nullptr;  // Not owned; null for the root
  int64_t parent_iter = 0;
  std::mutex mu;
  int num_pending_inputs = 0;
  int64_t iteration_count = 0;
  int num_outstanding_iterations = 1;
  int max_parallel_iterations = 1;
  std::vector<std::unique_ptr<IterationState>> iterations;
  std::vector<std::pair<int, Entry>> next_iter_roots;  // deferred
  std::vector<std::pair<int, Entry>> inv_values;       // loop invariants
  std::vector<int> dead_exits;

  IterationState* GetIteration(int64_t iter) {
    return iterations[iter % iterations.size()].get();
  }
};

// A node ready to run in one iteration of one frame.
struct TaggedNode {
  int item = 0;
  FrameState* frame = nullptr;
  IterationState* iter_state = nullptr;
  int64_t iter = 0;
  bool is_dead = false;
};

using ReadyList = std::vector<TaggedNode>;

class Propagator {
 public:
  explicit Propagator(const Executor::Impl& impl);
  // Back to the start of a step, for the next one: the root iteration reset
  // (`slots_empty` as IterationState::Reset), frames a failed step left
  // behind dropped.
  void Reset(bool slots_empty);

  FrameState* root() { return root_.get(); }

  // Delivers the outputs of the finished node `t` (num_outputs entries,
  // spent: values may be moved out) and appends the nodes that became
  // ready. Thread-safe; called once per finished node.
  void PropagateOutputs(const TaggedNode& t, Entry* outputs, ReadyList* ready);

 private:
  void ActivateNodesSimple(const NodeItem& item, bool is_dead,
                           IterationState* state, Entry* outputs,
                           ReadyList* ready);
  void ActivateNodes(const NodeItem& item, bool is_dead, FrameState* frame,
                     int64_t iter, Entry* outputs, ReadyList* ready);
  FrameState* FindOrCreateChildFrame(FrameState* frame, int64_t iter,
                                     const NodeItem& enter);
  int64_t IncrementIteration(FrameState* frame, ReadyList* ready);
  void AddLoopInv(FrameState* frame, int item, const Entry& entry,
                  ReadyList* ready);
  bool IsIterationDone(FrameState* frame, int64_t iter);
  bool CleanupIterations(FrameState* frame, int64_t iter, ReadyList* ready);
  bool DecrementOutstandingOps(FrameState* frame, int64_t iter,
                               ReadyList* ready);
  void DeleteFrame(FrameState* frame, ReadyList* ready);
  void CleanupFramesIterations(FrameState* frame, int64_t iter,
                               ReadyList* ready);

  // A child frame is one frame template entered from one iteration of its
  // parent frame. TensorFlow names it "<parent's name>;<iter>;<frame_name>",
  // a string that grows with the nesting depth (a nest of 10^5 frames would
  // hold gigabytes of names); the key says the same in a fixed size.
  struct FrameKey {
    const FrameState* parent = nullptr;
    int64_t parent_iter = 0;
    int tmpl = 0;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const;
  };

  const Executor::Impl& impl_;
  std::unique_ptr<FrameState> root_;
  std::mutex frames_mu_;
  std::unordered_map<FrameKey, std::unique_ptr<FrameState>, FrameKeyHash>
      frames_;
};

}  // namespace dfg

#endif  // DFG_LIB_EXEC_PROPAGATOR_H_
