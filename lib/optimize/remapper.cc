// The remapper (Grappler's Remapper, its CPU contraction fusions): a
// MatMul or Conv2D whose only consumer is a BiasAdd (or, for Conv2D, an
// inference FusedBatchNorm), optionally followed by the only consumer of
// that, an activation, becomes one _FusedMatMul / _FusedConv2D node:
//   MatMul  + BiasAdd [+ Relu|Relu6|Elu|LeakyRelu|Tanh|Sigmoid]
//   Conv2D  + BiasAdd [+ Relu|Relu6|Elu|LeakyRelu]          (NHWC)
//   Conv2D  + FusedBatchNorm(V2,V3, is_training false) [+
//   Relu|Relu6|Elu|LeakyRelu]
//   DepthwiseConv2dNative + BiasAdd [+ Relu|Relu6|Elu]
//                                     -> _FusedDepthwiseConv2dNative
// The fused node takes the last node's name (what consumers and fetches
// read) and the contraction's device; the pattern's control inputs move
// to it. Only float32 on CPU (or unplaced) graphs, as TensorFlow's
// remapper without oneDNN; the depthwise fusion and layer normalizations
// into _MklLayerNorm (layer_norm_fusion.cc) as with oneDNN (TensorFlow's
// default on x86, the only configuration in which it runs those ops).
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "lib/graph/tensor_id.h"
#include "lib/kernels/tensor.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

bool IsFloat(const NodeDef& n) {
  const tensorflow::AttrValue* t = Attr(n, "T");
  return t != nullptr && t->type() == tensorflow::DT_FLOAT;
}

bool IsNhwc(const NodeDef& n) {
  const tensorflow::AttrValue* f = Attr(n, "data_format");
  return f == nullptr || f->s() == "NHWC";
}

class Remapper {
 public:
  explicit Remapper(PassContext& ctx)
      : ctx_(ctx),
        g_(ctx.graph()),
        index_(ctx.Index()),
        dead_(g_.node_size()) {}

  void Run() {
    bool any = false;
    for (int i = 0; i < g_.node_size(); ++i) {
      const std::string& op = g_.node(i).op();
      if (dead_[i] ||
          (op != "MatMul" && op != "Conv2D" && op != "DepthwiseConv2dNative")) {
        continue;
      }
      any |= Fuse(i);
    }
    any |= FuseLayerNorms(ctx_, index_, &dead_);
    if (any) EraseNodes(&g_, dead_);
  }

 private:
  // The only consumer of node i, when i has exactly one data use (on output
  // 0), no control consumer and may vanish; else -1.
  int SoleConsumer(int i) const {
    const NodeDef& n = g_.node(i);
    if (ctx_.IsPreserved(n) || !index_.ControlUses(i).empty() ||
        index_.NumDataUses(i) != 1 || index_.DataUses(i, 0).size() != 1) {
      return -1;
    }
    int c = index_.DataUses(i, 0)[0].node;
    return dead_[c] || g_.node(c).device() != n.device() ? -1 : c;
  }

  static bool IsActivation(const NodeDef& n, bool matmul) {
    const std::string& op = n.op();
    if (op == "Relu" || op == "Relu6" || op == "Elu" || op == "LeakyRelu") {
      return true;
    }
    return matmul && (op == "Tanh" || op == "Sigmoid");
  }

  // What TensorFlow's fused depthwise kernel (oneDNN's) takes.
  static bool IsDepthwiseActivation(const NodeDef& n) {
    return n.op() == "Relu" || n.op() == "Relu6" || n.op() == "Elu";
  }

  bool IsInferenceBatchNorm(const NodeDef& bn, int bn_index) const {
    if (bn.op() != "FusedBatchNorm" && bn.op() != "FusedBatchNormV2" &&
        bn.op() != "FusedBatchNormV3") {
      return false;
    }
    const tensorflow::AttrValue* training = Attr(bn, "is_training");
    if (training != nullptr && training->b()) return false;
    if (!IsNhwc(bn) || !IsFloat(bn)) return false;
    const tensorflow::AttrValue* u = Attr(bn, "U");
    if (u != nullptr && u->type() != tensorflow::DT_FLOAT) return false;
    // Only y (output 0) may be used.
    return index_.NumDataUses(bn_index) ==
           static_cast<int>(index_.DataUses(bn_index, 0).size());
  }

