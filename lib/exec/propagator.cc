#include "lib/exec/propagator.h"

#include <algorithm>
#include <atomic>

#include "lib/base/hash.h"

namespace dfg {

IterationState::IterationState(const FrameTemplate& frame)
    : inputs(new Entry[frame.total_inputs]),
      pending(new int[frame.num_nodes]),
      dead(new int[frame.num_nodes]()),
      num_inputs(frame.total_inputs) {
  std::copy(frame.initial_pending.begin(), frame.initial_pending.end(),
            pending.get());
}

void IterationState::Reset(const FrameTemplate& frame, bool slots_empty) {
  std::copy(frame.initial_pending.begin(), frame.initial_pending.end(),
            pending.get());
  std::fill_n(dead.get(), frame.num_nodes, 0);
  if (!slots_empty) {
    for (int i = 0; i < num_inputs; ++i) {
      if (inputs[i].has_value) ClearEntry(&inputs[i]);
    }
  }
  outstanding_ops = 0;
  outstanding_frame_count = 0;
}

Propagator::Propagator(const Executor::Impl& impl)
    : impl_(impl), root_(std::make_unique<FrameState>()) {
  root_->tmpl = &impl_.frames[0];
  root_->iterations.resize(1);
  root_->iterations[0] = std::make_unique<IterationState>(impl_.frames[0]);
}

void Propagator::Reset(bool slots_empty) {
  root_->iterations[0]->Reset(impl_.frames[0], slots_empty);
  root_->next_iter_roots.clear();
  root_->inv_values.clear();
  root_->dead_exits.clear();
  std::lock_guard<std::mutex> lock(frames_mu_);
  frames_.clear();
}

void Propagator::PropagateOutputs(const TaggedNode& t, Entry* outputs,
                                  ReadyList* ready) {
  const NodeItem& item = impl_.items[t.item];
  if (impl_.simple) {
    ActivateNodesSimple(item, t.is_dead, t.iter_state, outputs, ready);
    return;
  }
  FrameState* frame = t.frame;
  const int64_t iter = t.iter;
  bool is_frame_done = false;
  if (!item.is_enter && !item.is_exit && !item.is_next_iteration) {
    std::lock_guard<std::mutex> lock(frame->mu);
    ActivateNodes(item, t.is_dead, frame, iter, outputs, ready);
    is_frame_done = DecrementOutstandingOps(frame, iter, ready);
  } else if (item.is_enter) {
    FrameState* child = FindOrCreateChildFrame(frame, iter, item);
    {
      std::lock_guard<std::mutex> lock(child->mu);
      if (item.is_constant_enter) {
        AddLoopInv(child, t.item, outputs[0], ready);
      } else {
        ActivateNodes(item, t.is_dead, child, 0, outputs, ready);
      }
      child->num_pending_inputs--;
    }
    std::lock_guard<std::mutex> lock(frame->mu);
    is_frame_done = DecrementOutstandingOps(frame, iter, ready);
  } else if (item.is_exit) {
    if (t.is_dead) {
      std::lock_guard<std::mutex> lock(frame->mu);
      if (iter == frame->iteration_count) frame->dead_exits.push_back(t.item);
      is_frame_done = DecrementOutstandingOps(frame, iter, ready);
    } else {
      FrameState* parent = frame->parent;
      {
        std::lock_guard<std::mutex> lock(parent->mu);
        ActivateNodes(item, false, parent, frame->parent_iter, outputs, ready);
      }
      std::lock_guard<std::mutex> lock(frame->mu);
      is_frame_done = DecrementOutstandingOps(frame, iter, ready);
    }
  } else {  // NextIteration
    std::lock_guard<std::mutex> lock(frame->mu);
    if (!t.is_dead) {
      if (iter == frame->iteration_count &&
          frame->num_outstanding_iterations == frame->max_parallel_iterations) {
        frame->next_iter_roots.emplace_back(t.item, outputs[0]);
      } else {
        int64_t next = iter == frame->iteration_count
                           ? IncrementIteration(frame, ready)
                           : iter + 1;
        ActivateNodes(item, false, frame, next, outputs, ready);
      }
    }
    is_frame_done = DecrementOutstandingOps(frame, iter, ready);
  }
  if (is_frame_done) {
    FrameState* parent = frame->parent;
    const int64_t parent_iter = frame->parent_iter;
    DeleteFrame(frame, ready);
    if (parent != nullptr) CleanupFramesIterations(parent, parent_iter, ready);
  }
}

// Graphs without control flow: no frame mutex. Each input slot has a single
// writer; the release of the pending decrement publishes it (and the dead
// count) to the thread that sees the count reach zero. A destination with a
// single input is ready as soon as its one edge fires.
void Propagator::ActivateNodesSimple(const NodeItem& item, bool is_dead,
                                     IterationState* state, Entry* outputs,
                                     ReadyList* ready) {
  FrameState* root = root_.get();
  for (const EdgeInfo& e : item.out_edges) {
    bool input_dead = is_dead;
    if (!e.is_control) {
      Entry& out = outputs[e.src_output];
      input_dead |= !out.has_value;
      Entry& slot = state->inputs[e.dst_slot];
      if (e.is_last) {
        slot = std::move(out);
      } else {
        slot = out;
      }
    }
    if (e.dst_single_input) {
      ready->push_back(TaggedNode{e.dst, root, state, 0,
                                  input_dead && !e.dst_is_control_trigger});
      continue;
    }
    const int id = e.dst_local;
    if (input_dead) {
      std::atomic_ref<int>(state->dead[id])
          .fetch_add(1, std::memory_order_acq_rel);
    }
    if (std::atomic_ref<int>(state->pending[id])
            .fetch_sub(1, std::memory_order_acq_rel) == 1) {
      bool dst_dead = std::atomic_ref<int>(state->dead[id])
                          .load(std::memory_order_acquire) > 0;
      if (e.dst_is_control_trigger) dst_dead = false;
      ready->push_back(TaggedNode{e.dst, root, state, 0, dst_dead});
    }
  }
}

// Requires frame->mu.
void Propagator::ActivateNodes(const NodeItem& item, bool is_dead,
                               FrameState* frame, int64_t iter, Entry* outputs,
                               ReadyList* ready) {
  IterationState* state = frame->GetIteration(iter);
  for (const EdgeInfo& e : item.out_edges) {
    const NodeItem& dst = impl_.items[e.dst];
    const int id = dst.local_id;
    bool dst_dead = false;
    bool dst_ready = false;
    bool need_input = !e.is_control;
    if (dst.is_merge) {
      if (e.is_control) {
        state->pending[id] -= 2;
        const int count = state->pending[id];
        dst_dead = state->dead[id] == dst.num_data_inputs;
        dst_ready = count == 0 || (count == 1 && dst_dead);
      } else if (outputs[e.src_output].has_value) {
        const int count = state->pending[id];
        state->pending[id] &= ~1;  // a live input arrived
        dst_ready = count == 1;
        need_input = (count & 1) == 1;
      } else {
        state->dead[id]++;
        dst_dead = state->dead[id] == dst.num_data_inputs || item.is_enter;
        dst_ready = state->pending[id] == 1 && dst_dead;
        need_input = false;
      }
    } else {
      const bool increment_dead =
          is_dead || (!e.is_control && !outputs[e.src_output].has_value);
      if (increment_dead) state->dead[id]++;
      dst_dead = state->dead[id] > 0;
      dst_ready = --state->pending[id] == 0;
    }
    if (need_input) {
      Entry& slot = state->inputs[dst.input_start + e.dst_input];
      if (e.is_last) {
        slot = std::move(outputs[e.src_output]);
      } else {
        slot = outputs[e.src_output];
      }
    }
    if (dst_ready) {
      if (dst.is_control_trigger) dst_dead = false;
      ready->push_back(TaggedNode{e.dst, frame, state, iter, dst_dead});
      state->outstanding_ops++;
    }
  }
}

size_t Propagator::FrameKeyHash::operator()(const FrameKey& k) const {
  return Hash64Combine(reinterpret_cast<uintptr_t>(k.parent),
                       Hash64Combine(static_cast<uint64_t>(k.parent_iter),
                                     static_cast<uint64_t>(k.tmpl)));
}

FrameState* Propagator::FindOrCreateChildFrame(FrameState* frame, int64_t iter,
                                               const NodeItem& enter) {
  const FrameKey key{frame, iter, enter.child_frame};
  {
    std::lock_guard<std::mutex> lock(frames_mu_);
    auto it = frames_.find(key);
    if (it != frames_.end()) return it->second.get();
  }
  auto child = std::make_unique<FrameState>();
  const FrameTemplate& tmpl = impl_.frames[enter.child_frame];
  child->tmpl = &tmpl;
  child->tmpl_index = enter.child_frame;
  // TensorFlow's PropagatorState: the id of a child frame combines its
  // parent's id, the parent iteration and the hash of the frame's name, so
  // the rendezvous keys of a loop spanning processes (dfg or TensorFlow)
  // agree.
  child->frame_id = Hash64Combine(
      frame->frame_id, Hash64Combine(static_cast<uint64_t>(iter),
                                     Hash64(enter.child_frame_name)));
  child->parent = frame;
  child->parent_iter = iter;
  child->num_pending_inputs = tmpl.num_enters;
  child->max_parallel_iterations = enter.parallel_iterations;
  child->iterations.resize(enter.parallel_iterations + 1);
  child->iterations[0] = std::make_unique<IterationState>(tmpl);
  FrameState* result = nullptr;
  bool created = false;
  {
    std::lock_guard<std::mutex> lock(frames_mu_);
    auto [it, inserted] = frames_.emplace(key, std::move(child));
    result = it->second.get();
    created = inserted;
  }
  if (created) {
    std::lock_guard<std::mutex> lock(frame->mu);
    frame->GetIteration(iter)->outstanding_frame_count++;
  }
  return result;
}

// Requires frame->mu.
int64_t Propagator::IncrementIteration(FrameState* frame, ReadyList* ready) {
  frame->iteration_count++;
  const int64_t next = frame->iteration_count;
  frame->iterations[next % frame->iterations.size()] =
      std::make_unique<IterationState>(*frame->tmpl);
  frame->num_outstanding_iterations++;
  frame->dead_exits.clear();
  // Deferred NextIteration values start the new iteration.
  std::vector<std::pair<int, Entry>> roots = std::move(frame->next_iter_roots);
  frame->next_iter_roots.clear();
  for (auto& [item, entry] : roots) {
    Entry out = entry;
    ActivateNodes(impl_.items[item], !entry.has_value, frame, next, &out,
                  ready);
  }
  // Loop invariants are visible in every iteration.
  for (auto& [item, entry] : frame->inv_values) {
    Entry out = entry;
    ActivateNodes(impl_.items[item], !entry.has_value, frame, next, &out,
                  ready);
  }
  return next;
}

// Requires frame->mu.
void Propagator::AddLoopInv(FrameState* frame, int item, const Entry& entry,
                            ReadyList* ready) {
  frame->inv_values.emplace_back(item, entry);
  for (int64_t i = 0; i <= frame->iteration_count; ++i) {
    if (frame->GetIteration(i) == nullptr) continue;
    Entry out = entry;
    ActivateNodes(impl_.items[item], !entry.has_value, frame, i, &out, ready);
  }
}

// Requires frame->mu.
bool Propagator::IsIterationDone(FrameState* frame, int64_t iter) {
  IterationState* state = frame->GetIteration(iter);
  if (state == nullptr) return true;
  if (state->outstanding_ops != 0 || state->outstanding_frame_count != 0) {
    return false;
  }
  if (iter == 0) return frame->num_pending_inputs == 0;
  return frame->GetIteration(iter - 1) == nullptr;
}

// Requires frame->mu. Returns whether the frame is done.
bool Propagator::CleanupIterations(FrameState* frame, int64_t iter,
                                   ReadyList* ready) {
  if (frame->parent == nullptr) return false;  // the root frame never ends
  int64_t curr = iter;
  while (curr <= frame->iteration_count && IsIterationDone(frame, curr)) {
    frame->iterations[curr % frame->iterations.size()].reset();
    --frame->num_outstanding_iterations;
    ++curr;
    if (!frame->next_iter_roots.empty()) IncrementIteration(frame, ready);
  }
  return frame->num_pending_inputs == 0 &&
         frame->num_outstanding_iterations == 0;
}

// Requires frame->mu.
bool Propagator::DecrementOutstandingOps(FrameState* frame, int64_t iter,
                                         ReadyList* ready) {
  IterationState* state = frame->GetIteration(iter);
  if (--state->outstanding_ops != 0) return false;
  return CleanupIterations(frame, iter, ready);
}

void Propagator::DeleteFrame(FrameState* frame, ReadyList* ready) {
  FrameState* parent = frame->parent;
  const int64_t parent_iter = frame->parent_iter;
  if (parent != nullptr) {
    std::lock_guard<std::mutex> parent_lock(parent->mu);
    std::lock_guard<std::mutex> frame_lock(frame->mu);
    IterationState* state = parent->GetIteration(parent_iter);
    for (int exit : frame->dead_exits) {
      for (const EdgeInfo& e : impl_.items[exit].out_edges) {
        const NodeItem& dst = impl_.items[e.dst];
        const int id = dst.local_id;
        bool dst_dead = true;
        bool dst_ready = false;
        if (dst.is_merge) {
          if (e.is_control) {
            state->pending[id] -= 2;
            const int count = state->pending[id];
            dst_dead = state->dead[id] == dst.num_data_inputs;
            dst_ready = count == 0 || (count == 1 && dst_dead);
          } else {
            state->dead[id]++;
            dst_dead = state->dead[id] == dst.num_data_inputs;
            dst_ready = state->pending[id] == 1 && dst_dead;
          }
        } else {
          state->dead[id]++;
          dst_ready = --state->pending[id] == 0;
        }
        if (dst_ready) {
          if (dst.is_control_trigger) dst_dead = false;
          ready->push_back(
              TaggedNode{e.dst, parent, state, parent_iter, dst_dead});
          state->outstanding_ops++;
        }
      }
    }
  }
  std::lock_guard<std::mutex> lock(frames_mu_);
  frames_.erase(FrameKey{parent, parent_iter, frame->tmpl_index});
}

// A loop, not a recursion: the frames of a deep nest end one after the
// other, innermost first, and each may end its parent.
void Propagator::CleanupFramesIterations(FrameState* frame, int64_t iter,
                                         ReadyList* ready) {
  while (frame != nullptr) {
    bool is_frame_done = false;
    {
      std::lock_guard<std::mutex> lock(frame->mu);
      frame->GetIteration(iter)->outstanding_frame_count--;
      is_frame_done = CleanupIterations(frame, iter, ready);
    }
    if (!is_frame_done) return;
    FrameState* parent = frame->parent;
    const int64_t parent_iter = frame->parent_iter;
    DeleteFrame(frame, ready);
    frame = parent;
    iter = parent_iter;
  }
}

}  // namespace dfg
