// Matching a Keras LSTM loop's cond and body functions (rnn_fusion.h). The
// match is structural and exact: every node of the body is accounted for,
// so a loop with anything more (a mask's Select, dropout, another
// activation, peepholes, a projection) is left alone.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "lib/kernels/tensor.h"
#include "lib/optimize/rnn_fusion.h"

namespace dfg::optimize {
namespace {

using tensorflow::FunctionDef;
using tensorflow::NodeDef;

// A tensor inside a function: argument `arg`, or output `index` of `node`
// (the index within the node's output argument: all the ops matched here
// have a single one).
struct Ref {
  int arg = -1;
  const NodeDef* node = nullptr;
  int index = 0;
  bool operator==(const Ref& o) const {
    return arg == o.arg && node == o.node && index == o.index;
  }
};

class FunctionGraph {
 public:
  explicit FunctionGraph(const FunctionDef& f) : f_(f) {
    for (int i = 0; i < f.signature().input_arg_size(); ++i) {
      args_[f.signature().input_arg(i).name()] = i;
    }
    for (const NodeDef& n : f.node_def()) nodes_[n.name()] = &n;
  }

  int num_outputs() const { return f_.signature().output_arg_size(); }
  int num_args() const { return f_.signature().input_arg_size(); }

  // What output i returns, through Identity nodes.
  Ref Ret(int i) const {
    auto it = f_.ret().find(f_.signature().output_arg(i).name());
    return it == f_.ret().end() ? Ref() : Skip(Resolve(it->second));
  }

  // Data input k of n, through Identity nodes; a missing one is Ref().
  Ref In(const NodeDef* n, int k) const {
    int seen = 0;
    for (const std::string& in : n->input()) {
      if (in.empty() || in[0] == '^') continue;
      if (seen++ == k) return Skip(Resolve(in));
    }
    return Ref();
  }

  // The node (not an Identity) of op `op` at r, output 0, or null.
  const NodeDef* Op(Ref r, std::string_view op) const {
    return r.node != nullptr && r.node->op() == op && r.index == 0 ? r.node
                                                                   : nullptr;
  }

  // The integer scalar a Const at r holds.
  std::optional<int64_t> ConstInt(Ref r) const {
    const NodeDef* n = Op(r, "Const");
    if (n == nullptr) return std::nullopt;
    auto v = n->attr().find("value");
    if (v == n->attr().end()) return std::nullopt;
    auto t = Tensor::FromProto(v->second.tensor());
    if (!t.ok() || t->NumElements() != 1 || t->dims() != 0) return std::nullopt;
    if (t->dtype() == tensorflow::DT_INT32) return t->flat<int32_t>()[0];
    if (t->dtype() == tensorflow::DT_INT64) return t->flat<int64_t>()[0];
    return std::nullopt;
  }

  const FunctionDef& def() const { return f_; }

 private:
  // "arg" or "node:out_arg:k".
  Ref Resolve(std::string_view s) const {
    size_t colon = s.find(':');
    if (colon == std::string_view::npos) {
      auto it = args_.find(std::string(s));
      return it == args_.end() ? Ref() : Ref{it->second, nullptr, 0};
    }
    auto it = nodes_.find(std::string(s.substr(0, colon)));
    if (it == nodes_.end()) return Ref();
    size_t last = s.rfind(':');
    int index = 0;
    if (last != colon) index = std::stoi(std::string(s.substr(last + 1)));
    return Ref{-1, it->second, index};
  }

  Ref Skip(Ref r) const {
    for (int hops = 0;
         r.node != nullptr && r.node->op() == "Identity" && hops < 64; ++hops) {
      r = In(r.node, 0);
    }
    return r;
  }

  const FunctionDef& f_;
  std::unordered_map<std::string, int> args_;
  std::unordered_map<std::string, const NodeDef*> nodes_;
};

bool AttrIs(const NodeDef* n, const char* name, tensorflow::DataType t) {
  auto it = n->attr().find(name);
  return it != n->attr().end() && it->second.type() == t;
}

bool AttrFalse(const NodeDef* n, const char* name) {
  auto it = n->attr().find(name);
  return it == n->attr().end() || !it->second.b();
}

// The body matcher: walks back from the TensorListSetItem, recording the
// nodes it takes.
class BodyMatcher {
 public:
  BodyMatcher(const FunctionGraph& g, LstmLoop* loop) : g_(g), loop_(loop) {}

