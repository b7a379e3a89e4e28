// Grappler's fused kernels: _FusedConv2D, _FusedDepthwiseConv2dNative and
// _FusedMatMul, i.e. the conv or matmul followed by the listed fused_ops
// applied in place on the output:
// BiasAdd (1 arg), FusedBatchNorm (scale, offset, mean, variance; epsilon),
// Add (1 arg, same shape), then one activation: Relu, Relu6, Elu, LeakyRelu
// (leakyrelu_alpha), Tanh, Sigmoid, GeluApproximate, GeluExact.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/conv_util.h"
#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/simd/vec_math.h"

namespace dfg {
namespace {

struct PostOps {
  enum Kind { kBias, kBatchNorm, kAdd, kAct };
  struct Step {
    Kind kind;
    std::string act;
    int arg = 0;  // first arg index (inputs after the two operands)
  };
  std::vector<Step> steps;
  float epsilon = 1e-4f, alpha = 0.2f;
};

Status ParsePostOps(OpKernelConstruction* ctx, PostOps* p) {
  std::vector<std::string> ops;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("fused_ops", &ops));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("epsilon", &p->epsilon));
  if (ctx->HasAttr("leakyrelu_alpha")) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("leakyrelu_alpha", &p->alpha));
  }
  int64_t num_args = 0;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("num_args", &num_args));
  int arg = 0;
  for (const std::string& op : ops) {
    if (op == "BiasAdd" || op == "Add" || op == "BiasAddV1") {
      p->steps.push_back(
          {op == "Add" ? PostOps::kAdd : PostOps::kBias, "", arg++});
    } else if (op == "FusedBatchNorm") {
      p->steps.push_back({PostOps::kBatchNorm, "", arg});
      arg += 4;
    } else if (op == "Relu" || op == "Relu6" || op == "Elu" ||
               op == "LeakyRelu" || op == "Tanh" || op == "Sigmoid" ||
               op == "GeluApproximate" || op == "GeluExact") {
      p->steps.push_back({PostOps::kAct, op, 0});
    } else {
      return Unimplemented("Fusion is not implemented: [{}]",
                           fmt::join(ops, ","));
    }
  }
  if (arg != num_args) {
    return InvalidArgument("Fused {} expects {} args, but num_args is {}",
                           fmt::join(ops, ","), arg, num_args);
  }
  return Status::Ok();
}

// GELU in place: 0.5 x (1 + erf(x / sqrt(2))), or with `approximate`
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), in Eigen's order of
// operations. The erf or tanh runs at the machine's vector width
// (simd::Unary) over blocks of a stack buffer; the rest are loops GCC
// vectorizes. (Eigen's expression ran at the baseline's SSE2 width: a
// BERT's feed-forward layers spent most of their epilogue there.)
void Gelu(bool approximate, std::span<float> y) {
  constexpr size_t kBlock = 512;
  alignas(64) float t[kBlock];
  const float c = std::sqrt(2.0f / 3.14159265358979f);
  for (size_t i = 0; i < y.size(); i += kBlock) {
    const size_t n = std::min(kBlock, y.size() - i);
    float* v = y.data() + i;
    if (approximate) {
      for (size_t j = 0; j < n; ++j) {
        t[j] = c * (v[j] + 0.044715f * (v[j] * v[j] * v[j]));
      }
      simd::Unary(simd::UnaryOp::kTanh, t, t, n);
    } else {
      for (size_t j = 0; j < n; ++j) t[j] = v[j] * float(M_SQRT1_2);
      simd::Unary(simd::UnaryOp::kErf, t, t, n);
    }
    for (size_t j = 0; j < n; ++j) v[j] = 0.5f * v[j] * (1.0f + t[j]);
  }
}

