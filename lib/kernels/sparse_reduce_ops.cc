// Sparse reductions and structure ops: SparseReduce{Sum,Max}[Sparse],
// SparseSoftmax, SparseAdd, SparseSparse{Maximum,Minimum}, SparseSlice and
// SparseConcat.
//
// The reductions group the entries by the kept dims (in row-major order of
// the kept coordinates) and reduce each group's values in the order of the
// reduced coordinates, as TensorFlow's reorder-then-group does; dense
// outputs hold 0 where no entry falls.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

// Entry order: sorted by the `dims` coordinates in that order (stable).
std::vector<int64_t> SortedBy(const std::vector<int64_t>& idx, int64_t n,
                              int64_t rank, const std::vector<int64_t>& dims) {
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    for (int64_t d : dims) {
      if (idx[a * rank + d] != idx[b * rank + d]) {
        return idx[a * rank + d] < idx[b * rank + d];
      }
    }
    return false;
  });
  return perm;
}

class SparseReduceOp : public OpKernel {
 public:
  explicit SparseReduceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
    is_max_ = def().op().starts_with("SparseReduceMax");
    sparse_out_ = def().op().ends_with("Sparse");
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& idx_t = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckSparseInputs(idx_t, vals, shape_t, "Input"));
    const std::vector<int64_t> shape = IntValues(shape_t);
    const int64_t rank = static_cast<int64_t>(shape.size());
    std::vector<bool> reduced(rank, false);
    for (int64_t a : IntValues(ctx->input(3))) {
      DFG_OP_REQUIRES(ctx, a >= -rank && a < rank,
                      InvalidArgument("Invalid reduction dimension {}, for "
                                      "input with {} dimensions.",
                                      a, rank));
      reduced[a < 0 ? a + rank : a] = true;
    }
    std::vector<int64_t> kept, order, out_shape;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        kept.push_back(d);
        out_shape.push_back(shape[d]);
      } else if (keep_dims_) {
        out_shape.push_back(1);
      }
    }
    order = kept;
    for (int64_t d = 0; d < rank; ++d) {
      if (reduced[d]) order.push_back(d);
    }
    const std::vector<int64_t> idx = IntValues(idx_t);
    const int64_t n = vals.NumElements();
    const std::vector<int64_t> perm = SortedBy(idx, n, rank, order);
    // Groups: runs of perm with equal kept coordinates.
    std::vector<int64_t> starts;
    for (int64_t i = 0; i < n; ++i) {
      bool same = i > 0;
      for (size_t k = 0; same && k < kept.size(); ++k) {
        same =
            idx[perm[i] * rank + kept[k]] == idx[perm[i - 1] * rank + kept[k]];
      }
      if (!same) starts.push_back(i);
    }
    starts.push_back(n);
    const int64_t groups = static_cast<int64_t>(starts.size()) - 1;
    Dispatch(RealTypes(), vals.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* in = vals.flat<T>().data();
      std::vector<T> results(groups);
      for (int64_t g = 0; g < groups; ++g) {
        auto acc = Load(in[perm[starts[g]]]);
        for (int64_t i = starts[g] + 1; i < starts[g + 1]; ++i) {
          const auto x = Load(in[perm[i]]);
          acc = is_max_ ? (x > acc ? x : acc) : acc + x;
        }
        results[g] = Store<T>(acc);
      }
      if (sparse_out_) {
        WriteSparse<T>(ctx, idx, rank, kept, perm, starts, results, out_shape);
      } else {
        WriteDense<T>(ctx, idx, rank, kept, perm, starts, results, out_shape);
      }
    });
  }

 private:
  template <typename T>
  void WriteDense(OpKernelContext* ctx, const std::vector<int64_t>& idx,
                  int64_t rank, const std::vector<int64_t>& kept,
                  const std::vector<int64_t>& perm,
                  const std::vector<int64_t>& starts,
                  const std::vector<T>& results,
                  const std::vector<int64_t>& out_shape) {
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(out_shape)), &out));
    T* o = out->flat<T>().data();
    std::fill(o, o + out->NumElements(), Store<T>(0));
    // Kept coordinates index the output in row-major order (reduced dims of
    // size 1 under keep_dims add nothing).
    std::vector<int64_t> dims;
    for (int64_t d : kept) dims.push_back(IntValues(ctx->input(2))[d]);
    const std::vector<int64_t> strides = Strides(dims);
    for (size_t g = 0; g + 1 < starts.size(); ++g) {
      int64_t off = 0;
      for (size_t k = 0; k < kept.size(); ++k) {
        off += idx[perm[starts[g]] * rank + kept[k]] * strides[k];
      }
      o[off] = results[g];
    }
  }

  template <typename T>
  void WriteSparse(OpKernelContext* ctx, const std::vector<int64_t>& idx,
                   int64_t rank, const std::vector<int64_t>& kept,
                   const std::vector<int64_t>& perm,
                   const std::vector<int64_t>& starts,
                   const std::vector<T>& results,
                   const std::vector<int64_t>& out_shape) {
    const int64_t groups = static_cast<int64_t>(results.size());
    const int64_t out_rank = static_cast<int64_t>(out_shape.size());
    Tensor *oi = nullptr, *ov = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, AllocSparse(ctx, 0, groups, out_rank, out_shape, &oi, &ov));
    int64_t* o = oi->flat<int64_t>().data();
    std::fill(o, o + groups * out_rank, 0);
    for (int64_t g = 0; g < groups; ++g) {
      for (size_t k = 0; k < kept.size(); ++k) {
        const int64_t col = keep_dims_ ? kept[k] : static_cast<int64_t>(k);
        o[g * out_rank + col] = idx[perm[starts[g]] * rank + kept[k]];
      }
      ov->flat<T>()[g] = results[g];
    }
  }

  bool keep_dims_ = false, is_max_ = false, sparse_out_ = false;
};

class SparseSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& idx_t = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, shape_t.NumElements() >= 2,
                    InvalidArgument("Input should have rank >= 2, but received "
                                    "shape: {}",
                                    VectorString(IntValues(shape_t))));
    DFG_OP_REQUIRES_OK(ctx, CheckSparseInputs(idx_t, vals, shape_t, "Input"));
    const int64_t rank = shape_t.NumElements(), n = vals.NumElements();
    const std::vector<int64_t> idx = IntValues(idx_t);
    std::vector<int64_t> all(rank);
    std::iota(all.begin(), all.end(), 0);
    const std::vector<int64_t> perm = SortedBy(idx, n, rank, all);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    Dispatch(FloatTypes(), vals.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* in = vals.flat<T>().data();
      T* o = out->flat<T>().data();
      int64_t i = 0;
      while (i < n) {
        int64_t end = i + 1;
        while (end < n && CompareRows(&idx[perm[end] * rank],
                                      &idx[perm[i] * rank], rank - 1) == 0) {
          ++end;
        }
        auto mx = Load(in[perm[i]]);
        for (int64_t j = i + 1; j < end; ++j) {
          mx = std::max(mx, Load(in[perm[j]]));
        }
        decltype(mx) sum = 0;
        for (int64_t j = i; j < end; ++j) {
          o[j] = Store<T>(std::exp(Load(in[perm[j]]) - mx));
          sum += Load(o[j]);
        }
        for (int64_t j = i; j < end; ++j) o[j] = Store<T>(Load(o[j]) / sum);
        i = end;
      }
    });
  }
};

template <typename C>
double Magnitude(C v) {
  if constexpr (std::is_unsigned_v<C>) {
    return static_cast<double>(v);
  } else {
    return static_cast<double>(std::abs(v));
  }
}

// The union of two sorted sparse operands: for each output entry, the
// entries of A and B (-1 where absent).
struct MergedIndices {
  std::vector<int64_t> a, b;
};

MergedIndices Merge(const std::vector<int64_t>& ai, int64_t an,
                    const std::vector<int64_t>& bi, int64_t bn, int64_t rank) {
  MergedIndices m;
  int64_t i = 0, j = 0;
  while (i < an || j < bn) {
    const int c = i >= an   ? 1
                  : j >= bn ? -1
                            : CompareRows(&ai[i * rank], &bi[j * rank], rank);
    m.a.push_back(c <= 0 ? i++ : -1);
    m.b.push_back(c >= 0 ? j++ : -1);
  }
  return m;
}

Status CheckBinaryOperands(OpKernelContext* ctx) {
  for (int k = 0; k < 2; ++k) {
    DFG_RETURN_IF_ERROR(CheckSparseInputs(ctx->input(3 * k),
                                          ctx->input(3 * k + 1),
                                          ctx->input(3 * k + 2), "Input"));
  }
  const std::vector<int64_t> as = IntValues(ctx->input(2));
  const std::vector<int64_t> bs = IntValues(ctx->input(5));
  if (as != bs) {
    return InvalidArgument("Operands' shapes do not match: got {} and {}",
                           VectorString(as), VectorString(bs));
  }
  return Status::Ok();
}