  // The scalar float value of a Const node, if it is one.
  std::optional<float> ScalarConst(const std::string& tensor) const {
    int p = index_.Find(ParseTensorNameView(tensor).node);
    if (p < 0 || g_.node(p).op() != "Const") return std::nullopt;
    const tensorflow::AttrValue* v = Attr(g_.node(p), "value");
    if (v == nullptr || v->tensor().dtype() != tensorflow::DT_FLOAT) {
      return std::nullopt;
    }
    const auto& t = v->tensor();
    if (t.tensor_shape().dim_size() != 0) return std::nullopt;
    if (t.float_val_size() == 1) return t.float_val(0);
    if (t.tensor_content().size() == sizeof(float)) {
      float f;
      std::memcpy(&f, t.tensor_content().data(), sizeof f);
      return f;
    }
    return std::nullopt;
  }

  // A pattern of tf.nn.gelu's subgraph: an op over sub-patterns, a scalar
  // constant, or the input x.
  struct Pat {
    enum Kind { kOp, kConst, kX } kind;
    std::string op;
    float value = 0;
    std::vector<Pat> kids;
  };
  static Pat P(std::string op, std::vector<Pat> kids) {
    return {Pat::kOp, std::move(op), 0, std::move(kids)};
  }
  static Pat C(float v) { return {Pat::kConst, "", v, {}}; }
  static Pat X() { return {Pat::kX, "", 0, {}}; }

  // Matches `tensor` against `pat` (Mul and AddV2 either way round); the
  // op nodes matched go to `nodes`.
  bool Match(const std::string& tensor, const Pat& pat, const std::string& x,
             std::vector<int>* nodes) const {
    if (pat.kind == Pat::kX) return tensor == x;
    if (pat.kind == Pat::kConst) {
      std::optional<float> v = ScalarConst(tensor);
      return v && std::abs(*v - pat.value) <= 1e-6f * std::abs(pat.value);
    }
    TensorIdView id = ParseTensorNameView(tensor);
    int p = index_.Find(id.node);
    if (p < 0 || id.index != 0 || dead_[p] || g_.node(p).op() != pat.op ||
        !IsFloat(g_.node(p))) {
      return false;
    }
    std::vector<std::string> in = DataInputs(g_.node(p));
    if (in.size() != pat.kids.size()) return false;
    size_t mark = nodes->size();
    auto all = [&](bool swap) {
      nodes->resize(mark);
      for (size_t k = 0; k < in.size(); ++k) {
        size_t j = swap ? in.size() - 1 - k : k;
        if (!Match(in[j], pat.kids[k], x, nodes)) return false;
      }
      return true;
    };
    bool commutes = pat.op == "Mul" || pat.op == "AddV2";
    if (!all(false) && !(commutes && in.size() == 2 && all(true))) return false;
    nodes->push_back(p);
    return true;
  }

