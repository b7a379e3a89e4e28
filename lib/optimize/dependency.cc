// The dependency optimizer (Grappler's DependencyOptimizer, its Identity
// removal): an Identity whose value is its input's is bypassed, its
// consumers read the input directly, and its control inputs move to them.
// TensorFlow's SafeToRemoveIdentity conditions are kept: not a preserved
// node, not after a variable, a Recv or a Switch (where an Identity is a
// control pivot), not between devices, no ref type; an Identity with
// control inputs stays when a Merge or _Retval reads it.
#include <algorithm>

#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

bool KeepsIdentityAfter(const NodeDef& input) {
  const std::string& op = input.op();
  return op == "Switch" || op == "RefSwitch" || op == "_SwitchN" ||
         op == "VariableV2" || op == "Variable" || op == "VarHandleOp" ||
         op == "_Recv" || op == "_HostRecv" || op == "Recv";
}

void AddControl(NodeDef* node, const std::string& control) {
  for (const std::string& in : node->input()) {
    if (in == control) return;
  }
  node->add_input(control);
}

class IdentityRemover {
 public:
  explicit IdentityRemover(PassContext& ctx) : ctx_(ctx), g_(ctx.graph()) {}

  void Run() {
    // One Identity at a time against a fresh index keeps chains right
    // (Identity of Identity); a chain of k costs k index builds, so batch
    // the Identities whose inputs are not themselves being removed.
    for (;;) {
      GraphIndex index(g_);
      std::vector<bool> dead(g_.node_size(), false);
      std::vector<bool> touched(g_.node_size(), false);
      int removed = 0;
      for (int i = 0; i < g_.node_size(); ++i) {
        if (touched[i] || !Removable(i, index)) continue;
        int p = index.Find(ParseTensorNameView(g_.node(i).input(0)).node);
        if (touched[p]) continue;
        Bypass(i, p, index, &touched);
        dead[i] = true;
        ++removed;
      }
      if (removed == 0) return;
      EraseNodes(&g_, dead);
    }
  }

 private:
  bool Removable(int i, const GraphIndex& index) const {
    const NodeDef& n = g_.node(i);
    if (n.op() != "Identity" || ctx_.IsNamedPreserved(n.name())) return false;
    if (n.input_size() < 1 || n.input(0)[0] == '^') return false;
    auto t = n.attr().find("T");
    if (t == n.attr().end() || IsRefType(t->second.type())) return false;
    int p = index.Find(ParseTensorNameView(n.input(0)).node);
    if (p < 0 || p == i) return false;
    const NodeDef& input = g_.node(p);
    if (KeepsIdentityAfter(input)) return false;
    if (!n.device().empty() && !input.device().empty() &&
        n.device() != input.device()) {
      return false;
    }
    if (n.input_size() > 1) {
      for (const Use& u : index.AllDataUses(i)) {
        const std::string& op = g_.node(u.node).op();
        if (op == "Merge" || op == "RefMerge" || op == "_Retval") return false;
      }
    }
    return true;
  }

  void Bypass(int i, int p, const GraphIndex& index,
              std::vector<bool>* touched) {
    const NodeDef n = g_.node(i);
    const std::string source = n.input(0);
    std::vector<std::string> controls(n.input().begin() + 1, n.input().end());
    (*touched)[i] = (*touched)[p] = true;
    for (const Use& u : index.AllDataUses(i)) {
      NodeDef* c = g_.mutable_node(u.node);
      c->set_input(u.input, source);
      for (const std::string& ctl : controls) AddControl(c, ctl);
      (*touched)[u.node] = true;
    }
    const std::string self = "^" + n.name();
    const std::string producer =
        "^" + std::string(ParseTensorNameView(source).node);
    for (int c : index.ControlUses(i)) {
      NodeDef* node = g_.mutable_node(c);
      auto* inputs = node->mutable_input();
      inputs->erase(std::remove(inputs->begin(), inputs->end(), self),
                    inputs->end());
      AddControl(node, producer);
      for (const std::string& ctl : controls) AddControl(node, ctl);
      (*touched)[c] = true;
    }
    ctx_.Record("dependency", {Describe(n)}, {source},
                "an Identity: its consumers read its input");
  }

  PassContext& ctx_;
  GraphDef& g_;
};

}  // namespace

Status RunDependency(PassContext& ctx) {
  IdentityRemover(ctx).Run();
  return Status::Ok();
}

}  // namespace dfg::optimize