// SparseAdd(a..., b..., thresh) and SparseSparseMaximum/Minimum(a..., b...).
class SparseBinaryOp : public OpKernel {
 public:
  explicit SparseBinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string& op = def().op();
    kind_ = op == "SparseAdd" ? 0 : op == "SparseSparseMaximum" ? 1 : 2;
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, CheckBinaryOperands(ctx));
    const std::vector<int64_t> shape = IntValues(ctx->input(2));
    const int64_t rank = static_cast<int64_t>(shape.size());
    const std::vector<int64_t> ai = IntValues(ctx->input(0));
    const std::vector<int64_t> bi = IntValues(ctx->input(3));
    const int64_t an = ctx->input(1).NumElements();
    const MergedIndices m =
        Merge(ai, an, bi, ctx->input(4).NumElements(), rank);
    Dispatch(NumberTypes(), ctx->input(1).dtype(), [&](auto v) {
      using T = decltype(v);
      Run<T>(ctx, m, ai, bi, shape);
    });
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx, const MergedIndices& m,
           const std::vector<int64_t>& ai, const std::vector<int64_t>& bi,
           const std::vector<int64_t>& shape) {
    const T* av = ctx->input(1).flat<T>().data();
    const T* bv = ctx->input(4).flat<T>().data();
    double thresh = 0;
    if (kind_ == 0) {
      Dispatch(RealTypes(), ctx->input(6).dtype(), [&](auto t) {
        using R = decltype(t);
        thresh = static_cast<double>(Load(ctx->input(6).flat<R>()[0]));
      });
    }
    std::vector<int64_t> rows;  // >= 0: row of A; < 0: -1 - row of B
    std::vector<T> out;
    for (size_t k = 0; k < m.a.size(); ++k) {
      const int64_t i = m.a[k], j = m.b[k];
      if (kind_ == 0) {
        if (i >= 0 && j >= 0) {
          const auto s = Load(av[i]) + Load(bv[j]);
          if (!(thresh <= Magnitude(s))) continue;
          out.push_back(Store<T>(s));
        } else {
          out.push_back(i >= 0 ? av[i] : bv[j]);
        }
      } else if constexpr (!std::is_same_v<T, std::complex<float>> &&
                           !std::is_same_v<T, std::complex<double>>) {
        const auto x = i >= 0 ? Load(av[i]) : decltype(Load(av[0]))(0);
        const auto y = j >= 0 ? Load(bv[j]) : decltype(Load(av[0]))(0);
        out.push_back(Store<T>(kind_ == 1 ? std::max(x, y) : std::min(x, y)));
      }
      rows.push_back(i >= 0 ? i : -1 - j);
    }
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t nnz = static_cast<int64_t>(out.size());
    Tensor *oi = nullptr, *ov = nullptr;
    DFG_OP_REQUIRES_OK(ctx, AllocSparse(ctx, 0, nnz, rank, shape, &oi, &ov));
    int64_t* o = oi->flat<int64_t>().data();
    for (int64_t k = 0; k < nnz; ++k) {
      const int64_t r = rows[k];
      const int64_t* src = r >= 0 ? &ai[r * rank] : &bi[(-1 - r) * rank];
      std::copy(src, src + rank, o + k * rank);
      ov->flat<T>()[k] = out[k];
    }
  }

  int kind_ = 0;
};

class SparseSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& idx_t = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckSparseInputs(idx_t, vals, shape_t, "Input"));
    const std::vector<int64_t> shape = IntValues(shape_t);
    const std::vector<int64_t> start = IntValues(ctx->input(3));
    const std::vector<int64_t> size = IntValues(ctx->input(4));
    const int64_t rank = static_cast<int64_t>(shape.size());
    DFG_OP_REQUIRES(ctx, static_cast<int64_t>(start.size()) == rank,
                    InvalidArgument("Expected start to be a vector of length "
                                    "{} but got length {}",
                                    rank, start.size()));
    DFG_OP_REQUIRES(ctx, static_cast<int64_t>(size.size()) == rank,
                    InvalidArgument("Expected size to be a vector of length "
                                    "{} but got length {}",
                                    rank, size.size()));
    std::vector<int64_t> out_shape(rank);
    for (int64_t d = 0; d < rank; ++d) {
      out_shape[d] = std::max<int64_t>(
          0, start[d] + size[d] < shape[d] ? size[d] : shape[d] - start[d]);
    }
    const std::vector<int64_t> idx = IntValues(idx_t);
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < vals.NumElements(); ++i) {
      bool in = true;
      for (int64_t d = 0; in && d < rank; ++d) {
        const int64_t x = idx[i * rank + d];
        in = x >= start[d] && x < start[d] + size[d];
      }
      if (in) hits.push_back(i);
    }
    const int64_t nnz = static_cast<int64_t>(hits.size());
    Tensor *oi = nullptr, *ov = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       AllocSparse(ctx, 0, nnz, rank, out_shape, &oi, &ov));
    for (int64_t k = 0; k < nnz; ++k) {
      for (int64_t d = 0; d < rank; ++d) {
        oi->flat<int64_t>()[k * rank + d] = idx[hits[k] * rank + d] - start[d];
      }
      CopyElements(vals, hits[k], ov, k, 1);
    }
  }
};

