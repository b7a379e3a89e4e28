// One step of an executor (TensorFlow's ExecutorState, TF-SEMANTICS.md
// §4.2–4.3): runs ready nodes, inline or on the runner, and counts them
// down; where outputs go is the propagator's business (propagator.h).
//
// Per node on the hot path: no heap allocation (the scratch vectors of a
// Process call are reused, the root iteration is kept between steps), the
// kernel reads its inputs in place from the iteration's slots, and its
// outputs propagate from the kernel's own output slots.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>

#include "lib/exec/executor_impl.h"
#include "lib/exec/propagator.h"
#include "lib/exec/thread_pool.h"
#include "lib/kernels/file_policy.h"
#include "lib/partition/control_flow.h"

namespace dfg {
namespace {

// A kernel out of memory (a Tensor it could not allocate, std::bad_alloc
// or std::length_error from its own containers) fails its node as
// TensorFlow fails an allocation, instead of ending the process.
Status OutOfMemory(const std::exception& e) {
  if (dynamic_cast<const TensorAllocationError*>(&e) != nullptr) {
    return ResourceExhausted("{}", e.what());
  }
  return ResourceExhausted("OOM when allocating memory ({})", e.what());
}

// The kernel-call boundary: the step's memory budget is current while the
// kernel runs, and a kernel that runs out of memory fails with its status.
void CallKernel(OpKernel* kernel, OpKernelContext* ctx, MemoryBudget* budget) {
  ScopedMemoryBudget scope(budget);
  try {
    kernel->Compute(ctx);
  } catch (const std::bad_alloc& e) {
    ctx->SetStatus(OutOfMemory(e));
  } catch (const std::length_error& e) {
    ctx->SetStatus(OutOfMemory(e));
  }
}

// The same for an async kernel: one that throws before it calls `done` has
// failed, and `done` is called for it.
void CallAsyncKernel(AsyncOpKernel* kernel, OpKernelContext* ctx,
                     MemoryBudget* budget, std::function<void()> done) {
  ScopedMemoryBudget scope(budget);
  Status failed;
  try {
    kernel->ComputeAsync(ctx, done);
    return;
  } catch (const std::bad_alloc& e) {
    failed = OutOfMemory(e);
  } catch (const std::length_error& e) {
    failed = OutOfMemory(e);
  }
  ctx->SetStatus(failed);
  done();
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Per-node buffers reused across the nodes one Process call runs. Between
// nodes every element of `outputs` is empty.
struct Scratch {
  std::vector<TensorValue> inputs;
  std::vector<Tensor> deref;  // ref inputs read as values
  std::vector<OpOutput> outputs;

  OpOutput* Outputs(int n) {
    if (outputs.size() < size_t(n)) outputs.resize(n);
    return outputs.data();
  }
  // The outputs are spent (propagated or dropped): back to the Clear()ed
  // slots the kernel contract promises (a moved-out value keeps its dtype
  // and shape, so ClearEntry alone is not enough here).
  void ResetOutputs(int n) {
    for (int i = 0; i < n; ++i) {
      OpOutput& out = outputs[i];
      if (out.value.dtype() != tensorflow::DT_INVALID) {
        std::destroy_at(&out.value);
        std::construct_at(&out.value);
      }
      out.ref = nullptr;
      out.ref_mu = nullptr;
      out.has_value = false;
    }
  }
};

// What an asynchronous kernel needs until its callback: its own scratch and
// context (the caller's scratch moves on to other nodes).
struct AsyncState {
  Scratch scratch;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  NodeExecRecord record;
  std::atomic<int> phase{0};  // the second of (caller, done) finishes
};

// Process calls running on this thread (of any executor).
thread_local int process_depth = 0;

// The nodes a Process call runs inline, first in first out.
class InlineQueue {
 public:
  bool empty() const { return head_ == nodes_.size(); }
  void push_back(const TaggedNode& t) { nodes_.push_back(t); }
  TaggedNode pop_front() {
    TaggedNode t = nodes_[head_++];
    if (head_ == nodes_.size()) {
      nodes_.clear();
      head_ = 0;
    }
    return t;
  }

 private:
  std::vector<TaggedNode> nodes_;
  size_t head_ = 0;
};

// The buffers of one Process call (or of Start), kept per thread between
// calls: a step of a small function body (a loop's cond or body, run once per
// iteration) would otherwise allocate them afresh. Nested calls on one thread
// (a node that runs a function) borrow a set each.
struct ProcessBuffers {
  Scratch scratch;
  InlineQueue inline_ready;
  ReadyList ready;
  std::vector<TaggedNode> roots;  // Start's
};

class BorrowedBuffers {
 public:
  BorrowedBuffers() {
    std::vector<std::unique_ptr<ProcessBuffers>>& pool = Pool();
    if (pool.empty()) {
      buffers_ = std::make_unique<ProcessBuffers>();
    } else {
      buffers_ = std::move(pool.back());
      pool.pop_back();
    }
  }
  ~BorrowedBuffers() { Pool().push_back(std::move(buffers_)); }
  BorrowedBuffers(const BorrowedBuffers&) = delete;
  BorrowedBuffers& operator=(const BorrowedBuffers&) = delete;
  ProcessBuffers* operator->() const { return buffers_.get(); }

 private:
  static std::vector<std::unique_ptr<ProcessBuffers>>& Pool() {
    thread_local std::vector<std::unique_ptr<ProcessBuffers>> pool;
    return pool;
  }
  std::unique_ptr<ProcessBuffers> buffers_;
};

}  // namespace

// One step of an executor. Kept by the executor between steps
// (Impl::TakeState): a step of a function body called once per loop
// iteration reuses the last step's state, root iteration included.
class ExecutorState {
 public:
  explicit ExecutorState(const Executor::Impl& impl);
  // Starts a step; the state goes back to the executor when it finishes.
  void Start(const Executor::Args& args, Executor::DoneCallback done);

