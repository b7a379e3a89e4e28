#include "lib/exec/executor.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

#include "lib/exec/executor_impl.h"
#include "lib/graph/op_registry.h"
#include "lib/kernels/functional_ops.h"
#include "lib/kernels/kernel_registry.h"

namespace dfg {
namespace {

bool IsTransferOp(const std::string& op) {
  return op == "_Send" || op == "_HostSend" || op == "_Recv" ||
         op == "_HostRecv";
}

// The frame each node runs in, as the executor sees it (TensorFlow's
// ImmutableExecutorState::BuildControlFlowInfo): an Enter runs in its
// input's frame and its consumers in the Enter's frame; an Exit runs in the
// loop's frame and its consumers in the parent frame. Unreached nodes stay
// in the root frame ("").
Status AssignFrames(const Graph& graph, std::vector<std::string>* frame_names) {
  const int n = graph.num_node_ids();
  frame_names->assign(n, "");
  std::vector<int> parent(n, -1);  // node id of the Enter that opened the frame
  std::vector<bool> visited(n, false);
  std::deque<const Node*> ready;
  ready.push_back(graph.source_node());
  visited[0] = true;
  while (!ready.empty()) {
    const Node* curr = ready.front();
    ready.pop_front();
    std::string frame_name;
    int parent_node = -1;
    if (curr->IsEnter()) {
      auto it = curr->def().attr().find("frame_name");
      if (it == curr->def().attr().end() || it->second.s().empty()) {
        return InvalidArgument("The Enter {} must have a frame name.",
                               NodeForError(*curr));
      }
      frame_name = it->second.s();
      parent_node = curr->id();
    } else if (curr->IsExit()) {
      int enter = parent[curr->id()];
      if (enter >= 0) {
        frame_name = (*frame_names)[enter];
        parent_node = parent[enter];
      }
    } else {
      frame_name = (*frame_names)[curr->id()];
      parent_node = parent[curr->id()];
    }
    for (const Edge* e : curr->out_edges()) {
      const Node* out = e->dst;
      if (out->IsSink() || visited[out->id()]) continue;
      visited[out->id()] = true;
      (*frame_names)[out->id()] = frame_name;
      parent[out->id()] = parent_node;
      ready.push_back(out);
    }
  }
  return Status::Ok();
}

}  // namespace

std::string NodeForError(const Node& node) {
  return "{{node " + node.name() + "}}";
}

// The kernel of a node whose op is a library function.
static StatusOr<std::unique_ptr<OpKernel>> CreateCallKernel(
    const Node& node, const ExecutorOptions& options) {
  OpKernelConstruction construction(&node.def(), options.device_type,
                                    &node.input_types(), &node.output_types());
  std::unique_ptr<OpKernel> kernel = CreateFunctionCallKernel(&construction);
  if (!construction.status().ok()) {
    return AttachNodeDef(construction.status(), node.def());
  }
  return kernel;
}

Status Executor::Impl::Build() {
  if (options.library == nullptr) {
    options.library = std::make_shared<const tensorflow::FunctionDefLibrary>(
        graph->library());
  }
  functions = std::make_unique<FunctionRuntime>(options.library, options);
  OpLookup lookup(options.library.get());
  std::vector<std::string> frame_names;
  DFG_RETURN_IF_ERROR(AssignFrames(*graph, &frame_names));

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

  const int n = graph->num_node_ids();
  std::vector<int> item_of(n, -1);
  for (Node* node : graph->nodes()) {
    if (!node->IsOp()) continue;
    item_of[node->id()] = static_cast<int>(items.size());
    items.emplace_back();
    NodeItem& item = items.back();
    item.node = node;
    item.num_inputs = node->num_inputs();
    item.num_outputs = node->num_outputs();
    item.frame = ensure_frame(frame_names[node->id()]);
    FrameTemplate& frame = frames[item.frame];
    item.local_id = frame.num_nodes++;
    item.input_start = frame.total_inputs;
    frame.total_inputs += item.num_inputs;

    item.is_merge = node->IsMerge();
    item.is_switch = node->IsSwitch();
    item.is_enter = node->IsEnter();
    item.is_exit = node->IsExit();
    item.is_next_iteration = node->IsNextIteration();
    item.is_control_trigger = node->IsControlTrigger();
    item.is_transfer = IsTransferOp(node->op());
    item.is_recv = node->IsRecv();
    for (DataType t : node->input_types())
      item.input_is_ref.push_back(IsRefType(t));
    if (item.is_enter) {
      const auto& attrs = node->def().attr();
      item.child_frame_name = attrs.at("frame_name").s();
      auto c = attrs.find("is_constant");
      item.is_constant_enter = c != attrs.end() && c->second.b();
      auto p = attrs.find("parallel_iterations");
      if (p != attrs.end() && p->second.i() > 0) {
        item.parallel_iterations = static_cast<int>(p->second.i());
      }
    }
    if (lookup.IsFunction(node->op())) {
      DFG_ASSIGN_OR_RETURN(item.kernel, CreateCallKernel(*node, options));
    } else {
      DFG_ASSIGN_OR_RETURN(item.kernel,
                           KernelRegistry::Global().CreateKernel(
                               node->def(), options.device_type,
                               node->input_types(), node->output_types()));
    }
    item.is_async = item.kernel->AsAsync() != nullptr;
    item.is_expensive = item.kernel->is_expensive();
  }
  // Child frames of Enters (after all frames exist).
  for (NodeItem& item : items) {
    if (!item.is_enter) continue;
    item.child_frame = ensure_frame(item.child_frame_name);
    frames[item.child_frame].num_enters++;
  }
  for (FrameTemplate& f : frames) f.initial_pending.assign(f.num_nodes, 0);
  for (const NodeItem& item : items) {
    if (item.is_merge || item.is_switch || item.is_enter || item.is_exit ||
        item.is_next_iteration) {
      simple = false;
    }
  }

  // Out-edges and pending counts. Edges from _SOURCE and to _SINK carry
  // nothing the step needs.
  for (NodeItem& item : items) {
    const Node* node = item.node;
    int num_control_in = 0, num_data_in = 0;
    for (const Edge* e : node->in_edges()) {
      if (e->src->IsSource()) continue;
      if (e->IsControlEdge()) {
        ++num_control_in;
      } else {
        ++num_data_in;
      }
    }
    item.num_data_inputs = num_data_in;
    item.initial_pending =
        item.is_merge ? 1 + 2 * num_control_in : num_control_in + num_data_in;
    frames[item.frame].initial_pending[item.local_id] = item.initial_pending;
    if (item.initial_pending == 0 && item.frame == 0) {
      root_items.push_back(static_cast<int>(&item - items.data()));
    }
    std::vector<int> last_use(item.num_outputs, -1);
    for (const Edge* e : node->out_edges()) {
      if (e->dst->IsSink()) continue;
      EdgeInfo info;
      info.dst = item_of[e->dst->id()];
      info.is_control = e->IsControlEdge();
      info.src_output = e->src_output;
      info.dst_input = e->dst_input;
      if (!info.is_control) last_use[e->src_output] = item.out_edges.size();
      item.out_edges.push_back(info);
    }
    for (int k : last_use) {
      if (k >= 0) item.out_edges[k].is_last = true;
    }
  }
  return Status::Ok();
}

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

StatusOr<std::unique_ptr<Executor>> Executor::Create(
    std::unique_ptr<Graph> graph, const ExecutorOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph);
  impl->options = options;
  DFG_RETURN_IF_ERROR(impl->Build());
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

void Executor::RunAsync(const Args& args, DoneCallback done) {
  impl_->RunAsync(args, std::move(done));
}

Status Executor::Run(const Args& args) {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Status result;
  RunAsync(args, [&](const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    result = s;
    finished = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  return result;
}

const Graph& Executor::graph() const { return *impl_->graph; }
const std::string& Executor::device() const { return impl_->options.device; }

}  // namespace dfg