  bool Match() {
    loop_->num_vars = g_.num_args();
    if (g_.num_outputs() != g_.num_args()) return false;
    const NodeDef* set = nullptr;
    for (int i = 0; i < g_.num_outputs(); ++i) {
      const NodeDef* s = g_.Op(g_.Ret(i), "TensorListSetItem");
      if (s == nullptr) continue;
      if (set != nullptr || g_.In(s, 0).arg != i) return false;
      set = Take(s);
      loop_->out_list = i;
    }
    if (set == nullptr || !AttrIs(set, "element_dtype", tensorflow::DT_FLOAT)) {
      return false;
    }
    const Ref h_new = g_.In(set, 2);
    Ref c_new;
    if (!MatchCell(h_new, &c_new)) return false;
    loop_->h = OutputOf(h_new);
    loop_->c = OutputOf(c_new);
    if (loop_->h < 0 || loop_->h != h_arg_ || loop_->c < 0 ||
        loop_->c != c_arg_) {
      return false;
    }
    // The write index: t, or always 0 (only the last output is kept).
    const Ref index = g_.In(set, 1);
    loop_->write_at_time = index.arg == loop_->time && index.arg >= 0;
    if (!loop_->write_at_time) {
      if (g_.ConstInt(index) != 0) return false;
      Take(index.node);
    }
    return MatchCounters() && MatchPassThrough() && OnlyMatchedNodes();
  }

 private:
  const NodeDef* Take(const NodeDef* n) {
    if (n != nullptr) taken_.insert(n);
    return n;
  }

  // The single output returning r, or -1.
  int OutputOf(Ref r) const {
    int found = -1;
    for (int i = 0; i < g_.num_outputs(); ++i) {
      if (g_.Ret(i) == r) {
        if (found >= 0) return -1;
        found = i;
      }
    }
    return found;
  }

  // A commutative binary op at r (Mul, or Add/AddV2 when op is "Add") whose
  // inputs satisfy `both(a, b)` in either order.
  template <typename F>
  bool Binary(Ref r, std::string_view op, F both) {
    const NodeDef* n = g_.Op(r, op);
    if (n == nullptr && op == "Add") n = g_.Op(r, "AddV2");
    if (n == nullptr || !AttrIs(n, "T", tensorflow::DT_FLOAT)) return false;
    const Ref a = g_.In(n, 0), b = g_.In(n, 1);
    if (both(a, b) || both(b, a)) {
      Take(n);
      return true;
    }
    return false;
  }

  // Unary `op` of output `gate` of the one Split.
  bool Gate(Ref r, std::string_view op, int gate) {
    const NodeDef* n = g_.Op(r, op);
    if (n == nullptr || !AttrIs(n, "T", tensorflow::DT_FLOAT)) return false;
    const Ref s = g_.In(n, 0);
    if (s.node == nullptr || s.node->op() != "Split" || s.index != gate) {
      return false;
    }
    if (split_ != nullptr && split_ != s.node) return false;
    split_ = s.node;
    Take(n);
    return true;
  }

  // h_new = Sigmoid(o) * Tanh(c_new), c_new = Sigmoid(f) * c + Sigmoid(i) *
  // Tanh(g), the gates one Split of the pre-activations.
  bool MatchCell(Ref h_new, Ref* c_new) {
    bool ok = Binary(h_new, "Mul", [&](Ref a, Ref b) {
      if (!Gate(a, "Sigmoid", 3)) return false;
      const NodeDef* t = g_.Op(b, "Tanh");
      if (t == nullptr || !AttrIs(t, "T", tensorflow::DT_FLOAT)) return false;
      Take(t);
      *c_new = g_.In(t, 0);
      return true;
    });
    ok = ok && Binary(*c_new, "Add", [&](Ref a, Ref b) {
           return Binary(a, "Mul",
                         [&](Ref f, Ref c) {
                           if (c.arg < 0 || !Gate(f, "Sigmoid", 1))
                             return false;
                           c_arg_ = c.arg;
                           return true;
                         }) &&
                  Binary(b, "Mul", [&](Ref i, Ref g) {
                    return Gate(i, "Sigmoid", 0) && Gate(g, "Tanh", 2);
                  });
         });
    return ok && MatchPreActivations();
  }