  // The GELU subgraph over node `xi`'s output, ending at its last Mul:
  // (last node, interior nodes, fused op name), or last = -1.
  std::tuple<int, std::vector<int>, std::string> MatchGelu(int xi) const {
    const std::string x = g_.node(xi).name();
    static const Pat kApprox = P(
        "Mul",
        {P("Mul", {C(0.5f), X()}),
         P("AddV2",
           {C(1.0f),
            P("Tanh",
              {P("Mul", {C(0.7978845608f),
                         P("AddV2",
                           {X(), P("Mul", {C(0.044715f),
                                           P("Pow", {X(), C(3.0f)})})})})})})});
    // TensorFlow 2.21's exact form, and the erf form of older versions.
    static const Pat kExact =
        P("Mul", {P("Mul", {C(0.5f), X()}),
                  P("Erfc", {P("Mul", {P("Neg", {X()}), C(0.70710677f)})})});
    static const Pat kExactErf = P(
        "Mul", {P("Mul", {C(0.5f), X()}),
                P("AddV2",
                  {C(1.0f), P("Erf", {P("RealDiv", {X(), C(1.4142135f)})})})});
    // The root is the one consumer of the Mul(0.5, x) among x's consumers.
    for (const Use& u : index_.DataUses(xi, 0)) {
      const NodeDef& half = g_.node(u.node);
      if (half.op() != "Mul" || index_.NumDataUses(u.node) != 1) continue;
      int root = index_.DataUses(u.node, 0)[0].node;
      for (const auto& [pat, name] : {std::pair{&kApprox, "GeluApproximate"},
                                      {&kExact, "GeluExact"},
                                      {&kExactErf, "GeluExact"}}) {
        std::vector<int> nodes;
        if (!Match(g_.node(root).name(), *pat, x, &nodes)) continue;
        if (!Closed(xi, nodes)) continue;
        return {root, nodes, name};
      }
    }
    return {-1, {}, ""};
  }

  // Nothing outside `nodes` reads x or a node of `nodes` but the root
  // (their last), and none is preserved or read by control.
  bool Closed(int xi, const std::vector<int>& nodes) const {
    std::unordered_set<int> in(nodes.begin(), nodes.end());
    for (const Use& u : index_.AllDataUses(xi)) {
      if (!in.contains(u.node)) return false;
    }
    for (int n : nodes) {
      if (n == nodes.back()) continue;
      if (ctx_.IsPreserved(g_.node(n)) || !index_.ControlUses(n).empty()) {
        return false;
      }
      for (const Use& u : index_.AllDataUses(n)) {
        if (!in.contains(u.node)) return false;
      }
    }
    return index_.ControlUses(xi).empty() && !ctx_.IsPreserved(g_.node(xi));
  }

  // A Reshape whose Const shape ends in the same positive size as the
  // MatMul's constant weight's columns: the last dimension stays.
  bool KeepsLastDim(const NodeDef& reshape, const NodeDef& matmul) const {
    std::vector<std::string> in = DataInputs(reshape);
    std::vector<std::string> min = DataInputs(matmul);
    if (in.size() != 2 || min.size() != 2) return false;
    auto dims_of = [&](const std::string& t) -> std::optional<Tensor> {
      int p = index_.Find(ParseTensorNameView(t).node);
      if (p < 0 || g_.node(p).op() != "Const") return std::nullopt;
      const tensorflow::AttrValue* v = Attr(g_.node(p), "value");
      if (v == nullptr) return std::nullopt;
      auto tensor = Tensor::FromProto(v->tensor());
      if (!tensor.ok()) return std::nullopt;
      return std::move(*tensor);
    };
    const tensorflow::AttrValue* tb = Attr(matmul, "transpose_b");
    int p = index_.Find(ParseTensorNameView(min[1]).node);
    if (p < 0 || g_.node(p).op() != "Const") return false;
    const auto& wshape = Attr(g_.node(p), "value")->tensor().tensor_shape();
    if (wshape.dim_size() != 2) return false;
    int64_t n = wshape.dim(tb != nullptr && tb->b() ? 0 : 1).size();
    // The shape: a Const, or (Tensordot's) a ConcatV2 whose last piece is.
    std::string shape_input = in[1];
    int sp = index_.Find(ParseTensorNameView(shape_input).node);
    if (sp >= 0 && g_.node(sp).op() == "ConcatV2") {
      std::vector<std::string> pieces = DataInputs(g_.node(sp));
      if (pieces.size() < 3) return false;
      shape_input = pieces[pieces.size() - 2];  // the last before the axis
    }
    std::optional<Tensor> shape = dims_of(shape_input);
    if (!shape || shape->shape().dims() != 1 || shape->NumElements() < 1) {
      return false;
    }
    int64_t last = shape->dtype() == tensorflow::DT_INT64
                       ? shape->flat<int64_t>()[shape->NumElements() - 1]
                       : shape->flat<int32_t>()[shape->NumElements() - 1];
    return last == n && n > 0;
  }

