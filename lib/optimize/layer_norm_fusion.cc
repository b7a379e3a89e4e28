// The remapper's layer-norm fusion: the subgraph Keras' LayerNormalization
// (and tf.nn.moments + tf.nn.batch_normalization) writes for a
// normalization over the last dimension becomes one _MklLayerNorm, as
// TensorFlow's remapper does when oneDNN is on (the default on x86):
//
//   mean = Mean(x, axis, keep_dims)          axis: the last dimension
//   var  = Mean(SquaredDifference(x, [StopGradient] mean), axis, keep_dims)
//   inv  = Rsqrt(var + epsilon) [* gamma]
//   y    = x * inv + ([beta +] -mean * inv)      Keras
//   y    = x * inv + (beta - mean * inv)         tf.nn.batch_normalization
//
// x must have rank 2 or 3 (what the kernel takes), known from the
// `_output_shapes` TensorFlow writes on the moments' nodes; gamma, beta and
// epsilon constants (gamma and beta of shape [C] or [1, ..., 1, C]). The
// fused node takes y's name and slot; every other node of the pattern must
// have no consumer outside it. Float32 on CPU only.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "lib/graph/tensor_id.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

class LayerNormFusion {
 public:
  LayerNormFusion(PassContext& ctx, const GraphIndex& index,
                  std::vector<bool>* dead)
      : ctx_(ctx), g_(ctx.graph()), index_(index), dead_(*dead) {}

  bool Run() {
    bool any = false;
    const int n = g_.node_size();
    for (int i = 0; i < n; ++i) {
      const std::string& op = g_.node(i).op();
      if (dead_[i] || (op != "AddV2" && op != "Add")) continue;
      any |= TryRoot(i);
    }
    return any;
  }

 private:
  struct Match {
    int root = -1;
    std::string x;                   // the normalized tensor
    std::vector<int> nodes;          // every node the fusion removes
    std::optional<int> gamma, beta;  // their Const nodes
    float epsilon = 0;
    int rank = 0;
    int64_t depth = -1;  // C, when known
  };

  // The node producing `tensor` (output 0 only), live, float32, of `op`
  // (one of two), on the root's device; else -1.
  int Producer(const std::string& tensor, std::string_view op,
               std::string_view op2 = {}) const {
    if (tensor.empty() || tensor[0] == '^') return -1;
    TensorIdView id = ParseTensorNameView(tensor);
    if (id.index != 0) return -1;
    int p = index_.Find(id.node);
    if (p < 0 || dead_[p]) return -1;
    const NodeDef& n = g_.node(p);
    if (n.op() != op && (op2.empty() || n.op() != op2)) return -1;
    if (n.op() != "Const") {
      const tensorflow::AttrValue* t = Attr(n, "T");
      if (t == nullptr || t->type() != tensorflow::DT_FLOAT) return -1;
    }
    return p;
  }

  static bool SameTensor(const std::string& a, const std::string& b) {
    TensorIdView x = ParseTensorNameView(a), y = ParseTensorNameView(b);
    return x.node == y.node && x.index == y.index;
  }

  // A binary node's data inputs, both orders.
  static std::vector<std::pair<std::string, std::string>> Orders(
      const NodeDef& n) {
    std::vector<std::string> in = DataInputs(n);
    if (in.size() != 2) return {};
    return {{in[0], in[1]}, {in[1], in[0]}};
  }

  bool TryRoot(int root) {
    if (!OnCpu(g_.node(root)) || ctx_.IsPreserved(g_.node(root))) {
      // A preserved root keeps its op.
      return false;
    }
    for (const auto& [scaled, shift] : Orders(g_.node(root))) {
      int mul2 = Producer(scaled, "Mul");
      if (mul2 < 0) continue;
      for (const auto& [x, inv] : Orders(g_.node(mul2))) {
        Match m;
        m.root = root;
        m.nodes = {mul2};
        if (!MatchInv(inv, x, &m)) continue;
        if (!MatchShift(shift, inv, &m)) continue;
        if (!Contained(m) || !ShapesAgree(m)) continue;
        m.x = x;
        Replace(m);
        return true;
      }
    }
    return false;
  }

