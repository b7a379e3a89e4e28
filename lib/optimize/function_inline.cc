// InlineFunctionBody over GraphDefs (see the header for the names).
#include "lib/optimize/function_inline.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "lib/graph/function_calls.h"
#include "lib/graph/function_instantiate.h"
#include "lib/graph/tensor_id.h"
#include "lib/prune/prune_unused.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

constexpr int kMaxInlineRounds = 1000;

bool IsPartitionedCall(const NodeDef& node) {
  return node.op() == "PartitionedCall" ||
         node.op() == "StatefulPartitionedCall";
}

const tensorflow::FunctionDef* FindFunction(const GraphDef& graph,
                                            const std::string& name) {
  for (const auto& f : graph.library().function()) {
    if (f.signature().name() == name) return &f;
  }
  return nullptr;
}

int Index(const NodeDef& node) {
  auto it = node.attr().find("index");
  return it == node.attr().end() ? 0 : static_cast<int>(it->second.i());
}

DataType TypeAttr(const NodeDef& node) {
  auto it = node.attr().find("T");
  return it == node.attr().end() ? tensorflow::DT_INVALID : it->second.type();
}

NodeDef MakeNode(const std::string& name, const std::string& op) {
  NodeDef node;
  node.set_name(name);
  node.set_op(op);
  return node;
}

NodeDef MakeIdentity(const std::string& name, const std::string& input,
                     DataType dtype) {
  NodeDef node = MakeNode(name, "Identity");
  node.add_input(input);
  (*node.mutable_attr())["T"].set_type(dtype);
  return node;
}

// The body of one call, instantiated, with its _Arg and _Retval nodes by
// index.
struct Body {
  GraphDef graph;
  std::vector<const NodeDef*> args, rets;
  const tensorflow::FunctionDef* fdef = nullptr;
};

// The function a call node calls: PartitionedCall's f, or its op.
std::string CalledFunction(const NodeDef& caller) {
  if (IsPartitionedCall(caller)) {
    auto f = caller.attr().find("f");
    if (f != caller.attr().end() && f->second.has_func()) {
      return f->second.func().name();
    }
  }
  return caller.op();
}

StatusOr<std::unique_ptr<Body>> InstantiateCall(const GraphDef& graph,
                                                const NodeDef& caller) {
  tensorflow::NameAttrList fn;
  if (IsPartitionedCall(caller)) {
    auto f = caller.attr().find("f");
    if (f == caller.attr().end() || !f->second.has_func()) {
      return InvalidArgument("node '{}' ({}) has no function attr 'f'",
                             caller.name(), caller.op());
    }
    fn = f->second.func();
  } else {
    fn.set_name(caller.op());
    for (const auto& [name, value] : caller.attr()) {
      if (!name.empty() && name[0] != '_') (*fn.mutable_attr())[name] = value;
    }
  }
  auto body = std::make_unique<Body>();
  body->fdef = FindFunction(graph, fn.name());
  if (body->fdef == nullptr) {
    return NotFound("node '{}': function '{}' is not in the graph's library",
                    caller.name(), fn.name());
  }
  DFG_ASSIGN_OR_RETURN(body->graph, InstantiateFunction(*body->fdef, fn.attr(),
                                                        graph.library()));
  for (const NodeDef& node : body->graph.node()) {
    if (node.op() == "_Arg") body->args.push_back(&node);
    if (node.op() == "_Retval") body->rets.push_back(&node);
  }
  auto by_index = [](const NodeDef* a, const NodeDef* b) {
    return Index(*a) < Index(*b);
  };
  std::sort(body->args.begin(), body->args.end(), by_index);
  std::sort(body->rets.begin(), body->rets.end(), by_index);
  return body;
}

}  // namespace

bool FunctionInliner::IsFunctionCall(const NodeDef& node) const {
  return IsPartitionedCall(node) || FindFunction(*graph_, node.op()) != nullptr;
}

namespace {

// One InlineFunctionBody: the nodes that replace `caller`, built in
// TensorFlow's order (so that the NewName counter numbers them alike), then
// spliced into the graph in the caller's place.
class CallInliner {
 public:
  CallInliner(GraphDef* graph, const NodeDef& caller, const Body& body,
              std::function<std::string(const std::string&)> new_name)
      : graph_(graph),
        caller_(caller),
        body_(body),
        new_name_(std::move(new_name)),
        c_(caller.name()),
        multi_(IsPartitionedCall(caller)) {
    for (const std::string& in : caller.input()) {
      (in[0] == '^' ? controls_ : inputs_).push_back(in);
    }
  }

