// Tensor sources: Const, Placeholder (must be fed), Fill, ZerosLike,
// OnesLike, Range.
#include <cmath>

#include "lib/kernels/const_buffers.h"
#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    TensorProto proto;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &proto));
    StatusOr<Tensor> t = Tensor::FromProto(proto);
    DFG_OP_REQUIRES(
        ctx, t.ok(),
        Status(t.status().code(),
               "Cannot parse tensor from proto: " + t.status().message()));
    DFG_OP_REQUIRES(
        ctx, ctx->output_type(0) == t->dtype(),
        InvalidArgument("Type mismatch between value ({}) and dtype ({})",
                        DataTypeString(t->dtype()),
                        DataTypeString(ctx->output_type(0))));
    tensor_ = *std::move(t);
    StripAttr("value");
    // Kernels may keep forms derived from the value (const_buffers.h).
    RegisterConstBuffer(tensor_.data());
  }
  ~ConstOp() override { UnregisterConstBuffer(tensor_.data()); }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, tensor_); }
  const Tensor* const_tensor() const override { return &tensor_; }

 private:
  Tensor tensor_;
};

class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    if (ctx->HasAttr("shape")) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
    } else {
      shape_.set_unknown_rank(true);
    }
  }
  void Compute(OpKernelContext* ctx) override {
    std::string msg = fmt::format(
        "You must feed a value for placeholder tensor '{}' with dtype {}",
        name(), DataTypeString(output_type(0)));
    if (!shape_.unknown_rank() && shape_.dim_size() > 0) {
      msg += " and shape " + PartialShapeDebugString(shape_);
    }
    ctx->SetStatus(InvalidArgument("{}", msg));
  }

 private:
  TensorShapeProto shape_;
};

// Identity-like: output i = input i. (PlaceholderWithDefault.)
class ForwardOp : public OpKernel {
 public:
  explicit ForwardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

Status ShapeFromDims(const Tensor& dims, TensorShape* shape) {
  if (dims.dims() > 1) {
    return InvalidArgument("dims must be a vector, got shape {}",
                           dims.shape().DebugString());
  }
  return MakeShape(IntValues(dims), shape);
}

class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    DFG_OP_REQUIRES(ctx, dims.dims() <= 1,
                    InvalidArgument("dims must be a vector, got shape {}",
                                    dims.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, value.dims() == 0,
                    InvalidArgument("value must be a scalar, got shape {}",
                                    value.shape().DebugString()));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ShapeFromDims(dims, &shape));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    VisitElementType(value.dtype(), [&](auto v) {
      using T = decltype(v);
      const T fill = value.scalar<T>();
      for (T& e : out->flat<T>()) e = fill;
    });
  }
};

// ZerosLike (kOne false) / OnesLike (kOne true).
template <bool kOne>
class ConstLikeOp : public OpKernel {
 public:
  explicit ConstLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    Dispatch(AllTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      T value{};
      if constexpr (kOne && !std::is_same_v<T, std::string>) {
        value = Store<T>(CalcType<T>(1));
      }
      for (T& e : out->flat<T>()) e = value;
    });
  }
};

class RangeOp : public OpKernel {
 public:
  explicit RangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    static const char* const kNames[] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i) {
      DFG_OP_REQUIRES(
          ctx, ctx->input(i).NumElements() == 1 && ctx->input(i).dims() <= 1,
          InvalidArgument("{} must be a scalar, not shape {}", kNames[i],
                          ctx->input(i).shape().DebugString()));
    }
    Dispatch(RealTypes(), ctx->input(0).dtype(),
             [&](auto v) { Run<decltype(v)>(ctx); });
  }

 private:
  // As TensorFlow: the size in T's arithmetic, values by repeated addition.
  template <typename T>
  static void Run(OpKernelContext* ctx) {
    using C = CalcType<T>;
    const T start = ctx->input(0).flat<T>()[0];
    const T limit = ctx->input(1).flat<T>()[0];
    const T delta = ctx->input(2).flat<T>()[0];
    const C s = Load(start), l = Load(limit), d = Load(delta);
    DFG_OP_REQUIRES(ctx, d != C(0),
                    InvalidArgument("Requires delta != 0: {}", d));
    if (d > C(0)) {
      DFG_OP_REQUIRES(
          ctx, s <= l,
          InvalidArgument("Requires start <= limit when delta > 0: {}/{}", s,
                          l));
    } else {
      DFG_OP_REQUIRES(
          ctx, s >= l,
          InvalidArgument("Requires start >= limit when delta < 0: {}/{}", s,
                          l));
    }
    int64_t size;
    if constexpr (std::is_integral_v<C>) {
      // In int64 (or uint64) to avoid overflow of narrow types.
      using W = std::conditional_t<std::is_signed_v<C>, int64_t, uint64_t>;
      const W span = s < l ? W(l) - W(s) : W(s) - W(l);
      const W step = d > C(0) ? W(d) : W(0) - W(d);
      size = static_cast<int64_t>(span / step + (span % step != 0));
    } else {
      const double n = std::ceil(std::abs(static_cast<double>((l - s) / d)));
      DFG_OP_REQUIRES(ctx, n < 9.2e18,
                      InvalidArgument("Requires ((limit - start) / delta) <= "
                                      "9223372036854775807"));
      size = static_cast<int64_t>(n);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    auto o = out->flat<T>();
    T val = start;
    for (int64_t i = 0; i < size; ++i) {
      o[i] = val;
      val = Store<T>(Load(val) + d);
    }
  }
};

}  // namespace

void RegisterConstantKernels(KernelRegistry* r) {
  r->Register<ConstOp>("Const");
  r->Register<ConstOp>("HostConst");
  r->Register<PlaceholderOp>("Placeholder");
  r->Register<PlaceholderOp>("PlaceholderV2");
  r->Register<ForwardOp>("PlaceholderWithDefault");
  r->Register<FillOp>("Fill", {TypeConstraint("T", AllTypes())});
  r->Register<ConstLikeOp<false>>("ZerosLike",
                                  {TypeConstraint("T", AllTypes())});
  r->Register<ConstLikeOp<true>>(
      "OnesLike", {TypeConstraint("T", NumberTypes() + TypeList<bool>())});
  r->Register<RangeOp>(
      "Range",
      {TypeConstraint("Tidx", FloatTypes() + TypeList<int32_t, int64_t>())});
}

}  // namespace dfg
