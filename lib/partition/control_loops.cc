#include "lib/partition/control_loops.h"

#include <unordered_map>
#include <utility>

#include "lib/base/strings.h"
#include "lib/graph/tensor_id.h"
#include "lib/proto/attr_value.pb.h"

namespace dfg::partition_internal {
namespace {

constexpr std::string_view kControlLoopPrefix = "_cloop";

// The nodes of one control loop: Enter -> Merge -> Switch -> NextIteration,
// driven by the frame's LoopCond from another device.
struct ControlLoop {
  Node* enter = nullptr;
  Node* merge = nullptr;
  Node* switch_node = nullptr;
};

void SetType(NodeDef* def, const char* attr, DataType type) {
  (*def->mutable_attr())[attr].set_type(type);
}

StatusOr<Node*> AddLoopNode(Graph* graph, NodeDef def,
                            const std::string& device) {
  DFG_ASSIGN_OR_RETURN(Node * node, graph->AddNode(std::move(def)));
  node->set_assigned_device_name(device);
  return node;
}

// A new node runs in the same frame as `like`.
void CopyControlFlowInfo(const Node& node, const Node& like,
                         std::vector<ControlFlowInfo>* cf_info) {
  if (static_cast<size_t>(node.id()) >= cf_info->size()) {
    cf_info->resize(node.id() + 1);
  }
  ControlFlowInfo copy = (*cf_info)[like.id()];
  (*cf_info)[node.id()] = std::move(copy);
}

// The empty float Const that feeds the outermost control-loop Enter.
StatusOr<Node*> AddControlConst(Graph* graph, const std::string& name,
                                const std::string& device) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  SetType(&def, "dtype", DataType::DT_FLOAT);
  tensorflow::TensorProto* value =
      (*def.mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DataType::DT_FLOAT);
  value->mutable_tensor_shape()->add_dim()->set_size(0);
  return AddLoopNode(graph, std::move(def), device);
}

Status FrameParallelIterations(const Node& frame, int64_t* value) {
  auto it = frame.def().attr().find("parallel_iterations");
  if (it == frame.def().attr().end()) {
    return NotFound("No attr named 'parallel_iterations' in NodeDef: {}",
                    FormatNodeForError(frame));
  }
  *value = it->second.i();
  return Status::Ok();
}

// Adds the control loop for the frame of `src` on the device of edge->dst.
Status AddControlLoop(Graph* graph, const NewNameFn& new_name, const Node& src,
                      const Edge& edge, Node* loop_cond,
                      std::vector<ControlFlowInfo>* cf_info,
                      ControlLoop* loop) {
  const ControlFlowInfo& src_info = (*cf_info)[src.id()];
  const std::string device = edge.dst->assigned_device_name();
  const std::string frame_name = src_info.frame_name;
  int64_t parallel_iterations = 0;
  DFG_RETURN_IF_ERROR(
      FrameParallelIterations(*src_info.frame, &parallel_iterations));
  const std::string& dst_name = edge.dst->name();
  std::string enter_name = std::string(kControlLoopPrefix) + new_name(dst_name);
  std::string merge_name = std::string(kControlLoopPrefix) + new_name(dst_name);
  std::string switch_name =
      std::string(kControlLoopPrefix) + new_name(dst_name);
  std::string next_name = std::string(kControlLoopPrefix) + new_name(dst_name);

  NodeDef enter_def;
  enter_def.set_name(enter_name);
  enter_def.set_op("Enter");
  enter_def.add_input("dummy");
  SetType(&enter_def, "T", DataType::DT_FLOAT);
  (*enter_def.mutable_attr())["frame_name"].set_s(frame_name);
  (*enter_def.mutable_attr())["is_constant"].set_b(false);
  (*enter_def.mutable_attr())["parallel_iterations"].set_i(parallel_iterations);
  DFG_ASSIGN_OR_RETURN(Node * enter,
                       AddLoopNode(graph, std::move(enter_def), device));

  NodeDef merge_def;
  merge_def.set_name(merge_name);
  merge_def.set_op("Merge");
  merge_def.add_input(enter_name);
  merge_def.add_input(next_name);
  SetType(&merge_def, "T", DataType::DT_FLOAT);
  (*merge_def.mutable_attr())["N"].set_i(2);
  DFG_ASSIGN_OR_RETURN(Node * merge,
                       AddLoopNode(graph, std::move(merge_def), device));

  NodeDef switch_def;
  switch_def.set_name(switch_name);
  switch_def.set_op("Switch");
  switch_def.add_input(merge_name);
  switch_def.add_input(loop_cond->name());
  SetType(&switch_def, "T", DataType::DT_FLOAT);
  DFG_ASSIGN_OR_RETURN(Node * switch_node,
                       AddLoopNode(graph, std::move(switch_def), device));
  graph->AddEdge(merge, 0, switch_node, 0);
  graph->AddEdge(loop_cond, 0, switch_node, 1);

  NodeDef next_def;
  next_def.set_name(next_name);
  next_def.set_op("NextIteration");
  next_def.add_input(InputString(switch_name, 1));
  SetType(&next_def, "T", DataType::DT_FLOAT);
  DFG_ASSIGN_OR_RETURN(Node * next,
                       AddLoopNode(graph, std::move(next_def), device));
  graph->AddEdge(switch_node, 1, next, 0);

  for (const Node* node : {enter, merge, switch_node, next}) {
    CopyControlFlowInfo(*node, src, cf_info);
  }
  graph->AddEdge(enter, 0, merge, 0);
  graph->AddEdge(next, 0, merge, 1);
  loop->enter = enter;
  loop->merge = merge;
  loop->switch_node = switch_node;
  return Status::Ok();
}

// An input of a node runs in the node's frame, except an Enter's, which runs
// in the parent frame; likewise an output, except an Exit's.
const Node* InputFrame(const Node* node,
                       const std::vector<ControlFlowInfo>& cf_info) {
  return node->IsEnter() ? cf_info[node->id()].parent_frame : node;
}
const Node* OutputFrame(const Node* node,
                        const std::vector<ControlFlowInfo>& cf_info) {
  return node->IsExit() ? cf_info[node->id()].parent_frame : node;
}

// The frame both ends of `edge` are in, when it crosses devices inside a
// loop; else null.
const std::string* CrossDeviceLoopFrame(
    const Edge& edge, const std::vector<ControlFlowInfo>& cf_info) {
  if (!edge.src->IsOp() || !edge.dst->IsOp()) return nullptr;
  if (edge.src->assigned_device_name() == edge.dst->assigned_device_name()) {
    return nullptr;
  }
  const Node* src_frame = OutputFrame(edge.src, cf_info);
  const Node* dst_frame = InputFrame(edge.dst, cf_info);
  if (src_frame == nullptr || dst_frame == nullptr) return nullptr;
  const std::string& src_name = cf_info[src_frame->id()].frame_name;
  if (src_name.empty() || src_name != cf_info[dst_frame->id()].frame_name) {
    return nullptr;
  }
  return &src_name;
}

std::string LoopKey(const std::string& frame, const std::string& device) {
  return frame + "$$" + device;
}

// Adds the control loops `edge` needs: one for its frame on the destination
// device, and recursively for every enclosing frame, each outer Merge feeding
// the inner Enter; the outermost Enter is fed by an empty Const.
Status AddControlLoopsForEdge(
    Graph* graph, const NewNameFn& new_name, const Edge& edge,
    const std::unordered_map<std::string, Node*>& frame_cond,
    std::unordered_map<std::string, ControlLoop>* loops,
    std::vector<ControlFlowInfo>* cf_info) {
  const std::string& dst_device = edge.dst->assigned_device_name();
  const Node* src_frame = OutputFrame(edge.src, *cf_info);
  ControlLoop child;
  while (true) {
    const std::string frame_name = (*cf_info)[src_frame->id()].frame_name;
    if (frame_name.empty()) {
      if (child.merge != nullptr) {
        DFG_ASSIGN_OR_RETURN(
            Node * const_node,
            AddControlConst(graph, new_name(edge.dst->name()), dst_device));
        CopyControlFlowInfo(*const_node, *src_frame, cf_info);
        graph->AddEdge(const_node, 0, child.enter, 0);
      }
      return Status::Ok();
    }
    std::string key = LoopKey(frame_name, dst_device);
    auto it = loops->find(key);
    if (it != loops->end()) {
      if (child.enter != nullptr) {
        graph->AddEdge(it->second.merge, 0, child.enter, 0);
      }
      return Status::Ok();
    }
    auto cond = frame_cond.find(frame_name);
    if (cond == frame_cond.end()) {
      return InvalidArgument(
          "A cross-device loop must have a pivot predicate: {}", frame_name);
    }
    ControlLoop loop;
    DFG_RETURN_IF_ERROR(AddControlLoop(graph, new_name, *src_frame, edge,
                                       cond->second, cf_info, &loop));
    (*loops)[key] = loop;
    if (child.enter != nullptr) {
      graph->AddEdge(loop.merge, 0, child.enter, 0);
    }
    src_frame = (*cf_info)[src_frame->id()].parent_frame;
    child = loop;
  }
}

}  // namespace

