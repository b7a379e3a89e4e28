// The rnn pass (dfg's own; TensorFlow has no such Grappler pass, tf2onnx and
// OpenVINO do the same when they convert): a functional While that is
// exactly a Keras LSTM layer's loop (rnn_fusion.h) becomes one BlockLSTMV2
// node, TensorFlow's fused LSTM over a whole time-major sequence, which
// computes the same gates in the same IFCO order:
//   w = ConcatV2([kernel, recurrent_kernel], 0)   (folded when constants)
//   BlockLSTMV2(seq_len_max=steps, x=xs, cs_prev=c0, h_prev=h0, w,
//               wci=wcf=wco=zeros, b=bias, cell_clip=0, use_peephole=false)
// where xs is the tensor the loop's input TensorList was made from. The
// TensorListStack that read the loop's outputs becomes a StridedSlice of
// BlockLSTMV2's h (all the steps, or the last one, as the loop wrote them),
// keeping its name; consumers of the final h and c read slices of h and cs.
// The loop's TensorListFromTensor and TensorListReserve go when only the
// loop used them. The result is still a graph TensorFlow runs.
//
// Nothing changes unless everything matches: the loop's body and cond (no
// mask, no dropout, sigmoid/tanh, a bias), float32, a constant step count
// that the loop's counters cannot cut short, inputs from a
// TensorListFromTensor, outputs read only through TensorListStack, h and c.
#include "lib/optimize/rnn_fusion.h"

#include <fmt/format.h>

#include <initializer_list>

#include "lib/graph/tensor_id.h"
#include "lib/kernels/tensor.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

using tensorflow::DataType;
using tensorflow::FunctionDef;

const FunctionDef* FindFunction(const GraphDef& g, const NodeDef& n,
                                const char* attr) {
  const tensorflow::AttrValue* a = Attr(n, attr);
  if (a == nullptr || !a->has_func()) return nullptr;
  for (const FunctionDef& f : g.library().function()) {
    if (f.signature().name() == a->func().name()) return &f;
  }
  return nullptr;
}

std::vector<std::string> ControlInputs(const NodeDef& n) {
  std::vector<std::string> v;
  for (const std::string& in : n.input()) {
    if (!in.empty() && in[0] == '^') v.push_back(in);
  }
  return v;
}

bool Calls(const NodeDef& n, const std::string& f) {
  if (n.op() == f) return true;
  for (const auto& [name, value] : n.attr()) {
    if (value.has_func() && value.func().name() == f) return true;
    for (const auto& lf : value.list().func()) {
      if (lf.name() == f) return true;
    }
  }
  return false;
}

// Drops library function `f` when no node of the graph or of another
// function calls it any more (the loop's cond and body after the rewrite).
void DropIfUnused(GraphDef* g, const std::string& f) {
  for (const NodeDef& n : g->node()) {
    if (Calls(n, f)) return;
  }
  int at = -1;
  for (int i = 0; i < g->library().function_size(); ++i) {
    const FunctionDef& fd = g->library().function(i);
    if (fd.signature().name() == f) {
      at = i;
      continue;
    }
    for (const NodeDef& n : fd.node_def()) {
      if (Calls(n, f)) return;
    }
  }
  if (at < 0) return;
  for (const auto& grad : g->library().gradient()) {
    if (grad.function_name() == f || grad.gradient_func() == f) return;
  }
  g->mutable_library()->mutable_function()->DeleteSubrange(at, 1);
}

class LstmFusion {
 public:
  explicit LstmFusion(PassContext& ctx) : ctx_(ctx), g_(ctx.graph()) {}

  // Rewrites one loop; false when none matches.
  bool FuseOne() {
    if (!HasOp(g_, {"While", "StatelessWhile"})) return false;
    GraphIndex index(g_);
    for (int i = 0; i < g_.node_size(); ++i) {
      if (Fuse(index, i)) return true;
    }
    return false;
  }

 private:
  // The node producing `tensor` (through Identity nodes), or -1.
  int Producer(const GraphIndex& index, const std::string& tensor) const {
    int n = index.Find(ParseTensorNameView(tensor).node);
    for (int hops = 0; n >= 0 && g_.node(n).op() == "Identity" && hops < 64;
         ++hops) {
      std::vector<std::string> in = DataInputs(g_.node(n));
      n = in.empty() ? -1 : index.Find(ParseTensorNameView(in[0]).node);
    }
    return n;
  }

