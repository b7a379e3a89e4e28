// The dependency optimizer (Grappler's DependencyOptimizer, its Identity
// removal): an Identity whose value is its input's is bypassed, its
// consumers read the input directly, and its control inputs move to them.
// TensorFlow's SafeToRemoveIdentity conditions are kept: not a preserved
// node, not after a variable, a Recv or a Switch (where an Identity is a
// control pivot), not between devices, no ref type; an Identity with
// control inputs stays when a Merge or _Retval reads it. One pass over the
// graph, whatever the length of Identity chains.
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
  explicit IdentityRemover(PassContext& ctx)
      : ctx_(ctx), g_(ctx.graph()), index_(ctx.Index()) {}

  void Run() {
    const int n = g_.node_size();
    removable_.assign(n, false);
    resolved_.assign(n, false);
    resolving_.assign(n, false);
    source_.resize(n);
    controls_.resize(n);
    bool any = false;
    for (int i = 0; i < n; ++i) any |= (removable_[i] = Removable(i));
    if (!any) return;
    for (int i = 0; i < n; ++i) {
      if (removable_[i]) continue;
      NodeDef* node = g_.mutable_node(i);
      std::vector<std::string> extra;
      for (int k = 0; k < node->input_size(); ++k) {
        const std::string& in = node->input(k);
        bool control = in[0] == '^';
        int p = index_.Find(
            ParseTensorNameView(control ? std::string_view(in).substr(1) : in)
                .node);
        if (p < 0 || !removable_[p]) continue;
        Resolve(p);
        if (control) {
          std::string producer(ParseTensorNameView(source_[p]).node);
          node->set_input(k, "^" + producer);
        } else {
          node->set_input(k, source_[p]);
        }
        extra.insert(extra.end(), controls_[p].begin(), controls_[p].end());
      }
      for (const std::string& c : extra) AddControl(node, c);
      if (!extra.empty()) Dedup(node);
    }
    std::vector<std::string> removed;
    for (int i = 0; i < n; ++i) {
      if (!removable_[i]) continue;
      ctx_.Record("dependency", {Describe(g_.node(i))}, {source_[i]},
                  "an Identity: its consumers read its input");
    }
    EraseNodes(&g_, removable_);
  }

 private:
  bool Removable(int i) const {
    const NodeDef& n = g_.node(i);
    if (n.op() != "Identity" || ctx_.IsNamedPreserved(n.name())) return false;
    if (n.input_size() < 1 || n.input(0)[0] == '^') return false;
    auto t = n.attr().find("T");
    if (t == n.attr().end() || IsRefType(t->second.type())) return false;
    int p = index_.Find(ParseTensorNameView(n.input(0)).node);
    if (p < 0 || p == i) return false;
    const NodeDef& input = g_.node(p);
    if (KeepsIdentityAfter(input)) return false;
    if (!n.device().empty() && !input.device().empty() &&
        n.device() != input.device()) {
      return false;
    }
    if (n.input_size() > 1) {
      for (const Use& u : index_.AllDataUses(i)) {
        const std::string& op = g_.node(u.node).op();
        if (op == "Merge" || op == "RefMerge" || op == "_Retval") return false;
      }
    }
    return true;
  }

  // source_[i]: the tensor a removable Identity stands for, through a chain
  // of removable ones; controls_[i]: the control inputs met on the way.
  void Resolve(int i) {
    std::vector<int> chain;
    int at = i;
    while (removable_[at] && !resolved_[at]) {
      chain.push_back(at);
      const std::string& in = g_.node(at).input(0);
      int p = index_.Find(ParseTensorNameView(in).node);
      if (!removable_[p]) {
        source_[at] = in;
        resolved_[at] = true;
        chain.pop_back();
        AddOwnControls(at, {});
        break;
      }
      at = p;
    }
    // Unwind: each link takes its input's resolution and adds its controls.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      int link = *it;
      int p = index_.Find(ParseTensorNameView(g_.node(link).input(0)).node);
      source_[link] = source_[p];
      resolved_[link] = true;
      AddOwnControls(link, controls_[p]);
    }
  }

  // controls_[i]: `inherited` and node i's own control inputs, each
  // resolved (a control input on a removable Identity stands for its
  // source's node and the controls met on the way there).
  void AddOwnControls(int i, std::vector<std::string> inherited) {
    const NodeDef& n = g_.node(i);
    for (int k = 1; k < n.input_size(); ++k) {
      const std::string& c = n.input(k);
      int p = c[0] == '^' ? index_.Find(std::string_view(c).substr(1)) : -1;
      // (A cycle of control edges between Identities, which no valid graph
      // has, is left as it is: the import that follows reports it.)
      if (p < 0 || !removable_[p] || resolving_[p]) {
        inherited.push_back(c);
        continue;
      }
      resolving_[i] = true;
      Resolve(p);
      resolving_[i] = false;
      inherited.push_back("^" +
                          std::string(ParseTensorNameView(source_[p]).node));
      inherited.insert(inherited.end(), controls_[p].begin(),
                       controls_[p].end());
    }
    controls_[i] = std::move(inherited);
  }

  static void Dedup(NodeDef* node) {
    auto* in = node->mutable_input();
    std::vector<std::string> seen;
    int out = 0;
    for (int k = 0; k < in->size(); ++k) {
      const std::string& s = in->Get(k);
      if (s[0] == '^') {
        if (std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
        seen.push_back(s);
      }
      if (out != k) in->Mutable(out)->swap(*in->Mutable(k));
      ++out;
    }
    while (in->size() > out) in->RemoveLast();
  }

  PassContext& ctx_;
  GraphDef& g_;
  const GraphIndex& index_;
  std::vector<bool> removable_, resolved_, resolving_;
  std::vector<std::string> source_;
  std::vector<std::vector<std::string>> controls_;
};

}  // namespace

Status RunDependency(PassContext& ctx) {
  IdentityRemover(ctx).Run();
  return Status::Ok();
}

}  // namespace dfg::optimize
