// The remapper (Grappler's Remapper, its CPU contraction fusions): a
// MatMul or Conv2D whose only consumer is a BiasAdd (or, for Conv2D, an
// inference FusedBatchNorm), optionally followed by the only consumer of
// that, an activation, becomes one _FusedMatMul / _FusedConv2D node:
//   MatMul  + BiasAdd [+ Relu|Relu6|Elu|LeakyRelu|Tanh|Sigmoid]
//   Conv2D  + BiasAdd [+ Relu|Relu6|Elu|LeakyRelu]          (NHWC)
//   Conv2D  + FusedBatchNorm(V2,V3, is_training false) [+
//   Relu|Relu6|Elu|LeakyRelu]
// The fused node takes the last node's name (what consumers and fetches
// read) and the contraction's device; the pattern's control inputs move
// to it. Only float32 on CPU (or unplaced) graphs, as TensorFlow's
// remapper without oneDNN.
#include <fmt/format.h>

#include "lib/graph/tensor_id.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

const tensorflow::AttrValue* Attr(const NodeDef& n, const char* name) {
  auto it = n.attr().find(name);
  return it == n.attr().end() ? nullptr : &it->second;
}

bool IsFloat(const NodeDef& n) {
  const tensorflow::AttrValue* t = Attr(n, "T");
  return t != nullptr && t->type() == tensorflow::DT_FLOAT;
}

bool OnCpu(const NodeDef& n) {
  const std::string& d = n.device();
  return d.empty() || d.find("CPU") != std::string::npos ||
         d.find("cpu") != std::string::npos;
}

bool IsNhwc(const NodeDef& n) {
  const tensorflow::AttrValue* f = Attr(n, "data_format");
  return f == nullptr || f->s() == "NHWC";
}

std::vector<std::string> DataInputs(const NodeDef& n) {
  std::vector<std::string> v;
  for (const std::string& in : n.input()) {
    if (in[0] != '^') v.push_back(in);
  }
  return v;
}

class Remapper {
 public:
  explicit Remapper(PassContext& ctx)
      : ctx_(ctx), g_(ctx.graph()), index_(g_), dead_(g_.node_size()) {}

  void Run() {
    bool any = false;
    for (int i = 0; i < g_.node_size(); ++i) {
      const std::string& op = g_.node(i).op();
      if (dead_[i] || (op != "MatMul" && op != "Conv2D")) continue;
      any |= Fuse(i);
    }
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

  bool Fuse(int ci) {
    const NodeDef& contraction = g_.node(ci);
    const bool matmul = contraction.op() == "MatMul";
    if (!IsFloat(contraction) || !OnCpu(contraction)) return false;
    if (!matmul && !IsNhwc(contraction)) return false;
    int bi = SoleConsumer(ci);
    if (bi < 0) return false;
    const NodeDef& second = g_.node(bi);
    std::vector<int> pattern{ci, bi};
    std::vector<std::string> fused_ops, args;
    const std::vector<std::string> second_inputs = DataInputs(second);
    if (second.op() == "BiasAdd" && IsNhwc(second) && IsFloat(second) &&
        second_inputs.size() == 2 &&
        ParseTensorNameView(second_inputs[0]).node == contraction.name()) {
      fused_ops.push_back("BiasAdd");
      args.push_back(second_inputs[1]);
    } else if (!matmul && IsInferenceBatchNorm(second, bi) &&
               second_inputs.size() == 5 &&
               ParseTensorNameView(second_inputs[0]).node ==
                   contraction.name()) {
      fused_ops.push_back("FusedBatchNorm");
      args.assign(second_inputs.begin() + 1, second_inputs.end());
    } else {
      return false;
    }
    int ai = SoleConsumer(bi);
    if (ai >= 0 && IsActivation(g_.node(ai), matmul) && IsFloat(g_.node(ai))) {
      fused_ops.push_back(g_.node(ai).op());
      pattern.push_back(ai);
    }
    Replace(pattern, fused_ops, args);
    return true;
  }

  void Replace(const std::vector<int>& pattern,
               const std::vector<std::string>& fused_ops,
               const std::vector<std::string>& args) {
    const NodeDef& c = g_.node(pattern[0]);
    const NodeDef& second = g_.node(pattern[1]);
    const int last = pattern.back();
    NodeDef fused;
    fused.set_name(g_.node(last).name());
    fused.set_op(c.op() == "MatMul" ? "_FusedMatMul" : "_FusedConv2D");
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
      if (key == "T" || key == "transpose_a" || key == "transpose_b" ||
          key == "strides" || key == "padding" || key == "explicit_paddings" ||
          key == "data_format" || key == "dilations" ||
          key == "use_cudnn_on_gpu") {
        attrs[key] = value;
      }
    }
    for (const std::string& op : fused_ops) {
      attrs["fused_ops"].mutable_list()->add_s(op);
    }
    attrs["num_args"].set_i(static_cast<int64_t>(args.size()));
    const tensorflow::AttrValue* eps = Attr(second, "epsilon");
    attrs["epsilon"].set_f(fused_ops[0] == "FusedBatchNorm" && eps != nullptr
                               ? eps->f()
                               : 0.0001f);
    const tensorflow::AttrValue* alpha = Attr(g_.node(last), "alpha");
    attrs["leakyrelu_alpha"].set_f(
        g_.node(last).op() == "LeakyRelu" && alpha != nullptr ? alpha->f()
                                                              : 0.2f);
    const std::string made = fused.name() + " (" + fused.op() + ")";
    *g_.mutable_node(last) = std::move(fused);
    for (int i : pattern) {
      if (i != last) dead_[i] = true;
    }
    std::string ops;
    for (const std::string& op : fused_ops)
      ops += (ops.empty() ? "" : ",") + op;
    ctx_.Record("remapper", std::move(taken), {made}, "fused_ops " + ops);
  }

  PassContext& ctx_;
  GraphDef& g_;
  GraphIndex index_;
  std::vector<bool> dead_;
};

}  // namespace

Status RunRemapper(PassContext& ctx) {
  Remapper(ctx).Run();
  return Status::Ok();
}

}  // namespace dfg::optimize