  std::optional<int64_t> ConstInt(const GraphIndex& index,
                                  const std::string& tensor) const {
    int n = Producer(index, tensor);
    if (n < 0 || g_.node(n).op() != "Const") return std::nullopt;
    const tensorflow::AttrValue* v = Attr(g_.node(n), "value");
    if (v == nullptr) return std::nullopt;
    auto t = Tensor::FromProto(v->tensor());
    if (!t.ok() || t->dims() != 0) return std::nullopt;
    if (t->dtype() == tensorflow::DT_INT32) return t->flat<int32_t>()[0];
    if (t->dtype() == tensorflow::DT_INT64) return t->flat<int64_t>()[0];
    return std::nullopt;
  }

  // The node making the list `tensor`: `op`, with float elements; or -1.
  int ListSource(const GraphIndex& index, const std::string& tensor,
                 const char* op) const {
    int n = index.Find(ParseTensorNameView(tensor).node);
    if (n < 0 || g_.node(n).op() != op) return -1;
    const tensorflow::AttrValue* t = Attr(g_.node(n), "element_dtype");
    return t != nullptr && t->type() == tensorflow::DT_FLOAT ? n : -1;
  }

  // Types and sizes the While declares for the matched loop variables.
  bool TypesMatch(const NodeDef& w, const LstmLoop& loop) {
    const tensorflow::AttrValue* t = Attr(w, "T");
    const tensorflow::AttrValue* shapes = Attr(w, "output_shapes");
    if (t == nullptr || t->list().type_size() != loop.num_vars ||
        shapes == nullptr || shapes->list().shape_size() != loop.num_vars) {
      return false;
    }
    auto type = [&](int v) { return t->list().type(v); };
    auto weight = [&](int v, bool read) {
      return type(v) == (read ? tensorflow::DT_RESOURCE : tensorflow::DT_FLOAT);
    };
    if (type(loop.h) != tensorflow::DT_FLOAT ||
        type(loop.c) != tensorflow::DT_FLOAT ||
        type(loop.in_list) != tensorflow::DT_VARIANT ||
        type(loop.out_list) != tensorflow::DT_VARIANT ||
        !weight(loop.kernel, loop.kernel_read) ||
        !weight(loop.recurrent, loop.recurrent_read) ||
        !weight(loop.bias, loop.bias_read)) {
      return false;
    }
    const auto& h = shapes->list().shape(loop.h);
    if (h.unknown_rank() || h.dim_size() != 2 || h.dim(1).size() <= 0) {
      return false;
    }
    units_ = h.dim(1).size();
    // Where the While knows the weights' shapes (constants, not resource
    // handles), they must be an LSTM's of `units_`: the matched body only
    // says the ops line up, and elementwise ops broadcast.
    auto shape_is = [&](int v, std::initializer_list<int64_t> want) {
      const auto& s = shapes->list().shape(v);
      if (s.unknown_rank()) return true;
      if (s.dim_size() != static_cast<int>(want.size())) return false;
      int k = 0;
      for (int64_t d : want) {
        const int64_t got = s.dim(k++).size();
        if (got >= 0 && d >= 0 && got != d) return false;
      }
      return true;
    };
    const int64_t u = units_;
    return (loop.kernel_read || shape_is(loop.kernel, {-1, 4 * u})) &&
           (loop.recurrent_read || shape_is(loop.recurrent, {u, 4 * u})) &&
           (loop.bias_read || shape_is(loop.bias, {4 * u}));
  }

  // The loop's own counters start at 0 and cannot stop it before `steps`.
  bool CountsFromZero(const GraphIndex& index,
                      const std::vector<std::string>& in,
                      const LstmLoop& loop) const {
    if (ConstInt(index, in[loop.time]) != 0) return false;
    if (loop.counter < 0) return true;
    auto max = ConstInt(index, in[loop.max]);
    return ConstInt(index, in[loop.counter]) == 0 && max && *max >= loop.steps;
  }

  bool Fuse(const GraphIndex& index, int w);
  void Rewrite(const GraphIndex& index, int w, const LstmLoop& loop,
               const std::vector<int>& stacks, int from_tensor, int reserve);

