// The small math ops tf.math and tf.nn emit: L2Loss, EuclideanNorm,
// LinSpace, Cross, Bucketize, HistogramFixedWidth, LowerBound / UpperBound,
// InTopK / InTopKV2.
#include <algorithm>
#include <cmath>
#include <complex>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

template <typename C>
constexpr bool kIsComplex = std::is_same_v<C, std::complex<float>> ||
                            std::is_same_v<C, std::complex<double>>;

// sum(t^2) / 2 over every element, accumulated in double.
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    Dispatch(FloatTypes(), t.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* p = static_cast<const T*>(t.data());
      double sum = 0;
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        const double x = Load(p[i]);
        sum += x * x;
      }
      *static_cast<T*>(out->data()) = Store<T>(sum / 2);
    });
  }
};

// reduce->[d]: whether input dim d is reduced (Sum's axis rules and texts).
Status NormAxes(const Tensor& in, const Tensor& axes,
                std::vector<bool>* reduce) {
  if (axes.dims() > 1) {
    return InvalidArgument(
        "Invalid reduction arguments: Axes must be a scalar or vector but got "
        "shape {}",
        axes.shape().DebugString());
  }
  const int rank = in.dims();
  reduce->assign(rank, false);
  for (int64_t a : IntValues(axes)) {
    if (a < -rank || a >= rank) {
      return InvalidArgument(
          "Invalid reduction dimension ({} for input with {} dimension(s)", a,
          rank);
    }
    (*reduce)[a < 0 ? a + rank : a] = true;
  }
  return Status::Ok();
}

// sqrt(sum |x|^2) over the axes. Integers sum their squares in T (wrapping,
// as TensorFlow's reducer) and truncate the root.
class EuclideanNormOp : public OpKernel {
 public:
  explicit EuclideanNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::vector<bool> reduce;
    DFG_OP_REQUIRES_OK(ctx, NormAxes(in, ctx->input(1), &reduce));
    TensorShape shape;
    // Output index of each input element: strides of the kept dims.
    std::vector<int64_t> out_stride(in.dims(), 0);
    int64_t kept = 1;
    for (int d = in.dims() - 1; d >= 0; --d) {
      if (!reduce[d]) {
        out_stride[d] = kept;
        kept *= in.dim_size(d);
      }
    }
    for (int d = 0; d < in.dims(); ++d) {
      if (!reduce[d]) {
        shape.AddDim(in.dim_size(d));
      } else if (keep_dims_) {
        shape.AddDim(1);
      }
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Dispatch(NumberTypes(), in.dtype(),
             [&](auto v) { Run<decltype(v)>(in, out_stride, kept, out); });
  }

 private:
  template <typename T>
  static void Run(const Tensor& in, const std::vector<int64_t>& out_stride,
                  int64_t kept, Tensor* out) {
    // Integers: the wrapped sum in T's unsigned twin; floats: double.
    using A = std::conditional_t<
        std::is_integral_v<T>,
        std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>,
        double>;
    std::vector<A> acc(kept, A(0));
    const T* p = static_cast<const T*>(in.data());
    const int rank = in.dims();
    std::vector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      int64_t o = 0;
      for (int d = 0; d < rank; ++d) o += idx[d] * out_stride[d];
      if constexpr (kIsComplex<T>) {
        acc[o] += std::norm(std::complex<double>(p[i]));
      } else if constexpr (std::is_integral_v<T>) {
        const uint64_t x = static_cast<A>(p[i]);  // no int promotion
        acc[o] = static_cast<A>(acc[o] + static_cast<A>(x * x));
      } else {
        const double x = static_cast<double>(Load(p[i]));
        acc[o] += x * x;
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < in.dim_size(d)) break;
        idx[d] = 0;
      }
    }
    T* q = static_cast<T*>(out->data());
    for (int64_t k = 0; k < kept; ++k) {
      double sum;
      if constexpr (std::is_integral_v<T>) {
        sum = static_cast<double>(static_cast<T>(acc[k]));
        if (sum < 0) sum = 0;  // a wrapped negative sum
      } else {
        sum = acc[k];
      }
      const double r = std::sqrt(sum);
      if constexpr (kIsComplex<T>) {
        q[k] = T(static_cast<typename T::value_type>(r), 0);
      } else {
        q[k] = Store<T>(static_cast<CalcType<T>>(r));
      }
    }
  }

  bool keep_dims_ = false;
};

// num evenly spaced values from start to stop (start + i * step in T).
class LinSpaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) {
      static constexpr const char* kNames[] = {"start", "stop", "num"};
      DFG_OP_REQUIRES(
          ctx, ctx->input(i).dims() == 0,
          InvalidArgument("{} must be a scalar, not shape {}", kNames[i],
                          ctx->input(i).shape().DebugString()));
    }
    const int64_t num = IntValues(ctx->input(2))[0];
    DFG_OP_REQUIRES(ctx, num > 0, InvalidArgument("Requires num > 0: {}", num));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({num}), &out));
    Dispatch(FloatTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      const C start = Load(*static_cast<const T*>(ctx->input(0).data()));
      const C stop = Load(*static_cast<const T*>(ctx->input(1).data()));
      T* o = static_cast<T*>(out->data());
      if (num == 1) {
        o[0] = Store<T>(start);
        return;
      }
      const C step = (stop - start) / static_cast<C>(num - 1);
      for (int64_t i = 0; i < num; ++i) {
        o[i] = Store<T>(start + step * static_cast<C>(i));
      }
    });
  }
};