void OptimizeControlFlowColocation(Graph* graph) {
  auto visit = [](Node* node) {
    if (node->IsSwitch()) {
      for (const Edge* in : node->in_edges()) {
        if (in->dst_input == 0) {
          node->set_assigned_device_name(in->src->assigned_device_name());
          return;
        }
      }
    } else if (node->IsExit()) {
      for (const Edge* in : node->in_edges()) {
        if (!in->IsControlEdge()) {
          node->set_assigned_device_name(in->src->assigned_device_name());
          return;
        }
      }
    } else if ((node->IsEnter() && node->num_inputs() > 0 &&
                !IsRefType(node->input_type(0))) ||
               node->IsNextIteration()) {
      for (const Edge* out : node->out_edges()) {
        if (!out->IsControlEdge()) {
          node->set_assigned_device_name(out->dst->assigned_device_name());
          return;
        }
      }
    }
  };
  // Depth-first, pre-order, from _SOURCE: a node's out-neighbours are pushed
  // in edge order, so the last one is explored first.
  std::vector<bool> visited(graph->num_node_ids(), false);
  std::vector<Node*> stack = {graph->source_node()};
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    if (visited[node->id()]) continue;
    visited[node->id()] = true;
    visit(node);
    for (const Edge* out : node->out_edges()) {
      if (!visited[out->dst->id()]) stack.push_back(out->dst);
    }
  }
}

