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
// convolution. When the amounts are what SAME padding gives (Keras pads a
// strided convolution's input so: ZeroPadding2D(((0, 1), (0, 1))) on an
// even size), with the sizes known from the `_output_shapes` TensorFlow
// writes and an undilated constant filter, the padding becomes SAME: the
// one form the remapper's depthwise fusion takes.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

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

// SAME's padding before and after for one dimension (dilation 1).
std::pair<int64_t, int64_t> SamePadding(int64_t in, int64_t k, int64_t s) {
  const int64_t out = (in + s - 1) / s;
  const int64_t total = std::max<int64_t>((out - 1) * s + k - in, 0);
  return {total / 2, total - total / 2};
}

// The filter's value when it is a Const, or (the arithmetic pass's filter
// scaled per channel, which constant folding computes next round) a Mul of
// a 4-D Const: its shape is the filter's.
std::optional<Tensor> FilterValue(const GraphDef& g, const GraphIndex& index,
                                  const std::string& input) {
  const int fi = index.Find(ParseTensorNameView(input).node);
  if (fi < 0) return std::nullopt;
  const NodeDef& f = g.node(fi);
  if (f.op() != "Mul") return ConstValue(f);
  // Both operands constant; the filter is the larger 4-D one (the other a
  // per-channel vector, 1-D to 4-D); equal sizes must agree on the
  // kernel's rows and columns.
  std::optional<Tensor> best;
  for (const std::string& in : DataInputs(f)) {
    const int ci = index.Find(ParseTensorNameView(in).node);
    std::optional<Tensor> t = ci < 0 ? std::nullopt : ConstValue(g.node(ci));
    if (!t) return std::nullopt;
    if (t->dims() != 4) continue;
    if (best && best->NumElements() == t->NumElements() &&
        (best->dim_size(0) != t->dim_size(0) ||
         best->dim_size(1) != t->dim_size(1))) {
      return std::nullopt;
    }
    if (!best || t->NumElements() > best->NumElements()) best = std::move(t);
  }
  return best;
}

// Whether `combined` (8 explicit paddings) is what SAME gives `conv` on the
// unpadded input: the Pad's output rows and columns known, the filter a
// Const, no dilation.
bool IsSamePadding(const GraphDef& g, const GraphIndex& index,
                   const NodeDef& pad, const NodeDef& conv,
                   const std::vector<int64_t>& pads,
                   const std::vector<int64_t>& combined) {
  const tensorflow::AttrValue* shapes = Attr(pad, "_output_shapes");
  const tensorflow::AttrValue* strides = Attr(conv, "strides");
  const tensorflow::AttrValue* dilations = Attr(conv, "dilations");
  if (shapes == nullptr || shapes->list().shape_size() != 1 ||
      strides == nullptr || strides->list().i_size() != 4 ||
      conv.input_size() < 2) {
    return false;
  }
  if (dilations != nullptr) {
    for (int64_t d : dilations->list().i()) {
      if (d != 1) return false;
    }
  }
  const auto& shape = shapes->list().shape(0);
  std::optional<Tensor> filter = FilterValue(g, index, conv.input(1));
  if (shape.unknown_rank() || shape.dim_size() != 4 || !filter ||
      filter->dims() != 4) {
    return false;
  }
  for (int d : {1, 2}) {
    // The Pad's output less its own amounts: the convolution's input.
    const int64_t in = shape.dim(d).size() - pads[2 * d] - pads[2 * d + 1];
    const int64_t s = strides->list().i(d);
    if (shape.dim(d).size() < 0 || in < 0 || s < 1) return false;
    auto [before, after] = SamePadding(in, filter->dim_size(d - 1), s);
    if (combined[2 * d] != before || combined[2 * d + 1] != after) return false;
  }
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
  const bool same = IsSamePadding(g, index, pad, *c, pads, combined);
  auto& attrs = *c->mutable_attr();
  if (same) {
    attrs["padding"].set_s("SAME");
    // Conv2D's default (an empty list); the others have no such attr.
    attrs.erase("explicit_paddings");
  } else {
    attrs["padding"].set_s("EXPLICIT");
    auto* list = attrs["explicit_paddings"].mutable_list();
    list->clear_i();
    for (int64_t p : combined) list->add_i(p);
  }
  (*dead)[pi] = true;
  ctx.Record("padfusion", taken, {Describe(*c)},
             same ? std::string("a zero Pad of rows and columns is the "
                                "convolution's SAME padding")
                  : fmt::format("a zero Pad of rows and columns is the "
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