// Cross products of 3-vectors along the last dim.
class CrossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, a.shape().IsSameSize(b.shape()),
        InvalidArgument("Both inputs must be of same shape: {} vs. {}",
                        a.shape().DebugString(), b.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, a.dims() >= 1,
                    InvalidArgument("Input must be at least 1D{}",
                                    a.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, a.dim_size(a.dims() - 1) == 3,
                    FailedPrecondition("Cross-products are only defined for "
                                       "3-element vectors."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    Dispatch(RealTypes(), a.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* x = static_cast<const T*>(a.data());
      const T* y = static_cast<const T*>(b.data());
      T* z = static_cast<T*>(out->data());
      for (int64_t i = 0; i < a.NumElements(); i += 3) {
        const auto x0 = Load(x[i]), x1 = Load(x[i + 1]), x2 = Load(x[i + 2]);
        const auto y0 = Load(y[i]), y1 = Load(y[i + 1]), y2 = Load(y[i + 2]);
        z[i] = Store<T>(x1 * y2 - x2 * y1);
        z[i + 1] = Store<T>(x2 * y0 - x0 * y2);
        z[i + 2] = Store<T>(x0 * y1 - x1 * y0);
      }
    });
  }
};

// The number of boundaries <= each value.
class BucketizeOp : public OpKernel {
 public:
  explicit BucketizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // list(float): read from the NodeDef (GetAttr has no list(float) form).
    auto it = ctx->def().attr().find("boundaries");
    DFG_OP_REQUIRES(ctx, it != ctx->def().attr().end(),
                    NotFound("No attr named 'boundaries' in NodeDef:"));
    boundaries_.assign(it->second.list().f().begin(),
                       it->second.list().f().end());
    DFG_OP_REQUIRES(ctx, std::is_sorted(boundaries_.begin(), boundaries_.end()),
                    InvalidArgument("Expected sorted boundaries"));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    int32_t* o = static_cast<int32_t*>(out->data());
    Dispatch(
        TypeList<int32_t, int64_t, float, double>(), in.dtype(), [&](auto v) {
          using T = decltype(v);
          const T* p = static_cast<const T*>(in.data());
          for (int64_t i = 0; i < in.NumElements(); ++i) {
            // Compared as float, the boundaries' type.
            const float x = static_cast<float>(p[i]);
            o[i] = static_cast<int32_t>(
                std::upper_bound(boundaries_.begin(), boundaries_.end(), x) -
                boundaries_.begin());
          }
        });
  }

 private:
  std::vector<float> boundaries_;
};

// The op's T list; TensorFlow's kernel covers more, the OpDef allows these.
using HistTypes = TypeList<int32_t, int64_t, float, double>;

class HistogramFixedWidthOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(0);
    const Tensor& range = ctx->input(1);
    const Tensor& nbins_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, range.dims() == 1 && range.NumElements() == 2,
                    InvalidArgument("value_range should be a vector of 2 "
                                    "elements."));
    DFG_OP_REQUIRES(ctx, nbins_t.dims() == 0,
                    InvalidArgument("nbins should be a scalar."));
    const int32_t nbins = *static_cast<const int32_t*>(nbins_t.data());
    DFG_OP_REQUIRES(ctx, nbins > 0,
                    InvalidArgument("nbins should be a positive number, but "
                                    "got '{}'",
                                    nbins));
    std::vector<int64_t> counts(nbins, 0);
    Status s;
    Dispatch(HistTypes(), values.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* r = static_cast<const T*>(range.data());
      const double lo = static_cast<double>(Load(r[0]));
      const double hi = static_cast<double>(Load(r[1]));
      if (!(lo < hi)) {
        s = InvalidArgument(
            "value_range should satisfy value_range[0] < value_range[1], but "
            "got '[{}, {}]'",
            Load(r[0]), Load(r[1]));
        return;
      }
      const double step = (hi - lo) / nbins;
      const T* p = static_cast<const T*>(values.data());
      for (int64_t i = 0; i < values.NumElements(); ++i) {
        const double bin = std::floor((Load(p[i]) - lo) / step);
        counts[static_cast<int64_t>(std::clamp(bin, 0.0, nbins - 1.0))]++;
      }
    });
    DFG_OP_REQUIRES_OK(ctx, s);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({nbins}), &out));
    Dispatch(TypeList<int32_t, int64_t>(), out->dtype(), [&](auto v) {
      using O = decltype(v);
      for (int32_t b = 0; b < nbins; ++b) {
        static_cast<O*>(out->data())[b] = static_cast<O>(counts[b]);
      }
    });
  }
};