  // inv = Rsqrt(var + eps) [* gamma], with var and mean the moments of x.
  bool MatchInv(const std::string& inv, const std::string& x, Match* m) {
    int rsqrt = Producer(inv, "Rsqrt");
    if (rsqrt < 0) {
      int mul = Producer(inv, "Mul");
      if (mul < 0) return false;
      for (const auto& [r, g] : Orders(g_.node(mul))) {
        int gamma = Producer(g, "Const");
        rsqrt = Producer(r, "Rsqrt");
        if (gamma >= 0 && rsqrt >= 0) {
          m->gamma = gamma;
          m->nodes.push_back(mul);
          break;
        }
        rsqrt = -1;
      }
      if (rsqrt < 0) return false;
    }
    m->nodes.push_back(rsqrt);
    int add = Producer(g_.node(rsqrt).input(0), "AddV2", "Add");
    if (add < 0) return false;
    m->nodes.push_back(add);
    for (const auto& [var, eps] : Orders(g_.node(add))) {
      std::optional<float> e = ScalarFloatConst(eps);
      if (e && MatchMoments(var, x, m)) {
        m->epsilon = *e;
        return true;
      }
    }
    return false;
  }

  // var = Mean(SquaredDifference(x, [StopGradient] mean)), mean = Mean(x).
  bool MatchMoments(const std::string& var_name, const std::string& x,
                    Match* m) {
    int var = Producer(var_name, "Mean");
    if (var < 0) return false;
    int sqd = Producer(g_.node(var).input(0), "SquaredDifference");
    if (sqd < 0) return false;
    for (const auto& [a, b] : Orders(g_.node(sqd))) {
      if (!SameTensor(a, x)) continue;
      int sg = Producer(b, "StopGradient");
      int mean = Producer(sg >= 0 ? g_.node(sg).input(0) : b, "Mean");
      if (mean < 0 || !SameTensor(g_.node(mean).input(0), x)) continue;
      std::optional<int> axis = LastAxis(var), axis2 = LastAxis(mean);
      if (!axis || axis != axis2) continue;
      m->rank = std::max(Rank(var), Rank(mean));
      if (*axis >= 0 && *axis != m->rank - 1) return false;
      m->depth = LastDim(sqd);  // x's shape (the means' last dim is 1)
      m->nodes.insert(m->nodes.end(), {var, sqd, mean});
      if (sg >= 0) m->nodes.push_back(sg);
      mean_ = mean;
      return true;
    }
    return false;
  }

  // shift = [beta +] Mul(Neg(mean), inv), or Sub(beta, Mul(mean, inv)).
  bool MatchShift(const std::string& shift, const std::string& inv, Match* m) {
    if (int sub = Producer(shift, "Sub"); sub >= 0) {
      std::vector<std::string> in = DataInputs(g_.node(sub));
      int beta = in.size() == 2 ? Producer(in[0], "Const") : -1;
      if (beta < 0 || !MeanTimesInv(in[1], inv, /*negated=*/false, m)) {
        return false;
      }
      m->beta = beta;
      m->nodes.push_back(sub);
      return true;
    }
    if (MeanTimesInv(shift, inv, /*negated=*/true, m)) return true;
    int add = Producer(shift, "AddV2", "Add");
    if (add < 0) return false;
    for (const auto& [prod, b] : Orders(g_.node(add))) {
      int beta = Producer(b, "Const");
      if (beta >= 0 && MeanTimesInv(prod, inv, /*negated=*/true, m)) {
        m->beta = beta;
        m->nodes.push_back(add);
        return true;
      }
    }
    return false;
  }

