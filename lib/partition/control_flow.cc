#include "lib/partition/control_flow.h"

#include <deque>
#include <unordered_map>

#include "lib/proto/attr_value.pb.h"

namespace dfg {
namespace {

// A frame as the validation sees it: its name, its parent (the root frame is
// its own parent once set), and the one LoopCond it may have.
struct FrameCheck {
  std::string name;
  const FrameCheck* parent = nullptr;
  const Node* loop_cond = nullptr;
};

// Every frame must have one parent frame, and one LoopCond (two are allowed
// only for the forward/backprop loop counters, which share a frame).
Status ValidateControlFlowInfo(const Graph& graph,
                               const std::vector<ControlFlowInfo>& info) {
  std::unordered_map<std::string, FrameCheck> frames;
  for (const Node* node : graph.op_nodes()) {
    const ControlFlowInfo& cf = info[node->id()];
    if (cf.frame == nullptr || cf.parent_frame == nullptr) continue;
    FrameCheck& frame = frames[cf.frame_name];
    const FrameCheck* parent = &frames[info[cf.parent_frame->id()].frame_name];
    if (frame.parent == nullptr) {
      frame.parent = parent;
      frame.name = cf.frame_name;
    } else if (frame.parent != parent) {
      return Internal(
          "Invalid loop structure: Mismatched parent frames for \"{}\": \"{}\" "
          "vs \"{}\". The node giving this error: {}. This is an internal "
          "bug, please file a bug report with instructions on how to "
          "reproduce the error.",
          cf.frame_name, parent->name, frame.parent->name,
          FormatNodeForError(*node));
    }
    if (node->IsLoopCond()) {
      if (frame.loop_cond != nullptr &&
          frame.loop_cond->name().find("LoopCounter") == std::string::npos &&
          node->name().find("LoopCounter") == std::string::npos) {
        return InvalidArgument(
            "Invalid loop structure: Loop \"{}\" has more than one LoopCond "
            "node: {} and {}. This is an internal bug, please file a bug "
            "report with instructions on how to reproduce the error.",
            cf.frame_name, FormatNodeForError(*node),
            FormatNodeForError(*frame.loop_cond));
      }
      frame.loop_cond = node;
    }
  }
  return Status::Ok();
}

Status EnterFrameName(const Node& enter, std::string* name) {
  auto it = enter.def().attr().find("frame_name");
  if (it == enter.def().attr().end()) {
    return NotFound("No attr named 'frame_name' in NodeDef: {}",
                    FormatNodeForError(enter));
  }
  *name = it->second.s();
  if (name->empty()) {
    return InvalidArgument("The Enter {} must have a frame name.",
                           FormatNodeForError(enter));
  }
  return Status::Ok();
}

Status DifferentFrames(const Node& out, const Node& input_a,
                       const std::string& frame_a, const Node& input_b,
                       const std::string& frame_b) {
  return InvalidArgument(
      "{} has inputs from different frames. The input {} is in frame '{}'. "
      "The input {} is in frame '{}'.",
      FormatNodeForError(out), FormatNodeForError(input_a), frame_a,
      FormatNodeForError(input_b), frame_b);
}

}  // namespace

std::string FormatNodeForError(const Node& node) {
  return "{{node " + node.name() + "}}";
}

Status BuildControlFlowInfo(const Graph& graph,
                            std::vector<ControlFlowInfo>* info,
                            std::vector<std::string>* unreachable_nodes) {
  info->clear();
  info->resize(graph.num_node_ids());
  // The node through which each node was first reached (null: not yet).
  std::vector<const Node*> parent_nodes(graph.num_node_ids(), nullptr);

  const Node* source = graph.source_node();
  (*info)[source->id()].frame = source;
  (*info)[source->id()].parent_frame = source;

  std::deque<const Node*> ready = {source};
  while (!ready.empty()) {
    const Node* curr = ready.front();
    ready.pop_front();
    const ControlFlowInfo& curr_info = (*info)[curr->id()];
    const Node* frame = curr_info.frame;
    const Node* parent = curr_info.parent_frame;
    const std::string* frame_name = &curr_info.frame_name;
    if (curr->IsExit()) {
      // An Exit's outputs live in the parent frame.
      const ControlFlowInfo& parent_info = (*info)[parent->id()];
      frame = parent_info.frame;
      parent = parent_info.parent_frame;
      frame_name = &parent_info.frame_name;
    }
    for (const Edge* edge : curr->out_edges()) {
      const Node* out = edge->dst;
      if (!out->IsOp()) continue;
      ControlFlowInfo* out_info = &(*info)[out->id()];
      bool visited = parent_nodes[out->id()] != nullptr;
      if (!visited) {
        parent_nodes[out->id()] = curr;
        ready.push_back(out);
      }
      if (out->IsEnter()) {
        if (visited) {
          const std::string& parent_frame =
              (*info)[out_info->parent_frame->id()].frame_name;
          if (parent_frame != *frame_name) {
            return DifferentFrames(*out, *curr, *frame_name,
                                   *parent_nodes[out->id()], parent_frame);
          }
        } else {
          out_info->frame = out;
          out_info->parent_frame = frame;
          DFG_RETURN_IF_ERROR(EnterFrameName(*out, &out_info->frame_name));
        }
      } else if (visited) {
        if (out_info->frame_name != *frame_name) {
          return DifferentFrames(*out, *curr, *frame_name,
                                 *parent_nodes[out->id()],
                                 out_info->frame_name);
        }
      } else {
        out_info->frame = frame;
        out_info->parent_frame = parent;
        out_info->frame_name = *frame_name;
      }
    }
  }
  if (unreachable_nodes != nullptr) {
    for (const Node* node : graph.op_nodes()) {
      if (parent_nodes[node->id()] == nullptr) {
        unreachable_nodes->push_back(node->name());
      }
    }
  }
  return ValidateControlFlowInfo(graph, *info);
}

}  // namespace dfg
