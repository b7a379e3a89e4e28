// The dependency optimizer (Grappler's DependencyOptimizer, its Identity
// removal): an Identity whose value is its input's is bypassed, its
// consumers read the input directly, and its control inputs move to them.
// TensorFlow's SafeToRemoveIdentity conditions are kept: not a preserved
// node, not after a variable, a Recv or a Switch (where an Identity is a
// control pivot), not between devices, no ref type; an Identity with
// control inputs stays when a Merge or _Retval reads it. One pass over the
// graph, whatever the length of Identity chains.
//
// Then its control-edge rules: a Const without inputs is ready when the step
// starts, so control edges out of it order nothing and go (a SavedModel's
// function body waits on every variable read through a NoOp; frozen, the
// reads are constants: MobileNetV2's 262 of them ran every step for
// nothing); and a NoOp (not preserved) is bypassed when that leaves no more
// control edges than it has inputs plus outputs and no more crossing
// devices: its consumers wait for its inputs themselves.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

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
        const int p = index_.Producer(i, k);
        if (p < 0 || !removable_[p]) continue;
        const bool control = node->input(k)[0] == '^';
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
    for (int i = 0; i < n; ++i) {
      if (!removable_[i]) continue;
      if (!ctx_.recording()) {
        ctx_.Record("dependency", {}, {}, {});
        continue;
      }
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
    const int p = index_.Producer(i, 0);
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
      const int p = index_.Producer(at, 0);
      if (!removable_[p]) {
        source_[at] = g_.node(at).input(0);
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
      const int p = index_.Producer(link, 0);
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
      const int p = c[0] == '^' ? index_.Producer(i, k) : -1;
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

bool HasControlInput(const GraphDef& g) {
  for (const NodeDef& n : g.node()) {
    for (const std::string& in : n.input()) {
      if (!in.empty() && in[0] == '^') return true;
    }
  }
  return false;
}

class ControlSimplifier {
 public:
  // `index`: the graph's as it is now.
  ControlSimplifier(PassContext& ctx, const GraphIndex& index)
      : ctx_(ctx), g_(ctx.graph()), index_(index) {}

  void Run() {
    DropConstantControls();
    BypassNoOps();
  }

 private:
  // A Const without inputs: its control consumers drop it.
  void DropConstantControls() {
    const int n = g_.node_size();
    free_const_.assign(n, false);
    std::vector<int> consumers;
    for (int i = 0; i < n; ++i) {
      const NodeDef& c = g_.node(i);
      if (c.op() != "Const" || c.input_size() != 0) continue;
      if (index_.ControlUses(i).empty()) continue;
      free_const_[i] = true;
      for (int u : index_.ControlUses(i)) consumers.push_back(u);
    }
    std::sort(consumers.begin(), consumers.end());
    consumers.erase(std::unique(consumers.begin(), consumers.end()),
                    consumers.end());
    for (int u : consumers) {
      NodeDef* node = g_.mutable_node(u);
      auto* in = node->mutable_input();
      int out = 0, dropped = 0;
      for (int k = 0; k < in->size(); ++k) {
        const std::string& s = in->Get(k);
        if (s[0] == '^') {
          int p = index_.Find(std::string_view(s).substr(1));
          if (p >= 0 && free_const_[p]) {
            ++dropped;
            continue;
          }
        }
        if (out != k) in->Mutable(out)->swap(*in->Mutable(k));
        ++out;
      }
      while (in->size() > out) in->RemoveLast();
      ctx_.Record("dependency", {Describe(*node)}, {node->name()},
                  fmt::format("{} control input{} from constants dropped (a "
                              "constant without inputs is ready at the start)",
                              dropped, dropped == 1 ? "" : "s"));
    }
  }

  // Node i's control consumers as the graph is now.
  std::set<int>& ControlOut(int i) {
    auto [it, inserted] = control_out_.try_emplace(i);
    if (inserted && !free_const_[i]) {
      for (int u : index_.ControlUses(i)) it->second.insert(u);
    }
    return it->second;
  }

  bool Beneficial(int i, const std::vector<int>& ins,
                  const std::set<int>& outs) const {
    const size_t ni = ins.size(), no = outs.size();
    if (ni * no > ni + no) return false;
    auto dev = [&](int k) -> const std::string& { return g_.node(k).device(); };
    const std::string& own = dev(i);
    if ((ni == 1 && no > 1 && dev(ins[0]) != own) ||
        (ni > 1 && no == 1 && dev(*outs.begin()) != own)) {
      return false;
    }
    size_t before = 0, after = 0;
    for (int p : ins) before += dev(p) != own;
    for (int u : outs) before += dev(u) != own;
    for (int p : ins) {
      for (int u : outs) after += dev(p) != dev(u);
    }
    return after <= before;
  }

  void BypassNoOps() {
    const int n = g_.node_size();
    std::vector<int> work;
    for (int i = 0; i < n; ++i) {
      if (g_.node(i).op() == "NoOp") work.push_back(i);
    }
    if (work.empty()) return;
    std::vector<bool> dead(n, false);
    while (!work.empty()) {
      const int i = work.back();
      work.pop_back();
      NodeDef* node = g_.mutable_node(i);
      if (dead[i] || node->op() != "NoOp" || ctx_.IsPreserved(*node)) continue;
      std::vector<int> ins;
      bool ok = true;
      for (const std::string& in : node->input()) {
        int p = in[0] == '^' ? index_.Find(std::string_view(in).substr(1)) : -1;
        if (p < 0 || p == i) {
          ok = false;  // a data input or a dangling one: left to the import
          break;
        }
        ins.push_back(p);
      }
      std::set<int>& outs = ControlOut(i);
      if (!ok || outs.count(i) || !Beneficial(i, ins, outs)) continue;
      const std::string self = "^" + node->name();
      std::vector<std::string> moved;
      for (int u : outs) {
        NodeDef* consumer = g_.mutable_node(u);
        auto* in = consumer->mutable_input();
        for (int k = 0; k < in->size(); ++k) {
          if (in->Get(k) == self) {
            in->DeleteSubrange(k, 1);
            break;
          }
        }
        for (int p : ins) {
          if (ControlOut(p).insert(u).second) {
            consumer->add_input("^" + g_.node(p).name());
          }
        }
        moved.push_back(consumer->name());
        work.push_back(u);
      }
      for (int p : ins) {
        ControlOut(p).erase(i);
        work.push_back(p);
      }
      ctx_.Record("dependency", {Describe(*node)}, std::move(moved),
                  ins.empty() ? "a NoOp without inputs orders nothing"
                              : "a NoOp: its consumers wait for its control "
                                "inputs themselves");
      outs.clear();
      node->clear_input();
      dead[i] = true;
    }
    EraseNodes(&g_, dead);
  }

  PassContext& ctx_;
  GraphDef& g_;
  const GraphIndex& index_;  // of the graph as the rules found it
  std::vector<bool> free_const_;
  std::map<int, std::set<int>> control_out_;
};

}  // namespace

Status RunDependency(PassContext& ctx) {
  const int changes = ctx.changes();
  IdentityRemover(ctx).Run();
  // Only where there are control edges: a big graph without any is not
  // indexed again.
  if (!HasControlInput(ctx.graph())) return Status::Ok();
  if (ctx.changes() == changes) {
    ControlSimplifier(ctx, ctx.Index()).Run();
  } else {
    GraphIndex index(ctx.graph());
    ControlSimplifier(ctx, index).Run();
  }
  return Status::Ok();
}

}  // namespace dfg::optimize
