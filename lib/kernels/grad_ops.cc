// Gradients of activations and losses (TensorFlow's relu_op, cwise_ops
// *Grad, bias_op and xent_op kernels): ReluGrad, Relu6Grad, SigmoidGrad,
// TanhGrad, RsqrtGrad, SqrtGrad, BiasAddGrad, SoftmaxCrossEntropyWithLogits,
// SparseSoftmaxCrossEntropyWithLogits.
#include <cmath>
#include <complex>

#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

// ReluGrad-style ops: (gradients, features) -> backprops, same shapes.
struct ReluGradF {
  template <typename C>
  C operator()(const C& g, const C& f) const {
    return f > C(0) ? g : C(0);
  }
};
struct Relu6GradF {
  template <typename C>
  C operator()(const C& g, const C& f) const {
    return f > C(0) && f < C(6) ? g : C(0);
  }
};
// Cwise *Grad ops: (y, dy) -> dx, where y is the forward op's output.
struct SigmoidGradF {
  template <typename C>
  C operator()(const C& y, const C& dy) const {
    return dy * y * (C(1) - y);
  }
};
struct TanhGradF {
  template <typename C>
  C operator()(const C& y, const C& dy) const {
    return dy * (C(1) - y * y);
  }
};
struct RsqrtGradF {
  template <typename C>
  C operator()(const C& y, const C& dy) const {
    return dy * (C(-0.5) * y * y * y);
  }
};
struct SqrtGradF {
  template <typename C>
  C operator()(const C& y, const C& dy) const {
    return dy * C(0.5) / y;
  }
};

// kRelu: TensorFlow's BinaryElementWiseOp wording (same shape required);
// otherwise SimpleBinaryOp's (same number of elements).
template <typename F, typename Types, bool kRelu>
class GradKernel : public OpKernel {
 public:
  explicit GradKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Dispatch(Types(), ctx->input_type(0),
             [&](auto t) { fn_ = &GradKernel::Run<decltype(t)>; });
    DFG_OP_REQUIRES(ctx, fn_ != nullptr,
                    InvalidArgument("{} does not support {}", ctx->def().op(),
                                    DataTypeString(ctx->input_type(0))));
  }
  void Compute(OpKernelContext* ctx) override { (this->*fn_)(ctx); }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx) const {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    if constexpr (kRelu) {
      DFG_OP_REQUIRES(
          ctx, a.shape().IsSameSize(b.shape()),
          InvalidArgument("Inputs to operation {} of type {} must have the "
                          "same size and shape.  Input 0: {} != input 1: {}",
                          name(), type_string(), a.shape().DebugString(),
                          b.shape().DebugString()));
    } else {
      DFG_OP_REQUIRES(ctx, a.NumElements() == b.NumElements(),
                      InvalidArgument("The two arguments to a cwise op must "
                                      "have same number of elements, got {} "
                                      "and {}",
                                      a.NumElements(), b.NumElements()));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, a.shape(), &out));
    const T* x = static_cast<const T*>(a.data());
    const T* y = static_cast<const T*>(b.data());
    T* z = static_cast<T*>(out->data());
    F f;
    ForRange(ctx->intra_op_pool(), out->NumElements(), 2,
             [&](int64_t begin, int64_t end) {
               for (int64_t i = begin; i < end; ++i) {
                 z[i] = Store<T>(f(Load(x[i]), Load(y[i])));
               }
             });
  }
  void (GradKernel::*fn_)(OpKernelContext*) const = nullptr;
};

using FloatComplexTypes = decltype(FloatTypes() + ComplexTypes());