bool IsControlLoopMerge(const Node& node) {
  return node.IsMerge() && StartsWith(node.name(), kControlLoopPrefix);
}

Status AddControlFlow(Graph* graph, const NewNameFn& new_name,
                      std::vector<ControlFlowInfo>* cf_info) {
  DFG_RETURN_IF_ERROR(BuildControlFlowInfo(*graph, cf_info));
  OptimizeControlFlowColocation(graph);

  std::unordered_map<std::string, Node*> frame_cond;
  for (Node* node : graph->op_nodes()) {
    if (node->IsLoopCond())
      frame_cond[(*cf_info)[node->id()].frame_name] = node;
  }

  // Control loops per (frame, destination device), for every edge that
  // crosses devices inside a loop.
  std::unordered_map<std::string, ControlLoop> loops;
  const int num_edge_ids = graph->num_edge_ids();
  for (int i = 0; i < num_edge_ids; ++i) {
    const Edge* edge = graph->FindEdgeId(i);
    if (edge == nullptr || CrossDeviceLoopFrame(*edge, *cf_info) == nullptr) {
      continue;
    }
    DFG_RETURN_IF_ERROR(AddControlLoopsForEdge(graph, new_name, *edge,
                                               frame_cond, &loops, cf_info));
  }

  // Each such consumer (including those of the edges just added) gets a
  // control edge from its loop's Merge, one per cross-device input; Partition
  // moves them onto the recvs it creates.
  const int all_edge_ids = graph->num_edge_ids();
  for (int i = 0; i < all_edge_ids; ++i) {
    const Edge* edge = graph->FindEdgeId(i);
    if (edge == nullptr) continue;
    const std::string* frame = CrossDeviceLoopFrame(*edge, *cf_info);
    if (frame == nullptr) continue;
    auto it = loops.find(LoopKey(*frame, edge->dst->assigned_device_name()));
    if (it == loops.end()) {
      return Internal("no control loop for frame '{}' on '{}'", *frame,
                      edge->dst->assigned_device_name());
    }
    graph->AddEdge(it->second.merge, kControlSlot, edge->dst, kControlSlot);
  }
  return Status::Ok();
}

}  // namespace dfg::partition_internal
