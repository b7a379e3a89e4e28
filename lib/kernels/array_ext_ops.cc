// Array kernels that move or pick elements (TensorFlow's reverse_op.cc,
// reverse_sequence_op.cc, roll_op.cc, dynamic_partition_op.cc,
// listdiff_op.cc, unravel_index_op.cc, inplace_ops.cc): Reverse,
// ReverseSequence, Roll, DynamicPartition, ListDiff, UnravelIndex and
// Inplace{Add,Sub,Update}.
#include <unordered_set>

#include "lib/kernels/array_util.h"
#include "lib/kernels/scatter_ops.h"

namespace dfg {
namespace {

// out = in with out index i_d reading in index maps[d][i_d] (any dtype).
void MapInto(ThreadPoolInterface* pool, const Tensor& in,
             const std::vector<std::vector<int64_t>>& maps, Tensor* out) {
  if (out->NumElements() == 0) return;
  const std::vector<int64_t> dims(in.shape().dim_sizes().begin(),
                                  in.shape().dim_sizes().end());
  VisitCopyType(in.dtype(), [&](auto v) {
    using C = decltype(v);
    MapCopy(pool, static_cast<const C*>(in.data()), dims, maps,
            static_cast<C*>(out->data()), C{});
  });
}

class ReverseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& dims = ctx->input(1);
    if (in.dims() == 0) {
      ctx->set_output(0, in);
      return;
    }
    DFG_OP_REQUIRES(
        ctx, dims.dims() == 1,
        InvalidArgument("'dims' must be 1-dimension, not {}", dims.dims()));
    DFG_OP_REQUIRES(
        ctx, in.dims() == dims.dim_size(0),
        InvalidArgument("'dims' must have the same number of values as "
                        "'input' has dimensions. 'input' has {}'dims' has {} "
                        "values",
                        in.dims(), dims.dim_size(0)));
    DFG_OP_REQUIRES(ctx, in.dim_size(0) != 0,
                    InvalidArgument("Invalid input first dimension. Found 0."));
    DFG_OP_REQUIRES(
        ctx, in.dims() <= 8,
        Unimplemented("reverse is not implemented for tensors of rank > 8."));
    std::vector<std::vector<int64_t>> maps(in.dims());
    for (int d = 0; d < in.dims(); ++d) {
      const int64_t n = in.dim_size(d);
      const bool flip = dims.flat<bool>()[d];
      for (int64_t i = 0; i < n; ++i) maps[d].push_back(flip ? n - 1 - i : i);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    MapInto(ctx->intra_op_pool(), in, maps, out);
  }
};

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("seq_dim", &seq_dim_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dim", &batch_dim_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& lens_t = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, Check(in, lens_t));
    const std::vector<int64_t> lens = IntValues(lens_t);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int rank = in.dims();
    std::vector<int64_t> strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d) {
      strides[d] = strides[d + 1] * in.dim_size(d + 1);
    }
    const int64_t n = in.NumElements();
    VisitCopyType(in.dtype(), [&](auto v) {
      using C = decltype(v);
      const C* src = static_cast<const C*>(in.data());
      C* dst = static_cast<C*>(out->data());
      for (int64_t i = 0; i < n; ++i) {
        const int64_t b = i / strides[batch_dim_] % in.dim_size(batch_dim_);
        const int64_t s = i / strides[seq_dim_] % in.dim_size(seq_dim_);
        int64_t j = i;
        if (s < lens[b]) j += (lens[b] - 1 - 2 * s) * strides[seq_dim_];
        dst[i] = src[j];
      }
    });
  }

 private:
  Status Check(const Tensor& in, const Tensor& lens) const {
    if (lens.dims() != 1) {
      return InvalidArgument("seq_lengths must be 1-dim, not {}", lens.dims());
    }
    if (batch_dim_ < 0)
      return InvalidArgument("Invalid batch_dim {}", batch_dim_);
    if (seq_dim_ < 0) return InvalidArgument("Invalid seq_dim {}", seq_dim_);
    if (batch_dim_ == seq_dim_) {
      return InvalidArgument("batch_dim == seq_dim == {}", seq_dim_);
    }
    if (seq_dim_ >= in.dims()) {
      return InvalidArgument("seq_dim must be < input rank ( {} vs. {})",
                             seq_dim_, in.dims());
    }
    if (batch_dim_ >= in.dims()) {
      return InvalidArgument("batch_dim must be < input rank ( {} vs. {})",
                             batch_dim_, in.dims());
    }
    if (lens.NumElements() != in.dim_size(batch_dim_)) {
      return InvalidArgument(
          "Length of seq_lengths != input.dims({}), ({} vs. {})", batch_dim_,
          lens.NumElements(), in.dim_size(batch_dim_));
    }
    const std::vector<int64_t> v = IntValues(lens);
    for (size_t d = 0; d < v.size(); ++d) {
      if (v[d] < 0) return InvalidArgument("seq_lens({}) < 0", d);
      if (v[d] > in.dim_size(seq_dim_)) {
        return InvalidArgument("seq_lens({}) > input.dims({})", d, seq_dim_);
      }
    }
    return Status::Ok();
  }

  int64_t seq_dim_ = 0, batch_dim_ = 0;
};

class RollOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& shift_t = ctx->input(1);
    const Tensor& axis_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, in.dims() >= 1,
                    InvalidArgument("input must be 1-D or higher"));
    DFG_OP_REQUIRES(ctx, shift_t.dims() <= 1,
                    InvalidArgument("shift must be a scalar or a 1-D vector. "
                                    "Found: {}",
                                    shift_t.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, axis_t.dims() <= 1,
                    InvalidArgument("axis must be a scalar or a 1-D vector. "
                                    "Found: {}",
                                    axis_t.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, shift_t.NumElements() == axis_t.NumElements(),
                    InvalidArgument("shift and axis must have the same size"));
    const std::vector<int64_t> shift = IntValues(shift_t);
    const std::vector<int64_t> axis = IntValues(axis_t);
    const int rank = in.dims();
    std::vector<int64_t> total(rank, 0);
    for (size_t i = 0; i < axis.size(); ++i) {
      const int64_t a = axis[i] < 0 ? axis[i] + rank : axis[i];
      DFG_OP_REQUIRES(ctx, a >= 0 && a < rank,
                      InvalidArgument("axis {} is out of range", a));
      total[a] += shift[i];
    }
    std::vector<std::vector<int64_t>> maps(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t n = in.dim_size(d);
      const int64_t s = n == 0 ? 0 : ((total[d] % n) + n) % n;
      for (int64_t i = 0; i < n; ++i) maps[d].push_back((i - s + n) % n);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    MapInto(ctx->intra_op_pool(), in, maps, out);
  }
};

class DynamicPartitionOp : public OpKernel {
 public:
  explicit DynamicPartitionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_partitions", &num_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& parts = ctx->input(1);
    bool prefix = parts.dims() <= data.dims();
    for (int d = 0; prefix && d < parts.dims(); ++d) {
      prefix = parts.dim_size(d) == data.dim_size(d);
    }
    DFG_OP_REQUIRES(
        ctx, prefix,
        InvalidArgument("data.shape must start with partitions.shape, got "
                        "data.shape = {}, partitions.shape = {}",
                        data.shape().DebugString(),
                        parts.shape().DebugString()));
    const std::vector<int64_t> p = IntValues(parts);
    std::vector<int64_t> counts(num_, 0);
    for (size_t i = 0; i < p.size(); ++i) {
      DFG_OP_REQUIRES(
          ctx, p[i] >= 0 && p[i] < num_,
          InvalidArgument("partitions{} = {} is not in [0, {})",
                          SliceString(parts.shape(), i), p[i], num_));
      ++counts[p[i]];
    }
    TensorShape row_shape;
    for (int d = parts.dims(); d < data.dims(); ++d) {
      row_shape.AddDim(data.dim_size(d));
    }
    const int64_t row = row_shape.num_elements();
    std::vector<Tensor*> outs(num_);
    for (int64_t k = 0; k < num_; ++k) {
      TensorShape s = row_shape;
      s.InsertDim(0, counts[k]);
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(k, s, &outs[k]));
    }
    std::vector<int64_t> next(num_, 0);
    for (size_t i = 0; i < p.size() && row > 0; ++i) {
      CopyElements(data, i * row, outs[p[i]], next[p[i]]++ * row, row);
    }
  }

 private:
  int64_t num_ = 1;
};

using ListDiffTypes = decltype(RealTypes() + TypeList<std::string>());

class ListDiffOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    DFG_OP_REQUIRES(ctx, x.dims() == 1,
                    InvalidArgument("x should be a 1D vector."));
    DFG_OP_REQUIRES(ctx, y.dims() == 1,
                    InvalidArgument("y should be a 1D vector."));
    std::vector<int64_t> keep;
    Dispatch(ListDiffTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      std::unordered_set<CalcType<T>> ys;
      for (const T& e : y.flat<T>()) ys.insert(Load(e));
      auto xs = x.flat<T>();
      for (size_t i = 0; i < xs.size(); ++i) {
        if (!ys.count(Load(xs[i]))) keep.push_back(i);
      }
    });
    const int64_t n = static_cast<int64_t>(keep.size());
    Tensor* out = nullptr;
    Tensor* idx = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx));
    for (int64_t i = 0; i < n; ++i) {
      CopyElements(x, keep[i], out, i, 1);
      if (idx->dtype() == tensorflow::DT_INT32) {
        idx->flat<int32_t>()[i] = static_cast<int32_t>(keep[i]);
      } else {
        idx->flat<int64_t>()[i] = keep[i];
      }
    }
  }
};

class UnravelIndexOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& idx_t = ctx->input(0);
    const Tensor& dims_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, dims_t.dims() == 1,
                    InvalidArgument("The indices can only be 1-D, got \"{}\"",
                                    dims_t.shape().DebugString()));
    const std::vector<int64_t> dims = IntValues(dims_t);
    int64_t prod = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      DFG_OP_REQUIRES(ctx, dims[i] != 0,
                      InvalidArgument("Input dims cannot contain a dim of "
                                      "zero, but dims contains zero at index "
                                      "{}",
                                      i));
      DFG_OP_REQUIRES(ctx, dims[i] > 0,
                      InvalidArgument("Input dims cannot be negative. Got dim "
                                      "= {} at index {}",
                                      dims[i], i));
      prod *= dims[i];
    }
    DFG_OP_REQUIRES(ctx, idx_t.dims() <= 1,
                    InvalidArgument("The indices can only be scalar or vector, "
                                    "got \"{}\"",
                                    idx_t.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, idx_t.NumElements() > 0,
                    InvalidArgument("received empty tensor indices: "
                                    "Tensor<type: {} shape: {} values: >",
                                    DataTypeString(idx_t.dtype()),
                                    idx_t.shape().DebugString()));
    const std::vector<int64_t> idx = IntValues(idx_t);
    for (int64_t v : idx) {
      DFG_OP_REQUIRES(ctx, v < prod,
                      InvalidArgument("index is out of bound as with dims"));
    }
    const int64_t k = static_cast<int64_t>(dims.size());
    const int64_t n = static_cast<int64_t>(idx.size());
    TensorShape shape({k});
    if (idx_t.dims() == 1) shape.AddDim(n);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::vector<int64_t> vals(k * n);
    for (int64_t j = 0; j < n; ++j) {
      int64_t v = idx[j];
      for (int64_t d = k - 1; d >= 0; --d) {
        vals[d * n + j] = v % dims[d];
        v /= dims[d];
      }
    }
    for (int64_t i = 0; i < k * n; ++i) {
      if (out->dtype() == tensorflow::DT_INT32) {
        out->flat<int32_t>()[i] = static_cast<int32_t>(vals[i]);
      } else {
        out->flat<int64_t>()[i] = vals[i];
      }
    }
  }
};

// Inplace{Add,Sub,Update}: rows i of a copy of x (i taken modulo x's rows,
// as TensorFlow's kernel wraps them) combined with the rows of v, in order.
template <UpdateOp kOp>
class InplaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& i_t = ctx->input(1);
    const Tensor& v = ctx->input(2);
    DFG_OP_REQUIRES(
        ctx, i_t.dims() == 1,
        InvalidArgument("i must be a vector. {}", i_t.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, x.dims() == v.dims(),
        InvalidArgument("x and v shape doesn't match (ranks "
                        "differ): {} vs. {}",
                        x.shape().DebugString(), v.shape().DebugString()));
    for (int d = 1; d < x.dims(); ++d) {
      DFG_OP_REQUIRES(
          ctx, x.dim_size(d) == v.dim_size(d),
          InvalidArgument("x and v shape doesn't match at index "
                          "{} : {} vs. {}",
                          d, x.shape().DebugString(), v.shape().DebugString()));
    }
    DFG_OP_REQUIRES(
        ctx, x.dims() >= 1 && i_t.dim_size(0) == v.dim_size(0),
        InvalidArgument("i and x shape doesn't match at index 0: "
                        "{} vs. {}",
                        i_t.shape().DebugString(), v.shape().DebugString()));
    Tensor out = x.DeepCopy();
    const std::vector<int64_t> rows = IntValues(i_t);
    const int64_t n = x.dim_size(0);
    const int64_t row = n == 0 ? 0 : x.NumElements() / n;
    VisitScatterType(x.dtype(), [&](auto e) {
      using T = decltype(e);
      T* o = static_cast<T*>(out.data());
      const T* u = static_cast<const T*>(v.data());
      for (size_t k = 0; k < rows.size() && row > 0; ++k) {
        const int64_t r = ((rows[k] % n) + n) % n;
        for (int64_t j = 0; j < row; ++j) {
          ApplyUpdate(kOp, o + r * row + j, u[k * row + j]);
        }
      }
    });
    ctx->set_output(0, std::move(out));
  }
};

}  // namespace

void RegisterArrayExtKernels(KernelRegistry* r) {
  r->Register<ReverseOp>("Reverse", {TypeConstraint("T", AllTypes())});
  r->Register<ReverseSequenceOp>("ReverseSequence",
                                 {TypeConstraint("T", AllTypes())});
  r->Register<RollOp>("Roll", {TypeConstraint("T", AllTypes())});
  r->Register<DynamicPartitionOp>("DynamicPartition",
                                  {TypeConstraint("T", AllTypes())});
  r->Register<ListDiffOp>("ListDiff", {TypeConstraint("T", ListDiffTypes())});
  r->Register<UnravelIndexOp>("UnravelIndex");
  r->Register<InplaceOp<UpdateOp::kAdd>>("InplaceAdd",
                                         {TypeConstraint("T", NumberTypes())});
  r->Register<InplaceOp<UpdateOp::kSub>>("InplaceSub",
                                         {TypeConstraint("T", NumberTypes())});
  r->Register<InplaceOp<UpdateOp::kAssign>>("InplaceUpdate",
                                            {TypeConstraint("T", AllTypes())});
}

}  // namespace dfg