  // `t` = Mul([Neg] mean, inv), in either order.
  bool MeanTimesInv(const std::string& t, const std::string& inv, bool negated,
                    Match* m) {
    int mul = Producer(t, "Mul");
    if (mul < 0) return false;
    for (const auto& [a, b] : Orders(g_.node(mul))) {
      if (!SameTensor(b, inv)) continue;
      int neg = negated ? Producer(a, "Neg") : -1;
      if (negated && neg < 0) continue;
      const std::string& mean = negated ? g_.node(neg).input(0) : a;
      if (Producer(mean, "Mean") != mean_) continue;
      m->nodes.push_back(mul);
      if (neg >= 0) m->nodes.push_back(neg);
      return true;
    }
    return false;
  }

  // The Mean's single reduction axis (-1 or a non-negative index) when it
  // keeps dims.
  std::optional<int> LastAxis(int mean) const {
    const NodeDef& n = g_.node(mean);
    const tensorflow::AttrValue* keep = Attr(n, "keep_dims");
    if (keep == nullptr || !keep->b()) return std::nullopt;
    int c = Producer(n.input(1), "Const");
    if (c < 0) return std::nullopt;
    std::optional<Tensor> t = ConstValue(g_.node(c));
    if (!t || t->NumElements() != 1 || t->dims() > 1) return std::nullopt;
    int64_t a = t->dtype() == tensorflow::DT_INT64   ? t->flat<int64_t>()[0]
                : t->dtype() == tensorflow::DT_INT32 ? t->flat<int32_t>()[0]
                                                     : -2;
    if (a < -1) return std::nullopt;
    return static_cast<int>(a);
  }

  // The rank of node i's output 0 from `_output_shapes`, or 0.
  int Rank(int i) const {
    const tensorflow::AttrValue* s = Attr(g_.node(i), "_output_shapes");
    if (s == nullptr || s->list().shape_size() < 1) return 0;
    const auto& shape = s->list().shape(0);
    return shape.unknown_rank() ? 0 : shape.dim_size();
  }

  // The last dimension of node i's output 0 from `_output_shapes`, or -1.
  int64_t LastDim(int i) const {
    const tensorflow::AttrValue* s = Attr(g_.node(i), "_output_shapes");
    if (s == nullptr || s->list().shape_size() < 1) return -1;
    const auto& shape = s->list().shape(0);
    if (shape.unknown_rank() || shape.dim_size() == 0) return -1;
    return shape.dim(shape.dim_size() - 1).size();
  }

  std::optional<float> ScalarFloatConst(const std::string& tensor) const {
    int c = Producer(tensor, "Const");
    if (c < 0) return std::nullopt;
    std::optional<Tensor> t = ConstValue(g_.node(c));
    if (!t || t->dtype() != tensorflow::DT_FLOAT || t->NumElements() != 1 ||
        t->dims() > 1) {
      return std::nullopt;
    }
    return t->flat<float>()[0];
  }

  // Every removed node: one device, not preserved, no control consumer,
  // and read only by nodes of the pattern (or the root).
  bool Contained(const Match& m) const {
    const std::string& device = g_.node(m.root).device();
    for (int i : m.nodes) {
      const NodeDef& n = g_.node(i);
      if (n.device() != device || ctx_.IsPreserved(n) ||
          !index_.ControlUses(i).empty()) {
        return false;
      }
      for (const Use& u : index_.AllDataUses(i)) {
        if (u.node != m.root && std::find(m.nodes.begin(), m.nodes.end(),
                                          u.node) == m.nodes.end()) {
          return false;
        }
      }
    }
    return true;
  }

  // Rank 2 or 3; gamma and beta [C] or [1, ..., 1, C] of at most that rank
  // (so that y has x's shape), with C the last dimension when known.
  bool ShapesAgree(Match& m) {
    if (m.rank != 2 && m.rank != 3) return false;
    for (const std::optional<int>& c : {m.gamma, m.beta}) {
      if (!c) continue;
      std::optional<Tensor> t = ConstValue(g_.node(*c));
      if (!t || t->dtype() != tensorflow::DT_FLOAT || t->dims() < 1 ||
          t->dims() > m.rank) {
        return false;
      }
      const int64_t depth = t->dim_size(t->dims() - 1);
      if (t->NumElements() != depth || depth < 2) return false;
      if (m.depth >= 0 && depth != m.depth) return false;
      m.depth = depth;
    }
    return m.depth >= 1;
  }