class SparseConcatOp : public OpKernel {
 public:
  explicit SparseConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("concat_dim", &concat_dim_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / 3;
    for (int k = 0; k < n; ++k) {
      DFG_OP_REQUIRES_OK(ctx,
                         CheckSparseInputs(ctx->input(k), ctx->input(n + k),
                                           ctx->input(2 * n + k), "Input"));
    }
    std::vector<int64_t> shape = IntValues(ctx->input(2 * n));
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t cd = concat_dim_ < 0 ? concat_dim_ + rank : concat_dim_;
    DFG_OP_REQUIRES(ctx, cd >= 0 && cd < rank,
                    InvalidArgument("Concat dimension must be in range [{}, "
                                    "{}), got {}",
                                    -rank, rank, concat_dim_));
    std::vector<int64_t> idx;
    std::vector<std::pair<int, int64_t>> src;  // (input, entry)
    int64_t offset = 0;
    for (int k = 0; k < n; ++k) {
      const std::vector<int64_t> s = IntValues(ctx->input(2 * n + k));
      for (int64_t d = 0; d < rank; ++d) {
        DFG_OP_REQUIRES(
            ctx,
            static_cast<int64_t>(s.size()) == rank &&
                (d == cd || s[d] == shape[d]),
            InvalidArgument("Input shapes must match: expected {} for "
                            "dimension {} but got {} at position {}",
                            shape[d], d,
                            d < static_cast<int64_t>(s.size()) ? s[d] : -1, k));
      }
      const std::vector<int64_t> in = IntValues(ctx->input(k));
      const int64_t m = ctx->input(n + k).NumElements();
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t d = 0; d < rank; ++d) {
          idx.push_back(in[i * rank + d] + (d == cd ? offset : 0));
        }
        src.emplace_back(k, i);
      }
      offset += s[cd];
    }
    shape[cd] = offset;
    const int64_t total = static_cast<int64_t>(src.size());
    std::vector<int64_t> all(rank);
    std::iota(all.begin(), all.end(), 0);
    const std::vector<int64_t> perm = SortedBy(idx, total, rank, all);
    Tensor *oi = nullptr, *ov = nullptr;
    DFG_OP_REQUIRES_OK(ctx, AllocSparse(ctx, 0, total, rank, shape, &oi, &ov));
    for (int64_t j = 0; j < total; ++j) {
      std::copy(&idx[perm[j] * rank], &idx[perm[j] * rank] + rank,
                oi->flat<int64_t>().data() + j * rank);
      const auto [k, i] = src[perm[j]];
      CopyElements(ctx->input(n + k), i, ov, j, 1);
    }
  }

 private:
  int64_t concat_dim_ = 0;
};

}  // namespace

void RegisterSparseReduceKernels(KernelRegistry* r) {
  for (const char* op : {"SparseReduceSum", "SparseReduceSumSparse",
                         "SparseReduceMax", "SparseReduceMaxSparse"}) {
    r->Register<SparseReduceOp>(op, {TypeConstraint("T", RealTypes())});
  }
  r->Register<SparseSoftmaxOp>(
      "SparseSoftmax", {TypeConstraint("T", TypeList<float, double, Half>())});
  r->Register<SparseBinaryOp>(
      "SparseAdd",
      {TypeConstraint("T",
                      TypeList<float, double, int64_t, int32_t, int16_t, int8_t,
                               std::complex<float>, std::complex<double>>())});
  for (const char* op : {"SparseSparseMaximum", "SparseSparseMinimum"}) {
    r->Register<SparseBinaryOp>(op, {TypeConstraint("T", RealTypes())});
  }
  r->Register<SparseSliceOp>("SparseSlice");
  r->Register<SparseConcatOp>("SparseConcat");
}

}  // namespace dfg