// y = act(y) elementwise; the activation is picked once, not per element.
// Relu6, Elu, Tanh, Sigmoid and the Gelus' erf / tanh run simd::Unary (the
// element-wise kernels' own code: Eigen's packet math at the CPU's width).
void Activate(const std::string& act, float alpha, std::span<float> y) {
  if (act == "Relu") {
    for (float& e : y) e = e > 0 ? e : 0.0f;
  } else if (act == "Relu6") {
    // min(max(e, 0), 6) as std::min / std::max compute it (NaN and -0 kept).
    simd::Unary(simd::UnaryOp::kRelu6, y.data(), y.data(), y.size());
  } else if (act == "Elu") {
    simd::Unary(simd::UnaryOp::kElu, y.data(), y.data(), y.size());
  } else if (act == "LeakyRelu") {
    for (float& e : y) e = e > 0 ? e : e * alpha;
  } else if (act == "Tanh") {
    simd::Unary(simd::UnaryOp::kTanh, y.data(), y.data(), y.size());
  } else if (act == "Sigmoid") {
    simd::Unary(simd::UnaryOp::kSigmoid, y.data(), y.data(), y.size());
  } else {
    Gelu(act != "GeluExact", y);
  }
}

std::vector<float> ArgFloats(OpKernelContext* ctx, int i) {
  std::vector<float> out;
  const Tensor& t = ctx->input(2 + i);
  Dispatch(FloatTypes(), t.dtype(), [&](auto v) {
    for (auto e : t.flat<decltype(v)>()) out.push_back(Load(e));
  });
  return out;
}

Status CheckBiasSize(size_t size, int64_t channels) {
  if (static_cast<int64_t>(size) != channels) {
    return InvalidArgument(
        "Must provide as many biases as the last "
        "dimension of the input tensor: [{}] vs. {}",
        size, channels);
  }
  return Status::Ok();
}

// Applies the steps from `first` on to `y` ([rows, channels] in float).
Status ApplyPostOps(OpKernelContext* ctx, const PostOps& p, int64_t channels,
                    std::span<float> out, size_t first = 0) {
  std::span<float>* y = &out;
  const int64_t n = static_cast<int64_t>(y->size());
  for (size_t i = first; i < p.steps.size(); ++i) {
    const PostOps::Step& s = p.steps[i];
    if (s.kind == PostOps::kBias || s.kind == PostOps::kBatchNorm) {
      std::vector<float> a(channels, 1.0f), b = ArgFloats(ctx, s.arg);
      DFG_RETURN_IF_ERROR(CheckBiasSize(b.size(), channels));
      if (s.kind == PostOps::kBatchNorm) {
        const std::vector<float> scale = b, offset = ArgFloats(ctx, s.arg + 1),
                                 mean = ArgFloats(ctx, s.arg + 2),
                                 var = ArgFloats(ctx, s.arg + 3);
        if (static_cast<int64_t>(offset.size()) != channels ||
            static_cast<int64_t>(mean.size()) != channels ||
            static_cast<int64_t>(var.size()) != channels) {
          return InvalidArgument("FusedBatchNorm args must have {} elements",
                                 channels);
        }
        for (int64_t c = 0; c < channels; ++c) {
          a[c] = scale[c] / std::sqrt(var[c] + p.epsilon);
          b[c] = offset[c] - mean[c] * a[c];
        }
      }
      for (int64_t r = 0; r < n; r += channels) {
        float* row = y->data() + r;
        for (int64_t c = 0; c < channels; ++c) row[c] = row[c] * a[c] + b[c];
      }
    } else if (s.kind == PostOps::kAdd) {
      const std::vector<float> z = ArgFloats(ctx, s.arg);
      if (static_cast<int64_t>(z.size()) != n) {
        return InvalidArgument("Add operand must have {} elements, got {}", n,
                               z.size());
      }
      for (int64_t i = 0; i < n; ++i) (*y)[i] += z[i];
    } else {
      Activate(s.act, p.alpha, out);
    }
  }
  return Status::Ok();
}

// Float copy of a tensor of any float dtype.
std::vector<float> Floats(const Tensor& t) {
  std::vector<float> out;
  out.reserve(t.NumElements());
  Dispatch(FloatTypes(), t.dtype(), [&](auto v) {
    for (auto e : t.flat<decltype(v)>()) out.push_back(Load(e));
  });
  return out;
}

void StoreFloats(const std::vector<float>& v, Tensor* t) {
  Dispatch(FloatTypes(), t->dtype(), [&](auto e) {
    using T = decltype(e);
    auto f = t->flat<T>();
    for (size_t i = 0; i < v.size(); ++i) f[i] = Store<T>(v[i]);
  });
}

