// _UnaryOpsComposition: Grappler's fusion of a chain of element-wise unary
// ops into one node (op_names applied in order). Each type has TensorFlow's
// own list of ops it composes (half fewer than float and double); a name not
// in it fails when the kernel is built, as in TensorFlow. Half rounds after
// every op, as TensorFlow's per-op functors do.
#include <cmath>
#include <map>
#include <string>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

using UnaryFn = double (*)(double);

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Selu(double x) {
  const double scale = 1.0507009873554804934193349852946;
  const double alpha = 1.6732632423543772848170429916717;
  return x < 0 ? scale * alpha * std::expm1(x) : scale * x;
}

// Every composable op; `half` marks those TensorFlow composes for half too.
struct UnaryEntry {
  UnaryFn fn;
  bool half;
};
const std::map<std::string, UnaryEntry>& UnaryTable() {
  static const auto* table = new std::map<std::string, UnaryEntry>{
      {"Abs", {[](double x) { return std::fabs(x); }, true}},
      {"Acos", {[](double x) { return std::acos(x); }, false}},
      {"Acosh", {[](double x) { return std::acosh(x); }, false}},
      {"Asin", {[](double x) { return std::asin(x); }, false}},
      {"Asinh", {[](double x) { return std::asinh(x); }, false}},
      {"Atan", {[](double x) { return std::atan(x); }, false}},
      {"Atanh", {[](double x) { return std::atanh(x); }, false}},
      {"Ceil", {[](double x) { return std::ceil(x); }, true}},
      {"Cos", {[](double x) { return std::cos(x); }, true}},
      {"Cosh", {[](double x) { return std::cosh(x); }, false}},
      {"Expm1", {[](double x) { return std::expm1(x); }, true}},
      {"Exp", {[](double x) { return std::exp(x); }, true}},
      {"Floor", {[](double x) { return std::floor(x); }, true}},
      {"Inv", {[](double x) { return 1.0 / x; }, true}},
      {"Log", {[](double x) { return std::log(x); }, true}},
      {"Log1p", {[](double x) { return std::log1p(x); }, true}},
      {"Neg", {[](double x) { return -x; }, true}},
      {"Reciprocal", {[](double x) { return 1.0 / x; }, true}},
      {"Rint", {[](double x) { return std::nearbyint(x); }, false}},
      // Half to even (Eigen's round), whatever the rounding mode.
      {"Round",
       {[](double x) {
          double r = std::round(x);
          if (std::fabs(x - std::trunc(x)) == 0.5) r = 2.0 * std::round(x / 2);
          return r;
        },
        true}},
      {"Rsqrt", {[](double x) { return 1.0 / std::sqrt(x); }, true}},
      {"Sigmoid", {Sigmoid, true}},
      {"Sin", {[](double x) { return std::sin(x); }, true}},
      {"Sinh", {[](double x) { return std::sinh(x); }, false}},
      {"Sqrt", {[](double x) { return std::sqrt(x); }, true}},
      {"Square", {[](double x) { return x * x; }, true}},
      {"Tan", {[](double x) { return std::tan(x); }, false}},
      {"Tanh", {[](double x) { return std::tanh(x); }, true}},
      {"Elu", {[](double x) { return x < 0 ? std::expm1(x) : x; }, true}},
      {"Relu", {[](double x) { return x > 0 ? x : 0.0; }, true}},
      {"Relu6",
       {[](double x) { return x > 0 ? (x < 6 ? x : 6.0) : 0.0; }, true}},
      {"Selu", {Selu, true}},
  };
  return *table;
}

class UnaryOpsCompositionOp : public OpKernel {
 public:
  explicit UnaryOpsCompositionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<std::string> names;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("op_names", &names));
    DFG_OP_REQUIRES(
        ctx, !names.empty(),
        InvalidArgument("Unary op composition must have at least one op"));
    const bool half = ctx->input_type(0) == tensorflow::DT_HALF;
    for (const std::string& name : names) {
      auto it = UnaryTable().find(name);
      DFG_OP_REQUIRES(
          ctx, it != UnaryTable().end() && (!half || it->second.half),
          InvalidArgument(
              "Do not have a compute function registered for op: {}", name));
      fns_.push_back(it->second.fn);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    Dispatch(TypeList<float, double, Half>(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      auto x = in.flat<T>();
      auto y = out->flat<T>();
      ParallelFor(ctx->intra_op_pool(), x.size(), 20 * fns_.size(),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) {
                      T e = x[i];
                      for (UnaryFn fn : fns_) {
                        // float ops run in float: TF's float functors do.
                        e = Store<T>(Apply<T>(fn, Load(e)));
                      }
                      y[i] = e;
                    }
                  });
    });
  }

 private:
  template <typename T>
  static CalcType<T> Apply(UnaryFn fn, CalcType<T> x) {
    if constexpr (std::is_same_v<T, double>) {
      return fn(x);
    } else {
      return static_cast<float>(fn(static_cast<double>(x)));
    }
  }

  std::vector<UnaryFn> fns_;
};

}  // namespace

void RegisterFusedExtUnaryKernels(KernelRegistry* r) {
  r->Register<UnaryOpsCompositionOp>(
      "_UnaryOpsComposition",
      {TypeConstraint("T", TypeList<float, double, Half>())});
}

}  // namespace dfg