  // Split(1 or -1, BiasAdd(MatMul(x_t, kernel) + MatMul(h, recurrent), b)).
  bool MatchPreActivations() {
    auto num = split_->attr().find("num_split");
    if (num == split_->attr().end() || num->second.i() != 4 ||
        !AttrIs(split_, "T", tensorflow::DT_FLOAT)) {
      return false;
    }
    auto dim = g_.ConstInt(g_.In(split_, 0));
    if (!dim || (*dim != 1 && *dim != -1)) return false;
    Take(split_);
    Take(g_.In(split_, 0).node);
    Ref z = g_.In(split_, 1);
    if (const NodeDef* ba = g_.Op(z, "BiasAdd")) {
      auto f = ba->attr().find("data_format");
      if (!AttrIs(ba, "T", tensorflow::DT_FLOAT) ||
          (f != ba->attr().end() && f->second.s() != "NHWC") ||
          !Weight(g_.In(ba, 1), &loop_->bias, &loop_->bias_read)) {
        return false;
      }
      Take(ba);
      z = g_.In(ba, 0);
    } else {
      return false;
    }
    return Binary(z, "Add",
                  [&](Ref a, Ref b) {
                    return MatMul(a, &x_t_, &loop_->kernel,
                                  &loop_->kernel_read) &&
                           MatMul(b, &h_in_, &loop_->recurrent,
                                  &loop_->recurrent_read) &&
                           h_in_.arg >= 0 && MatchInput(x_t_);
                  }) &&
           (h_arg_ = h_in_.arg) >= 0;
  }

  bool MatMul(Ref r, Ref* lhs, int* weight, bool* read) {
    const NodeDef* m = g_.Op(r, "MatMul");
    if (m == nullptr || !AttrIs(m, "T", tensorflow::DT_FLOAT) ||
        !AttrFalse(m, "transpose_a") || !AttrFalse(m, "transpose_b") ||
        !Weight(g_.In(m, 1), weight, read)) {
      return false;
    }
    Take(m);
    *lhs = g_.In(m, 0);
    return true;
  }

  // A weight: a loop variable, read through ReadVariableOp when it is a
  // resource.
  bool Weight(Ref r, int* arg, bool* read) {
    *read = false;
    if (const NodeDef* rv = g_.Op(r, "ReadVariableOp")) {
      if (!AttrIs(rv, "dtype", tensorflow::DT_FLOAT)) return false;
      Take(rv);
      r = g_.In(rv, 0);
      *read = true;
    }
    *arg = r.arg;
    return r.arg >= 0;
  }

  // x_t = TensorListGetItem(xs, t).
  bool MatchInput(Ref x_t) {
    const NodeDef* get = g_.Op(x_t, "TensorListGetItem");
    if (get == nullptr || !AttrIs(get, "element_dtype", tensorflow::DT_FLOAT)) {
      return false;
    }
    const Ref list = g_.In(get, 0), t = g_.In(get, 1);
    if (list.arg < 0 || t.arg < 0) return false;
    Take(get);
    if (g_.In(get, 2).node != nullptr) Take(g_.In(get, 2).node);
    loop_->in_list = list.arg;
    loop_->time = t.arg;
    return true;
  }

  // t + 1 for the step; a second variable + 1 is while_v2's counter.
  bool MatchCounters() {
    for (int i = 0; i < g_.num_outputs(); ++i) {
      const NodeDef* add = g_.Op(g_.Ret(i), "AddV2");
      if (add == nullptr) add = g_.Op(g_.Ret(i), "Add");
      if (add == nullptr || !AttrIs(add, "T", tensorflow::DT_INT32)) continue;
      if (g_.In(add, 0).arg != i || g_.ConstInt(g_.In(add, 1)) != 1) {
        return false;
      }
      Take(add);
      Take(g_.In(add, 1).node);
      if (i == loop_->time) continue;
      if (loop_->counter >= 0) return false;
      loop_->counter = i;
    }
    return loop_->time >= 0 && g_.Ret(loop_->time).node != nullptr &&
           taken_.contains(g_.Ret(loop_->time).node);
  }