// _FusedConv2D, and (kDepthwise) _FusedDepthwiseConv2dNative: the fusions
// of TensorFlow's oneDNN kernel for it (the default on x86; without oneDNN
// TensorFlow cannot run the op): BiasAdd, then Relu, Relu6 or Elu.
template <bool kDepthwise>
class FusedConv2DOp : public OpKernel {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadConv2DAttrs(ctx, &attrs_));
    if (kDepthwise) DFG_OP_REQUIRES_OK(ctx, CheckDepthwiseFusion(ctx));
    DFG_OP_REQUIRES_OK(ctx, ParsePostOps(ctx, &post_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    ConvDims d;
    int64_t mult = 0, channels = 0;
    TensorShape shape;
    if (kDepthwise) {
      DFG_OP_REQUIRES_OK(ctx,
                         DepthwiseConvDims(attrs_, input, filter, &d, &mult));
      shape = DepthwiseOutputShape(d, mult);
      channels = d.in_depth * mult;
    } else {
      DFG_OP_REQUIRES_OK(ctx, ComputeConvDims(attrs_, input, filter, &d));
      DFG_OP_REQUIRES(ctx, attrs_.nhwc,
                      Unimplemented("_FusedConv2D supports only NHWC on CPU"));
      shape = TensorShape({d.batch, d.rows.out, d.cols.out, d.out_depth});
      channels = d.out_depth;
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    auto conv = [&](const ConvEpilogue& e, bool* done) {
      return kDepthwise ? DepthwiseConv2DCompute(ctx->intra_op_pool(), d, mult,
                                                 input, filter, e, out, done)
                        : Conv2DCompute(ctx->intra_op_pool(), d, input, filter,
                                        e, out, done);
    };
    // Float runs the conv in place, with a leading BiasAdd or FusedBatchNorm
    // and the activation after it inside the convolution when oneDNN runs
    // it; other dtypes through a float copy.
    bool done = false;
    if (input.dtype() == tensorflow::DT_FLOAT) {
      std::vector<float> scale, bias;
      ConvEpilogue epilogue;
      const size_t fused = Epilogue(ctx, channels, &scale, &bias, &epilogue);
      DFG_OP_REQUIRES_OK(ctx, conv(epilogue, &done));
      DFG_OP_REQUIRES_OK(ctx,
                         ApplyPostOps(ctx, post_, channels, out->flat<float>(),
                                      done ? fused : 0));
      return;
    }
    DFG_OP_REQUIRES_OK(ctx, conv(ConvEpilogue(), &done));
    std::vector<float> y = Floats(*out);
    DFG_OP_REQUIRES_OK(ctx, ApplyPostOps(ctx, post_, channels, y));
    StoreFloats(y, out);
  }

 private:
  // The leading steps the convolution applies itself (ConvEpilogue): a
  // BiasAdd or a FusedBatchNorm (folded into a per-channel scale and bias,
  // the arithmetic of ApplyPostOps), then Relu, Relu6, Elu or LeakyRelu.
  // Returns how many steps it covers; *scale and *bias hold the vectors. Args
  // of the wrong size are left to ApplyPostOps to report, after the conv's
  // own errors as before.
  size_t Epilogue(OpKernelContext* ctx, int64_t channels,
                  std::vector<float>* scale, std::vector<float>* bias,
                  ConvEpilogue* e) const {
    const std::vector<PostOps::Step>& steps = post_.steps;
    if (steps.empty()) return 0;
    if (steps[0].kind == PostOps::kBias) {
      *bias = ArgFloats(ctx, steps[0].arg);
      if (!CheckBiasSize(bias->size(), channels).ok()) return 0;
    } else if (steps[0].kind == PostOps::kBatchNorm) {
      if (!FoldBatchNorm(ctx, steps[0].arg, channels, scale, bias)) return 0;
      e->scale = scale->data();
    } else {
      return 0;
    }
    e->bias = bias->data();
    if (steps.size() < 2 || steps[1].kind != PostOps::kAct) return 1;
    static const std::pair<const char*, ConvActivation> kActs[] = {
        {"Relu", ConvActivation::kRelu},
        {"Relu6", ConvActivation::kRelu6},
        {"Elu", ConvActivation::kElu},
        {"LeakyRelu", ConvActivation::kLeakyRelu}};
    for (const auto& [name, act] : kActs) {
      if (steps[1].act == name) {
        e->activation = act;
        e->alpha = post_.alpha;
        return 2;
      }
    }
    return 1;
  }

  // scale / sqrt(var + epsilon) and offset - mean * that, per channel; false
  // when an arg does not have `channels` elements.
  bool FoldBatchNorm(OpKernelContext* ctx, int arg, int64_t channels,
                     std::vector<float>* a, std::vector<float>* b) const {
    const std::vector<float> scale = ArgFloats(ctx, arg),
                             offset = ArgFloats(ctx, arg + 1),
                             mean = ArgFloats(ctx, arg + 2),
                             var = ArgFloats(ctx, arg + 3);
    for (const std::vector<float>* v : {&scale, &offset, &mean, &var}) {
      if (static_cast<int64_t>(v->size()) != channels) return false;
    }
    a->resize(channels);
    b->resize(channels);
    for (int64_t c = 0; c < channels; ++c) {
      (*a)[c] = scale[c] / std::sqrt(var[c] + post_.epsilon);
      (*b)[c] = offset[c] - mean[c] * (*a)[c];
    }
    return true;
  }

  // BiasAdd [+ Relu, Relu6 or Elu]; else the text of TensorFlow's other
  // kernels (its oneDNN one leaves such a node without output).
  static Status CheckDepthwiseFusion(OpKernelConstruction* ctx) {
    std::vector<std::string> ops;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("fused_ops", &ops));
    const bool ok =
        !ops.empty() && ops[0] == "BiasAdd" &&
        (ops.size() == 1 ||
         (ops.size() == 2 &&
          (ops[1] == "Relu" || ops[1] == "Relu6" || ops[1] == "Elu")));
    if (!ok) {
      return Unimplemented("Fusion is not implemented: [{}]",
                           fmt::join(ops, ","));
    }
    return Status::Ok();
  }

  Conv2DAttrs attrs_;
  PostOps post_;
};