  NodeDef* AddNode(const std::string& name, const char* op) {
    NodeDef* n = g_.add_node();
    n->set_name(name);
    n->set_op(op);
    n->set_device(device_);
    return n;
  }
  std::string AddConst(const std::string& name, const Tensor& value) {
    SetConstValue(AddNode(name, "Const"), value);
    return name;
  }
  // n = x[begin:end] along dimension 0 (shrunk away when `shrink`); its
  // Consts are named `consts`/begin, /end, /strides.
  void MakeSlice(NodeDef* n, const std::string& x, const std::string& consts,
                 int64_t begin, int64_t end, bool shrink);
  std::string Weight(const std::string& prefix, const char* name,
                     const std::string& tensor, bool read,
                     const std::vector<std::string>& controls);

  PassContext& ctx_;
  GraphDef& g_;
  int64_t units_ = 0;
  std::string device_;
};

bool LstmFusion::Fuse(const GraphIndex& index, int w) {
  const NodeDef& node = g_.node(w);
  if ((node.op() != "While" && node.op() != "StatelessWhile") ||
      ctx_.IsNamedPreserved(node.name())) {
    return false;
  }
  const FunctionDef* cond = FindFunction(g_, node, "cond");
  const FunctionDef* body = FindFunction(g_, node, "body");
  LstmLoop loop;
  if (cond == nullptr || body == nullptr ||
      !MatchKerasLstm(*cond, *body, &loop) || !TypesMatch(node, loop)) {
    return false;
  }
  const std::vector<std::string> in = DataInputs(node);
  if (static_cast<int>(in.size()) != loop.num_vars ||
      !CountsFromZero(index, in, loop)) {
    return false;
  }
  const int from_tensor =
      ListSource(index, in[loop.in_list], "TensorListFromTensor");
  const int reserve = ListSource(index, in[loop.out_list], "TensorListReserve");
  if (from_tensor < 0 || reserve < 0 ||
      ConstInt(index, DataInputs(g_.node(reserve)).at(1)) !=
          (loop.write_at_time ? loop.steps : 1)) {
    return false;
  }
  // Who reads the loop: TensorListStacks of its output list, and h and c.
  std::vector<int> stacks;
  for (const Use& u : index.AllDataUses(w)) {
    const NodeDef& user = g_.node(u.node);
    const int port = ParseTensorNameView(user.input(u.input)).index;
    if (port == loop.h || port == loop.c) continue;
    const tensorflow::AttrValue* t = Attr(user, "element_dtype");
    if (port != loop.out_list || user.op() != "TensorListStack" ||
        u.input != 0 || t == nullptr || t->type() != tensorflow::DT_FLOAT ||
        ctx_.IsNamedPreserved(user.name())) {
      return false;
    }
    stacks.push_back(u.node);
  }
  // The names the rewrite makes (under <While>/BlockLSTMV2) must be free.
  const std::string prefix = node.name() + "/BlockLSTMV2";
  for (const NodeDef& n : g_.node()) {
    if (n.name() == prefix || n.name().starts_with(prefix + "/")) return false;
  }
  Rewrite(index, w, loop, stacks, from_tensor, reserve);
  return true;
}