  // Every other loop variable is returned unchanged.
  bool MatchPassThrough() {
    for (int i = 0; i < g_.num_outputs(); ++i) {
      if (i == loop_->out_list || i == loop_->h || i == loop_->c ||
          i == loop_->time || i == loop_->counter) {
        continue;
      }
      if (g_.Ret(i).arg != i) return false;
    }
    return true;
  }

  bool OnlyMatchedNodes() const {
    for (const NodeDef& n : g_.def().node_def()) {
      if (taken_.contains(&n) || n.op() == "Identity" || n.op() == "NoOp" ||
          n.op() == "Const") {
        continue;
      }
      return false;
    }
    return true;
  }

  const FunctionGraph& g_;
  LstmLoop* loop_;
  std::unordered_set<const NodeDef*> taken_;
  const NodeDef* split_ = nullptr;
  Ref x_t_, h_in_;
  int h_arg_ = -1, c_arg_ = -1;
};

// Less(a, b) with a and b loop variables, or b a Const (returned in *bound).
bool MatchLess(const FunctionGraph& g, Ref r, int* a, int* b,
               std::optional<int64_t>* bound) {
  const NodeDef* less = g.Op(r, "Less");
  if (less == nullptr || !AttrIs(less, "T", tensorflow::DT_INT32)) {
    return false;
  }
  *a = g.In(less, 0).arg;
  *b = g.In(less, 1).arg;
  *bound = g.ConstInt(g.In(less, 1));
  return *a >= 0;
}

// t < steps, or LogicalAnd(counter < max, t < steps) in either order.
bool MatchCond(const FunctionGraph& g, LstmLoop* loop) {
  if (g.num_outputs() != 1 || g.num_args() != loop->num_vars) return false;
  Ref r = g.Ret(0);
  int a = -1, b = -1;
  std::optional<int64_t> bound;
  auto time_bound = [&](Ref x) {
    return MatchLess(g, x, &a, &b, &bound) && a == loop->time && bound &&
           *bound > 0 && (loop->steps = *bound) > 0;
  };
  auto counter_bound = [&](Ref x) {
    return MatchLess(g, x, &a, &b, &bound) && a == loop->counter && b >= 0 &&
           b != loop->counter && (loop->max = b) >= 0;
  };
  if (const NodeDef* both = g.Op(r, "LogicalAnd")) {
    if (loop->counter < 0) return false;
    const Ref x = g.In(both, 0), y = g.In(both, 1);
    return (counter_bound(x) && time_bound(y)) ||
           (counter_bound(y) && time_bound(x));
  }
  // Without maximum_iterations there is no counter to bound.
  return loop->counter < 0 && time_bound(r);
}

}  // namespace

bool MatchKerasLstm(const FunctionDef& cond, const FunctionDef& body,
                    LstmLoop* loop) {
  *loop = LstmLoop();
  FunctionGraph b(body), c(cond);
  if (!BodyMatcher(b, loop).Match()) return false;
  if (!MatchCond(c, loop)) return false;
  // Each loop variable plays one part.
  std::unordered_set<int> parts;
  for (int v :
       {loop->counter, loop->max, loop->time, loop->out_list, loop->h, loop->c,
        loop->in_list, loop->kernel, loop->recurrent, loop->bias}) {
    if (v >= 0 && !parts.insert(v).second) return false;
  }
  // The cond must look at nothing else: its nodes are the Less/LogicalAnd
  // matched above, Consts and Identities.
  for (const NodeDef& n : cond.node_def()) {
    if (n.op() != "Less" && n.op() != "LogicalAnd" && n.op() != "Const" &&
        n.op() != "Identity" && n.op() != "NoOp") {
      return false;
    }
  }
  return true;
}

}  // namespace dfg::optimize