  // A DepthwiseConv2dNative the fused op computes the same: TensorFlow's
  // plain kernel ignores dilations and refuses unequal strides, which the
  // fused one would honour; the fused op has no explicit padding.
  static bool FusableDepthwise(const NodeDef& n) {
    const tensorflow::AttrValue* dilations = Attr(n, "dilations");
    if (dilations != nullptr) {
      for (int64_t d : dilations->list().i()) {
        if (d != 1) return false;
      }
    }
    const tensorflow::AttrValue* strides = Attr(n, "strides");
    const tensorflow::AttrValue* padding = Attr(n, "padding");
    return strides != nullptr && strides->list().i_size() == 4 &&
           strides->list().i(1) == strides->list().i(2) && padding != nullptr &&
           (padding->s() == "SAME" || padding->s() == "VALID");
  }

  bool Fuse(int ci) {
    const NodeDef& contraction = g_.node(ci);
    const bool matmul = contraction.op() == "MatMul";
    const bool depthwise = contraction.op() == "DepthwiseConv2dNative";
    if (!IsFloat(contraction) || !OnCpu(contraction)) return false;
    if (!matmul && !IsNhwc(contraction)) return false;
    if (depthwise && !FusableDepthwise(contraction)) return false;
    int bi = SoleConsumer(ci);
    if (bi < 0) return false;
    int reshape = -1;
    if (matmul && g_.node(bi).op() == "Reshape" &&
        KeepsLastDim(g_.node(bi), contraction)) {
      reshape = bi;
      bi = SoleConsumer(reshape);
      if (bi < 0 || g_.node(bi).op() != "BiasAdd") return false;
    }
    const NodeDef& second = g_.node(bi);
    std::vector<int> pattern{ci, bi};
    if (reshape >= 0) pattern = {ci, reshape, bi};
    std::vector<std::string> fused_ops, args;
    const std::vector<std::string> second_inputs = DataInputs(second);
    const std::string feeds_second =
        g_.node(reshape >= 0 ? reshape : ci).name();
    if (second.op() == "BiasAdd" && IsNhwc(second) && IsFloat(second) &&
        second_inputs.size() == 2 &&
        ParseTensorNameView(second_inputs[0]).node == feeds_second) {
      fused_ops.push_back("BiasAdd");
      args.push_back(second_inputs[1]);
    } else if (!matmul && !depthwise && IsInferenceBatchNorm(second, bi) &&
               second_inputs.size() == 5 &&
               ParseTensorNameView(second_inputs[0]).node ==
                   contraction.name()) {
      fused_ops.push_back("FusedBatchNorm");
      args.assign(second_inputs.begin() + 1, second_inputs.end());
    } else {
      return false;
    }
    int ai = SoleConsumer(bi);
    const bool activation =
        ai >= 0 && (depthwise ? IsDepthwiseActivation(g_.node(ai))
                              : IsActivation(g_.node(ai), matmul));
    if (activation && IsFloat(g_.node(ai))) {
      fused_ops.push_back(g_.node(ai).op());
      pattern.push_back(ai);
    } else if (matmul && fused_ops[0] == "BiasAdd") {
      auto [root, nodes, gelu] = MatchGelu(bi);
      if (root >= 0) {
        fused_ops.push_back(gelu);
        for (int n : nodes) {
          if (n != root) pattern.push_back(n);
        }
        pattern.push_back(root);
      }
    }
    Replace(pattern, fused_ops, args, reshape);
    return true;
  }

