// One step of an executor: pending counts, input slots, frames and
// iterations, the ready queue (TensorFlow's ExecutorState and
// PropagatorState, TF-SEMANTICS.md §4.2–4.4).
#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "lib/exec/executor_impl.h"
#include "lib/exec/thread_pool.h"

namespace dfg {
namespace {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// FNV-1a: a stable frame id, equal in every executor of the step for the
// same frame instance, so that Send/Recv keys inside loops match.
uint64_t FrameId(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// A value in an input slot or on an output port.
struct Entry {
  Tensor val;
  Tensor* ref = nullptr;         // Not owned.
  std::mutex* ref_mu = nullptr;  // Not owned.
  bool has_value = false;
};

struct IterationState {
  IterationState(const FrameTemplate& frame)
      : inputs(new Entry[frame.total_inputs]),
        pending(new int[frame.num_nodes]),
        dead(new int[frame.num_nodes]()) {
    std::copy(frame.initial_pending.begin(), frame.initial_pending.end(),
              pending.get());
  }
  std::unique_ptr<Entry[]> inputs;
  std::unique_ptr<int[]> pending;
  std::unique_ptr<int[]> dead;
  int outstanding_ops = 0;
  int outstanding_frame_count = 0;
};

struct FrameState {
  const FrameTemplate* tmpl = nullptr;  // Not owned.
  std::string name;                     // "<parent>;<iter>;<frame_name>"
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

struct TaggedNode {
  int item = 0;
  FrameState* frame = nullptr;
  IterationState* iter_state = nullptr;
  int64_t iter = 0;
  bool is_dead = false;
};

using ReadyList = std::vector<TaggedNode>;

class ExecutorState {
 public:
  ExecutorState(const Executor::Impl& impl, const Executor::Args& args,
                Executor::DoneCallback done);
  void Start();

 private:
  // Runs `first` and whatever becomes ready inline after it.
  void Process(TaggedNode first);
  // Runs one node; false when it went async (its continuation finishes it).
  bool RunNode(const TaggedNode& t, std::vector<Tensor>* storage,
               std::vector<TensorValue>* inputs, std::vector<OpOutput>* outputs,
               std::vector<Entry>* entries, ReadyList* ready, Status* status);
  Status PrepareInputs(const NodeItem& item, const TaggedNode& t,
                       std::vector<Tensor>* storage,
                       std::vector<TensorValue>* inputs);
  Status CheckOutputs(const NodeItem& item,
                      const std::vector<OpOutput>& outputs);
  void NodeDone(const Status& s, const TaggedNode& t, ReadyList* ready,
                std::deque<TaggedNode>* inline_ready);
  void ScheduleReady(ReadyList* ready, std::deque<TaggedNode>* inline_ready);
  void Finish();

  // Propagation (frames, iterations, dead tensors).
  void PropagateOutputs(const TaggedNode& t, std::vector<Entry>* outputs,
                        ReadyList* ready);
  void ActivateNodesSimple(const NodeItem& item, bool is_dead,
                           IterationState* state, std::vector<Entry>* outputs,
                           ReadyList* ready);
  void ActivateNodes(const NodeItem& item, bool is_dead, FrameState* frame,
                     int64_t iter, std::vector<Entry>* outputs,
                     ReadyList* ready);
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

  const Executor::Impl& impl_;
  Executor::Args args_;
  Executor::DoneCallback done_;
  StepServices services_;
  std::atomic<int64_t> num_outstanding_ops_{0};
  std::atomic<bool> aborted_{false};
  std::mutex status_mu_;
  Status status_;  // guarded by status_mu_

  std::unique_ptr<FrameState> root_;
  std::mutex frames_mu_;
  std::unordered_map<std::string, std::unique_ptr<FrameState>> frames_;
};

ExecutorState::ExecutorState(const Executor::Impl& impl,
                             const Executor::Args& args,
                             Executor::DoneCallback done)
    : impl_(impl), args_(args), done_(std::move(done)) {
  services_.step_id = args.step_id;
  services_.rendezvous = args.rendezvous;
  services_.call_frame = args.call_frame;
  services_.resource_mgr = args.resource_mgr;
  services_.cancelled = args.cancelled;
  services_.intra_op_pool = args.intra_op_pool;
  services_.functions = impl.functions.get();
  root_ = std::make_unique<FrameState>();
  root_->tmpl = &impl_.frames[0];
  root_->iterations.resize(1);
  root_->iterations[0] = std::make_unique<IterationState>(impl_.frames[0]);
}

void ExecutorState::Start() {
  ReadyList ready;
  IterationState* iter0 = root_->GetIteration(0);
  for (int item : impl_.root_items) {
    ready.push_back(TaggedNode{item, root_.get(), iter0, 0, false});
  }
  iter0->outstanding_ops = static_cast<int>(ready.size());
  if (ready.empty()) {
    Finish();
    return;
  }
  num_outstanding_ops_.store(static_cast<int64_t>(ready.size()));
  std::deque<TaggedNode> inline_ready;
  ScheduleReady(&ready, &inline_ready);
  // The last node to finish deletes this state: only locals are touched
  // after a Process call.
  std::vector<TaggedNode> roots(inline_ready.begin(), inline_ready.end());
  for (const TaggedNode& t : roots) Process(t);
}

void ExecutorState::ScheduleReady(ReadyList* ready,
                                  std::deque<TaggedNode>* inline_ready) {
  if (ready->empty()) return;
  if (inline_ready == nullptr) {
    for (const TaggedNode& t : *ready) {
      if (args_.runner) {
        args_.runner([this, t] { Process(t); });
      } else {
        Process(t);
      }
    }
    ready->clear();
    return;
  }
  if (!args_.runner) {
    for (const TaggedNode& t : *ready) inline_ready->push_back(t);
    ready->clear();
    return;
  }
  // Cheap nodes run inline; all but the last expensive node go to the pool.
  const TaggedNode* curr_expensive = nullptr;
  for (const TaggedNode& t : *ready) {
    const NodeItem& item = impl_.items[t.item];
    if (t.is_dead || !item.is_expensive) {
      inline_ready->push_back(t);
    } else {
      if (curr_expensive != nullptr) {
        TaggedNode e = *curr_expensive;
        args_.runner([this, e] { Process(e); });
      }
      curr_expensive = &t;
    }
  }
  if (curr_expensive != nullptr) {
    if (inline_ready->empty()) {
      inline_ready->push_back(*curr_expensive);
    } else {
      TaggedNode e = *curr_expensive;
      args_.runner([this, e] { Process(e); });
    }
  }
  ready->clear();
}

void ExecutorState::Process(TaggedNode first) {
  std::deque<TaggedNode> inline_ready;
  inline_ready.push_back(first);
  std::vector<Tensor> storage;
  std::vector<TensorValue> inputs;
  std::vector<OpOutput> outputs;
  std::vector<Entry> entries;
  ReadyList ready;
  while (!inline_ready.empty()) {
    TaggedNode t = inline_ready.front();
    inline_ready.pop_front();
    ready.clear();
    Status s;
    if (!RunNode(t, &storage, &inputs, &outputs, &entries, &ready, &s))
      continue;
    NodeDone(s, t, &ready, &inline_ready);
  }
}

Status ExecutorState::PrepareInputs(const NodeItem& item, const TaggedNode& t,
                                    std::vector<Tensor>* storage,
                                    std::vector<TensorValue>* inputs) {
  storage->resize(item.num_inputs);
  inputs->assign(item.num_inputs, TensorValue());
  Entry* slots = t.iter_state->inputs.get() + item.input_start;
  for (int i = 0; i < item.num_inputs; ++i) {
    Entry& e = slots[i];
    if (!e.has_value) continue;  // a dead Merge input: tensor stays null
    if (e.ref != nullptr) {
      if (item.input_is_ref[i]) {
        (*inputs)[i] = TensorValue{e.ref, e.ref_mu};
      } else {
        DFG_RETURN_IF_ERROR(DerefRefInput(
            *item.kernel, i, TensorValue{e.ref, e.ref_mu}, &(*storage)[i]));
        (*inputs)[i] = TensorValue{&(*storage)[i], nullptr};
      }
    } else {
      (*storage)[i] = std::move(e.val);
      (*inputs)[i] = TensorValue{&(*storage)[i], nullptr};
    }
    e.has_value = false;
    e.ref = nullptr;
    e.ref_mu = nullptr;
    e.val = Tensor();
  }
  return Status::Ok();
}

Status ExecutorState::CheckOutputs(const NodeItem& item,
                                   const std::vector<OpOutput>& outputs) {
  for (int i = 0; i < item.num_outputs; ++i) {
    const OpOutput& out = outputs[i];
    if (!out.has_value) {
      if (item.is_switch || item.is_recv) continue;
      return Internal("Missing {}-th output from {}", i,
                      NodeForError(*item.node));
    }
    DataType declared = item.node->output_type(i);
    if (declared == tensorflow::DT_INVALID) continue;
    DataType actual =
        out.is_ref() ? MakeRefType(out.ref->dtype()) : out.value.dtype();
    if (out.is_ref() ? BaseType(actual) != BaseType(declared)
                     : actual != declared) {
      return Internal(
          "Output {} of type {} does not match declared output type {} for "
          "node {}",
          i, DataTypeString(actual), DataTypeString(declared),
          NodeForError(*item.node));
    }
  }
  return Status::Ok();
}

namespace {

// Moves the kernel's outputs into entries (the outputs are spent).
void ToEntries(std::vector<OpOutput>& outputs, int n,
               std::vector<Entry>* entries) {
  entries->resize(n);
  for (int i = 0; i < n; ++i) {
    OpOutput& o = outputs[i];
    Entry& e = (*entries)[i];
    e.has_value = o.has_value;
    if (o.is_ref()) {
      e.ref = o.ref;
      e.ref_mu = o.ref_mu;
      e.val = Tensor();
    } else {
      e.ref = nullptr;
      e.ref_mu = nullptr;
      e.val = o.has_value ? std::move(o.value) : Tensor();
    }
  }
}

struct AsyncState {
  std::vector<Tensor> storage;
  std::vector<TensorValue> inputs;
  std::vector<OpOutput> outputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  NodeExecRecord record;
  std::atomic<int> phase{0};  // the second of (caller, done) finishes
};

}  // namespace

bool ExecutorState::RunNode(const TaggedNode& t, std::vector<Tensor>* storage,
                            std::vector<TensorValue>* inputs,
                            std::vector<OpOutput>* outputs,
                            std::vector<Entry>* entries_buffer,
                            ReadyList* ready, Status* status) {
  const NodeItem& item = impl_.items[t.item];
  std::vector<Entry>& entries = *entries_buffer;
  NodeExecRecord record;
  const bool observe = args_.observer != nullptr;
  if (observe) {
    record.node = item.node;
    record.start_ns = NowNanos();
    record.thread_id = ThreadPool::CurrentThreadId();
    record.frame_iter = FrameAndIter{t.frame->frame_id, t.iter};
    record.is_dead = t.is_dead;
  }
  auto finish = [&](Status s, std::vector<OpOutput>& outs) {
    if (s.ok()) s = CheckOutputs(item, outs);
    if (s.ok()) {
      ToEntries(outs, item.num_outputs, &entries);
      PropagateOutputs(t, &entries, ready);
    } else {
      s = AttachNodeDef(s, item.node->def());
    }
    if (observe) {
      record.end_ns = NowNanos();
      for (int i = 0; i < item.num_outputs; ++i) {
        if (!outs[i].has_value || outs[i].is_ref()) continue;
        record.outputs.emplace_back(
            outs[i].value.shape(),
            static_cast<int64_t>(outs[i].value.TotalBytes()));
      }
      args_.observer->NodeDone(record);
    }
    return s;
  };

  if (args_.cancelled != nullptr &&
      args_.cancelled->load(std::memory_order_relaxed)) {
    *status = Cancelled("Step was cancelled");
    return true;
  }
  if (t.is_dead && !item.is_transfer) {
    // A dead node does not run: every output is dead.
    outputs->assign(item.num_outputs, OpOutput());
    PrepareInputs(item, t, storage, inputs).IgnoreError();
    storage->clear();
    entries.assign(item.num_outputs, Entry());
    PropagateOutputs(t, &entries, ready);
    if (observe) {
      record.end_ns = NowNanos();
      args_.observer->NodeDone(record);
    }
    return true;
  }

  if (item.is_async) {
    auto state = std::make_shared<AsyncState>();
    Status s = PrepareInputs(item, t, &state->storage, &state->inputs);
    if (!s.ok()) {
      *status = AttachNodeDef(s, item.node->def());
      return true;
    }
    state->outputs.assign(item.num_outputs, OpOutput());
    state->params.op_kernel = item.kernel.get();
    state->params.inputs = state->inputs.data();
    state->params.outputs = state->outputs.data();
    state->params.is_input_dead = t.is_dead;
    state->params.frame_iter = FrameAndIter{t.frame->frame_id, t.iter};
    state->params.step = &services_;
    state->ctx = std::make_unique<OpKernelContext>(&state->params);
    state->record = record;
    auto complete = [this, t, state, &item]() {
      ReadyList r;
      std::vector<Entry> es;
      Status s = state->ctx->status();
      if (s.ok()) s = CheckOutputs(item, state->outputs);
      if (s.ok()) {
        ToEntries(state->outputs, item.num_outputs, &es);
        PropagateOutputs(t, &es, &r);
      } else {
        s = AttachNodeDef(s, item.node->def());
      }
      if (args_.observer != nullptr) {
        state->record.end_ns = NowNanos();
        args_.observer->NodeDone(state->record);
      }
      state->inputs.clear();
      state->storage.clear();
      return std::make_pair(s, std::move(r));
    };
    // Whichever of the caller and the callback comes second finishes the
    // node: inline here if the kernel completed synchronously.
    item.kernel->AsAsync()->ComputeAsync(state->ctx.get(),
                                         [this, state, complete, t]() {
                                           if (state->phase.fetch_add(1) == 0)
                                             return;  // caller finishes
                                           auto [s, r] = complete();
                                           NodeDone(s, t, &r, nullptr);
                                         });
    if (state->phase.fetch_add(1) == 0) return false;  // finishes later
    auto [s2, r2] = complete();
    *status = s2;
    *ready = std::move(r2);
    return true;
  }

  Status s = PrepareInputs(item, t, storage, inputs);
  if (!s.ok()) {
    *status = AttachNodeDef(s, item.node->def());
    return true;
  }
  outputs->assign(item.num_outputs, OpOutput());
  OpKernelContext::Params params;
  params.op_kernel = item.kernel.get();
  params.inputs = inputs->data();
  params.outputs = outputs->data();
  params.is_input_dead = t.is_dead;
  params.frame_iter = FrameAndIter{t.frame->frame_id, t.iter};
  params.step = &services_;
  OpKernelContext ctx(&params);
  item.kernel->Compute(&ctx);
  storage->clear();
  *status = finish(ctx.status(), *outputs);
  return true;
}

void ExecutorState::NodeDone(const Status& s, const TaggedNode& t,
                             ReadyList* ready,
                             std::deque<TaggedNode>* inline_ready) {
  if (!s.ok()) {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(status_mu_);
      if (status_.ok()) {
        status_ = s;
        first = true;
      }
    }
    aborted_.store(true);
    if (first && args_.rendezvous != nullptr) args_.rendezvous->StartAbort(s);
  }
  bool completed = false;
  const size_t n = ready->size();
  if (n == 0 || !s.ok() || aborted_.load(std::memory_order_relaxed)) {
    // After an error the newly ready nodes are dropped (TensorFlow does the
    // same); in-flight nodes still finish and are counted down.
    completed = num_outstanding_ops_.fetch_sub(1) == 1;
  } else {
    if (n > 1) num_outstanding_ops_.fetch_add(n - 1, std::memory_order_relaxed);
    ScheduleReady(ready, inline_ready);
  }
  ready->clear();
  if (completed) Finish();
}

void ExecutorState::Finish() {
  Status s;
  {
    std::lock_guard<std::mutex> lock(status_mu_);
    s = status_;
  }
  Executor::DoneCallback done = std::move(done_);
  delete this;
  done(s);
}

// ---------------------------------------------------------------------------
// Propagation.

void ExecutorState::PropagateOutputs(const TaggedNode& t,
                                     std::vector<Entry>* outputs,
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
        AddLoopInv(child, t.item, (*outputs)[0], ready);
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
        frame->next_iter_roots.emplace_back(t.item, (*outputs)[0]);
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
// count) to the thread that sees the count reach zero.
void ExecutorState::ActivateNodesSimple(const NodeItem& item, bool is_dead,
                                        IterationState* state,
                                        std::vector<Entry>* outputs,
                                        ReadyList* ready) {
  for (const EdgeInfo& e : item.out_edges) {
    const NodeItem& dst = impl_.items[e.dst];
    const int id = dst.local_id;
    if (!e.is_control) {
      Entry& slot = state->inputs[dst.input_start + e.dst_input];
      if (e.is_last) {
        slot = std::move((*outputs)[e.src_output]);
      } else {
        slot = (*outputs)[e.src_output];
      }
    }
    const bool increment_dead =
        is_dead || (!e.is_control && !(*outputs)[e.src_output].has_value);
    if (increment_dead) {
      std::atomic_ref<int>(state->dead[id])
          .fetch_add(1, std::memory_order_acq_rel);
    }
    if (std::atomic_ref<int>(state->pending[id])
            .fetch_sub(1, std::memory_order_acq_rel) == 1) {
      bool dst_dead = std::atomic_ref<int>(state->dead[id])
                          .load(std::memory_order_acquire) > 0;
      if (dst.is_control_trigger) dst_dead = false;
      ready->push_back(TaggedNode{e.dst, root_.get(), state, 0, dst_dead});
    }
  }
}

// Requires frame->mu.
void ExecutorState::ActivateNodes(const NodeItem& item, bool is_dead,
                                  FrameState* frame, int64_t iter,
                                  std::vector<Entry>* outputs,
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
      } else if ((*outputs)[e.src_output].has_value) {
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
          is_dead || (!e.is_control && !(*outputs)[e.src_output].has_value);
      if (increment_dead) state->dead[id]++;
      dst_dead = state->dead[id] > 0;
      dst_ready = --state->pending[id] == 0;
    }
    if (need_input) {
      Entry& slot = state->inputs[dst.input_start + e.dst_input];
      if (e.is_last) {
        slot = std::move((*outputs)[e.src_output]);
      } else {
        slot = (*outputs)[e.src_output];
      }
    }
    if (dst_ready) {
      if (dst.is_control_trigger) dst_dead = false;
      ready->push_back(TaggedNode{e.dst, frame, state, iter, dst_dead});
      state->outstanding_ops++;
    }
  }
}

FrameState* ExecutorState::FindOrCreateChildFrame(FrameState* frame,
                                                  int64_t iter,
                                                  const NodeItem& enter) {
  std::string name =
      frame->name + ";" + std::to_string(iter) + ";" + enter.child_frame_name;
  {
    std::lock_guard<std::mutex> lock(frames_mu_);
    auto it = frames_.find(name);
    if (it != frames_.end()) return it->second.get();
  }
  auto child = std::make_unique<FrameState>();
  const FrameTemplate& tmpl = impl_.frames[enter.child_frame];
  child->tmpl = &tmpl;
  child->name = name;
  child->frame_id = FrameId(name);
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
    auto [it, inserted] = frames_.emplace(name, std::move(child));
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
int64_t ExecutorState::IncrementIteration(FrameState* frame, ReadyList* ready) {
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
    std::vector<Entry> outs{entry};
    ActivateNodes(impl_.items[item], !entry.has_value, frame, next, &outs,
                  ready);
  }
  // Loop invariants are visible in every iteration.
  for (auto& [item, entry] : frame->inv_values) {
    std::vector<Entry> outs{entry};
    ActivateNodes(impl_.items[item], !entry.has_value, frame, next, &outs,
                  ready);
  }
  return next;
}

// Requires frame->mu.
void ExecutorState::AddLoopInv(FrameState* frame, int item, const Entry& entry,
                               ReadyList* ready) {
  frame->inv_values.emplace_back(item, entry);
  for (int64_t i = 0; i <= frame->iteration_count; ++i) {
    if (frame->GetIteration(i) == nullptr) continue;
    std::vector<Entry> outs{entry};
    ActivateNodes(impl_.items[item], !entry.has_value, frame, i, &outs, ready);
  }
}

// Requires frame->mu.
bool ExecutorState::IsIterationDone(FrameState* frame, int64_t iter) {
  IterationState* state = frame->GetIteration(iter);
  if (state == nullptr) return true;
  if (state->outstanding_ops != 0 || state->outstanding_frame_count != 0) {
    return false;
  }
  if (iter == 0) return frame->num_pending_inputs == 0;
  return frame->GetIteration(iter - 1) == nullptr;
}

// Requires frame->mu. Returns whether the frame is done.
bool ExecutorState::CleanupIterations(FrameState* frame, int64_t iter,
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
bool ExecutorState::DecrementOutstandingOps(FrameState* frame, int64_t iter,
                                            ReadyList* ready) {
  IterationState* state = frame->GetIteration(iter);
  if (--state->outstanding_ops != 0) return false;
  return CleanupIterations(frame, iter, ready);
}

void ExecutorState::DeleteFrame(FrameState* frame, ReadyList* ready) {
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
  frames_.erase(frame->name);
}

void ExecutorState::CleanupFramesIterations(FrameState* frame, int64_t iter,
                                            ReadyList* ready) {
  bool is_frame_done = false;
  {
    std::lock_guard<std::mutex> lock(frame->mu);
    frame->GetIteration(iter)->outstanding_frame_count--;
    is_frame_done = CleanupIterations(frame, iter, ready);
  }
  if (is_frame_done) {
    FrameState* parent = frame->parent;
    const int64_t parent_iter = frame->parent_iter;
    DeleteFrame(frame, ready);
    if (parent != nullptr) CleanupFramesIterations(parent, parent_iter, ready);
  }
}

}  // namespace

void Executor::Impl::RunAsync(const Args& args, DoneCallback done) const {
  (new ExecutorState(*this, args, std::move(done)))->Start();
}

}  // namespace dfg