 private:
  void StartRoots();
  // Runs `first` and whatever becomes ready inline after it.
  void Process(TaggedNode first);
  // Runs one node; false when it went async (its callback finishes it).
  bool RunNode(const TaggedNode& t, Scratch* scratch, ReadyList* ready,
               Status* status);
  bool RunObservedNode(const TaggedNode& t, Scratch* scratch, ReadyList* ready,
                       Status* status);
  bool RunNode(const TaggedNode& t, Scratch* scratch, ReadyList* ready,
               Status* status, NodeExecRecord* observed);
  bool RunAsyncKernel(const TaggedNode& t, NodeExecRecord* record,
                      ReadyList* ready, Status* status);
  // The one completion routine of every node, dead, synchronous or
  // asynchronous: checks the outputs of a computed node, propagates them,
  // reports to the observer. Returns the node's status.
  Status CompleteNode(const TaggedNode& t, const Status& kernel_status,
                      bool computed, OpOutput* outputs, NodeExecRecord* record,
                      ReadyList* ready);
  Status PrepareInputs(const NodeItem& item, const TaggedNode& t,
                       Scratch* scratch);
  Status PrepareRefInputs(const NodeItem& item, const TaggedNode& t,
                          Scratch* scratch);
  void ClearInputs(const NodeItem& item, const TaggedNode& t);
  Status CheckOutputs(const NodeItem& item, const OpOutput* outputs);
  void FillParams(const NodeItem& item, const TaggedNode& t, Scratch* scratch,
                  OpKernelContext::Params* params);
  void NodeDone(const Status& s, const TaggedNode& t, ReadyList* ready,
                InlineQueue* inline_ready);
  void ScheduleReady(ReadyList* ready, InlineQueue* inline_ready);
  void Finish();