// The fusions TensorFlow 2.21's CPU kernels take: a BiasAdd, then at most
// one activation; float and bfloat16 also GeluApproximate, GeluExact or Add
// after the BiasAdd, as its oneDNN kernel does (TensorFlow's default on x86;
// its Eigen kernel, with TF_ENABLE_ONEDNN_OPTS=0, refuses them). Anything
// else fails with the Eigen kernel's message.
Status CheckMatMulFusion(DataType type, const std::vector<std::string>& ops) {
  static const char* const kActs[] = {"Relu",      "Relu6", "Elu",
                                      "LeakyRelu", "Tanh",  "Sigmoid"};
  static const char* const kOneDnnOnly[] = {"GeluApproximate", "GeluExact",
                                            "Add"};
  auto in = [](const auto& list, const std::string& op) {
    return std::find(std::begin(list), std::end(list), op) != std::end(list);
  };
  const bool ok =
      !ops.empty() && ops[0] == "BiasAdd" &&
      (ops.size() == 1 ||
       (ops.size() == 2 && (in(kActs, ops[1]) || (type != tensorflow::DT_HALF &&
                                                  in(kOneDnnOnly, ops[1])))));
  if (!ok) {
    return Unimplemented("Fusion is not implemented: [{}]",
                         fmt::join(ops, ","));
  }
  return Status::Ok();
}

