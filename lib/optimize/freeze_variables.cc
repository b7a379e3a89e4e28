// The variables pass (dfg's own; TensorFlow's convert_variables_to_constants
// does the same offline): in a session, a ReadVariableOp of a VarHandleOp
// whose variable nothing in the graph can write reads the same value every
// step, so it becomes a Const of the variable's current value, which the
// other passes can fold and fuse (a Keras BatchNormalization's Rsqrt/Mul
// chain, weights a convolution reorders once). Only when the caller gives
// values (OptimizeOptions::variable_value), and only when no node of the
// graph, nor of a function it calls, may write a resource: the caller
// rebuilds the graph after any step that does (lib/exec/session.cc).
#include <fmt/format.h>

#include <unordered_set>

#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

// Ops that take a resource and never write through it: reads, handle
// plumbing and control flow (whose consumers are checked in turn).
bool ReadsOnly(std::string_view op) {
  static const auto* ops =
      new std::unordered_set<std::string_view>{"ReadVariableOp",
                                               "ResourceGather",
                                               "ResourceGatherNd",
                                               "VariableShape",
                                               "VarIsInitializedOp",
                                               "Identity",
                                               "IdentityN",
                                               "_Retval",
                                               "_Arg",
                                               "Enter",
                                               "Exit",
                                               "Switch",
                                               "Merge",
                                               "NextIteration",
                                               "_Send",
                                               "_Recv",
                                               "While",
                                               "StatelessWhile",
                                               "If",
                                               "StatelessIf",
                                               "Case",
                                               "StatelessCase",
                                               "PartitionedCall",
                                               "StatefulPartitionedCall",
                                               "NoOp"};
  return ops->contains(op);
}

class WriterCheck {
 public:
  explicit WriterCheck(const GraphDef& graph)
      : graph_(graph), ops_(&graph.library()) {}

  // Whether a node of `nodes`, or of a function they call, may write.
  template <typename Nodes>
  bool Writes(const Nodes& nodes) {
    for (const NodeDef& n : nodes) {
      if (NodeWrites(n)) return true;
    }
    return false;
  }

 private:
  bool NodeWrites(const NodeDef& n) {
    if (OpTakesResource(n.op())) return true;
    // Functions the node calls: by op name, or through func-valued attrs.
    if (FunctionWrites(n.op())) return true;
    for (const auto& [name, value] : n.attr()) {
      if (value.has_func() && FunctionWrites(value.func().name())) return true;
      for (const auto& f : value.list().func()) {
        if (FunctionWrites(f.name())) return true;
      }
    }
    return false;
  }

  // An op that is not a known reader and has an input arg declared as a
  // resource (polymorphic args pass handles on to consumers, which are
  // checked themselves). Unknown ops count as writers. Memoized per op.
  bool OpTakesResource(const std::string& op) {
    if (auto it = op_memo_.find(op); it != op_memo_.end()) return it->second;
    const OpDef* def = ops_.LookUpOpDef(op);
    bool takes = def == nullptr;
    // A library function's body is checked instead (FunctionWrites).
    if (def != nullptr && !ReadsOnly(op) && !ops_.IsFunction(op)) {
      for (const auto& arg : def->input_arg()) {
        takes |= arg.type() == tensorflow::DT_RESOURCE;
      }
    }
    op_memo_[op] = takes;
    return takes;
  }

  bool FunctionWrites(const std::string& name) {
    if (auto it = memo_.find(name); it != memo_.end()) return it->second;
    const tensorflow::FunctionDef* fdef = nullptr;
    for (const auto& f : graph_.library().function()) {
      if (f.signature().name() == name) fdef = &f;
    }
    memo_[name] = false;  // not a function; or a recursive call adds nothing
    if (fdef == nullptr) return false;  // a recursive call adds nothing new
    bool writes = Writes(fdef->node_def());
    memo_[name] = writes;
    return writes;
  }

  const GraphDef& graph_;
  OpLookup ops_;
  std::unordered_map<std::string, bool> memo_;
  std::unordered_map<std::string, bool> op_memo_;
};

}  // namespace

Status RunFreezeVariables(PassContext& ctx) {
  const auto& value_of = ctx.options().variable_value;
  if (!value_of) return Status::Ok();
  GraphDef& g = ctx.graph();
  if (WriterCheck(g).Writes(g.node())) {
    ctx.report().writes_resources = true;
    return Status::Ok();
  }
  if (!HasOp(g, {"ReadVariableOp"})) return Status::Ok();
  GraphIndex index(g);
  std::vector<bool> dead(g.node_size(), false);
  std::vector<int> handles;
  for (int i = 0; i < g.node_size(); ++i) {
    NodeDef* n = g.mutable_node(i);
    if (n->op() != "ReadVariableOp" || ctx.IsNamedPreserved(n->name()) ||
        n->input_size() < 1 || n->input(0)[0] == '^') {
      continue;
    }
    // The handle, through the Identity nodes an inlined call passes its
    // arguments through.
    int h = index.Find(ParseTensorNameView(n->input(0)).node);
    for (int hops = 0; h >= 0 && g.node(h).op() == "Identity" && hops < 64;
         ++hops) {
      const NodeDef& id = g.node(h);
      h = id.input_size() > 0 && id.input(0)[0] != '^'
              ? index.Find(ParseTensorNameView(id.input(0)).node)
              : -1;
    }
    if (h < 0 || g.node(h).op() != "VarHandleOp") continue;
    std::optional<Tensor> value = value_of(g.node(h));
    auto dtype = n->attr().find("dtype");
    if (!value || dtype == n->attr().end() ||
        value->dtype() != dtype->second.type()) {
      continue;
    }
    const std::string before = Describe(*n);
    std::vector<std::string> controls(n->input().begin() + 1, n->input().end());
    n->clear_input();
    for (const std::string& c : controls) n->add_input(c);
    SetConstValue(n, *value);
    ++ctx.report().frozen_variables;
    ctx.Record("variables", {before, Describe(g.node(h))},
               {n->name() + " (Const)"},
               fmt::format("nothing in the graph writes {}; value {} {}",
                           g.node(h).name(), DataTypeString(value->dtype()),
                           value->shape().DebugString()));
    handles.push_back(h);
  }
  if (handles.empty()) return Status::Ok();
  // A handle nothing reads any more has no effect: it goes too.
  GraphIndex after(g);
  for (int h : handles) {
    if (!ctx.IsNamedPreserved(g.node(h).name()) && after.NumDataUses(h) == 0 &&
        after.ControlUses(h).empty()) {
      dead[h] = true;
    }
  }
  EraseNodes(&g, dead);
  return Status::Ok();
}

}  // namespace dfg::optimize
