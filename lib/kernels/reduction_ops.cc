// Reductions over a list of axes: Sum, Mean, Prod, Max, Min, All, Any
// (keep_dims, negative axes, empty inputs); ArgMax and ArgMin over one axis.
//
// The input is viewed as alternating groups of kept and reduced dims; the
// common layouts ([kept, reduced], [reduced, kept], all) reduce in place,
// others are transposed to [kept..., reduced...] first.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

template <typename T>
constexpr bool kIsFloatCalc = std::is_floating_point_v<CalcType<T>>;

// Accumulation type: double for float types (accuracy), T's calc type else.
template <typename T>
using Acc = std::conditional_t<kIsFloatCalc<T>, double, CalcType<T>>;

struct SumR {
  template <typename A>
  static A Init() {
    return A(0);
  }
  template <typename A>
  static void Add(A& acc, const A& v) {
    acc += v;
  }
};
struct ProdR {
  template <typename A>
  static A Init() {
    return A(1);
  }
  template <typename A>
  static void Add(A& acc, const A& v) {
    acc *= v;
  }
};
struct MaxR {
  template <typename A>
  static A Init() {
    if constexpr (std::is_floating_point_v<A>) {
      return -std::numeric_limits<A>::infinity();
    } else {
      return std::numeric_limits<A>::lowest();
    }
  }
  template <typename A>
  static void Add(A& acc, const A& v) {
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(v) || std::isnan(acc)) {
        acc = std::isnan(acc) ? acc : v;
        return;
      }
    }
    if (acc < v) acc = v;
  }
};
struct MinR {
  template <typename A>
  static A Init() {
    if constexpr (std::is_floating_point_v<A>) {
      return std::numeric_limits<A>::infinity();
    } else {
      return std::numeric_limits<A>::max();
    }
  }
  template <typename A>
  static void Add(A& acc, const A& v) {
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(v) || std::isnan(acc)) {
        acc = std::isnan(acc) ? acc : v;
        return;
      }
    }
    if (v < acc) acc = v;
  }
};
struct AllR {
  template <typename A>
  static A Init() {
    return true;
  }
  template <typename A>
  static void Add(A& acc, const A& v) {
    acc = acc && v;
  }
};
struct AnyR {
  template <typename A>
  static A Init() {
    return false;
  }
  template <typename A>
  static void Add(A& acc, const A& v) {
    acc = acc || v;
  }
};

// Parses the axes input; fills `reduce` (one flag per input dim).
Status ReductionAxes(const Tensor& in, const Tensor& axes,
                     std::vector<bool>* reduce) {
  if (axes.dims() > 1) {
    return InvalidArgument(
        "Invalid reduction arguments: Axes must be a "
        "scalar or vector but got shape {}",
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

// The reduced value as T; Mean divides by the count (integer division for
// integers, 0 for an empty integer mean).
template <bool kMean, typename T, typename A>
T Finish(const A& acc, int64_t count) {
  if constexpr (kMean) {
    if constexpr (std::is_integral_v<A>) {
      if (count == 0) return T(0);
      return Store<T>(static_cast<CalcType<T>>(acc / static_cast<A>(count)));
    } else {
      return Store<T>(static_cast<CalcType<T>>(acc / static_cast<A>(count)));
    }
  } else {
    return Store<T>(static_cast<CalcType<T>>(acc));
  }
}

// out[o] = reduction of the row in[o * rsize, (o + 1) * rsize).
template <typename R, bool kMean, typename T>
void ReduceRows(ThreadPoolInterface* pool, const T* in, int64_t outer,
                int64_t rsize, T* out) {
  using A = Acc<T>;
  ParallelFor(pool, outer, rsize * 2 + 1, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      A acc = R::template Init<A>();
      const T* row = in + o * rsize;
      for (int64_t r = 0; r < rsize; ++r) R::Add(acc, A(Load(row[r])));
      out[o] = Finish<kMean, T>(acc, rsize);
    }
  });
}

// out[k] = reduction over r of in[r * ksize + k].
template <typename R, bool kMean, typename T>
void ReduceCols(ThreadPoolInterface* pool, const T* in, int64_t rsize,
                int64_t ksize, T* out) {
  using A = Acc<T>;
  ParallelFor(pool, ksize, rsize * 2 + 1, [&](int64_t b, int64_t e) {
    std::unique_ptr<A[]> acc(new A[e - b]);  // not vector<bool>
    for (int64_t k = 0; k < e - b; ++k) acc[k] = R::template Init<A>();
    for (int64_t r = 0; r < rsize; ++r) {
      const T* row = in + r * ksize;
      for (int64_t k = b; k < e; ++k) R::Add(acc[k - b], A(Load(row[k])));
    }
    for (int64_t k = b; k < e; ++k) {
      out[k] = Finish<kMean, T>(acc[k - b], rsize);
    }
  });
}

template <typename R, bool kMean, typename Types>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::vector<bool> reduce;
    DFG_OP_REQUIRES_OK(ctx, ReductionAxes(in, ctx->input(1), &reduce));
    std::vector<int64_t> out_dims;
    int64_t count = 1;  // elements reduced into each output
    // Groups of adjacent dims (size > 1) with the same flag.
    std::vector<std::pair<int64_t, bool>> groups;
    for (int d = 0; d < in.dims(); ++d) {
      const int64_t size = in.dim_size(d);
      if (reduce[d]) {
        count *= size;
        if (keep_dims_) out_dims.push_back(1);
      } else {
        out_dims.push_back(size);
      }
      if (size == 1) continue;
      if (!groups.empty() && groups.back().second == reduce[d]) {
        groups.back().first *= size;
      } else {
        groups.push_back({size, reduce[d]});
      }
    }
    const TensorShape out_shape{std::span<const int64_t>(out_dims)};
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    Dispatch(Types(), in.dtype(), [&](auto v) {
      Run<decltype(v)>(ctx, in, reduce, groups, count, out);
    });
  }

 private:
  template <typename T>
  static void Run(OpKernelContext* ctx, const Tensor& in,
                  const std::vector<bool>& reduce,
                  const std::vector<std::pair<int64_t, bool>>& groups,
                  int64_t count, Tensor* out) {
    T* o = static_cast<T*>(out->data());
    const int64_t n_out = out->NumElements();
    if (in.NumElements() == 0) {  // every output reduces an empty set
      for (int64_t i = 0; i < n_out; ++i) {
        o[i] = Finish<kMean, T>(R::template Init<Acc<T>>(), 0);
      }
      return;
    }
    const T* x = static_cast<const T*>(in.data());
    ThreadPoolInterface* pool = ctx->intra_op_pool();
    const size_t g = groups.size();
    if (g == 0 || (g == 1 && !groups[0].second)) {
      ReduceRows<R, kMean, T>(pool, x, n_out, 1, o);  // nothing reduced
    } else if (g == 1 || (g == 2 && !groups[0].second)) {
      ReduceRows<R, kMean, T>(pool, x, n_out, count, o);
    } else if (g == 2) {
      ReduceCols<R, kMean, T>(pool, x, count, n_out, o);
    } else if (g == 3 && !groups[0].second) {
      // [kept, reduced, kept]: a global pooling of NHWC images (Mean over
      // axes 1 and 2), each outer block's columns in place, no transpose.
      const int64_t inner = groups[2].first;
      for (int64_t a = 0; a < groups[0].first; ++a) {
        ReduceCols<R, kMean, T>(pool, x + a * count * inner, count, inner,
                                o + a * inner);
      }
    } else {
      // Transpose to [kept..., reduced...], then reduce rows.
      std::vector<int> perm;
      std::vector<int64_t> dims;
      for (int pass = 0; pass < 2; ++pass) {
        for (int d = 0; d < in.dims(); ++d) {
          if (reduce[d] == (pass == 1)) {
            perm.push_back(d);
            dims.push_back(in.dim_size(d));
          }
        }
      }
      Tensor t(in.dtype(), TensorShape(std::span<const int64_t>(dims)));
      TransposeInto(pool, in, perm, &t);
      ReduceRows<R, kMean, T>(pool, static_cast<const T*>(t.data()), n_out,
                              count, o);
    }
  }

  bool keep_dims_ = false;
};

