// Pad fusion (dfg's; Grappler has no such pass): a Pad by constant zeros
// that pads only the rows and columns of an NHWC tensor, read only by a
// Conv2D, DepthwiseConv2dNative or _FusedConv2D as its input, becomes that
// convolution's own padding:
//   Conv(Pad(x, [[0,0],[t,b],[l,r],[0,0]]), w)  padding VALID
//   -> Conv(x, w)  padding EXPLICIT, explicit_paddings [0,0,t,b,l,r,0,0]
// (an EXPLICIT convolution adds the Pad's amounts to its own). The padded
// copy of x is then never written: Keras's ZeroPadding2D before a strided
// 'valid' convolution (MobileNet, ResNet) pays for it on every step. Both
// forms compute the same sums (the padded positions contribute zeros), and
// TensorFlow's CPU kernels of all three ops take EXPLICIT padding, so the
// graph stays one TensorFlow runs. The Pad's control inputs move to the
// convolution.
#include <fmt/format.h>

#include "lib/graph/tensor_id.h"
#include "lib/kernels/tensor.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

bool IsNhwc(const NodeDef& n) {
  const tensorflow::AttrValue* f = Attr(n, "data_format");
  return f == nullptr || f->s() == "NHWC";
}

bool TakesExplicitPadding(const NodeDef& n) {
  return n.op() == "Conv2D" || n.op() == "DepthwiseConv2dNative" ||
         n.op() == "_FusedConv2D";
}

// The 8 paddings of `n` (a Const [4, 2] int32/int64), false otherwise.
bool ConstPaddings(const NodeDef* n, std::vector<int64_t>* pads) {
  if (n == nullptr || n->op() != "Const") return false;
  const tensorflow::AttrValue* v = Attr(*n, "value");
  if (v == nullptr) return false;
  auto t = Tensor::FromProto(v->tensor());
  if (!t.ok() || t->shape().dims() != 2 || t->shape().dim_size(0) != 4 ||
      t->shape().dim_size(1) != 2) {
    return false;
  }
  pads->clear();
  for (int64_t i = 0; i < 8; ++i) {
    if (t->dtype() == tensorflow::DT_INT32) {
      pads->push_back(t->flat<int32_t>()[i]);
    } else if (t->dtype() == tensorflow::DT_INT64) {
      pads->push_back(t->flat<int64_t>()[i]);
    } else {
      return false;
    }
  }
  return true;
}

// The convolution's paddings with the Pad's added, or false when its
// padding is neither VALID nor EXPLICIT (SAME's amounts depend on the
// padded size).
bool CombinedPaddings(const NodeDef& conv, const std::vector<int64_t>& pad,
                      std::vector<int64_t>* out) {
  const tensorflow::AttrValue* padding = Attr(conv, "padding");
  if (padding == nullptr) return false;
  *out = pad;
  if (padding->s() == "VALID") return true;
  if (padding->s() != "EXPLICIT") return false;
  const tensorflow::AttrValue* e = Attr(conv, "explicit_paddings");
  if (e == nullptr || e->list().i_size() != 8) return false;
  for (int i = 0; i < 8; ++i) (*out)[i] += e->list().i(i);
  return true;
}

// Folds Pad node `pi` into its consumer; false when the pattern does not
// hold.
bool Fold(PassContext& ctx, const GraphIndex& index, int pi,
          std::vector<bool>* dead) {
  GraphDef& g = ctx.graph();
  const NodeDef& pad = g.node(pi);
  if (pad.op() != "Pad" || ctx.IsPreserved(pad) || pad.input_size() < 2 ||
      !index.ControlUses(pi).empty() || index.NumDataUses(pi) != 1 ||
      index.DataUses(pi, 0).size() != 1) {
    return false;
  }
  const Use use = index.DataUses(pi, 0)[0];
  const NodeDef& conv = g.node(use.node);
  if (use.input != 0 || (*dead)[use.node] || !TakesExplicitPadding(conv) ||
      !IsNhwc(conv) || conv.device() != pad.device()) {
    return false;
  }
  const int ppi = index.Find(ParseTensorNameView(pad.input(1)).node);
  std::vector<int64_t> pads, combined;
  if (ppi < 0 || !ConstPaddings(&g.node(ppi), &pads) || pads[0] != 0 ||
      pads[1] != 0 || pads[6] != 0 || pads[7] != 0 ||
      !CombinedPaddings(conv, pads, &combined)) {
    return false;
  }
  for (int64_t p : pads) {
    if (p < 0) return false;  // the Pad's own error stays the step's
  }
  const std::vector<std::string> taken{Describe(pad), Describe(conv)};
  const std::string x = pad.input(0);
  std::vector<std::string> controls;
  for (const std::string& in : pad.input()) {
    if (in[0] == '^') controls.push_back(in);
  }
  NodeDef* c = g.mutable_node(use.node);
  c->set_input(0, x);
  for (const std::string& in : controls) {
    bool seen = false;
    for (const std::string& have : c->input()) seen |= have == in;
    if (!seen) c->add_input(in);
  }
  auto& attrs = *c->mutable_attr();
  attrs["padding"].set_s("EXPLICIT");
  auto* list = attrs["explicit_paddings"].mutable_list();
  list->clear_i();
  for (int64_t p : combined) list->add_i(p);
  (*dead)[pi] = true;
  ctx.Record("padfusion", taken, {Describe(*c)},
             fmt::format("a zero Pad of rows and columns is the "
                         "convolution's explicit padding [{}]",
                         fmt::join(combined, ",")));
  return true;
}

}  // namespace

Status RunPadFusion(PassContext& ctx) {
  GraphDef& g = ctx.graph();
  if (!HasOp(g, {"Pad"})) return Status::Ok();
  GraphIndex index(g);
  std::vector<bool> dead(g.node_size());
  bool any = false;
  for (int i = 0; i < g.node_size(); ++i) any |= Fold(ctx, index, i, &dead);
  if (any) EraseNodes(&g, dead);
  return Status::Ok();
}

}  // namespace dfg::optimize
