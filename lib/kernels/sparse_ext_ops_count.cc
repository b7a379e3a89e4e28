// Counts with a sparse result (tf.sparse.bincount): DenseCountSparseOutput,
// SparseCountSparseOutput, RaggedCountSparseOutput — per batch row, the
// count (or weight sum, or 1 with binary_output) of each value in
// [0, maxlength), as a sparse [rows, size] (or [size] for 1-D input) tensor
// whose entries are sorted by value. And the gradients that route values
// between sparse tensors: SparseAddGrad, SparseSliceGrad and
// SparseSegment{Sum,Mean,SqrtN}GradV2 (only the rows the indices touch).
#include <algorithm>
#include <complex>
#include <cstring>
#include <map>
#include <vector>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

// Per batch row: value -> accumulated weight (ordered by value, as
// TensorFlow sorts its hash maps before writing).
template <typename W>
using BatchCounts = std::vector<std::map<int64_t, W>>;

struct CountAttrs {
  int64_t minlength = -1, maxlength = -1;
  bool binary = false;
};

// Adds value v (weight w, or 1) of row b; tracks the largest value kept.
template <typename W>
void CountOne(const CountAttrs& a, int64_t v, const W* w, int64_t b,
              BatchCounts<W>* counts, int64_t* max_value) {
  if (v < 0 || (a.maxlength > 0 && v >= a.maxlength)) return;
  W& slot = (*counts)[b][v];
  if (a.binary) {
    slot = W(1);
  } else if (w != nullptr) {
    slot += *w;
  } else {
    slot += W(1);
  }
  *max_value = std::max(*max_value, v);
}

template <typename W>
void EmitCounts(OpKernelContext* ctx, const CountAttrs& a,
                const BatchCounts<W>& counts, int64_t max_value, bool is_1d) {
  const int64_t size =
      a.maxlength > 0 ? a.maxlength : std::max(max_value + 1, a.minlength);
  int64_t total = 0;
  for (const auto& m : counts) total += static_cast<int64_t>(m.size());
  const int64_t rank = is_1d ? 1 : 2;
  Tensor *ind = nullptr, *vals = nullptr;
  std::vector<int64_t> shape = {static_cast<int64_t>(counts.size()), size};
  if (is_1d) shape = {size};
  DFG_OP_REQUIRES_OK(ctx, AllocSparse(ctx, 0, total, rank, shape, &ind, &vals));
  int64_t* o = ind->flat<int64_t>().data();
  W* ov = vals->flat<W>().data();
  int64_t k = 0;
  for (size_t b = 0; b < counts.size(); ++b) {
    for (const auto& [v, w] : counts[b]) {
      if (!is_1d) *o++ = static_cast<int64_t>(b);
      *o++ = v;
      ov[k++] = w;
    }
  }
}

Status CheckWeights(const Tensor& weights, const Tensor& values,
                    const char* what) {
  if (weights.NumElements() == 0 || weights.shape() == values.shape()) {
    return Status::Ok();
  }
  return InvalidArgument(
      "Weights and {} must have the same shape. Weight shape: {}; {} shape: {}",
      what, weights.shape().DebugString(), what, values.shape().DebugString());
}

// TensorFlow 2.21 refuses negative values before any other check.
Status CheckNonNegative(const Tensor& values) {
  for (int64_t v : IntValues(values)) {
    if (v < 0) return InvalidArgument("Input values must all be non-negative");
  }
  return Status::Ok();
}

class CountOpBase : public OpKernel {
 public:
  explicit CountOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("minlength", &attrs_.minlength));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("maxlength", &attrs_.maxlength));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &attrs_.binary));
  }

 protected:
  // Counts `values` (flat) whose row is row_of(i) into `rows` rows.
  template <typename RowOf>
  void Count(OpKernelContext* ctx, const Tensor& values, const Tensor& weights,
             int64_t rows, bool is_1d, RowOf row_of) {
    const std::vector<int64_t> v = IntValues(values);
    const bool use_w = weights.NumElements() > 0;
    Dispatch(TypeList<int32_t, int64_t, float, double>(), weights.dtype(),
             [&](auto zero) {
               using W = decltype(zero);
               BatchCounts<W> counts(rows);
               int64_t max_value = 0;
               const W* w = weights.flat<W>().data();
               for (size_t i = 0; i < v.size(); ++i) {
                 CountOne(attrs_, v[i], use_w ? w + i : nullptr,
                          row_of(static_cast<int64_t>(i)), &counts, &max_value);
               }
               EmitCounts(ctx, attrs_, counts, max_value, is_1d);
             });
  }
  CountAttrs attrs_;
};

