// The arithmetic optimizer (Grappler's ArithmeticOptimizer), the stages
// that need no shape inference: involutions (Neg(Neg(x)) = x, also
// Reciprocal, LogicalNot, Conj, Invert), a Cast to the type it already has
// and a Transpose by the identity permutation become Identity (which the
// dependency pass then removes), and Reshape(Reshape(x, s1), s2) reads x.
#include <fmt/format.h>

#include "lib/graph/tensor_id.h"
#include "lib/kernels/tensor.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

bool IsInvolution(std::string_view op) {
  return op == "Neg" || op == "Reciprocal" || op == "LogicalNot" ||
         op == "Conj" || op == "Invert";
}

const tensorflow::AttrValue* Attr(const NodeDef& n, const char* name) {
  auto it = n.attr().find(name);
  return it == n.attr().end() ? nullptr : &it->second;
}

// The node producing data input k of `n`, or null.
const NodeDef* Producer(const GraphDef& g, const GraphIndex& index,
                        const NodeDef& n, int k) {
  if (n.input_size() <= k || n.input(k)[0] == '^') return nullptr;
  int p = index.Find(ParseTensorNameView(n.input(k)).node);
  return p < 0 ? nullptr : &g.node(p);
}

bool HasControlInputs(const NodeDef& n) {
  for (const std::string& in : n.input()) {
    if (in[0] == '^') return true;
  }
  return false;
}

// True for a Const int vector equal to [0, 1, ..., n-1].
bool IsIdentityPermutation(const NodeDef* perm) {
  if (perm == nullptr || perm->op() != "Const") return false;
  const tensorflow::AttrValue* v = Attr(*perm, "value");
  if (v == nullptr) return false;
  auto t = Tensor::FromProto(v->tensor());
  if (!t.ok() || t->shape().dims() != 1) return false;
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    int64_t p = t->dtype() == tensorflow::DT_INT64 ? t->flat<int64_t>()[i]
                                                   : t->flat<int32_t>()[i];
    if (p != i) return false;
  }
  return true;
}

void ToIdentity(NodeDef* n, tensorflow::DataType t) {
  std::string data = n->input(0);
  std::vector<std::string> controls;
  for (const std::string& in : n->input()) {
    if (in[0] == '^') controls.push_back(in);
  }
  n->set_op("Identity");
  n->clear_input();
  n->add_input(data);
  for (const std::string& c : controls) n->add_input(c);
  n->clear_attr();
  (*n->mutable_attr())["T"].set_type(t);
}

}  // namespace

Status RunArithmetic(PassContext& ctx) {
  GraphDef& g = ctx.graph();
  GraphIndex index(g);
  for (int i = 0; i < g.node_size(); ++i) {
    NodeDef* n = g.mutable_node(i);
    if (ctx.IsPreserved(*n)) continue;
    const std::string before = Describe(*n);
    const NodeDef* in0 = Producer(g, index, *n, 0);
    if (IsInvolution(n->op()) && in0 != nullptr && in0->op() == n->op() &&
        !ctx.IsPreserved(*in0) && !HasControlInputs(*in0) &&
        in0->input_size() >= 1) {
      // f(f(x)) = x: read x through an Identity of the outer node's name.
      const std::string x = in0->input(0);
      const tensorflow::AttrValue* t = Attr(*n, "T");
      const std::string inner = Describe(*in0);
      n->set_input(0, x);
      ToIdentity(n, t != nullptr ? t->type() : tensorflow::DT_FLOAT);
      ctx.Record("arithmetic", {inner, before}, {n->name() + " (Identity)"},
                 fmt::format("{0}({0}(x)) is x", in0->op()));
      continue;
    }
    if (n->op() == "Cast") {
      const tensorflow::AttrValue* src = Attr(*n, "SrcT");
      const tensorflow::AttrValue* dst = Attr(*n, "DstT");
      const tensorflow::AttrValue* trunc = Attr(*n, "Truncate");
      if (src != nullptr && dst != nullptr && src->type() == dst->type() &&
          (trunc == nullptr || !trunc->b())) {
        ToIdentity(n, src->type());
        ctx.Record("arithmetic", {before}, {n->name() + " (Identity)"},
                   "a Cast to the type its input has");
      }
      continue;
    }
    if (n->op() == "Transpose" &&
        IsIdentityPermutation(Producer(g, index, *n, 1))) {
      const tensorflow::AttrValue* t = Attr(*n, "T");
      ToIdentity(n, t != nullptr ? t->type() : tensorflow::DT_FLOAT);
      ctx.Record("arithmetic", {before}, {n->name() + " (Identity)"},
                 "a Transpose by the identity permutation");
      continue;
    }
    if (n->op() == "Reshape" && in0 != nullptr && in0->op() == "Reshape" &&
        !ctx.IsPreserved(*in0) && !HasControlInputs(*in0) &&
        in0->input_size() >= 2) {
      const std::string inner = Describe(*in0);
      n->set_input(0, in0->input(0));
      ctx.Record("arithmetic", {inner, before}, {Describe(*n)},
                 "a Reshape of a Reshape reshapes the first one's input");
    }
  }
  return Status::Ok();
}

}  // namespace dfg::optimize