  Status Run(int caller_index) {
    if (inputs_.size() != body_.args.size()) {
      return Internal(
          "Inlining mismatch: Node inputs do not match function arguments: "
          "inputs={} arg_nodes={}",
          inputs_.size(), body_.args.size());
    }
    AddInputs();
    CopyBody();
    AddOutputs();
    AddOutputControl();
    Rewire();
    Splice(caller_index);
    return Status::Ok();
  }

 private:
  std::string DeviceOf(const std::string& tensor) const {
    std::string_view node = ParseTensorNameView(tensor).node;
    for (const NodeDef& n : graph_->node()) {
      if (n.name() == node) return n.device();
    }
    return "";
  }

  static void Colocate(NodeDef* node, const std::string& tensor) {
    (*node->mutable_attr())["_class"].mutable_list()->add_s(
        "loc:@" + std::string(ParseTensorNameView(tensor).node));
  }

  // The caller's control inputs gather in input_control_node; each argument
  // goes through an Identity.
  void AddInputs() {
    if (!controls_.empty()) {
      input_control_ = new_name_("Func/" + c_ + "/input_control_node");
      NodeDef noop = MakeNode(input_control_, "NoOp");
      for (const std::string& ctl : controls_) noop.add_input(ctl);
      added_.push_back(std::move(noop));
    }
    for (size_t i = 0; i < body_.args.size(); ++i) {
      std::string name = new_name_("Func/" + c_ + "/input");
      NodeDef id = MakeIdentity(name, inputs_[i], TypeAttr(*body_.args[i]));
      if (!input_control_.empty()) id.add_input("^" + input_control_);
      id.set_device(DeviceOf(inputs_[i]));
      if (multi_) Colocate(&id, inputs_[i]);
      arg_names_[body_.args[i]->name()] = name;
      added_.push_back(std::move(id));
    }
  }

  // A body reference ("n", "n:1", "^n") in the caller's graph.
  std::string MapInput(const std::string& in) const {
    bool control = in[0] == '^';
    TensorIdView id = ParseTensorNameView(
        control ? std::string_view(in).substr(1) : std::string_view(in));
    auto arg = arg_names_.find(std::string(id.node));
    if (arg != arg_names_.end()) return (control ? "^" : "") + arg->second;
    std::string node = c_ + "/" + std::string(id.node);
    if (control) return "^" + node;
    return id.index == 0 ? node : node + ":" + std::to_string(id.index);
  }

  // Body nodes as "C/<name>"; frames and colocations prefixed likewise.
  void CopyBody() {
    FunctionInliner probe(graph_);
    for (const NodeDef& n : body_.graph.node()) {
      if (n.op() == "_Arg" || n.op() == "_Retval") continue;
      NodeDef copy = n;
      copy.set_name(c_ + "/" + n.name());
      copy.clear_input();
      bool has_control = false;
      for (const std::string& in : n.input()) {
        copy.add_input(MapInput(in));
        has_control |= in[0] == '^';
      }
      if (!input_control_.empty() &&
          (n.input_size() == 0 || (probe.IsFunctionCall(n) && !has_control))) {
        copy.add_input("^" + input_control_);
      }
      auto& attrs = *copy.mutable_attr();
      if ((n.op() == "Enter" || n.op() == "RefEnter") &&
          attrs.count("frame_name")) {
        attrs["frame_name"].set_s(c_ + "/" + attrs["frame_name"].s());
      }
      if (attrs.count("_class")) {
        for (std::string& s : *attrs["_class"].mutable_list()->mutable_s()) {
          if (s.rfind("loc:@", 0) == 0) s = "loc:@" + MapInput(s.substr(5));
        }
      }
      if (multi_ && copy.device().empty()) copy.set_device(caller_.device());
      added_.push_back(std::move(copy));
    }
  }

  // Each result through an Identity, with the _Retval's control inputs.
  void AddOutputs() {
    for (const NodeDef* ret : body_.rets) {
      std::string name = new_name_("Func/" + c_ + "/output");
      std::string data;
      std::vector<std::string> controls;
      for (const std::string& in : ret->input()) {
        if (in[0] == '^') {
          controls.push_back(MapInput(in));
        } else if (data.empty()) {
          data = MapInput(in);
        }
      }
      NodeDef id = MakeIdentity(name, data, TypeAttr(*ret));
      for (std::string& ctl : controls) id.add_input(std::move(ctl));
      if (multi_) Colocate(&id, data);
      outputs_.push_back(name);
      added_.push_back(std::move(id));
    }
  }