class DenseCountOp : public CountOpBase {
 public:
  using CountOpBase::CountOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& weights = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckNonNegative(data));
    DFG_OP_REQUIRES(ctx, data.dims() == 1 || data.dims() == 2,
                    InvalidArgument("Input must be a 1 or 2-dimensional "
                                    "tensor. Got: {}",
                                    data.shape().DebugString()));
    DFG_OP_REQUIRES_OK(ctx, CheckWeights(weights, data, "data"));
    const bool is_1d = data.dims() == 1;
    DFG_OP_REQUIRES(
        ctx, is_1d || data.dim_size(0) != 0,
        InvalidArgument("Invalid input: Shapes dimension cannot be 0."));
    const int64_t rows = is_1d ? 1 : data.dim_size(0);
    const int64_t width = is_1d ? data.NumElements() : data.dim_size(1);
    Count(ctx, data, weights, rows, is_1d,
          [&](int64_t i) { return width == 0 ? 0 : i / width; });
  }
};

class SparseCountOp : public CountOpBase {
 public:
  using CountOpBase::CountOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    const Tensor& weights = ctx->input(3);
    DFG_OP_REQUIRES_OK(ctx, CheckNonNegative(values));
    DFG_OP_REQUIRES_OK(ctx, Check(indices, values, shape));
    DFG_OP_REQUIRES_OK(ctx, CheckWeights(weights, values, "values"));
    const std::vector<int64_t> dims = IntValues(shape);
    const bool is_1d = dims.size() == 1;
    const int64_t rows = is_1d ? 1 : dims[0];
    DFG_OP_REQUIRES(ctx, rows > 0 && rows < (int64_t{1} << 31) - 1,
                    InvalidArgument("Cannot allocate {} batches, is the dense "
                                    "shape too wide?",
                                    rows));
    const int64_t* idx = indices.flat<int64_t>().data();
    const int64_t rank = indices.dim_size(1);
    Count(ctx, values, weights, rows, is_1d,
          [&](int64_t i) { return is_1d ? 0 : idx[i * rank]; });
  }

 private:
  static Status Check(const Tensor& indices, const Tensor& values,
                      const Tensor& shape) {
    if (indices.dims() != 2) {
      return InvalidArgument(
          "Input indices must be a 2-dimensional tensor. Got: {}",
          indices.shape().DebugString());
    }
    if (values.dims() != 1) {
      return InvalidArgument("Input values must be a vector. Got: {}",
                             values.shape().DebugString());
    }
    if (shape.dims() != 1) {
      return InvalidArgument("Input shape must be a vector. Got: {}",
                             shape.shape().DebugString());
    }
    if (values.dim_size(0) != indices.dim_size(0)) {
      return InvalidArgument(
          "Number of values must match first dimension of indices.Got {} "
          "values, indices shape: {}",
          values.dim_size(0), indices.shape().DebugString());
    }
    if (shape.dim_size(0) != indices.dim_size(1)) {
      return InvalidArgument(
          "Number of dimensions must match second dimension of indices.Got "
          "{} dimensions, indices shape: {}",
          shape.dim_size(0), indices.shape().DebugString());
    }
    if (shape.NumElements() == 0) {
      return InvalidArgument(
          "The shape argument requires at least one element.");
    }
    const std::vector<int64_t> dims = IntValues(shape);
    const int64_t* idx = indices.flat<int64_t>().data();
    const int64_t rank = indices.dim_size(1);
    for (int64_t i = 0; i < indices.dim_size(0); ++i) {
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t x = idx[i * rank + d];
        if (x < 0 || x >= dims[d]) {
          return InvalidArgument(
              "Invalid index value at {}: dimension {} has value {} which is "
              "not in [0, {}) (as given by dense shape {}",
              i, d, x, dims[d], shape.DebugString());
        }
      }
    }
    return Status::Ok();
  }
};