template <bool kMax>
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, dim_t.dims() == 0,
                    InvalidArgument("dim must be a scalar, but received "
                                    "tensor of shape: {}",
                                    dim_t.shape().DebugString()));
    const int64_t dim = IntValues(dim_t)[0];
    const int rank = in.dims();
    const int64_t axis = dim < 0 ? dim + rank : dim;
    DFG_OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                    InvalidArgument("Expected dimension in the range [{}, {}), "
                                    "but got {}",
                                    -rank, rank, dim));
    const int64_t size = in.dim_size(static_cast<int>(axis));
    DFG_OP_REQUIRES(ctx, size > 0,
                    InvalidArgument("Reduction axis {} is empty in shape {}",
                                    dim, in.shape().DebugString()));
    TensorShape shape = in.shape();
    shape.RemoveDim(static_cast<int>(axis));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int64_t inner = 1;
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) {
      inner *= in.dim_size(d);
    }
    const int64_t outer = out->NumElements() / std::max<int64_t>(inner, 1);
    std::vector<int64_t> best_at(static_cast<size_t>(outer * inner), 0);
    Dispatch(RealTypes() + TypeList<bool>(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* x = static_cast<const T*>(in.data());
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* p = x + o * size * inner + i;
          int64_t best = 0;
          auto best_v = Load(p[0]);
          for (int64_t k = 1; k < size; ++k) {
            const auto cur = Load(p[k * inner]);
            if (kMax ? best_v < cur : cur < best_v) {
              best = k;
              best_v = cur;
            }
          }
          best_at[o * inner + i] = best;
        }
      }
    });
    // output_type: int16, uint16 (ArgMax only), int32 or int64.
    Dispatch(TypeList<int16_t, uint16_t, int32_t, int64_t>(), out->dtype(),
             [&](auto w) {
               using I = decltype(w);
               auto o = out->flat<I>();
               for (size_t k = 0; k < best_at.size(); ++k) {
                 o[k] = static_cast<I>(best_at[k]);
               }
             });
  }
};

template <typename R, bool kMean, typename Types>
void RegisterReduction(KernelRegistry* r, const char* op, Types types) {
  r->Register<ReductionOp<R, kMean, Types>>(op, {TypeConstraint("T", types)});
}

}  // namespace

void RegisterReductionKernels(KernelRegistry* r) {
  RegisterReduction<SumR, false>(r, "Sum", NumberTypes());
  RegisterReduction<SumR, true>(r, "Mean", NumberTypes());
  RegisterReduction<ProdR, false>(r, "Prod", NumberTypes());
  RegisterReduction<MaxR, false>(r, "Max", RealTypes());
  RegisterReduction<MinR, false>(r, "Min", RealTypes());
  r->Register<ReductionOp<AllR, false, TypeList<bool>>>("All");
  r->Register<ReductionOp<AnyR, false, TypeList<bool>>>("Any");
  const auto arg_types = RealTypes() + TypeList<bool>();
  r->Register<ArgOp<true>>("ArgMax", {TypeConstraint("T", arg_types)});
  r->Register<ArgOp<false>>("ArgMin", {TypeConstraint("T", arg_types)});
}

}  // namespace dfg