  // Nodes that depended on the caller depend on output_control_node, after
  // the control returns (multi-device calls) or the data outputs.
  void AddOutputControl() {
    const std::string control_ref = "^" + c_;
    bool has_control_outputs = false;
    for (const NodeDef& n : graph_->node()) {
      for (const std::string& in : n.input()) {
        has_control_outputs |= in == control_ref;
      }
    }
    if (!has_control_outputs) return;
    output_control_ = new_name_("Func/" + c_ + "/output_control_node");
    NodeDef noop = MakeNode(output_control_, "NoOp");
    if (multi_) {
      std::map<std::string, std::string> control_ret(
          body_.fdef->control_ret().begin(), body_.fdef->control_ret().end());
      for (const auto& [key, node] : control_ret) {
        noop.add_input("^" + c_ + "/" + node);
      }
    } else {
      for (const std::string& out : outputs_) noop.add_input("^" + out);
    }
    if (noop.input_size() == 0 && !input_control_.empty()) {
      noop.add_input("^" + input_control_);
    }
    added_.push_back(std::move(noop));
  }

  void Rewire() {
    const std::string control_ref = "^" + c_;
    for (NodeDef& n : *graph_->mutable_node()) {
      for (std::string& in : *n.mutable_input()) {
        if (in == control_ref) {
          in = "^" + output_control_;
          continue;
        }
        TensorIdView id = ParseTensorNameView(in);
        if (in[0] != '^' && id.node == c_ && id.index >= 0 &&
            id.index < static_cast<int>(outputs_.size())) {
          in = outputs_[id.index];
        }
      }
    }
  }

  // The inlined nodes take the caller's place in the node list.
  void Splice(int caller_index) {
    google::protobuf::RepeatedPtrField<NodeDef> rebuilt;
    auto* list = graph_->mutable_node();
    for (int i = 0; i < list->size(); ++i) {
      if (i != caller_index) {
        *rebuilt.Add() = std::move(*list->Mutable(i));
        continue;
      }
      for (NodeDef& n : added_) *rebuilt.Add() = std::move(n);
    }
    list->Swap(&rebuilt);
  }

  GraphDef* graph_;
  const NodeDef& caller_;
  const Body& body_;
  std::function<std::string(const std::string&)> new_name_;
  const std::string c_;
  const bool multi_;
  std::vector<std::string> inputs_, controls_, outputs_;
  std::vector<NodeDef> added_;
  std::unordered_map<std::string, std::string> arg_names_;  // arg -> Identity
  std::string input_control_, output_control_;
};

}  // namespace

Status FunctionInliner::Inline(const std::string& caller_name) {
  int ci = -1;
  for (int i = 0; i < graph_->node_size() && ci < 0; ++i) {
    if (graph_->node(i).name() == caller_name) ci = i;
  }
  if (ci < 0) return NotFound("no node '{}' to inline", caller_name);
  const NodeDef caller = graph_->node(ci);
  if (!IsFunctionCall(caller)) {
    return InvalidArgument("node '{}' ({}) is not a function call", caller_name,
                           caller.op());
  }
  // A recursive function is refused as the runtime refuses it (TensorFlow's
  // message), not inlined call after call. The library does not change
  // while calls are inlined: its call graph is read once.
  if (call_graph_ == nullptr) {
    call_graph_ = std::make_unique<FunctionCallGraph>(&graph_->library());
  }
  if (Status s = call_graph_->CheckNotRecursive(CalledFunction(caller));
      !s.ok()) {
    return Status(s.code(), fmt::format("{}\n\t [[{{{{node {}}}}}]]",
                                        s.message(), caller_name));
  }
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Body> body,
                       InstantiateCall(*graph_, caller));
  CallInliner inliner(graph_, caller, *body,
                      [this](const std::string& p) { return NewName(p); });
  return inliner.Run(ci);
}

Status FunctionInliner::InlineCallsNeededBy(
    const std::vector<std::string>& roots) {
  for (int round = 0; round < kMaxInlineRounds; ++round) {
    std::vector<std::string> needed = NeededNodes(*graph_, roots);
    std::unordered_set<std::string> set(needed.begin(), needed.end());
    std::vector<std::string> calls;
    for (const NodeDef& n : graph_->node()) {
      if (set.count(n.name()) && IsFunctionCall(n)) calls.push_back(n.name());
    }
    if (calls.empty()) return Status::Ok();
    for (const std::string& call : calls) DFG_RETURN_IF_ERROR(Inline(call));
  }
  return InvalidArgument(
      "function calls nest more than {} deep (a recursive function?)",
      kMaxInlineRounds);
}

}  // namespace dfg
