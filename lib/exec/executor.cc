#include "lib/exec/executor.h"

#include <condition_variable>
#include <map>
#include <mutex>

#include "lib/base/progress.h"
#include "lib/exec/executor_impl.h"
#include "lib/exec/propagator.h"
#include "lib/graph/op_registry.h"
#include "lib/kernels/file_policy.h"
#include "lib/kernels/functional_ops.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/partition/control_flow.h"

namespace dfg {
namespace {

// The frame each node runs in, as the executor sees it (TensorFlow's
// ImmutableExecutorState): BuildControlFlowInfo's frames, except that an
// Enter runs in its input's frame (its outputs are in the frame it opens).
// Nodes the walk from _SOURCE does not reach stay in the root frame ("").
Status ExecutorFrames(const Graph& graph,
                      std::vector<std::string>* frame_names) {
  std::vector<ControlFlowInfo> info;
  DFG_RETURN_IF_ERROR(BuildControlFlowInfo(graph, &info));
  frame_names->assign(graph.num_node_ids(), "");
  for (const Node* node : graph.op_nodes()) {
    const ControlFlowInfo& cf = info[node->id()];
    if (cf.frame == nullptr) continue;
    (*frame_names)[node->id()] = node->IsEnter()
                                     ? info[cf.parent_frame->id()].frame_name
                                     : cf.frame_name;
  }
  return Status::Ok();
}

// The kernel of a node whose op is a library function.
StatusOr<std::unique_ptr<OpKernel>> CreateCallKernel(
    const Node& node, const ExecutorOptions& options) {
  OpKernelConstruction construction(&node.def(), options.device_type,
                                    &node.input_types(), &node.output_types());
  // The executor keeps its graph as long as its kernels.
  construction.set_definition_outlives_kernel(true);
  std::unique_ptr<OpKernel> kernel = CreateFunctionCallKernel(&construction);
  if (!construction.status().ok()) {
    return AttachNodeDef(construction.status(), node.def());
  }
  return kernel;
}

void SetNodeKind(const Node& node, NodeItem* item) {
  item->is_merge = node.IsMerge();
  item->is_switch = node.IsSwitch();
  item->is_enter = node.IsEnter();
  item->is_exit = node.IsExit();
  item->is_next_iteration = node.IsNextIteration();
  item->is_control_trigger = node.IsControlTrigger();
  item->is_transfer = node.IsSend() || node.IsRecv();
  item->is_recv = node.IsRecv();
  for (DataType t : node.input_types()) {
    item->input_is_ref.push_back(IsRefType(t));
    item->has_ref_input |= IsRefType(t);
  }
  if (item->is_enter) {
    const auto& attrs = node.def().attr();
    item->child_frame_name = attrs.at("frame_name").s();
    auto c = attrs.find("is_constant");
    item->is_constant_enter = c != attrs.end() && c->second.b();
    auto p = attrs.find("parallel_iterations");
    if (p != attrs.end() && p->second.i() > 0) {
      item->parallel_iterations = static_cast<int>(p->second.i());
    }
  }
}

}  // namespace

Executor::Impl::Impl() = default;
Executor::Impl::~Impl() { StateDeleter()(last_state_.load()); }

Status Executor::Impl::Build() {
  if (options.library == nullptr) {
    options.library = std::make_shared<const tensorflow::FunctionDefLibrary>(
        graph->library());
  }
  if (options.call_graph == nullptr) {
    options.call_graph =
        std::make_shared<const FunctionCallGraph>(options.library.get());
  }
  functions = std::make_unique<FunctionRuntime>(options.library, options);
  std::vector<std::string> frame_names;
  DFG_RETURN_IF_ERROR(ExecutorFrames(*graph, &frame_names));
  DFG_RETURN_IF_ERROR(BuildItems(frame_names));
  BuildEdges();
  return Status::Ok();
}

// One item per op node, in node-id order, with its kernel and frame.
Status Executor::Impl::BuildItems(const std::vector<std::string>& frame_names) {
  std::map<std::string, int> frame_index;
  auto ensure_frame = [&](const std::string& name) {
    auto [it, inserted] = frame_index.emplace(name, frames.size());
    if (inserted) {
      frames.emplace_back();
      frames.back().name = name;
    }
    return it->second;
  };
  ensure_frame("");
  items.reserve(graph->num_op_nodes());
  ProgressStage stage(
      fmt::format("building kernels of {} nodes", graph->num_op_nodes()),
      graph->num_op_nodes());
  for (Node* node : graph->nodes()) {
    if (!node->IsOp()) continue;
    if ((items.size() & 4095) == 0) stage.Set(items.size());
    NodeItem& item = items.emplace_back();
    item.node = node;
    item.num_inputs = node->num_inputs();
    item.num_outputs = node->num_outputs();
    item.frame = ensure_frame(frame_names[node->id()]);
    FrameTemplate& frame = frames[item.frame];
    item.local_id = frame.num_nodes++;
    item.input_start = frame.total_inputs;
    frame.total_inputs += item.num_inputs;
    SetNodeKind(*node, &item);
    if (OpRegistry::Global().Find(node->op()) == nullptr &&
        options.call_graph->Find(node->op()) != nullptr) {
      DFG_ASSIGN_OR_RETURN(item.kernel, CreateCallKernel(*node, options));
    } else {
      DFG_ASSIGN_OR_RETURN(item.kernel,
                           KernelRegistry::Global().CreateKernel(
                               node->def(), options.device_type,
                               node->input_types(), node->output_types(),
                               /*definition_outlives_kernel=*/true));
    }
    item.is_async = item.kernel->AsAsync() != nullptr;
    item.is_expensive = item.kernel->is_expensive();
    if (item.is_merge || item.is_switch || item.is_enter || item.is_exit ||
        item.is_next_iteration) {
      simple = false;
    }
  }
  // Child frames of Enters (after all frames exist).
  for (NodeItem& item : items) {
    if (!item.is_enter) continue;
    item.child_frame = ensure_frame(item.child_frame_name);
    frames[item.child_frame].num_enters++;
  }
  for (FrameTemplate& f : frames) f.initial_pending.assign(f.num_nodes, 0);
  return Status::Ok();
}

// Out-edges and pending counts. Edges from _SOURCE and to _SINK carry
// nothing the step needs.
void Executor::Impl::BuildEdges() {
  std::vector<int> item_of(graph->num_node_ids(), -1);
  for (size_t i = 0; i < items.size(); ++i) item_of[items[i].node->id()] = i;
  for (NodeItem& item : items) {
    int num_control_in = 0, num_data_in = 0;
    for (const Edge* e : item.node->in_edges()) {
      if (e->src->IsSource()) continue;
      (e->IsControlEdge() ? num_control_in : num_data_in)++;
    }
    item.num_data_inputs = num_data_in;
    item.initial_pending =
        item.is_merge ? 1 + 2 * num_control_in : num_control_in + num_data_in;
    frames[item.frame].initial_pending[item.local_id] = item.initial_pending;
    if (item.initial_pending == 0 && item.frame == 0) {
      root_items.push_back(static_cast<int>(&item - items.data()));
    }
  }
  std::vector<size_t> begin(items.size() + 1, 0);
  for (NodeItem& item : items) {
    begin[&item - items.data()] = edges.size();
    std::vector<int> last_use(item.num_outputs, -1);
    for (const Edge* e : item.node->out_edges()) {
      if (e->dst->IsSink()) continue;
      EdgeInfo info;
      info.dst = item_of[e->dst->id()];
      const NodeItem& dst = items[info.dst];
      info.is_control = e->IsControlEdge();
      info.src_output = e->src_output;
      info.dst_input = e->dst_input;
      info.dst_local = dst.local_id;
      info.dst_slot = info.is_control ? -1 : dst.input_start + e->dst_input;
      info.dst_single_input = dst.initial_pending == 1 && !dst.is_merge;
      info.dst_is_control_trigger = dst.is_control_trigger;
      info.dst_kernel = dst.kernel.get();
      const size_t first = begin[&item - items.data()];
      if (!info.is_control) last_use[e->src_output] = edges.size() - first;
      edges.push_back(info);
    }
    for (int k : last_use) {
      if (k >= 0) edges[begin[&item - items.data()] + k].is_last = true;
    }
  }
  begin[items.size()] = edges.size();
  for (size_t i = 0; i < items.size(); ++i) {
    items[i].out_edges = std::span<const EdgeInfo>(edges.data() + begin[i],
                                                   begin[i + 1] - begin[i]);
  }
}

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

StatusOr<std::unique_ptr<Executor>> Executor::Create(
    std::unique_ptr<Graph> graph, const ExecutorOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph);
  impl->options = options;
  // Kernels that read a file named by an attr do it while they are built.
  ScopedFilePolicy file_policy(options.file_policy.get());
  DFG_RETURN_IF_ERROR(impl->Build());
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

void Executor::RunAsync(const Args& args, DoneCallback done) {
  impl_->RunAsync(args, std::move(done));
}

Status Executor::Run(const Args& args) {
  // Whichever of RunAsync's return and the callback comes second finishes:
  // a step that ran inline (every function call without async kernels) is
  // over when RunAsync returns and takes no lock.
  struct Waiter {
    std::atomic<int> phase{0};
    Status result;
    std::mutex mu;
    std::condition_variable cv;
    bool finished = false;  // guarded by mu
  } waiter;
  // One pointer: the callback fits std::function's inline storage, so a
  // step run this way allocates no callback.
  RunAsync(args, [w = &waiter](const Status& s) {
    w->result = s;
    if (w->phase.fetch_add(1, std::memory_order_acq_rel) == 0) return;
    std::lock_guard<std::mutex> lock(w->mu);
    w->finished = true;
    w->cv.notify_all();
  });
  if (waiter.phase.fetch_add(1, std::memory_order_acq_rel) != 0) {
    return waiter.result;
  }
  std::unique_lock<std::mutex> lock(waiter.mu);
  waiter.cv.wait(lock, [&] { return waiter.finished; });
  return waiter.result;
}

const Graph& Executor::graph() const { return *impl_->graph; }
const std::string& Executor::device() const { return impl_->options.device; }

}  // namespace dfg
