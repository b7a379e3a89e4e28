// Sparse tensor kernels: a SparseTensor travels as three dense tensors,
// indices (int64 [nnz, rank]), values ([nnz]) and dense_shape (int64
// [rank]), as TensorFlow passes it between ops. This file: SparseToDense,
// SparseReshape, SparseReorder, SparseFillEmptyRows (+Grad),
// SparseTensorDenseAdd and SparseTensorDenseMatMul. The segment reductions
// (embedding_lookup_sparse) are in sparse_segment_ops.cc.
//
// Kernels that only move values copy them as raw elements (CopyElements), so
// they take every dtype as TensorFlow's do.
#include <algorithm>
#include <numeric>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value).
class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_indices", &validate_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& def = ctx->input(3);
    DFG_OP_REQUIRES(
        ctx, indices.dims() <= 2,
        InvalidArgument("sparse_indices should be a scalar, vector, "
                        "or matrix, got shape {}",
                        indices.shape().DebugString()));
    const int64_t n = indices.dims() > 0 ? indices.dim_size(0) : 1;
    const int64_t rank = indices.dims() > 1 ? indices.dim_size(1) : 1;
    DFG_OP_REQUIRES(ctx, shape_t.dims() <= 1,
                    InvalidArgument("output_shape must be rank 0 or 1, got "
                                    "shape {}",
                                    shape_t.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, shape_t.NumElements() == rank,
                    InvalidArgument("output_shape has incorrect number of "
                                    "elements: {} should be: {}",
                                    shape_t.NumElements(), rank));
    DFG_OP_REQUIRES(
        ctx, values.dims() == 0 || values.NumElements() == n,
        InvalidArgument("sparse_values has incorrect shape {}, should be [] "
                        "or [{}]",
                        values.shape().DebugString(), n));
    DFG_OP_REQUIRES(ctx, def.NumElements() == 1,
                    InvalidArgument("default_value should be a scalar."));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, MakeDenseShape(IntValues(shape_t), &shape));
    const std::vector<int64_t> idx = IntValues(indices);
    const SparseIndices ind{idx, n, rank};
    if (validate_) {
      DFG_OP_REQUIRES_OK(ctx, ValidateSparseIndices(ind, shape.dim_sizes()));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    FillWithScalar(def, out);
    const std::vector<int64_t> strides = Strides(shape.dim_sizes());
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t v = ind.at(i, d);
        DFG_OP_REQUIRES(ctx, v >= 0 && v < shape.dim_size(d),
                        InvalidArgument("Indices are not valid (out of bounds)."
                                        "  Shape: {}",
                                        shape.DebugString()));
        offset += v * strides[d];
      }
      CopyElements(values, values.dims() == 0 ? 0 : i, out, offset, 1);
    }
  }

 private:
  bool validate_ = true;
};

class SparseReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& in_shape_t = ctx->input(1);
    const Tensor& target_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, indices.dims() == 2,
                    InvalidArgument("Input indices should be a matrix but "
                                    "received shape {}",
                                    indices.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, in_shape_t.dims() == 1,
                    InvalidArgument("Input shape should be a vector but "
                                    "received shape {}",
                                    in_shape_t.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, target_t.dims() == 1,
                    InvalidArgument("Target shape should be a vector but "
                                    "received shape {}",
                                    target_t.shape().DebugString()));
    const std::vector<int64_t> in_shape = IntValues(in_shape_t);
    const std::vector<int64_t> target = IntValues(target_t);
    std::vector<int64_t> out_shape;
    DFG_OP_REQUIRES_OK(ctx, ReshapeTarget(in_shape, target, &out_shape));
    const int64_t n = indices.dim_size(0);
    const int64_t in_rank = static_cast<int64_t>(in_shape.size());
    const int64_t out_rank = static_cast<int64_t>(out_shape.size());
    DFG_OP_REQUIRES(ctx, indices.dim_size(1) == in_rank,
                    InvalidArgument("Input tensor rank ({}) and indices rank "
                                    "({}) do not match",
                                    in_rank, indices.dim_size(1)));
    Tensor* out_idx = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({n, out_rank}), &out_idx));
    Tensor* out_shape_t = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({out_rank}), &out_shape_t));
    std::copy(out_shape.begin(), out_shape.end(),
              out_shape_t->flat<int64_t>().data());
    const std::vector<int64_t> in_strides = Strides(in_shape);
    const std::vector<int64_t> out_strides = Strides(out_shape);
    const int64_t* in = indices.flat<int64_t>().data();
    int64_t* o = out_idx->flat<int64_t>().data();
    for (int64_t i = 0; i < n; ++i) {
      int64_t id = 0;
      for (int64_t d = 0; d < in_rank; ++d) {
        id += in[i * in_rank + d] * in_strides[d];
      }
      for (int64_t d = 0; d < out_rank; ++d) {
        o[i * out_rank + d] = id / out_strides[d];
        id %= out_strides[d];
      }
    }
  }

 private:
  // TensorFlow's Reshape rules for the target, one -1 allowed.
  static Status ReshapeTarget(const std::vector<int64_t>& in,
                              const std::vector<int64_t>& target,
                              std::vector<int64_t>* out) {
    int64_t dense_size = 1;
    for (int64_t d : in) dense_size *= d;
    int64_t product = 1, unknown = -1;
    for (size_t d = 0; d < target.size(); ++d) {
      const int64_t size = target[d];
      if (size == -1) {
        if (unknown != -1) {
          return InvalidArgument(
              "only one output dimension may be -1, not both {} and {}",
              unknown, d);
        }
        unknown = static_cast<int64_t>(d);
      } else if (size < 0) {
        return InvalidArgument("size {} must be non-negative, not {}", d, size);
      } else {
        product *= size;
      }
    }
    *out = target;
    std::string in_str =
        TensorShape(std::span<const int64_t>(in)).DebugString();
    if (unknown != -1) {
      if (product <= 0 || dense_size % product != 0) {
        return InvalidArgument(
            "Input to reshape is a SparseTensor with {} dense values, but the "
            "requested shape requires a multiple of {}. input_shape={} "
            "output_shape={}",
            dense_size, product, in_str, PartialString(target));
      }
      (*out)[unknown] = dense_size / product;
      product *= (*out)[unknown];
    }
    if (product != dense_size) {
      return InvalidArgument(
          "Input to reshape is a tensor with {} dense values, but the "
          "requested shape has {}. input_shape={} output_shape={}",
          dense_size, product, in_str, PartialString(*out));
    }
    return Status::Ok();
  }
  static std::string PartialString(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) s += ",";
      s += v[i] < 0 ? "?" : std::to_string(v[i]);
    }
    return s + "]";
  }
};

class SparseReorderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckSparseInputs(indices, values, shape, "Input"));
    const int64_t n = indices.dim_size(0), rank = indices.dim_size(1);
    const int64_t* in = indices.flat<int64_t>().data();
    std::vector<int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      return std::lexicographical_compare(in + a * rank, in + (a + 1) * rank,
                                          in + b * rank, in + (b + 1) * rank);
    });
    Tensor* out_idx = nullptr;
    Tensor* out_val = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, indices.shape(), &out_idx));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, values.shape(), &out_val));
    for (int64_t i = 0; i < n; ++i) {
      CopyElements(indices, perm[i] * rank, out_idx, i * rank, rank);
      CopyElements(values, perm[i], out_val, i, 1);
    }
  }
};

class SparseFillEmptyRowsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    const Tensor& def = ctx->input(3);
    DFG_OP_REQUIRES_OK(ctx, CheckInputs(indices, values, shape_t, def));
    const int64_t n = indices.dim_size(0), rank = indices.dim_size(1);
    const int64_t rows = shape_t.flat<int64_t>()[0];
    const int64_t* in = indices.flat<int64_t>().data();
    std::vector<int64_t> count(std::max<int64_t>(rows, 0), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = in[i * rank];
      DFG_OP_REQUIRES(
          ctx, row >= 0 && row < rows,
          InvalidArgument("indices({}, 0) is invalid: {} >= {}", i, row, rows));
      ++count[row];
    }
    Tensor* empty = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(2, TensorShape({rows}), &empty));
    // start[r]: where row r's entries begin in the output; an empty row
    // takes one slot.
    std::vector<int64_t> start(rows + 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
      empty->flat<bool>()[r] = count[r] == 0;
      start[r + 1] = start[r] + std::max<int64_t>(count[r], 1);
    }
    const int64_t total = start[rows];
    Tensor *out_idx = nullptr, *out_val = nullptr, *rev = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({total, rank}), &out_idx));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({total}), &out_val));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({n}), &rev));
    int64_t* oi = out_idx->flat<int64_t>().data();
    std::vector<int64_t> filled(rows, 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = in[i * rank];
      const int64_t pos = start[row] + filled[row]++;
      std::copy(in + i * rank, in + (i + 1) * rank, oi + pos * rank);
      CopyElements(values, i, out_val, pos, 1);
      rev->flat<int64_t>()[i] = pos;
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (count[r] != 0) continue;
      std::fill(oi + start[r] * rank, oi + (start[r] + 1) * rank, 0);
      oi[start[r] * rank] = r;
      CopyElements(def, 0, out_val, start[r], 1);
    }
  }

 private:
  static Status CheckInputs(const Tensor& indices, const Tensor& values,
                            const Tensor& shape, const Tensor& def) {
    if (shape.dims() != 1) {
      return InvalidArgument("dense_shape must be a vector, saw: {}",
                             shape.shape().DebugString());
    }
    if (indices.dims() != 2) {
      return InvalidArgument("indices must be a matrix, saw: {}",
                             indices.shape().DebugString());
    }
    if (values.dims() != 1) {
      return InvalidArgument("values must be a vector, saw: {}",
                             values.shape().DebugString());
    }
    if (def.dims() != 0) {
      return InvalidArgument("default_value must be a scalar, saw: {}",
                             def.shape().DebugString());
    }
    if (indices.dim_size(0) != values.dim_size(0)) {
      return InvalidArgument(
          "The length of `values` ({}) must match the first dimension of "
          "`indices` ({}).",
          values.dim_size(0), indices.dim_size(0));
    }
    if (indices.dim_size(1) != shape.dim_size(0)) {
      return InvalidArgument(
          "The length of `dense_shape` ({}) must match the second dimension "
          "of `indices` ({}).",
          shape.dim_size(0), indices.dim_size(1));
    }
    if (shape.NumElements() == 0) {
      return InvalidArgument("Dense shape cannot be empty.");
    }
    return Status::Ok();
  }
};

class SparseFillEmptyRowsGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& rev = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    DFG_OP_REQUIRES(ctx, rev.dims() == 1,
                    InvalidArgument("reverse_index_map must be a vector, saw: "
                                    "{}",
                                    rev.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, grad.dims() == 1,
                    InvalidArgument("grad_values must be a vector, saw: {}",
                                    grad.shape().DebugString()));
    const int64_t n = rev.dim_size(0), full = grad.dim_size(0);
    Tensor *d_values = nullptr, *d_default = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({n}), &d_values));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &d_default));
    std::vector<bool> visited(full, false);
    const int64_t* r = rev.flat<int64_t>().data();
    for (int64_t i = 0; i < n; ++i) {
      DFG_OP_REQUIRES(ctx, r[i] >= 0 && r[i] < full,
                      InvalidArgument("Elements in reverse index must be in "
                                      "[0, {}) but got {}",
                                      full, r[i]));
      visited[r[i]] = true;
      CopyElements(grad, r[i], d_values, i, 1);
    }
    Dispatch(NumberTypes(), grad.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* g = grad.flat<T>().data();
      CalcType<T> sum = CalcType<T>(0);
      for (int64_t j = 0; j < full; ++j) {
        if (!visited[j]) sum = Load(Store<T>(sum + Load(g[j])));
      }
      d_default->flat<T>()[0] = Store<T>(sum);
    });
  }
};

// SparseTensorDenseAdd(a_indices, a_values, a_shape, b) = b + A.
class SparseTensorDenseAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    const Tensor& b = ctx->input(3);
    DFG_OP_REQUIRES(
        ctx, indices.dims() == 2 && values.dims() == 1 && shape_t.dims() == 1,
        InvalidArgument("Inputs a_indices, a_values and a_shape "
                        "must be a matrix, a vector and a "
                        "vector"));
    const std::vector<int64_t> shape = IntValues(shape_t);
    DFG_OP_REQUIRES(
        ctx, TensorShape(std::span<const int64_t>(shape)) == b.shape(),
        InvalidArgument("Dimension mismatch: a_shape {} vs. b.shape() {}",
                        VectorString(shape), b.shape().DebugString()));
    Tensor out = b.DeepCopy();
    const int64_t n = indices.dim_size(0), rank = indices.dim_size(1);
    const std::vector<int64_t> idx = IntValues(indices);
    const std::vector<int64_t> strides = Strides(shape);
    Dispatch(NumberTypes(), b.dtype(), [&](auto v) {
      using T = decltype(v);
      T* o = out.flat<T>().data();
      const T* a = values.flat<T>().data();
      for (int64_t i = 0; i < n; ++i) {
        int64_t offset = 0;
        for (int64_t d = 0; d < rank; ++d) {
          const int64_t x = idx[i * rank + d];
          if (x < 0 || x >= shape[d]) {
            ctx->SetStatus(InvalidArgument(
                "Sparse tensor has an invalid index on dimension {}: "
                "a_indices({}, {}) = {}, dense tensor shape: {}",
                d, i, d, x, VectorString(shape)));
            return;
          }
          offset += x * strides[d];
        }
        o[offset] = Store<T>(Load(o[offset]) + Load(a[i]));
      }
    });
    if (ctx->status().ok()) ctx->set_output(0, std::move(out));
  }
};

}  // namespace

void RegisterSparseSegmentKernels(KernelRegistry* r);
void RegisterSparseMathKernels(KernelRegistry* r);
void RegisterRaggedKernels(KernelRegistry* r);
void RegisterSparseExtraKernels(KernelRegistry* r);
void RegisterSparseSerializeKernels(KernelRegistry* r);
void RegisterSetKernels(KernelRegistry* r);

void RegisterSparseKernels(KernelRegistry* r) {
  r->Register<SparseToDenseOp>("SparseToDense");
  r->Register<SparseReshapeOp>("SparseReshape");
  r->Register<SparseReorderOp>("SparseReorder");
  r->Register<SparseFillEmptyRowsOp>("SparseFillEmptyRows");
  for (const char* op :
       {"SparseFillEmptyRowsGrad", "RaggedFillEmptyRowsGrad"}) {
    r->Register<SparseFillEmptyRowsGradOp>(
        op, {TypeConstraint("T", NumberTypes())});
  }
  r->Register<SparseTensorDenseAddOp>("SparseTensorDenseAdd",
                                      {TypeConstraint("T", NumberTypes())});
  RegisterSparseSegmentKernels(r);
  RegisterSparseMathKernels(r);
  RegisterRaggedKernels(r);
  RegisterSparseExtraKernels(r);
  RegisterSparseSerializeKernels(r);
  RegisterSetKernels(r);
}

}  // namespace dfg
