// Segment reductions beyond the sums (index_grad_ops.cc): SegmentMean / Max /
// Min / Prod over sorted ids, UnsortedSegmentMax / Min / Prod; and
// CumulativeLogsumexp.
//
// Empty segments get TensorFlow's values: 0 for every sorted reduction but
// Prod (1); the reduction's identity for the unsorted ones (lowest() for
// Max, max() for Min, 1 for Prod).
#include <cmath>
#include <limits>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

enum class Reduce { kMean, kMax, kMin, kProd };

template <typename C>
constexpr bool kIsReal = !std::is_same_v<C, std::complex<float>> &&
                         !std::is_same_v<C, std::complex<double>>;

// The largest finite value of T (half and bfloat16: their own, not float's).
template <typename T>
CalcType<T> Highest() {
  if constexpr (std::is_same_v<T, Half>) {
    return 65504.0f;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return 3.38953139e38f;
  } else {
    return std::numeric_limits<T>::max();
  }
}

template <Reduce R, typename T>
CalcType<T> Identity() {
  using C = CalcType<T>;
  if constexpr (R == Reduce::kProd) {
    return C(1);
  } else if constexpr (R == Reduce::kMax && kIsReal<C>) {
    if constexpr (std::is_integral_v<C>) {
      return std::numeric_limits<C>::lowest();
    } else {
      return -Highest<T>();
    }
  } else if constexpr (R == Reduce::kMin && kIsReal<C>) {
    return Highest<T>();
  } else {
    return C(0);
  }
}

// Max / min: the first NaN met wins (TensorFlow's fast reducers leave NaN
// unspecified; propagating it is the answer a user can act on).
template <Reduce R, typename C>
C Combine(const C& acc, const C& v) {
  if constexpr (R == Reduce::kProd || R == Reduce::kMean) {
    return R == Reduce::kProd ? acc * v : acc + v;
  } else if constexpr (kIsReal<C>) {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(acc)) return acc;
      if (std::isnan(v)) return v;
    }
    if constexpr (R == Reduce::kMax) {
      return v > acc ? v : acc;
    } else {
      return v < acc ? v : acc;
    }
  } else {
    return acc;
  }
}

// The id checks and output row count of the sorted reductions, in
// TensorFlow's order (increasing first, then range).
Status SortedRows(const Tensor& data, const Tensor& seg,
                  const std::vector<int64_t>& ids, int64_t* rows) {
  if (seg.dims() != 1)
    return InvalidArgument("segment_ids should be a vector.");
  if (data.dims() < 1 || data.dim_size(0) != seg.NumElements()) {
    return InvalidArgument(
        "segment_ids should be the same size as dimension 0 of input.");
  }
  *rows = ids.empty() ? 0 : ids.back() + 1;
  if (*rows < 0) return InvalidArgument("segment ids must be >= 0");
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i + 1 < ids.size() && ids[i] != ids[i + 1] && ids[i] > ids[i + 1]) {
      return InvalidArgument("segment ids are not increasing");
    }
    if (ids[i] < 0 || ids[i] >= *rows) {
      return InvalidArgument(
          "Segment id {} out of range [0, {}), possibly because "
          "'segment_ids' input is not sorted.",
          ids[i], *rows);
    }
  }
  return Status::Ok();
}

Status UnsortedRows(const Tensor& data, const Tensor& seg, const Tensor& num,
                    int64_t* rows) {
  if (num.dims() != 0) {
    return InvalidArgument("num_segments should be a scalar, not shape {}",
                           num.shape().DebugString());
  }
  bool prefix = data.dims() >= seg.dims();
  for (int d = 0; prefix && d < seg.dims(); ++d) {
    prefix = data.dim_size(d) == seg.dim_size(d);
  }
  if (!prefix) {
    return InvalidArgument(
        "data.shape = {} does not start with segment_ids.shape = {}",
        data.shape().DebugString(), seg.shape().DebugString());
  }
  *rows = IntValues(num)[0];
  if (*rows < 0) {
    return InvalidArgument("Input num_segments == {} must not be negative.",
                           *rows);
  }
  return Status::Ok();
}

