// Sparse segment reductions (what tf.nn.embedding_lookup_sparse and
// feature columns' "sum"/"mean"/"sqrtn" combiners emit) and their
// gradients, plus SparseTensorDenseMatMul.
//
// SparseSegment{Sum,Mean,SqrtN}[WithNumSegments](data, indices,
// segment_ids[, num_segments]): output row s reduces the data rows
// indices[i] with segment_ids[i] == s; rows no id names are 0. The sums run
// in TensorFlow's order (a first block of num % 8 rows, or 8/9, then blocks
// of 8 summed before they are added), the mean/sqrtn scaling multiplies by
// the reciprocal below 10 rows and divides from 10 on, as its kernel does;
// half and bfloat16 accumulate in float.
#include <cmath>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

enum class Reduce { kSum, kMean, kSqrtN };

Reduce ReduceOf(std::string_view op) {
  if (op.find("Mean") != std::string_view::npos) return Reduce::kMean;
  if (op.find("SqrtN") != std::string_view::npos) return Reduce::kSqrtN;
  return Reduce::kSum;
}

// One segment: rows idx[0..num) of `in` ([rows, cols]) into out[cols].
// Returns the offset of an out-of-range index, or -1.
template <typename T>
int64_t ReduceSegment(const T* in, int64_t rows, int64_t cols,
                      const int64_t* idx, int64_t num, Reduce op,
                      CalcType<T>* out) {
  using C = CalcType<T>;
  for (int64_t i = 0; i < num; ++i) {
    if (idx[i] < 0 || idx[i] >= rows) return i;
  }
  const auto row = [&](int64_t i) { return in + idx[i] * cols; };
  if (num == 1) {
    for (int64_t c = 0; c < cols; ++c) out[c] = Load(row(0)[c]);
    return -1;
  }
  int64_t first = num & 7;
  if (first == 0) first = 8;
  if (first == 1) first = 9;
  C m = C(1);
  if (op == Reduce::kMean && num < 10) m = C(num);
  if (op == Reduce::kSqrtN && num < 10) m = C(std::sqrt(num));
  const C scale = C(1) / m;
  for (int64_t c = 0; c < cols; ++c) {
    C s = Load(row(0)[c]);
    for (int64_t i = 1; i < first; ++i) s += Load(row(i)[c]);
    out[c] = s * scale;
  }
  for (int64_t r = first; r < num; r += 8) {
    for (int64_t c = 0; c < cols; ++c) {
      C s = Load(row(r)[c]);
      for (int64_t i = 1; i < 8; ++i) s += Load(row(r + i)[c]);
      out[c] += s;
    }
  }
  if (num >= 10 && op != Reduce::kSum) {
    const C d = op == Reduce::kMean ? C(num) : C(std::sqrt(num));
    for (int64_t c = 0; c < cols; ++c) out[c] = out[c] / d;
  }
  return -1;
}

Status ValidateSegmentInputs(OpKernelContext* ctx, bool has_num_segments) {
  if (has_num_segments) {
    const Tensor& n = ctx->input(3);
    if (n.dims() != 0) {
      return InvalidArgument("num_segments should be a scalar, not shape {}",
                             n.shape().DebugString());
    }
    if (IntValues(n)[0] < 0) {
      return InvalidArgument("segment ids must be >= 0");
    }
  }
  const Tensor& indices = ctx->input(1);
  const Tensor& ids = ctx->input(2);
  if (indices.dims() != 1)
    return InvalidArgument("indices should be a vector.");
  if (ids.dims() != 1)
    return InvalidArgument("segment_ids should be a vector.");
  if (indices.NumElements() != ids.NumElements()) {
    return InvalidArgument("segment_ids and indices should have same size.");
  }
  if (ctx->input(0).dims() < 1) {
    return InvalidArgument("Shape must be at least rank 1");
  }
  return Status::Ok();
}

class SparseSegmentReductionOp : public OpKernel {
 public:
  explicit SparseSegmentReductionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        op_(ReduceOf(def().op())),
        has_num_segments_(def().op().ends_with("WithNumSegments")) {}

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, ValidateSegmentInputs(ctx, has_num_segments_));
    const Tensor& data = ctx->input(0);
    const std::vector<int64_t> idx = IntValues(ctx->input(1));
    const std::vector<int64_t> ids = IntValues(ctx->input(2));
    const int64_t n = static_cast<int64_t>(idx.size());
    const int64_t last_plus_one = n > 0 ? ids[n - 1] + 1 : 0;
    int64_t rows = last_plus_one;
    if (has_num_segments_) {
      rows = IntValues(ctx->input(3))[0];
      DFG_OP_REQUIRES(ctx, rows >= last_plus_one,
                      InvalidArgument("segment ids must be < num_segments"));
    }
    DFG_OP_REQUIRES(ctx, rows >= 0,
                    InvalidArgument("segment ids must be >= 0"));
    TensorShape shape = data.shape();
    shape.set_dim(0, rows);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->TotalBytes() > 0) std::memset(out->data(), 0, out->TotalBytes());
    if (n == 0) return;
    DFG_OP_REQUIRES(ctx, rows > 0, InvalidArgument("segment ids must be >= 0"));
    Dispatch(RealTypes(), data.dtype(), [&](auto v) {
      using T = decltype(v);
      Run<T>(ctx, data, idx, ids, rows, out);
    });
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx, const Tensor& data,
           const std::vector<int64_t>& idx, const std::vector<int64_t>& ids,
           int64_t rows, Tensor* out) {
    const int64_t n = static_cast<int64_t>(idx.size());
    const int64_t in_rows = data.dim_size(0);
    const int64_t cols =
        in_rows == 0 ? data.NumElements() : data.NumElements() / in_rows;
    std::vector<CalcType<T>> acc(cols);
    T* o = out->flat<T>().data();
    int64_t start = 0;
    while (start < n) {
      const int64_t id = ids[start];
      int64_t end = start + 1;
      while (end < n && ids[end] == id) ++end;
      DFG_OP_REQUIRES(ctx, end == n || id < ids[end],
                      InvalidArgument("segment ids are not increasing"));
      DFG_OP_REQUIRES(ctx, id >= 0 && id < rows,
                      InvalidArgument("Segment id {} out of range [0, {}), "
                                      "possibly because 'segment_ids' input "
                                      "is not sorted.",
                                      id, rows));
      const int64_t bad =
          ReduceSegment<T>(data.flat<T>().data(), in_rows, cols,
                           idx.data() + start, end - start, op_, acc.data());
      DFG_OP_REQUIRES(ctx, bad < 0,
                      InvalidArgument("Bad: indices[{}] == {} out of range "
                                      "[0, {})",
                                      start + bad, idx[start + bad], in_rows));
      for (int64_t c = 0; c < cols; ++c) o[id * cols + c] = Store<T>(acc[c]);
      start = end;
    }
  }

  Reduce op_;
  bool has_num_segments_;
};