class FusedMatMulOp : public OpKernel {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &ta_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &tb_));
    std::vector<std::string> ops;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("fused_ops", &ops));
    DFG_OP_REQUIRES_OK(ctx, CheckMatMulFusion(ctx->input_type(0), ops));
    DFG_OP_REQUIRES_OK(ctx, ParsePostOps(ctx, &post_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, a.dims() == 2 && b.dims() == 2,
        InvalidArgument("In[0] and In[1] must be matrices: {}, {}",
                        a.shape().DebugString(), b.shape().DebugString()));
    const int64_t m = a.dim_size(ta_ ? 1 : 0), k = a.dim_size(ta_ ? 0 : 1);
    const int64_t n = b.dim_size(tb_ ? 0 : 1);
    DFG_OP_REQUIRES(
        ctx, k == b.dim_size(tb_ ? 1 : 0),
        InvalidArgument("Matrix size-incompatible: In[0]: {}, In[1]: {}",
                        a.shape().DebugString(), b.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (m * n == 0) return;
    if (k == 0) {  // TensorFlow's zeros, no bias or activation
      Dispatch(FloatTypes(), out->dtype(), [&](auto v) {
        using T = decltype(v);
        for (T& e : out->flat<T>()) e = Store<T>(0.0f);
      });
      return;
    }
    if (a.dtype() == tensorflow::DT_FLOAT) {
      DFG_OP_REQUIRES_OK(ctx, ComputeFloat(ctx, m, n, k, out));
      return;
    }
    std::vector<float> af = Floats(a), bf = Floats(b), y(m * n, 0.0f);
    ParallelGemm(ctx->intra_op_pool(), ta_, tb_, m, n, k, af.data(),
                 ta_ ? m : k, bf.data(), tb_ ? k : n, y.data(), n);
    // The product is rounded to T before the bias, as TensorFlow's output
    // kernel sees it.
    StoreFloats(y, out);
    y = Floats(*out);
    DFG_OP_REQUIRES_OK(ctx, ApplyPostOps(ctx, post_, n, y));
    StoreFloats(y, out);
  }

 private:
  // float: the GEMM writes the output, and each block of it gets the bias,
  // the addend and the activation right after (ParallelGemm's epilogue).
  Status ComputeFloat(OpKernelContext* ctx, int64_t m, int64_t n, int64_t k,
                      Tensor* out) const {
    const float* a = static_cast<const float*>(ctx->input(0).data());
    const float* b = static_cast<const float*>(ctx->input(1).data());
    float* c = static_cast<float*>(out->data());
    const std::vector<PostOps::Step>& steps = post_.steps;
    const float* bias = nullptr;
    const float* addend = nullptr;
    const std::string* act = nullptr;
    size_t fused = 0;
    if (!steps.empty() && steps[0].kind == PostOps::kBias) {
      const Tensor& t = ctx->input(2 + steps[0].arg);
      DFG_RETURN_IF_ERROR(CheckBiasSize(t.NumElements(), n));
      bias = static_cast<const float*>(t.data());
      fused = 1;
      if (fused < steps.size() && steps[fused].kind == PostOps::kAdd) {
        const Tensor& z = ctx->input(2 + steps[fused].arg);
        if (z.NumElements() != m * n) {
          return InvalidArgument("Add operand must have {} elements, got {}",
                                 m * n, z.NumElements());
        }
        addend = static_cast<const float*>(z.data());
        ++fused;
      }
      if (fused < steps.size() && steps[fused].kind == PostOps::kAct) {
        act = &steps[fused++].act;
      }
    }
    const float alpha = post_.alpha;
    auto epilogue = [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
      if (bias == nullptr) return;
      for (int64_t r = row; r < row + rows; ++r) {
        float* y = c + r * n + col;
        const float* bc = bias + col;
        if (addend != nullptr) {
          const float* z = addend + r * n + col;
          for (int64_t j = 0; j < cols; ++j) y[j] = (y[j] + bc[j]) + z[j];
        } else {
          for (int64_t j = 0; j < cols; ++j) y[j] += bc[j];
        }
        if (act != nullptr && cols != n)
          Activate(*act, alpha, {y, size_t(cols)});
      }
      if (act != nullptr && cols == n) {
        Activate(*act, alpha, {c + row * n, size_t(rows * n)});
      }
    };
    ParallelGemm(ctx->intra_op_pool(), ta_, tb_, m, n, k, a, ta_ ? m : k, b,
                 tb_ ? k : n, c, n, epilogue);
    return ApplyPostOps(ctx, post_, n, out->flat<float>(), fused);
  }

  bool ta_ = false, tb_ = false;
  PostOps post_;
};

}  // namespace

void RegisterFusedKernels(KernelRegistry* r) {
  r->Register<FusedConv2DOp<false>>(
      "_FusedConv2D", {TypeConstraint("T", TypeList<float, double, Half>())});
  r->Register<FusedConv2DOp<true>>(
      "_FusedDepthwiseConv2dNative",
      {TypeConstraint("T", TypeList<float, Half, BFloat16>())});
  r->Register<FusedMatMulOp>(
      "_FusedMatMul", {TypeConstraint("T", TypeList<float, Half, BFloat16>())});
}

}  // namespace dfg