template <Reduce R, bool kUnsorted>
class SegmentReduceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& seg = ctx->input(1);
    const std::vector<int64_t> ids = IntValues(seg);
    int64_t rows = 0;
    if constexpr (kUnsorted) {
      DFG_OP_REQUIRES_OK(ctx, UnsortedRows(data, seg, ctx->input(2), &rows));
    } else {
      DFG_OP_REQUIRES_OK(ctx, SortedRows(data, seg, ids, &rows));
    }
    TensorShape shape({rows});
    for (int d = kUnsorted ? seg.dims() : 1; d < data.dims(); ++d) {
      shape.AddDim(data.dim_size(d));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Dispatch(NumberTypes(), data.dtype(),
             [&](auto v) { Run<decltype(v)>(ctx, data, ids, rows, out); });
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx, const Tensor& data,
           const std::vector<int64_t>& ids, int64_t rows, Tensor* out) const {
    using C = CalcType<T>;
    const int64_t n = static_cast<int64_t>(ids.size());
    const int64_t slice = rows == 0 ? 0 : out->NumElements() / rows;
    // Accumulate in CalcType, then store once (sorted: empty rows get 0).
    std::vector<C> acc(out->NumElements(), Identity<R, T>());
    std::vector<int64_t> count(rows, 0);
    const T* d = static_cast<const T*>(data.data());
    for (int64_t i = 0; i < n; ++i) {
      if (kUnsorted && ids[i] < 0) continue;
      DFG_OP_REQUIRES(ctx, ids[i] < rows,
                      InvalidArgument("segment_ids[{}] = {} is out of range "
                                      "[0, {})",
                                      i, ids[i], rows));
      ++count[ids[i]];
      C* dst = acc.data() + ids[i] * slice;
      const T* src = d + i * slice;
      for (int64_t k = 0; k < slice; ++k) {
        dst[k] = Combine<R>(dst[k], Load(src[k]));
      }
    }
    T* o = static_cast<T*>(out->data());
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < slice; ++k) {
        C value = acc[r * slice + k];
        if (!kUnsorted && count[r] == 0) {
          value = R == Reduce::kProd ? C(1) : C(0);
        } else if (R == Reduce::kMean && count[r] > 0) {
          value = value / static_cast<C>(count[r]);
        }
        o[r * slice + k] = Store<T>(value);
      }
    }
  }
};

// log(sum(exp(x))) along an axis, inclusive or exclusive, forward or
// reversed; each step is the stable log(exp(a) + exp(b)).
class CumulativeLogsumexpOp : public OpKernel {
 public:
  explicit CumulativeLogsumexpOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& at = ctx->input(1);
    DFG_OP_REQUIRES(ctx, at.dims() == 0,
                    InvalidArgument("ScanOp: axis must be a scalar, not {}",
                                    at.shape().DebugString()));
    int64_t axis = IntValues(at)[0];
    const int rank = x.dims();
    DFG_OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                    InvalidArgument("ScanOp: Expected scan axis in the range "
                                    "[{}, {}), but got {}",
                                    -rank, rank, axis));
    if (axis < 0) axis += rank;
    Tensor* y = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (y->NumElements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
    for (int d = axis + 1; d < rank; ++d) inner *= x.dim_size(d);
    const int64_t n = x.dim_size(axis);
    Dispatch(FloatTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      const T* xp = static_cast<const T*>(x.data());
      T* yp = static_cast<T*>(y->data());
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          C acc = -std::numeric_limits<C>::infinity();
          for (int64_t s = 0; s < n; ++s) {
            const int64_t j = reverse_ ? n - 1 - s : s;
            const int64_t at_j = (o * n + j) * inner + i;
            const C e = Load(xp[at_j]);
            if (exclusive_) yp[at_j] = Store<T>(acc);
            acc = LogAddExp(acc, e);
            if (!exclusive_) yp[at_j] = Store<T>(acc);
          }
        }
      }
    });
  }

 private:
  template <typename C>
  static C LogAddExp(C a, C b) {
    if (std::isnan(a) || std::isnan(b)) return a + b;
    const C hi = a > b ? a : b;
    const C lo = a > b ? b : a;
    if (hi == -std::numeric_limits<C>::infinity()) return hi;
    if (hi == std::numeric_limits<C>::infinity()) return hi;
    return hi + std::log1p(std::exp(lo - hi));
  }

  bool exclusive_ = false, reverse_ = false;
};

template <Reduce R, bool kUnsorted, typename Types>
void Reg(KernelRegistry* r, const char* op, Types types) {
  r->Register<SegmentReduceOp<R, kUnsorted>>(op, {TypeConstraint("T", types)});
}

}  // namespace

void RegisterSegmentReduceKernels(KernelRegistry* r) {
  Reg<Reduce::kMean, false>(r, "SegmentMean", NumberTypes());
  Reg<Reduce::kMax, false>(r, "SegmentMax", RealTypes());
  Reg<Reduce::kMin, false>(r, "SegmentMin", RealTypes());
  Reg<Reduce::kProd, false>(r, "SegmentProd", NumberTypes());
  Reg<Reduce::kMax, true>(r, "UnsortedSegmentMax", RealTypes());
  Reg<Reduce::kMin, true>(r, "UnsortedSegmentMin", RealTypes());
  Reg<Reduce::kProd, true>(r, "UnsortedSegmentProd", NumberTypes());
  r->Register<CumulativeLogsumexpOp>("CumulativeLogsumexp",
                                     {TypeConstraint("T", FloatTypes())});
}

}  // namespace dfg