  const Executor::Impl& impl_;
  Executor::Args args_;
  Executor::DoneCallback done_;
  bool has_runner_ = false;
  StepServices services_;
  Propagator propagator_;
  std::atomic<int64_t> num_outstanding_ops_{0};
  std::atomic<bool> aborted_{false};
  std::mutex status_mu_;
  Status status_;  // guarded by status_mu_
};

ExecutorState::ExecutorState(const Executor::Impl& impl)
    : impl_(impl), propagator_(impl) {}

void ExecutorState::Start(const Executor::Args& args,
                          Executor::DoneCallback done) {
  args_ = args;
  done_ = std::move(done);
  has_runner_ = static_cast<bool>(args.runner);
  num_outstanding_ops_.store(0, std::memory_order_relaxed);
  aborted_.store(false, std::memory_order_relaxed);
  status_ = Status::Ok();
  services_.step_id = args.step_id;
  services_.rendezvous = args.rendezvous;
  services_.call_frame = args.call_frame;
  services_.resource_mgr = args.resource_mgr;
  services_.cancelled = args.cancelled;
  services_.intra_op_pool = args.intra_op_pool;
  services_.functions = impl_.functions.get();
  StartRoots();
}

void ExecutorState::StartRoots() {
  BorrowedBuffers buffers;
  ReadyList& ready = buffers->ready;
  ready.clear();
  FrameState* root = propagator_.root();
  IterationState* iter0 = root->GetIteration(0);
  for (int item : impl_.root_items) {
    ready.push_back(TaggedNode{item, root, iter0, 0, false});
  }
  iter0->outstanding_ops = static_cast<int>(ready.size());
  if (ready.empty()) {
    Finish();
    return;
  }
  num_outstanding_ops_.store(static_cast<int64_t>(ready.size()));
  InlineQueue& inline_ready = buffers->inline_ready;
  ScheduleReady(&ready, &inline_ready);
  ready.clear();
  // The last node to finish hands this state back: only locals are touched
  // after a Process call.
  std::vector<TaggedNode>& roots = buffers->roots;
  roots.clear();
  while (!inline_ready.empty()) roots.push_back(inline_ready.pop_front());
  for (const TaggedNode& t : roots) Process(t);
}

void ExecutorState::ScheduleReady(ReadyList* ready, InlineQueue* inline_ready) {
  if (ready->empty()) return;
  if (ready->size() == 1 && inline_ready != nullptr) {
    // One successor (a chain): inline unless it is expensive and there is
    // other inline work to do.
    const TaggedNode& t = ready->front();
    if (!has_runner_ || t.is_dead || inline_ready->empty() ||
        !impl_.items[t.item].is_expensive) {
      inline_ready->push_back(t);
      ready->clear();
      return;
    }
  }
  if (inline_ready == nullptr && args_.runner &&
      args_.continue_on_done_thread && process_depth == 0) {
    // An async kernel finished on a thread that runs no node (a network
    // thread): what it made ready runs here by the inline rules below,
    // as at Start, instead of waking a pool thread for it.
    InlineQueue here;
    ScheduleReady(ready, &here);
    std::vector<TaggedNode> nodes;
    while (!here.empty()) nodes.push_back(here.pop_front());
    // The last node to finish deletes this state: only locals from here.
    for (const TaggedNode& t : nodes) Process(t);
    return;
  }
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
  if (!has_runner_) {
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
  struct Depth {
    Depth() { ++process_depth; }
    ~Depth() { --process_depth; }
  } depth;
  // The file ops of this graph see its executor's policy (a server's
  // --allow-path), whatever thread runs them.
  ScopedFilePolicy file_policy(impl_.options.file_policy.get());
  BorrowedBuffers buffers;
  InlineQueue& inline_ready = buffers->inline_ready;
  inline_ready.push_back(first);
  Scratch& scratch = buffers->scratch;
  ReadyList& ready = buffers->ready;
  while (!inline_ready.empty()) {
    TaggedNode t = inline_ready.pop_front();
    while (true) {
      ready.clear();
      Status s;
      if (!RunNode(t, &scratch, &ready, &s)) break;
      // A chain: the one node made ready runs next on this thread, and the
      // count of outstanding nodes stays as it is.
      if (s.ok() && ready.size() == 1 && inline_ready.empty() &&
          !aborted_.load(std::memory_order_relaxed)) {
        t = ready.front();
        continue;
      }
      NodeDone(s, t, &ready, &inline_ready);
      break;
    }
  }
}

// Inputs are read in place from the iteration's slots (nothing else writes a
// node's slots once it is ready); a ref input the kernel takes as a value is
// copied out under the variable's mutex.
Status ExecutorState::PrepareInputs(const NodeItem& item, const TaggedNode& t,
                                    Scratch* scratch) {
  if (scratch->inputs.size() < size_t(item.num_inputs)) {
    scratch->inputs.resize(item.num_inputs);
  }
  Entry* slots = t.iter_state->inputs.get() + item.input_start;
  if (!item.has_ref_input) {
    for (int i = 0; i < item.num_inputs; ++i) {
      Entry& e = slots[i];
      // A variable read by a value input is copied out: the general case.
      if (e.ref != nullptr) return PrepareRefInputs(item, t, scratch);
      scratch->inputs[i] =
          e.has_value ? TensorValue{&e.value, nullptr} : TensorValue();
    }
    return Status::Ok();
  }
  return PrepareRefInputs(item, t, scratch);
}

// The general case: some input is a ref (a variable) that the kernel reads
// as a ref or as a value.
Status ExecutorState::PrepareRefInputs(const NodeItem& item,
                                       const TaggedNode& t, Scratch* scratch) {
  Entry* slots = t.iter_state->inputs.get() + item.input_start;
  for (int i = 0; i < item.num_inputs; ++i) {
    Entry& e = slots[i];
    if (!e.has_value) {  // a dead Merge input: tensor stays null
      scratch->inputs[i] = TensorValue();
    } else if (e.ref == nullptr) {
      scratch->inputs[i] = TensorValue{&e.value, nullptr};
    } else if (item.input_is_ref[i]) {
      scratch->inputs[i] = TensorValue{e.ref, e.ref_mu};
    } else {
      if (scratch->deref.size() < size_t(item.num_inputs)) {
        scratch->deref.resize(item.num_inputs);
      }
      DFG_RETURN_IF_ERROR(DerefRefInput(
          *item.kernel, i, TensorValue{e.ref, e.ref_mu}, &scratch->deref[i]));
      scratch->inputs[i] = TensorValue{&scratch->deref[i], nullptr};
    }
  }
  return Status::Ok();
}

// The node's input slots are spent once it ran (or failed, or was dead).
void ExecutorState::ClearInputs(const NodeItem& item, const TaggedNode& t) {
  Entry* slots = t.iter_state->inputs.get() + item.input_start;
  for (int i = 0; i < item.num_inputs; ++i) {
    if (slots[i].has_value) ClearEntry(&slots[i]);
  }
}

Status ExecutorState::CheckOutputs(const NodeItem& item,
                                   const OpOutput* outputs) {
  for (int i = 0; i < item.num_outputs; ++i) {
    const OpOutput& out = outputs[i];
    if (!out.has_value) {
      if (item.is_switch || item.is_recv) continue;
      return Internal("Missing {}-th output from {}", i,
                      FormatNodeForError(*item.node));
    }
    DataType declared = item.kernel->output_type(i);
    if (declared == tensorflow::DT_INVALID) continue;
    DataType actual =
        out.is_ref() ? MakeRefType(out.ref->dtype()) : out.value.dtype();
    if (out.is_ref() ? BaseType(actual) != BaseType(declared)
                     : actual != declared) {
      return Internal(
          "Output {} of type {} does not match declared output type {} for "
          "node {}",
          i, DataTypeString(actual), DataTypeString(declared),
          FormatNodeForError(*item.node));
    }
  }
  return Status::Ok();
}

Status ExecutorState::CompleteNode(const TaggedNode& t,
                                   const Status& kernel_status, bool computed,
                                   OpOutput* outputs, NodeExecRecord* record,
                                   ReadyList* ready) {
  const NodeItem& item = impl_.items[t.item];
  Status s;
  if (!kernel_status.ok()) {
    s = AttachNodeDef(kernel_status, item.node->def());
  } else if (computed) {
    s = CheckOutputs(item, outputs);
    if (!s.ok()) s = AttachNodeDef(s, item.node->def());
  }
  if (record != nullptr) [[unlikely]] {
    record->end_ns = NowNanos();
    for (int i = 0; computed && i < item.num_outputs; ++i) {
      const OpOutput& out = outputs[i];
      if (!out.has_value || out.is_ref()) continue;
      record->outputs.emplace_back(
          out.value.shape(), static_cast<int64_t>(out.value.TotalBytes()));
    }
  }
  if (s.ok()) propagator_.PropagateOutputs(t, outputs, ready);
  if (record != nullptr) [[unlikely]]
    args_.observer->NodeDone(*record);
  return s;
}

void ExecutorState::FillParams(const NodeItem& item, const TaggedNode& t,
                               Scratch* scratch,
                               OpKernelContext::Params* params) {
  params->op_kernel = item.kernel.get();
  params->inputs = scratch->inputs.data();
  params->outputs = scratch->Outputs(item.num_outputs);
  params->is_input_dead = t.is_dead;
  params->frame_iter = FrameAndIter{t.frame->frame_id, t.iter};
  params->step = &services_;
  // Each consumer's slot holds its own Tensor (the last edge moves it) and
  // ClearInputs drops it after Compute: a kernel may write its output into
  // an input buffer nothing else owns (element-wise ops do).
  params->allow_input_forwarding = true;
}

bool ExecutorState::RunNode(const TaggedNode& t, Scratch* scratch,
                            ReadyList* ready, Status* status) {
  if (args_.observer != nullptr) [[unlikely]] {
    return RunObservedNode(t, scratch, ready, status);
  }
  return RunNode(t, scratch, ready, status, nullptr);
}

// Out of line: the record stays off the stack frame of unobserved steps.
[[gnu::noinline]] bool ExecutorState::RunObservedNode(const TaggedNode& t,
                                                      Scratch* scratch,
                                                      ReadyList* ready,
                                                      Status* status) {
  NodeExecRecord record;
  record.node = impl_.items[t.item].node;
  record.start_ns = NowNanos();
  record.thread_id = ThreadPool::CurrentThreadId();
  record.frame_iter = FrameAndIter{t.frame->frame_id, t.iter};
  record.is_dead = t.is_dead;
  return RunNode(t, scratch, ready, status, &record);
}

bool ExecutorState::RunNode(const TaggedNode& t, Scratch* scratch,
                            ReadyList* ready, Status* status,
                            NodeExecRecord* observed) {
  const NodeItem& item = impl_.items[t.item];
  if (args_.cancelled != nullptr &&
      args_.cancelled->load(std::memory_order_relaxed)) {
    *status = Cancelled("Step was cancelled");
    return true;
  }
  if (t.is_dead && !item.is_transfer) {
    // A dead node does not run: every output is dead.
    ClearInputs(item, t);
    *status = CompleteNode(t, Status::Ok(), /*computed=*/false,
                           scratch->Outputs(item.num_outputs), observed, ready);
    scratch->ResetOutputs(item.num_outputs);
    return true;
  }
  if (item.is_async) return RunAsyncKernel(t, observed, ready, status);
  // The first consumer often runs next on this thread (a chain): its kernel
  // and out edges start loading while this node computes. A big graph's
  // are out of the caches by the next step.
  if (!item.out_edges.empty()) {
    const EdgeInfo& e = item.out_edges.front();
    const char* next = reinterpret_cast<const char*>(&impl_.items[e.dst]);
    static_assert(sizeof(NodeItem) <= 3 * 64);
    __builtin_prefetch(next);
    __builtin_prefetch(next + 64);
    __builtin_prefetch(next + sizeof(NodeItem) - 1);
    __builtin_prefetch(e.dst_kernel);
  }

  Status s = PrepareInputs(item, t, scratch);
  if (!s.ok()) {
    ClearInputs(item, t);
    *status = AttachNodeDef(s, item.node->def());
    return true;
  }
  OpKernelContext::Params params;
  FillParams(item, t, scratch, &params);
  OpKernelContext ctx(&params);
  if (observed != nullptr) [[unlikely]] {
    // The functions the node calls are observed too, under its name.
    const Node& node = *item.node;
    ObservedCallScope scope(args_.observer, &node,
                            node.assigned_device_name().empty()
                                ? node.requested_device()
                                : node.assigned_device_name());
    CallKernel(item.kernel.get(), &ctx, args_.memory_budget);
  } else {
    CallKernel(item.kernel.get(), &ctx, args_.memory_budget);
  }
  ClearInputs(item, t);
  if (!scratch->deref.empty()) scratch->deref.clear();
  *status = CompleteNode(t, ctx.status(), /*computed=*/true,
                         scratch->outputs.data(), observed, ready);
  scratch->ResetOutputs(item.num_outputs);
  return true;
}

// Whichever of the caller and the kernel's callback comes second completes
// the node: inline here when the kernel finished synchronously.
bool ExecutorState::RunAsyncKernel(const TaggedNode& t, NodeExecRecord* record,
                                   ReadyList* ready, Status* status) {
  const NodeItem& item = impl_.items[t.item];
  auto state = std::make_shared<AsyncState>();
  Status s = PrepareInputs(item, t, &state->scratch);
  if (!s.ok()) {
    ClearInputs(item, t);
    *status = AttachNodeDef(s, item.node->def());
    return true;
  }
  FillParams(item, t, &state->scratch, &state->params);
  state->ctx = std::make_unique<OpKernelContext>(&state->params);
  if (record != nullptr) state->record = *record;
  const bool observe = record != nullptr;
  auto complete = [this, t, state, observe](ReadyList* r) {
    ClearInputs(impl_.items[t.item], t);
    state->scratch.deref.clear();
    return CompleteNode(t, state->ctx->status(), /*computed=*/true,
                        state->scratch.outputs.data(),
                        observe ? &state->record : nullptr, r);
  };
  CallAsyncKernel(item.kernel->AsAsync(), state->ctx.get(), args_.memory_budget,
                  [this, state, complete, t]() {
                    if (state->phase.fetch_add(1) == 0)
                      return;  // the caller finishes
                    ReadyList r;
                    Status done_status = complete(&r);
                    NodeDone(done_status, t, &r, nullptr);
                  });
  if (state->phase.fetch_add(1) == 0) return false;  // finishes later
  *status = complete(ready);
  return true;
}

void ExecutorState::NodeDone(const Status& s, const TaggedNode& t,
                             ReadyList* ready, InlineQueue* inline_ready) {
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
  // A step without control flow that ran every node consumed every slot.
  propagator_.Reset(/*slots_empty=*/impl_.simple && s.ok());
  Executor::DoneCallback done = std::move(done_);
  done_ = nullptr;
  args_.runner = nullptr;
  // From here another step may take this state.
  impl_.ReturnState(this);
  done(s);
}

ExecutorState* Executor::Impl::TakeState() const {
  if (ExecutorState* state = last_state_.exchange(nullptr)) return state;
  {
    std::lock_guard<std::mutex> lock(spare_mu_);
    if (!spare_.empty()) {
      ExecutorState* state = spare_.back().release();
      spare_.pop_back();
      return state;
    }
  }
  return new ExecutorState(*this);
}

void Executor::Impl::ReturnState(ExecutorState* state) const {
  ExecutorState* empty = nullptr;
  if (last_state_.compare_exchange_strong(empty, state)) return;
  std::lock_guard<std::mutex> lock(spare_mu_);
  spare_.emplace_back(state);
}

void Executor::Impl::StateDeleter::operator()(ExecutorState* state) const {
  delete state;
}

void Executor::Impl::RunAsync(const Args& args, DoneCallback done) const {
  TakeState()->Start(args, std::move(done));
}

}  // namespace dfg