// Sums out_backprop over every dim but the channel one (last for NHWC,
// dim 1 for NCHW with rank >= 3).
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadBiasDataFormat(ctx, &nchw_));
    Dispatch(NumberTypes(), ctx->input_type(0),
             [&](auto t) { fn_ = &BiasAddGradOp::Run<decltype(t)>; });
    DFG_OP_REQUIRES(ctx, fn_ != nullptr,
                    InvalidArgument("BiasAddGrad does not support {}",
                                    DataTypeString(ctx->input_type(0))));
  }
  void Compute(OpKernelContext* ctx) override { (this->*fn_)(ctx); }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx) const {
    const Tensor& g = ctx->input(0);
    DFG_OP_REQUIRES(ctx, g.dims() >= 2,
                    InvalidArgument("Input tensor must be at least 2D: {}",
                                    g.shape().DebugString()));
    const int cdim = nchw_ && g.dims() >= 3 ? 1 : g.dims() - 1;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < cdim; ++d) outer *= g.dim_size(d);
    for (int d = cdim + 1; d < g.dims(); ++d) inner *= g.dim_size(d);
    const int64_t c = g.dim_size(cdim);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({c}), &out));
    std::vector<CalcType<T>> acc(c, CalcType<T>(0));
    const T* x = static_cast<const T*>(g.data());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < c; ++k) {
        const T* p = x + (o * c + k) * inner;
        CalcType<T> s(0);
        for (int64_t i = 0; i < inner; ++i) s += Load(p[i]);
        acc[k] += s;
      }
    }
    auto o = out->flat<T>();
    for (int64_t k = 0; k < c; ++k) o[k] = Store<T>(acc[k]);
  }
  bool nchw_ = false;
  void (BiasAddGradOp::*fn_)(OpKernelContext*) const = nullptr;
};

// One row of softmax cross entropy: loss = sum(labels * (logsumexp(x) - x)),
// backprop = softmax(x) - labels. `ls` strides the labels (0: broadcast).
template <typename T>
void XentRow(const T* x, int64_t xs, const T* l, int64_t ls, int64_t c, T* loss,
             T* back) {
  using C = CalcType<T>;
  C mx = Load(x[0]);
  for (int64_t j = 1; j < c; ++j) mx = std::max(mx, Load(x[j * xs]));
  C sum(0);
  for (int64_t j = 0; j < c; ++j) sum += std::exp(Load(x[j * xs]) - mx);
  const C log_sum = std::log(sum);
  C total(0);
  for (int64_t j = 0; j < c; ++j) {
    const C shifted = Load(x[j * xs]) - mx;
    const C label = Load(l[j * ls]);
    total += label * (log_sum - shifted);
    back[j] = Store<T>(std::exp(shifted) / sum - label);
  }
  *loss = Store<T>(total);
}

class SoftmaxXentOp : public OpKernel {
 public:
  explicit SoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Dispatch(FloatTypes(), ctx->input_type(0),
             [&](auto t) { fn_ = &SoftmaxXentOp::Run<decltype(t)>; });
    DFG_OP_REQUIRES(ctx, fn_ != nullptr,
                    InvalidArgument("{} does not support {}", type_string(),
                                    DataTypeString(ctx->input_type(0))));
  }
  void Compute(OpKernelContext* ctx) override { (this->*fn_)(ctx); }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx) const {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    BCast b(logits.shape(), labels.shape());
    DFG_OP_REQUIRES(ctx, b.valid,
                    InvalidArgument("logits and labels must be broadcastable: "
                                    "logits_size={} labels_size={}",
                                    logits.shape().DebugString(),
                                    labels.shape().DebugString()));
    const TensorShape& shape = b.output_shape;
    DFG_OP_REQUIRES(ctx, shape.dims() == 2,
                    InvalidArgument("logits and labels must be either "
                                    "2-dimensional, or broadcasted to be "
                                    "2-dimensional"));
    const int64_t rows = shape.dim_size(0), c = shape.dim_size(1);
    Tensor *loss = nullptr, *back = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({rows}), &loss));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &back));
    if (c == 0) {
      for (T& v : loss->flat<T>()) v = Store<T>(CalcType<T>(0));
      return;
    }
    // Broadcast along a dim of size 1: stride 0.
    auto strides = [&](const Tensor& t, int64_t* rs, int64_t* cs) {
      const bool full = t.dims() == 2;
      const int64_t r = full ? t.dim_size(0) : 1;
      const int64_t k =
          full ? t.dim_size(1) : (t.dims() == 1 ? t.dim_size(0) : 1);
      *cs = k == 1 ? 0 : 1;
      *rs = r == 1 ? 0 : k;
    };
    int64_t xr, xc, lr, lc;
    strides(logits, &xr, &xc);
    strides(labels, &lr, &lc);
    const T* x = static_cast<const T*>(logits.data());
    const T* l = static_cast<const T*>(labels.data());
    T* lo = static_cast<T*>(loss->data());
    T* bo = static_cast<T*>(back->data());
    ForRange(ctx->intra_op_pool(), rows, 8 * c, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        XentRow(x + r * xr, xc, l + r * lr, lc, c, lo + r, bo + r * c);
      }
    });
  }
  void (SoftmaxXentOp::*fn_)(OpKernelContext*) const = nullptr;
};