class RaggedCountOp : public CountOpBase {
 public:
  using CountOpBase::CountOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& splits_t = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckNonNegative(values));
    DFG_OP_REQUIRES_OK(ctx, CheckWeights(weights, values, "values"));
    const std::vector<int64_t> splits = IntValues(splits_t);
    const int64_t rows = static_cast<int64_t>(splits.size()) - 1;
    const int64_t n = values.NumElements();
    DFG_OP_REQUIRES(ctx, rows > 0,
                    InvalidArgument("Must provide at least 2 elements for the "
                                    "splits argument"));
    DFG_OP_REQUIRES(
        ctx, splits[0] == 0,
        InvalidArgument("Splits must start with 0, not with {}", splits[0]));
    DFG_OP_REQUIRES(ctx, splits[rows] == n,
                    InvalidArgument("Splits must end with the number of "
                                    "values, got {} instead of {}",
                                    splits[rows], n));
    int64_t row = 0;
    Count(ctx, values, weights, rows, false, [&](int64_t i) {
      while (i >= splits[row]) ++row;
      return row - 1;
    });
  }
};

// ---------------------------------------------------------------------------
// Gradients.

void ZeroFill(Tensor* t) {
  if (t->TotalBytes() > 0) std::memset(t->data(), 0, t->TotalBytes());
}

class SparseAddGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& a = ctx->input(1);
    const Tensor& b = ctx->input(2);
    const Tensor& sum = ctx->input(3);
    DFG_OP_REQUIRES(
        ctx, a.dims() == 2 && b.dims() == 2 && sum.dims() == 2,
        InvalidArgument("Input indices should be matrices but received "
                        "shapes: {} and {} and {}",
                        a.shape().DebugString(), b.shape().DebugString(),
                        sum.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, grad.dims() == 1,
                    InvalidArgument("Input backprop_val_grad should be a "
                                    "vector but received shape: {}",
                                    grad.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, a.dim_size(1) == b.dim_size(1) && b.dim_size(1) == sum.dim_size(1),
        InvalidArgument("The densified operands should have the same ndims; "
                        "for A, B, sum got: {}{}{}",
                        a.dim_size(1), b.dim_size(1), sum.dim_size(1)));
    DFG_OP_REQUIRES(
        ctx, grad.NumElements() == sum.dim_size(0),
        InvalidArgument("# elements of backprop_val_grad and # rows of "
                        "sum_indices should match (#nnz of sum): got {} and {}",
                        grad.NumElements(), sum.dim_size(0)));
    Tensor *ga = nullptr, *gb = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({a.dim_size(0)}), &ga));
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({b.dim_size(0)}), &gb));
    ZeroFill(ga);
    ZeroFill(gb);
    Merge(grad, a, b, sum, ga, gb);
  }

 private:
  // Walks A, B and the sum in index order: an A (B) entry equal to the
  // current sum entry takes its gradient; the sum advances once neither A nor
  // B is behind it.
  static void Merge(const Tensor& grad, const Tensor& a, const Tensor& b,
                    const Tensor& sum, Tensor* ga, Tensor* gb) {
    const int64_t rank = a.dim_size(1);
    const int64_t na = a.dim_size(0), nb = b.dim_size(0), ns = sum.dim_size(0);
    const int64_t* ai = a.flat<int64_t>().data();
    const int64_t* bi = b.flat<int64_t>().data();
    const int64_t* si = sum.flat<int64_t>().data();
    int64_t i = 0, j = 0, k = 0;
    // Returns false when the operand's entry is behind the sum's.
    auto step = [&](const int64_t* x, int64_t& p, Tensor* g) {
      const int c = CompareRows(x + p * rank, si + k * rank, rank);
      if (c == 0) CopyElements(grad, k, g, p, 1);
      if (c <= 0) ++p;
      return c >= 0;
    };
    while (i < na && j < nb && k < ns) {
      const bool a_geq = step(ai, i, ga);
      const bool b_geq = step(bi, j, gb);
      if (a_geq && b_geq) ++k;
    }
    while (i < na && k < ns) {
      if (step(ai, i, ga)) ++k;
    }
    while (j < nb && k < ns) {
      if (step(bi, j, gb)) ++k;
    }
  }
};

}  // namespace

void RegisterSparseGradV2Kernels(KernelRegistry* r);

void RegisterSparseCountKernels(KernelRegistry* r) {
  r->Register<DenseCountOp>("DenseCountSparseOutput");
  r->Register<SparseCountOp>("SparseCountSparseOutput");
  r->Register<RaggedCountOp>("RaggedCountSparseOutput");
  r->Register<SparseAddGradOp>(
      "SparseAddGrad",
      {TypeConstraint("T",
                      TypeList<float, double, int64_t, int32_t, int16_t, int8_t,
                               std::complex<float>, std::complex<double>>())});
  RegisterSparseGradV2Kernels(r);
}

}  // namespace dfg