void LstmFusion::MakeSlice(NodeDef* n, const std::string& x,
                           const std::string& consts, int64_t begin,
                           int64_t end, bool shrink) {
  auto vec = [](int64_t v) {
    return Tensor::Vector<int32_t>({static_cast<int32_t>(v)});
  };
  n->add_input(x);
  n->add_input(AddConst(consts + "/begin", vec(begin)));
  n->add_input(AddConst(consts + "/end", vec(end)));
  n->add_input(AddConst(consts + "/strides", vec(1)));
  auto& a = *n->mutable_attr();
  a["T"].set_type(tensorflow::DT_FLOAT);
  a["Index"].set_type(tensorflow::DT_INT32);
  for (const char* mask :
       {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask"}) {
    a[mask].set_i(0);
  }
  a["shrink_axis_mask"].set_i(shrink ? 1 : 0);
}

// The weights, read outside the loop when the body read them there.
std::string LstmFusion::Weight(const std::string& prefix, const char* name,
                               const std::string& tensor, bool read,
                               const std::vector<std::string>& controls) {
  if (!read) return tensor;
  NodeDef* r = AddNode(prefix + "/" + name, "ReadVariableOp");
  r->add_input(tensor);
  for (const std::string& c : controls) r->add_input(c);
  (*r->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  return r->name();
}

void LstmFusion::Rewrite(const GraphIndex& index, int w, const LstmLoop& loop,
                         const std::vector<int>& stacks, int from_tensor,
                         int reserve) {
  const NodeDef while_node = g_.node(w);  // a copy: nodes are added below
  const std::vector<std::string> in = DataInputs(while_node);
  const std::vector<std::string> controls = ControlInputs(while_node);
  const std::string p = while_node.name() + "/BlockLSTMV2";
  device_ = while_node.device();
  std::vector<std::string> taken = {Describe(while_node)}, made;

  NodeDef* concat = AddNode(p + "/w", "ConcatV2");
  concat->add_input(
      Weight(p, "kernel", in[loop.kernel], loop.kernel_read, controls));
  concat->add_input(Weight(p, "recurrent_kernel", in[loop.recurrent],
                           loop.recurrent_read, controls));
  concat->add_input(AddConst(p + "/w/axis", Tensor::Scalar<int32_t>(0)));
  (*concat->mutable_attr())["N"].set_i(2);
  (*concat->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*concat->mutable_attr())["Tidx"].set_type(tensorflow::DT_INT32);
  const std::string bias =
      Weight(p, "bias", in[loop.bias], loop.bias_read, controls);
  const std::string zeros = AddConst(
      p + "/zeros", Tensor::Vector<float>(std::vector<float>(units_, 0.0f)));

  NodeDef* lstm = AddNode(p, "BlockLSTMV2");
  lstm->add_input(
      AddConst(p + "/seq_len_max", Tensor::Scalar<int64_t>(loop.steps)));
  for (const std::string& t :
       {DataInputs(g_.node(from_tensor)).at(0), in[loop.c], in[loop.h],
        concat->name(), zeros, zeros, zeros, bias}) {
    lstm->add_input(t);
  }
  for (const std::string& c : controls) lstm->add_input(c);
  (*lstm->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*lstm->mutable_attr())["cell_clip"].set_f(0.0f);
  (*lstm->mutable_attr())["use_peephole"].set_b(false);
  made.push_back(Describe(*lstm));

  // The stacked outputs, as the loop wrote them: every step, or the last.
  for (size_t k = 0; k < stacks.size(); ++k) {
    NodeDef* s = g_.mutable_node(stacks[k]);
    taken.push_back(Describe(*s));
    const std::vector<std::string> keep = ControlInputs(*s);
    s->clear_input();
    s->clear_attr();
    s->set_op("StridedSlice");
    MakeSlice(s, p + ":6", fmt::format("{}/stack_{}", p, k),
              loop.write_at_time ? 0 : loop.steps - 1, loop.steps, false);
    for (const std::string& c : keep) s->add_input(c);
    made.push_back(Describe(*s));
  }
  // The final h and c: the last step of BlockLSTMV2's h and cs.
  for (auto [port, out, name] :
       {std::tuple{loop.h, 6, "h"}, std::tuple{loop.c, 1, "c"}}) {
    const std::vector<Use>& uses = index.DataUses(w, port);
    if (uses.empty()) continue;
    NodeDef* s = AddNode(p + "/" + name, "StridedSlice");
    MakeSlice(s, InputString(p, out), s->name(), loop.steps - 1, loop.steps,
              true);
    Rewire(&g_, uses, s->name());
    made.push_back(Describe(*s));
  }
  // What waited for the loop waits for the fused op.
  for (int u : index.ControlUses(w)) {
    NodeDef* user = g_.mutable_node(u);
    for (int k = 0; k < user->input_size(); ++k) {
      if (user->input(k) == "^" + while_node.name())
        user->set_input(k, "^" + p);
    }
  }
  std::vector<bool> dead(g_.node_size(), false);
  dead[w] = true;
  // The loop's lists go when nothing else reads them.
  for (int list : {from_tensor, reserve}) {
    if (index.NumDataUses(list) == 1 && index.ControlUses(list).empty() &&
        !ctx_.IsPreserved(g_.node(list))) {
      dead[list] = true;
      taken.push_back(Describe(g_.node(list)));
    }
  }
  ctx_.Record("rnn", std::move(taken), std::move(made),
              fmt::format("a Keras LSTM loop ({} steps of {} units{}) is one "
                          "BlockLSTMV2",
                          loop.steps, units_,
                          loop.write_at_time ? ", every step's h" : ""));
  EraseNodes(&g_, dead);
  for (const char* attr : {"cond", "body"}) {
    const tensorflow::AttrValue* f = Attr(while_node, attr);
    if (f != nullptr && f->has_func()) DropIfUnused(&g_, f->func().name());
  }
}

}  // namespace

Status RunRnnFusion(PassContext& ctx) {
  LstmFusion fusion(ctx);
  while (fusion.FuseOne()) {
  }
  return Status::Ok();
}

}  // namespace dfg::optimize
