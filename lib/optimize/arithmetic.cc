// The arithmetic optimizer (Grappler's ArithmeticOptimizer), the stages
// that need no shape inference: involutions (Neg(Neg(x)) = x, also
// Reciprocal, LogicalNot, Conj, Invert), a Cast to the type it already has
// and a Transpose by the identity permutation become Identity (which the
// dependency pass then removes), and Reshape(Reshape(x, s1), s2) reads x.
// Two stages prepare the remapper's fusions: a Mul of a convolution or
// MatMul by a constant per-output-channel vector moves onto the constant
// filter (Grappler's MulConvPushDown, in its constant folding), and an
// AddV2 of a contraction's output and such a vector becomes a BiasAdd
// (dfg's: the same sum, in a form the remapper fuses; a Keras
// BatchNormalization after a convolution becomes a bias this way). When the
// contraction already has a BiasAdd (a Keras convolution with use_bias),
// the Mul goes onto its filter and bias and the Add into its bias.
#include <fmt/format.h>

#include <unordered_map>

#include "lib/graph/tensor_id.h"
#include "lib/kernels/tensor.h"
#include "lib/optimize/pass.h"

namespace dfg::optimize {
namespace {

bool IsInvolution(std::string_view op) {
  return op == "Neg" || op == "Reciprocal" || op == "LogicalNot" ||
         op == "Conj" || op == "Invert";
}

// The node producing data input k of `n`, or null.
const NodeDef* Producer(const GraphDef& g, const GraphIndex& index,
                        const NodeDef& n, int k) {
  if (n.input_size() <= k || n.input(k)[0] == '^') return nullptr;
  int p = index.Find(ParseTensorNameView(n.input(k)).node);
  return p < 0 ? nullptr : &g.node(p);
}

bool IsFloatNode(const NodeDef& n) {
  const tensorflow::AttrValue* t = Attr(n, "T");
  return t != nullptr && t->type() == tensorflow::DT_FLOAT;
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

// The dims of a Const's value; false when `n` is not a Const.
bool ConstDims(const NodeDef* n, std::vector<int64_t>* dims) {
  if (n == nullptr || n->op() != "Const") return false;
  const tensorflow::AttrValue* v = Attr(*n, "value");
  if (v == nullptr || v->tensor().tensor_shape().unknown_rank()) return false;
  dims->clear();
  for (const auto& d : v->tensor().tensor_shape().dim()) {
    dims->push_back(d.size());
  }
  return true;
}

// A Const that varies along its last dimension only (or is a scalar): its
// element count, else -1.
int64_t ChannelVectorSize(const NodeDef* n, size_t max_rank) {
  std::vector<int64_t> dims;
  if (!ConstDims(n, &dims) || dims.size() > max_rank) return -1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    if (dims[i] != 1) return -1;
  }
  return dims.empty() ? 1 : dims.back();
}

bool IsContraction(const NodeDef& n) {
  return n.op() == "Conv2D" || n.op() == "MatMul";
}

// Output channels of a contraction whose filter (input 1) is a Const, or -1:
// Conv2D NHWC [kh,kw,in,out], DepthwiseConv2dNative [kh,kw,in,mult] (in *
// mult), MatMul [k,n] (not transposed).
int64_t OutputChannels(const GraphDef& g, const GraphIndex& index,
                       const NodeDef& c) {
  std::vector<int64_t> dims;
  if (!ConstDims(Producer(g, index, c, 1), &dims)) return -1;
  if (c.op() == "DepthwiseConv2dNative") {
    const tensorflow::AttrValue* f = Attr(c, "data_format");
    if ((f != nullptr && f->s() != "NHWC") || dims.size() != 4) return -1;
    return dims[2] * dims[3];
  }
  if (c.op() == "Conv2D") {
    const tensorflow::AttrValue* f = Attr(c, "data_format");
    if ((f != nullptr && f->s() != "NHWC") || dims.size() != 4) return -1;
    return dims[3];
  }
  const tensorflow::AttrValue* tb = Attr(c, "transpose_b");
  if (dims.size() != 2 || (tb != nullptr && tb->b())) return -1;
  return dims[1];
}

bool OnlyUse(const GraphIndex& index, int producer, int consumer) {
  return index.NumDataUses(producer) == 1 &&
         index.ControlUses(producer).empty() &&
         index.DataUses(producer, 0).size() == 1 &&
         index.DataUses(producer, 0)[0].node == consumer;
}

// `input` (a Const varying along its last dimension only, `channels` or 1
// long there) as a [channels] vector or a scalar: itself when it is one,
// else a new Const of the same values shaped [channels] (or [] for one
// value). May add a node.
std::string VectorInput(GraphDef& g, const GraphIndex& index,
                        const std::string& input, int64_t channels) {
  const NodeDef* c = &g.node(index.Find(ParseTensorNameView(input).node));
  std::vector<int64_t> dims;
  ConstDims(c, &dims);
  if (dims.size() <= 1) return input;
  NodeDef vec = *c;
  vec.set_name(c->name() + "/bias_vector");
  auto* shape =
      (*vec.mutable_attr())["value"].mutable_tensor()->mutable_tensor_shape();
  shape->clear_dim();
  // A [1,1,1,1] constant (one value for every channel) is a scalar.
  if (dims.back() != 1) shape->add_dim()->set_size(channels);
  std::string name = vec.name();
  if (index.Find(name) < 0) *g.add_node() = std::move(vec);
  return name;
}

// A new float node `op`(a, b) on `device`, named `name`.
void AddFloatBinary(GraphDef& g, const std::string& name, const char* op,
                    const std::string& a, const std::string& b,
                    const std::string& device) {
  NodeDef* n = g.add_node();
  n->set_name(name);
  n->set_op(op);
  n->add_input(a);
  n->add_input(b);
  n->set_device(device);
  (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
}

// `n` (a Mul or an Add now folded away) reads `x` as an Identity of its own
// name; the dependency pass then bypasses it.
void ForwardAsIdentity(NodeDef* n, const std::string& x) {
  n->set_input(0, x);
  n->mutable_input()->DeleteSubrange(1, n->input_size() - 1);
  ToIdentity(n, tensorflow::DT_FLOAT);
}

// The BiasAdd (NHWC) read at data input `side` of `n`, over a contraction
// with a constant filter, both read only there and not preserved: the
// BiasAdd's index, the contraction's in *contraction; else -1.
int BiasedContraction(PassContext& ctx, const GraphIndex& index,
                      const NodeDef& n, int side, int* contraction) {
  const GraphDef& g = ctx.graph();
  const NodeDef* ba = Producer(g, index, n, side);
  int reader = index.Find(n.name());
  if (ba != nullptr && ba->op() == "Identity" && ba->input_size() == 1 &&
      !ctx.IsPreserved(*ba) && ba->device() == n.device() &&
      OnlyUse(index, index.Find(ba->name()), reader)) {
    // The Mul this pass just folded (now an Identity): its Add folds too,
    // before the remapper fuses the BiasAdd away.
    reader = index.Find(ba->name());
    ba = Producer(g, index, *ba, 0);
  }
  if (ba == nullptr || ba->op() != "BiasAdd" || !IsFloatNode(*ba) ||
      ctx.IsPreserved(*ba) || HasControlInputs(*ba) ||
      ba->device() != n.device() || ba->input_size() != 2 ||
      ParseTensorNameView(n.input(side)).index != 0) {
    return -1;
  }
  const tensorflow::AttrValue* f = Attr(*ba, "data_format");
  if (f != nullptr && f->s() != "NHWC") return -1;
  const NodeDef* conv = Producer(g, index, *ba, 0);
  int bi = index.Find(ba->name());
  if (conv == nullptr || !IsContraction(*conv) || ctx.IsPreserved(*conv) ||
      HasControlInputs(*conv) || conv->device() != n.device() ||
      ParseTensorNameView(ba->input(0)).index != 0 ||
      !OnlyUse(index, bi, reader) ||
      !OnlyUse(index, index.Find(conv->name()), bi)) {
    return -1;
  }
  *contraction = index.Find(conv->name());
  return bi;
}

// Mul(BiasAdd(contraction(x, W), b), C) -> BiasAdd(contraction(x, W * C),
// b * C) for C constant along the output channels: a Keras convolution with
// a bias followed by an inference BatchNormalization's scale. The products
// are new nodes constant folding computes; the Mul forwards the BiasAdd.
bool MulBiasAddPushDown(PassContext& ctx, const GraphIndex& index, int i,
                        std::unordered_map<int, int64_t>* folded) {
  GraphDef& g = ctx.graph();
  const NodeDef& mul = g.node(i);
  if (mul.op() != "Mul" || !IsFloatNode(mul) || HasControlInputs(mul) ||
      mul.input_size() != 2) {
    return false;
  }
  for (int side = 0; side < 2; ++side) {
    int ci = -1;
    int bi = BiasedContraction(ctx, index, mul, side, &ci);
    if (bi < 0) continue;
    const NodeDef& conv = g.node(ci);
    int64_t channels = OutputChannels(g, index, conv);
    const NodeDef* scale = Producer(g, index, mul, 1 - side);
    int64_t size = ChannelVectorSize(scale, conv.op() == "MatMul" ? 2 : 4);
    const std::string filter_name = conv.name() + "/scaled_filter";
    const std::string bias_name = g.node(bi).name() + "/scaled_bias";
    if (channels < 1 || (size != channels && size != 1) ||
        index.Find(filter_name) >= 0 || index.Find(bias_name) >= 0) {
      continue;
    }
    const std::string before = Describe(mul), before_ba = Describe(g.node(bi)),
                      before_conv = Describe(conv);
    const std::string scale_input = mul.input(1 - side);
    const std::string device = mul.device();
    const std::string vec = VectorInput(g, index, scale_input, channels);
    AddFloatBinary(g, filter_name, "Mul", g.node(ci).input(1), scale_input,
                   device);
    AddFloatBinary(g, bias_name, "Mul", g.node(bi).input(1), vec, device);
    g.mutable_node(ci)->set_input(1, filter_name);
    g.mutable_node(bi)->set_input(1, bias_name);
    (*folded)[bi] = channels;
    NodeDef* m = g.mutable_node(i);
    ForwardAsIdentity(m, g.node(bi).name());
    ctx.Record(
        "arithmetic", {before_conv, before_ba, before},
        {Describe(g.node(ci)), Describe(g.node(bi)), filter_name + " (Mul)",
         bias_name + " (Mul)", m->name() + " (Identity)"},
        "a constant per-channel Mul of a biased contraction moves "
        "onto its filter and bias");
    return true;
  }
  return false;
}

// AddV2(BiasAdd(contraction, b), C) -> BiasAdd(contraction, b + C) for C
// constant along the output channels: an inference BatchNormalization's
// offset joins the convolution's bias.
bool AddIntoBiasAdd(PassContext& ctx, const GraphIndex& index, int i,
                    const std::unordered_map<int, int64_t>& folded) {
  GraphDef& g = ctx.graph();
  const NodeDef& add = g.node(i);
  if ((add.op() != "AddV2" && add.op() != "Add") || !IsFloatNode(add) ||
      add.input_size() != 2 || HasControlInputs(add)) {
    return false;
  }
  for (int side = 0; side < 2; ++side) {
    int ci = -1;
    int bi = BiasedContraction(ctx, index, add, side, &ci);
    if (bi < 0) continue;
    // A filter MulBiasAddPushDown just scaled is a new node the index does
    // not know: its channel count comes from there.
    auto known = folded.find(bi);
    int64_t channels = known != folded.end()
                           ? known->second
                           : OutputChannels(g, index, g.node(ci));
    const NodeDef* offset = Producer(g, index, add, 1 - side);
    int64_t size =
        ChannelVectorSize(offset, g.node(ci).op() == "MatMul" ? 2 : 4);
    const std::string sum_name = g.node(bi).name() + "/offset_bias";
    if (channels < 1 || (size != channels && size != 1) ||
        index.Find(sum_name) >= 0) {
      continue;
    }
    const std::string before = Describe(add), before_ba = Describe(g.node(bi));
    const std::string device = add.device();
    const std::string vec =
        VectorInput(g, index, add.input(1 - side), channels);
    AddFloatBinary(g, sum_name, "AddV2", g.node(bi).input(1), vec, device);
    g.mutable_node(bi)->set_input(1, sum_name);
    NodeDef* a = g.mutable_node(i);
    ForwardAsIdentity(a, g.node(bi).name());
    ctx.Record("arithmetic", {before_ba, before},
               {Describe(g.node(bi)), sum_name + " (AddV2)",
                a->name() + " (Identity)"},
               "an Add of a per-channel constant to a biased contraction "
               "joins its bias");
    return true;
  }
  return false;
}

// Mul(Conv2D(x, W), C) -> Conv2D(x, Mul(W, C)) for constant W and a
// constant C along the output channels: the Mul node becomes the
// convolution (consumers read it) and the convolution's node the product
// of the constants (which constant folding then computes), as Grappler's
// MulConvPushDown swaps them.
bool MulConvPushDown(PassContext& ctx, const GraphIndex& index, int i) {
  GraphDef& g = ctx.graph();
  NodeDef* mul = g.mutable_node(i);
  if (mul->op() != "Mul" || !IsFloatNode(*mul) || HasControlInputs(*mul) ||
      mul->input_size() != 2) {
    return false;
  }
  for (int side = 0; side < 2; ++side) {
    const NodeDef* conv = Producer(g, index, *mul, side);
    const NodeDef* scale = Producer(g, index, *mul, 1 - side);
    if (conv == nullptr ||
        (!IsContraction(*conv) && conv->op() != "DepthwiseConv2dNative") ||
        ctx.IsPreserved(*conv) || HasControlInputs(*conv) ||
        conv->device() != mul->device() ||
        ParseTensorNameView(mul->input(side)).index != 0) {
      continue;
    }
    int ci = index.Find(conv->name());
    int64_t channels = OutputChannels(g, index, *conv);
    int64_t size = ChannelVectorSize(scale, conv->op() == "MatMul" ? 2 : 4);
    if (channels < 0 || !OnlyUse(index, ci, i) ||
        (size != channels && size != 1)) {
      continue;
    }
    std::string scale_input = mul->input(1 - side);
    if (conv->op() == "DepthwiseConv2dNative" && size != 1) {
      // The [in * mult] scale as [in, mult], to broadcast over the filter
      // [kh, kw, in, mult]: a new Const with the same values.
      std::vector<int64_t> filter;
      ConstDims(Producer(g, index, *conv, 1), &filter);
      NodeDef shaped = *scale;
      shaped.set_name(scale->name() + "/depthwise_scale");
      auto* shape = (*shaped.mutable_attr())["value"]
                        .mutable_tensor()
                        ->mutable_tensor_shape();
      shape->clear_dim();
      shape->add_dim()->set_size(filter[2]);
      shape->add_dim()->set_size(filter[3]);
      scale_input = shaped.name();
      if (index.Find(shaped.name()) < 0) *g.add_node() = std::move(shaped);
      mul = g.mutable_node(i);
      conv = Producer(g, index, *mul, side);
    }
    const std::string before_mul = Describe(*mul),
                      before_conv = Describe(*conv);
    NodeDef* c = g.mutable_node(ci);
    const std::string filter = c->input(1);
    // The Mul's node now convolves; the convolution's node scales W.
    NodeDef new_conv = *c;
    new_conv.set_name(mul->name());
    new_conv.set_input(1, c->name());
    NodeDef product = *mul;
    product.set_name(c->name());
    product.clear_input();
    product.add_input(filter);
    product.add_input(scale_input);
    *mul = std::move(new_conv);
    *c = std::move(product);
    ctx.Record("arithmetic", {before_conv, before_mul},
               {Describe(*mul), Describe(*c)},
               "a constant per-channel Mul of a convolution moves onto its "
               "constant filter");
    return true;
  }
  return false;
}

// AddV2(contraction, C) for C constant along the output channels (and the
// contraction, or a DepthwiseConv2dNative, read only here) ->
// BiasAdd(contraction, C as a vector).
bool AddToBiasAdd(PassContext& ctx, const GraphIndex& index, int i) {
  GraphDef& g = ctx.graph();
  NodeDef* add = g.mutable_node(i);
  if ((add->op() != "AddV2" && add->op() != "Add") || !IsFloatNode(*add) ||
      add->input_size() != 2 || HasControlInputs(*add)) {
    return false;
  }
  for (int side = 0; side < 2; ++side) {
    const NodeDef* conv = Producer(g, index, *add, side);
    const NodeDef* bias = Producer(g, index, *add, 1 - side);
    if (conv == nullptr ||
        (!IsContraction(*conv) && conv->op() != "DepthwiseConv2dNative") ||
        ParseTensorNameView(add->input(side)).index != 0 ||
        !OnlyUse(index, index.Find(conv->name()), i)) {
      continue;
    }
    int64_t channels = OutputChannels(g, index, *conv);
    if (channels < 1 ||
        ChannelVectorSize(bias, conv->op() == "MatMul" ? 2 : 4) != channels) {
      continue;
    }
    const std::string bias_input =
        VectorInput(g, index, add->input(1 - side), channels);
    add = g.mutable_node(i);
    const std::string before = Describe(*add);
    const std::string data = add->input(side);
    add->set_op("BiasAdd");
    add->clear_input();
    add->add_input(data);
    add->add_input(bias_input);
    auto t = add->attr().at("T");
    add->clear_attr();
    (*add->mutable_attr())["T"] = t;
    (*add->mutable_attr())["data_format"].set_s("NHWC");
    ctx.Record("arithmetic", {before}, {Describe(*add)},
               "an Add of a per-channel constant to a contraction is its bias");
    return true;
  }
  return false;
}

// The rewrites of one node by itself or its first input: involutions,
// no-op Cast and Transpose, Reshape of a Reshape. The op is tested first:
// on a big graph most nodes are none of these.
void RewriteSimple(PassContext& ctx, const GraphIndex& index, NodeDef* n) {
  GraphDef& g = ctx.graph();
  const std::string& op = n->op();
  if (IsInvolution(op)) {
    const NodeDef* in0 = Producer(g, index, *n, 0);
    if (in0 == nullptr || in0->op() != op || ctx.IsPreserved(*in0) ||
        HasControlInputs(*in0) || in0->input_size() < 1) {
      return;
    }
    // f(f(x)) = x: read x through an Identity of the outer node's name.
    const std::string before = Describe(*n);
    const std::string x = in0->input(0);
    const tensorflow::AttrValue* t = Attr(*n, "T");
    const std::string inner = Describe(*in0);
    const std::string why = fmt::format("{0}({0}(x)) is x", in0->op());
    n->set_input(0, x);
    ToIdentity(n, t != nullptr ? t->type() : tensorflow::DT_FLOAT);
    ctx.Record("arithmetic", {inner, before}, {n->name() + " (Identity)"}, why);
  } else if (op == "Cast") {
    const tensorflow::AttrValue* src = Attr(*n, "SrcT");
    const tensorflow::AttrValue* dst = Attr(*n, "DstT");
    const tensorflow::AttrValue* trunc = Attr(*n, "Truncate");
    if (src != nullptr && dst != nullptr && src->type() == dst->type() &&
        (trunc == nullptr || !trunc->b())) {
      const std::string before = Describe(*n);
      ToIdentity(n, src->type());
      ctx.Record("arithmetic", {before}, {n->name() + " (Identity)"},
                 "a Cast to the type its input has");
    }
  } else if (op == "Transpose") {
    if (!IsIdentityPermutation(Producer(g, index, *n, 1))) return;
    const std::string before = Describe(*n);
    const tensorflow::AttrValue* t = Attr(*n, "T");
    ToIdentity(n, t != nullptr ? t->type() : tensorflow::DT_FLOAT);
    ctx.Record("arithmetic", {before}, {n->name() + " (Identity)"},
               "a Transpose by the identity permutation");
  } else if (op == "Reshape") {
    const NodeDef* in0 = Producer(g, index, *n, 0);
    if (in0 == nullptr || in0->op() != "Reshape" || ctx.IsPreserved(*in0) ||
        HasControlInputs(*in0) || in0->input_size() < 2) {
      return;
    }
    const std::string before = Describe(*n);
    const std::string inner = Describe(*in0);
    n->set_input(0, in0->input(0));
    ctx.Record("arithmetic", {inner, before}, {Describe(*n)},
               "a Reshape of a Reshape reshapes the first one's input");
  }
}

}  // namespace

Status RunArithmetic(PassContext& ctx) {
  GraphDef& g = ctx.graph();
  const GraphIndex& index = ctx.Index();
  const int count = g.node_size();  // nodes added on the way are new Consts
  std::unordered_map<int, int64_t> folded;  // BiasAdd -> its channels
  // The folds into convolutions and matrix products: only where there are
  // some (a big graph of other ops looks up no producers for them).
  const bool contractions =
      HasOp(g, {"Conv2D", "MatMul", "DepthwiseConv2dNative"});
  for (int i = 0; i < count; ++i) {
    if (ctx.IsPreserved(g.node(i))) continue;
    if (contractions &&
        (MulConvPushDown(ctx, index, i) || AddToBiasAdd(ctx, index, i) ||
         MulBiasAddPushDown(ctx, index, i, &folded) ||
         AddIntoBiasAdd(ctx, index, i, folded))) {
      continue;
    }
    RewriteSimple(ctx, index, g.mutable_node(i));
  }
  return Status::Ok();
}

}  // namespace dfg::optimize