// Per row b: the insertion point of each values[b, j] in sorted_inputs[b].
template <bool kUpper>
class BoundOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& sorted = ctx->input(0);
    const Tensor& values = ctx->input(1);
    DFG_OP_REQUIRES(ctx, sorted.dims() == 2,
                    InvalidArgument("Shape must be rank 2 but is rank {} for "
                                    "`sorted_inputs` argument",
                                    sorted.dims()));
    DFG_OP_REQUIRES(ctx, values.dims() == 2,
                    InvalidArgument("Shape must be rank 2 but is rank {} for "
                                    "`values` argument",
                                    values.dims()));
    DFG_OP_REQUIRES(ctx, sorted.dim_size(0) == values.dim_size(0),
                    InvalidArgument("Leading dim_size of both tensors must "
                                    "match."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, values.shape(), &out));
    const int64_t rows = values.dim_size(0), n = sorted.dim_size(1),
                  m = values.dim_size(1);
    Dispatch(RealTypes(), sorted.dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      std::vector<C> row(n);
      const T* s = static_cast<const T*>(sorted.data());
      const T* q = static_cast<const T*>(values.data());
      for (int64_t b = 0; b < rows; ++b) {
        for (int64_t k = 0; k < n; ++k) row[k] = Load(s[b * n + k]);
        for (int64_t j = 0; j < m; ++j) {
          const C x = Load(q[b * m + j]);
          const auto it = kUpper ? std::upper_bound(row.begin(), row.end(), x)
                                 : std::lower_bound(row.begin(), row.end(), x);
          const int64_t at = it - row.begin();
          if (out->dtype() == tensorflow::DT_INT32) {
            static_cast<int32_t*>(out->data())[b * m + j] =
                static_cast<int32_t>(at);
          } else {
            static_cast<int64_t*>(out->data())[b * m + j] = at;
          }
        }
      }
    });
  }
};

// Whether targets[b] is among the k largest predictions[b] (ties count in;
// a non-finite prediction or an out-of-range target is never in).
template <bool kV2>
class InTopKOp : public OpKernel {
 public:
  explicit InTopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (!kV2) DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("k", &k_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    int64_t k = k_;
    if constexpr (kV2) {
      const Tensor& kt = ctx->input(2);
      DFG_OP_REQUIRES(ctx, kt.dims() == 0,
                      InvalidArgument("k must be 0-D, got shape {}",
                                      kt.shape().DebugString()));
      k = IntValues(kt)[0];
    }
    DFG_OP_REQUIRES(ctx, pred.dims() == 2,
                    InvalidArgument("predictions must be 2-dimensional"));
    DFG_OP_REQUIRES(ctx, targets.dims() == 1,
                    InvalidArgument("targets must be 1-dimensional"));
    DFG_OP_REQUIRES(ctx, pred.dim_size(0) == targets.dim_size(0),
                    InvalidArgument("First dimension of predictions {} must "
                                    "match length of targets {}",
                                    pred.dim_size(0), targets.dim_size(0)));
    const int64_t batch = pred.dim_size(0), classes = pred.dim_size(1);
    const std::vector<int64_t> t = IntValues(targets);
    const float* p = static_cast<const float*>(pred.data());
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({batch}), &out));
    bool* o = static_cast<bool*>(out->data());
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = p + b * classes;
      bool in = t[b] >= 0 && t[b] < classes && std::isfinite(row[t[b]]);
      if (in) {
        int64_t more = 0;
        for (int64_t c = 0; c < classes; ++c) {
          if (!std::isfinite(row[c])) {
            in = false;
            break;
          }
          more += row[c] > row[t[b]];
        }
        in = in && more < k;
      }
      o[b] = in;
    }
  }

 private:
  int64_t k_ = 0;
};

}  // namespace

void RegisterMathMiscKernels(KernelRegistry* r) {
  r->Register<L2LossOp>("L2Loss", {TypeConstraint("T", FloatTypes())});
  r->Register<EuclideanNormOp>("EuclideanNorm",
                               {TypeConstraint("T", NumberTypes())});
  r->Register<LinSpaceOp>("LinSpace",
                          {TypeConstraint("T", TypeList<float, double>())});
  r->Register<CrossOp>("Cross", {TypeConstraint("T", RealTypes())});
  r->Register<BucketizeOp>(
      "Bucketize",
      {TypeConstraint("T", TypeList<int32_t, int64_t, float, double>())});
  r->Register<HistogramFixedWidthOp>("HistogramFixedWidth",
                                     {TypeConstraint("T", HistTypes())});
  r->Register<BoundOp<false>>("LowerBound", {TypeConstraint("T", RealTypes())});
  r->Register<BoundOp<true>>("UpperBound", {TypeConstraint("T", RealTypes())});
  r->Register<InTopKOp<false>>("InTopK");
  r->Register<InTopKOp<true>>("InTopKV2");
}

}  // namespace dfg