// SparseSegment{Sum,Mean,SqrtN}Grad(grad, indices, segment_ids,
// output_dim0): output[indices[i]] += grad[segment_ids[i]] * scale, scale
// 1, 1/count or 1/sqrt(count) of the segment (computed in double).
class SparseSegmentGradOp : public OpKernel {
 public:
  explicit SparseSegmentGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), op_(ReduceOf(def().op())) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const std::vector<int64_t> idx = IntValues(ctx->input(1));
    const std::vector<int64_t> ids = IntValues(ctx->input(2));
    DFG_OP_REQUIRES(ctx, ctx->input(1).dims() == 1,
                    InvalidArgument("indices should be a vector."));
    DFG_OP_REQUIRES(ctx, ctx->input(2).dims() == 1,
                    InvalidArgument("segment_ids should be a vector."));
    DFG_OP_REQUIRES(ctx, ctx->input(3).dims() == 0,
                    InvalidArgument("output_dim0 should be a scalar."));
    DFG_OP_REQUIRES(ctx, idx.size() == ids.size(),
                    InvalidArgument("segment_ids and indices should have same "
                                    "size."));
    const int64_t m = IntValues(ctx->input(3))[0];
    DFG_OP_REQUIRES(ctx, grad.dims() >= 1,
                    InvalidArgument("Shape must be at least rank 1"));
    const int64_t segs = grad.dim_size(0);
    TensorShape shape = grad.shape();
    shape.set_dim(0, m);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->TotalBytes() > 0) std::memset(out->data(), 0, out->TotalBytes());
    std::vector<double> scale(segs, 0.0);
    for (int64_t id : ids) {
      DFG_OP_REQUIRES(
          ctx, id >= 0 && id < segs,
          InvalidArgument("Segment id {} out of range [0, {}).", id, segs));
      scale[id] += 1;
    }
    for (double& s : scale) {
      s = op_ == Reduce::kMean    ? 1.0 / std::max(s, 1.0)
          : op_ == Reduce::kSqrtN ? 1.0 / std::sqrt(std::max(s, 1.0))
                                  : 1.0;
    }
    for (int64_t i : idx) {
      DFG_OP_REQUIRES(ctx, i >= 0 && i < m,
                      InvalidArgument("Index {} out of range [0, {}).", i, m));
    }
    const int64_t cols = segs == 0 ? 0 : grad.NumElements() / segs;
    Dispatch(FloatTypes(), grad.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* g = grad.flat<T>().data();
      T* o = out->flat<T>().data();
      std::vector<bool> touched(m, false);
      for (size_t i = 0; i < idx.size(); ++i) {
        const auto s = Load(static_cast<T>(Store<T>(scale[ids[i]])));
        for (int64_t c = 0; c < cols; ++c) {
          auto x = Load(g[ids[i] * cols + c]);
          if (s != 1) x = Load(Store<T>(x * s));
          T& dst = o[idx[i] * cols + c];
          dst = touched[idx[i]] ? Store<T>(Load(dst) + x) : Store<T>(x);
        }
        touched[idx[i]] = true;
      }
    });
  }

 private:
  Reduce op_;
};

}  // namespace

void RegisterSparseSegmentKernels(KernelRegistry* r) {
  for (const char* op :
       {"SparseSegmentSum", "SparseSegmentSumWithNumSegments"}) {
    r->Register<SparseSegmentReductionOp>(op,
                                          {TypeConstraint("T", RealTypes())});
  }
  for (const char* op :
       {"SparseSegmentMean", "SparseSegmentMeanWithNumSegments",
        "SparseSegmentSqrtN", "SparseSegmentSqrtNWithNumSegments"}) {
    r->Register<SparseSegmentReductionOp>(op,
                                          {TypeConstraint("T", FloatTypes())});
  }
  for (const char* op : {"SparseSegmentSumGrad", "SparseSegmentMeanGrad",
                         "SparseSegmentSqrtNGrad"}) {
    r->Register<SparseSegmentGradOp>(op, {TypeConstraint("T", FloatTypes())});
  }
}

}  // namespace dfg