class SparseSoftmaxXentOp : public OpKernel {
 public:
  explicit SparseSoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Dispatch(FloatTypes(), ctx->input_type(0),
             [&](auto t) { fn_ = &SparseSoftmaxXentOp::Run<decltype(t)>; });
    DFG_OP_REQUIRES(ctx, fn_ != nullptr,
                    InvalidArgument("{} does not support {}", type_string(),
                                    DataTypeString(ctx->input_type(0))));
  }
  void Compute(OpKernelContext* ctx) override { (this->*fn_)(ctx); }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx) const {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    DFG_OP_REQUIRES(ctx, logits.dims() == 2,
                    InvalidArgument("logits must be 2-D, but got shape {}",
                                    logits.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, labels.dims() == 1,
                    InvalidArgument("labels must be 1-D, but got shape {}",
                                    labels.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, logits.dim_size(0) == labels.dim_size(0),
                    InvalidArgument("logits and labels must have the same "
                                    "first dimension, got logits shape {} and "
                                    "labels shape {}",
                                    logits.shape().DebugString(),
                                    labels.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, logits.dim_size(1) > 0,
                    InvalidArgument("Must have at least one class, but got "
                                    "logits shape {}",
                                    logits.shape().DebugString()));
    const int64_t rows = logits.dim_size(0), c = logits.dim_size(1);
    const std::vector<int64_t> ids = IntValues(labels);
    for (int64_t id : ids) {
      if (id < 0 || id >= c) {
        std::string values;
        for (int64_t v : ids) values += fmt::format(" {}", v);
        ctx->SetStatus(InvalidArgument(
            "Received a label value of {} which is outside the valid range "
            "of [0, {}).  Label values:{}",
            id, c, values));
        return;
      }
    }
    Tensor *loss = nullptr, *back = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({rows}), &loss));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, logits.shape(), &back));
    std::vector<T> onehot(c, Store<T>(CalcType<T>(0)));
    const T* x = static_cast<const T*>(logits.data());
    for (int64_t r = 0; r < rows; ++r) {
      onehot[ids[r]] = Store<T>(CalcType<T>(1));
      XentRow(x + r * c, 1, onehot.data(), 1, c,
              static_cast<T*>(loss->data()) + r,
              static_cast<T*>(back->data()) + r * c);
      onehot[ids[r]] = Store<T>(CalcType<T>(0));
    }
  }
  void (SparseSoftmaxXentOp::*fn_)(OpKernelContext*) const = nullptr;
};

template <typename F, typename Types, bool kRelu = false>
void RegisterGrad(KernelRegistry* r, const char* op, Types types) {
  r->Register<GradKernel<F, Types, kRelu>>(op, {TypeConstraint("T", types)});
}

}  // namespace

void RegisterGradKernels(KernelRegistry* r) {
  RegisterGrad<ReluGradF, RealTypes, true>(r, "ReluGrad", RealTypes());
  RegisterGrad<Relu6GradF, RealTypes, true>(r, "Relu6Grad", RealTypes());
  RegisterGrad<SigmoidGradF>(r, "SigmoidGrad", FloatComplexTypes());
  RegisterGrad<TanhGradF>(r, "TanhGrad", FloatComplexTypes());
  RegisterGrad<RsqrtGradF>(r, "RsqrtGrad", FloatComplexTypes());
  RegisterGrad<SqrtGradF>(r, "SqrtGrad", FloatComplexTypes());
  r->Register<BiasAddGradOp>("BiasAddGrad",
                             {TypeConstraint("T", NumberTypes())});
  r->Register<SoftmaxXentOp>("SoftmaxCrossEntropyWithLogits",
                             {TypeConstraint("T", FloatTypes())});
  r->Register<SparseSoftmaxXentOp>("SparseSoftmaxCrossEntropyWithLogits",
                                   {TypeConstraint("T", FloatTypes())});
}

}  // namespace dfg