  // A 1-D Const for gamma or beta (the node itself when it is one, else a
  // new node beside the root), or ones / zeros where the pattern has none.
  std::string Vector(const Match& m, const std::optional<int>& c, float fill,
                     const char* suffix) {
    if (c && g_.node(*c).device() == g_.node(m.root).device()) {
      std::optional<Tensor> t = ConstValue(g_.node(*c));
      if (t->dims() == 1) return g_.node(*c).name();
    }
    Tensor v(tensorflow::DT_FLOAT, TensorShape({m.depth}));
    auto f = v.flat<float>();
    if (c) {
      std::optional<Tensor> t = ConstValue(g_.node(*c));
      std::copy(t->flat<float>().begin(), t->flat<float>().end(), f.begin());
    } else {
      std::fill(f.begin(), f.end(), fill);
    }
    std::string name = g_.node(m.root).name() + suffix;
    for (int k = 1; index_.Find(name) >= 0 || made_.contains(name); ++k) {
      name = fmt::format("{}{}_{}", g_.node(m.root).name(), suffix, k);
    }
    made_.insert(name);
    NodeDef* n = g_.add_node();
    n->set_name(name);
    n->set_op("Const");
    n->set_device(g_.node(m.root).device());
    SetConstValue(n, v);
    dead_.push_back(false);
    return name;
  }

  void Replace(const Match& m) {
    std::vector<std::string> taken;
    for (int i : m.nodes) taken.push_back(Describe(g_.node(i)));
    taken.push_back(Describe(g_.node(m.root)));
    std::vector<std::string> made;
    const std::string scale = Vector(m, m.gamma, 1.0f, "/scale");
    const std::string offset = Vector(m, m.beta, 0.0f, "/offset");
    NodeDef fused;
    fused.set_name(g_.node(m.root).name());
    fused.set_op("_MklLayerNorm");
    fused.set_device(g_.node(m.root).device());
    fused.add_input(m.x);
    fused.add_input(scale);
    fused.add_input(offset);
    // The pattern's control inputs move to the fused node.
    std::vector<int> all = m.nodes;
    all.push_back(m.root);
    for (int i : all) {
      for (const std::string& in : g_.node(i).input()) {
        if (in[0] != '^') continue;
        if (std::find(fused.input().begin(), fused.input().end(), in) ==
            fused.input().end()) {
          fused.add_input(in);
        }
      }
    }
    auto& attrs = *fused.mutable_attr();
    attrs["T"].set_type(tensorflow::DT_FLOAT);
    attrs["epsilon"].set_f(m.epsilon);
    if (const tensorflow::AttrValue* s =
            Attr(g_.node(m.root), "_output_shapes"))
      attrs["_output_shapes"] = *s;
    made.push_back(Describe(fused));
    *g_.mutable_node(m.root) = std::move(fused);
    for (int i : m.nodes) dead_[i] = true;
    ctx_.Record("remapper", std::move(taken), std::move(made),
                fmt::format("layer normalization over the last dimension "
                            "(epsilon {})",
                            m.epsilon));
  }

  PassContext& ctx_;
  GraphDef& g_;
  const GraphIndex& index_;
  std::vector<bool>& dead_;
  int mean_ = -1;  // the Mean of x in the match under way
  std::unordered_set<std::string> made_;
};

}  // namespace

bool FuseLayerNorms(PassContext& ctx, const GraphIndex& index,
                    std::vector<bool>* dead) {
  return LayerNormFusion(ctx, index, dead).Run();
}

}  // namespace dfg::optimize