  void Replace(const std::vector<int>& pattern,
               const std::vector<std::string>& fused_ops,
               const std::vector<std::string>& args, int reshape) {
    const NodeDef& c = g_.node(pattern[0]);
    const NodeDef& second = g_.node(pattern[reshape >= 0 ? 2 : 1]);
    const int last = pattern.back();
    // With a Reshape: the fused node in the MatMul's place and name, the
    // Reshape of it in the last node's.
    const int slot = reshape >= 0 ? pattern[0] : last;
    NodeDef fused;
    fused.set_name(g_.node(slot).name());
    fused.set_op(c.op() == "MatMul"   ? "_FusedMatMul"
                 : c.op() == "Conv2D" ? "_FusedConv2D"
                                      : "_FusedDepthwiseConv2dNative");
    fused.set_device(c.device());
    for (const std::string& in : DataInputs(c)) fused.add_input(in);
    for (const std::string& a : args) fused.add_input(a);
    std::vector<std::string> taken;
    for (int i : pattern) {
      taken.push_back(Describe(g_.node(i)));
      for (const std::string& in : g_.node(i).input()) {
        if (in[0] != '^') continue;
        bool seen = false;
        for (const std::string& have : fused.input()) seen |= have == in;
        if (!seen) fused.add_input(in);
      }
    }
    auto& attrs = *fused.mutable_attr();
    for (const auto& [key, value] : c.attr()) {
      const bool conv_only =
          key == "explicit_paddings" || key == "use_cudnn_on_gpu";
      if (key == "T" || key == "transpose_a" || key == "transpose_b" ||
          key == "strides" || key == "padding" || key == "data_format" ||
          key == "dilations" || (conv_only && c.op() == "Conv2D")) {
        attrs[key] = value;
      }
    }
    for (const std::string& op : fused_ops) {
      attrs["fused_ops"].mutable_list()->add_s(op);
    }
    attrs["num_args"].set_i(static_cast<int64_t>(args.size()));
    if (fused.op() == "_FusedConv2D") {
      // TensorFlow 2.x's signature types the args with TArgs (a TensorFlow
      // worker refuses the node without it).
      for (size_t k = 0; k < args.size(); ++k) {
        attrs["TArgs"].mutable_list()->add_type(tensorflow::DT_FLOAT);
      }
      attrs["num_host_args"].set_i(0);
    }
    const tensorflow::AttrValue* eps = Attr(second, "epsilon");
    attrs["epsilon"].set_f(fused_ops[0] == "FusedBatchNorm" && eps != nullptr
                               ? eps->f()
                               : 0.0001f);
    const tensorflow::AttrValue* alpha = Attr(g_.node(last), "alpha");
    attrs["leakyrelu_alpha"].set_f(
        g_.node(last).op() == "LeakyRelu" && alpha != nullptr ? alpha->f()
                                                              : 0.2f);
    std::vector<std::string> made{fused.name() + " (" + fused.op() + ")"};
    if (reshape >= 0) {
      NodeDef r = g_.node(reshape);
      r.set_name(g_.node(last).name());
      r.set_input(0, fused.name());
      made.push_back(Describe(r));
      *g_.mutable_node(last) = std::move(r);
    }
    *g_.mutable_node(slot) = std::move(fused);
    for (int i : pattern) {
      if (i != last && i != slot) dead_[i] = true;
    }
    std::string ops;
    for (const std::string& op : fused_ops)
      ops += (ops.empty() ? "" : ",") + op;
    ctx_.Record("remapper", std::move(taken), std::move(made),
                "fused_ops " + ops);
  }

  PassContext& ctx_;
  GraphDef& g_;
  const GraphIndex& index_;
  std::vector<bool> dead_;
};

}  // namespace

Status RunRemapper(PassContext& ctx) {
  // Every fusion starts at a MatMul or a convolution, or has an Rsqrt.
  if (!HasOp(ctx.graph(),
             {"MatMul", "Conv2D", "DepthwiseConv2dNative", "Rsqrt"})) {
    return Status::Ok();
  }
  Remapper(ctx).Run();
  return Status::Ok();
}

}  // namespace dfg::optimize
