// Ragged tensor kernels: a RaggedTensor travels as its nested row_splits
// (one int32/int64 vector per ragged dimension, outermost first) and its
// flat dense values, as TensorFlow passes it between ops. RaggedRange,
// RaggedGather, RaggedFillEmptyRows, and RaggedTensorToVariant /
// RaggedTensorFromVariant (a ragged tensor, or each row of a batch of them,
// as a DT_VARIANT: what tf.map_fn over ragged inputs emits).
#include <algorithm>
#include <cmath>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/variant.h"

namespace dfg {
namespace {

// Output `i` = int32 or int64 vector `v` (the op's Tsplits).
Status SetSplits(OpKernelContext* ctx, int i, const std::vector<int64_t>& v,
                 DataType dtype) {
  Tensor t(dtype, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t k = 0; k < v.size(); ++k) {
    if (dtype == tensorflow::DT_INT32) {
      t.flat<int32_t>()[k] = static_cast<int32_t>(v[k]);
    } else {
      t.flat<int64_t>()[k] = v[k];
    }
  }
  ctx->set_output(i, std::move(t));
  return Status::Ok();
}

// Rows [begin, end) of `values` (dim 0) as a new tensor.
StatusOr<Tensor> SliceRows(const Tensor& values, int64_t begin, int64_t end) {
  TensorShape shape = values.shape();
  const int64_t row =
      values.dim_size(0) == 0 ? 0 : values.NumElements() / values.dim_size(0);
  shape.set_dim(0, end - begin);
  DFG_ASSIGN_OR_RETURN(Tensor t, Tensor::TryAllocate(values.dtype(), shape));
  CopyElements(values, begin * row, &t, 0, (end - begin) * row);
  return t;
}

class RaggedRangeOp : public OpKernel {
 public:
  explicit RaggedRangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("Tsplits", &splits_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const char* names[] = {"starts", "limits", "deltas"};
    std::vector<int64_t> sizes;
    for (int k = 0; k < 3; ++k) {
      const Tensor& t = ctx->input(k);
      DFG_OP_REQUIRES(
          ctx, t.dims() <= 1,
          InvalidArgument("{} must be a scalar or vector", names[k]));
      if (t.dims() == 1) sizes.push_back(t.dim_size(0));
    }
    for (size_t k = 1; k < sizes.size(); ++k) {
      DFG_OP_REQUIRES(ctx, sizes[k] == sizes[k - 1],
                      InvalidArgument("starts, limits, and deltas must have "
                                      "the same shape"));
    }
    const int64_t nrows = sizes.empty() ? 1 : sizes[0];
    Dispatch(TypeList<float, double, int32_t, int64_t>(), ctx->input(0).dtype(),
             [&](auto v) {
               using T = decltype(v);
               Run<T>(ctx, nrows);
             });
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx, int64_t nrows) {
    const auto at = [&](int k, int64_t row) {
      const Tensor& t = ctx->input(k);
      return t.flat<T>()[t.dims() == 0 ? 0 : row];
    };
    std::vector<int64_t> splits(nrows + 1, 0);
    for (int64_t r = 0; r < nrows; ++r) {
      const T start = at(0, r), limit = at(1, r), delta = at(2, r);
      DFG_OP_REQUIRES(ctx, delta != 0, InvalidArgument("Requires delta != 0"));
      int64_t size = 0;
      if (!((delta > 0 && limit < start) || (delta < 0 && limit > start))) {
        if constexpr (std::is_integral_v<T>) {
          size =
              (std::abs(limit - start) + std::abs(delta) - 1) / std::abs(delta);
        } else {
          size = static_cast<int64_t>(
              std::ceil(std::abs((limit - start) / delta)));
        }
      }
      splits[r + 1] = splits[r] + size;
    }
    DFG_OP_REQUIRES_OK(ctx, SetSplits(ctx, 0, splits, splits_type_));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({splits[nrows]}), &out));
    T* o = out->flat<T>().data();
    for (int64_t r = 0; r < nrows; ++r) {
      T value = at(0, r);
      const T delta = at(2, r);
      for (int64_t i = splits[r]; i < splits[r + 1]; ++i) {
        o[i] = value;
        value += delta;
      }
    }
  }

  DataType splits_type_ = tensorflow::DT_INT64;
};

class RaggedGatherOp : public OpKernel {
 public:
  explicit RaggedGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("Tsplits", &splits_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const int rank_in = ctx->num_inputs() - 2;
    std::vector<std::vector<int64_t>> splits(rank_in);
    for (int k = 0; k < rank_in; ++k) splits[k] = IntValues(ctx->input(k));
    const Tensor& values = ctx->input(rank_in);
    const Tensor& indices_t = ctx->input(rank_in + 1);
    const std::vector<int64_t> indices = IntValues(indices_t);
    DFG_OP_REQUIRES(ctx, !splits[0].empty(),
                    InvalidArgument("Ragged splits may not be empty"));
    const int64_t num_params = static_cast<int64_t>(splits[0].size()) - 1;
    for (size_t i = 0; i < indices.size(); ++i) {
      DFG_OP_REQUIRES(ctx, indices[i] >= 0 && indices[i] < num_params,
                      InvalidArgument("indices[{}] = {} is not in [0, {})", i,
                                      indices[i], num_params));
    }
    const int dense_dims = indices_t.dims();
    std::vector<std::vector<int64_t>> out(dense_dims - 1 + rank_in, {0});
    int64_t nrows = 1;
    for (int d = 0; d + 1 < dense_dims; ++d) {
      nrows *= indices_t.dim_size(d);
      const int64_t len = indices_t.dim_size(d + 1);
      for (int64_t i = 1; i <= nrows; ++i) out[d].push_back(i * len);
    }
    std::vector<std::pair<int64_t, int64_t>> slices;
    const int base = dense_dims - 1;
    for (int64_t index : indices) {
      int64_t start = splits[0][index], limit = splits[0][index + 1];
      out[base].push_back(out[base].back() + limit - start);
      for (int d = 1; d < rank_in; ++d) {
        const std::vector<int64_t>& s = splits[d];
        DFG_OP_REQUIRES(ctx, limit < static_cast<int64_t>(s.size()),
                        InvalidArgument("Ragged splits are not valid"));
        const int64_t delta = out[base + d].back() - s[start];
        for (int64_t j = start; j < limit; ++j) {
          out[base + d].push_back(s[j + 1] + delta);
        }
        start = s[start];
        limit = s[limit];
      }
      slices.emplace_back(start, limit);
    }
    for (size_t k = 0; k < out.size(); ++k) {
      DFG_OP_REQUIRES_OK(
          ctx, SetSplits(ctx, static_cast<int>(k), out[k], splits_type_));
    }
    int64_t total = 0;
    for (auto [b, e] : slices) total += e - b;
    TensorShape shape = values.shape();
    const int64_t row =
        values.dim_size(0) == 0 ? 0 : values.NumElements() / values.dim_size(0);
    shape.set_dim(0, total);
    Tensor* o = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(static_cast<int>(out.size()), shape, &o));
    int64_t at = 0;
    for (auto [b, e] : slices) {
      DFG_OP_REQUIRES(ctx, e <= values.dim_size(0) && b <= e,
                      InvalidArgument("Ragged splits are not valid"));
      CopyElements(values, b * row, o, at * row, (e - b) * row);
      at += e - b;
    }
  }

 private:
  DataType splits_type_ = tensorflow::DT_INT64;
};

// RaggedFillEmptyRows(value_rowids, values, nrows, default_value):
// SparseFillEmptyRows on a ragged tensor's value_rowids.
class RaggedFillEmptyRowsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const std::vector<int64_t> ids = IntValues(ctx->input(0));
    const Tensor& values = ctx->input(1);
    const Tensor& def = ctx->input(3);
    DFG_OP_REQUIRES(ctx, ctx->input(2).NumElements() == 1,
                    InvalidArgument("nrows must be a scalar"));
    const int64_t rows = IntValues(ctx->input(2))[0];
    const int64_t n = static_cast<int64_t>(ids.size());
    DFG_OP_REQUIRES(ctx, values.NumElements() == n,
                    InvalidArgument("The length of `values` ({}) must match "
                                    "the first dimension of `value_rowids` "
                                    "({}).",
                                    values.NumElements(), n));
    std::vector<int64_t> count(std::max<int64_t>(rows, 0), 0);
    for (int64_t i = 0; i < n; ++i) {
      DFG_OP_REQUIRES(ctx, ids[i] >= 0 && ids[i] < rows,
                      InvalidArgument("value_rowids({}) is invalid: {} >= {}",
                                      i, ids[i], rows));
      ++count[ids[i]];
    }
    std::vector<int64_t> start(std::max<int64_t>(rows, 0) + 1, 0);
    Tensor* empty = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(2, TensorShape({rows}), &empty));
    for (int64_t r = 0; r < rows; ++r) {
      empty->flat<bool>()[r] = count[r] == 0;
      start[r + 1] = start[r] + std::max<int64_t>(count[r], 1);
    }
    const int64_t total = start[std::max<int64_t>(rows, 0)];
    Tensor *oid = nullptr, *ov = nullptr, *rev = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({total}), &oid));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &ov));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({n}), &rev));
    std::vector<int64_t> filled(std::max<int64_t>(rows, 0), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t pos = start[ids[i]] + filled[ids[i]]++;
      oid->flat<int64_t>()[pos] = ids[i];
      CopyElements(values, i, ov, pos, 1);
      rev->flat<int64_t>()[i] = pos;
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (count[r] != 0) continue;
      oid->flat<int64_t>()[start[r]] = r;
      CopyElements(def, 0, ov, start[r], 1);
    }
  }
};

// One ragged tensor inside a variant (TensorFlow's RaggedTensorVariant).
class RaggedVariant : public VariantValue {
 public:
  std::string TypeName() const override {
    return "tensorflow::RaggedTensorVariant";
  }
  std::string DebugString() const override {
    return "RaggedTensorVariant(dtype=" + DataTypeString(values.dtype()) +
           ", ragged_rank=" + std::to_string(splits.size()) + ")";
  }
  // As TensorFlow encodes it: the splits, then the values.
  void Encode(tensorflow::VariantTensorDataProto* out) const override {
    out->set_type_name(TypeName());
    for (const Tensor& s : splits) s.ToProto(out->add_tensors(), false);
    values.ToProto(out->add_tensors(), false);
  }
  std::vector<Tensor> splits;
  Tensor values;
};

// The int64-or-int32 splits vector `v` as a tensor of `dtype`.
Tensor SplitsTensor(const std::vector<int64_t>& v, DataType dtype) {
  Tensor t(dtype, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t k = 0; k < v.size(); ++k) {
    if (dtype == tensorflow::DT_INT32) {
      t.flat<int32_t>()[k] = static_cast<int32_t>(v[k]);
    } else {
      t.flat<int64_t>()[k] = v[k];
    }
  }
  return t;
}

class RaggedToVariantOp : public OpKernel {
 public:
  explicit RaggedToVariantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("batched_input", &batched_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int rank = ctx->num_inputs() - 1;
    const Tensor& values = ctx->input(rank);
    if (!batched_) {
      auto v = std::make_shared<RaggedVariant>();
      for (int k = 0; k < rank; ++k) v->splits.push_back(ctx->input(k));
      v->values = values;
      Tensor out(tensorflow::DT_VARIANT, TensorShape());
      out.scalar<Variant>().value = std::move(v);
      ctx->set_output(0, std::move(out));
      return;
    }
    std::vector<std::vector<int64_t>> splits(rank);
    for (int k = 0; k < rank; ++k) splits[k] = IntValues(ctx->input(k));
    const DataType st = rank > 0 ? ctx->input(0).dtype() : tensorflow::DT_INT64;
    const int64_t nrows = rank == 0
                              ? values.dim_size(0)
                              : static_cast<int64_t>(splits[0].size()) - 1;
    Tensor out(tensorflow::DT_VARIANT,
               TensorShape({std::max<int64_t>(nrows, 0)}));
    for (int64_t r = 0; r < nrows; ++r) {
      auto v = std::make_shared<RaggedVariant>();
      int64_t begin = r, end = r + 1;
      for (int k = 0; k < rank; ++k) {
        const std::vector<int64_t>& s = splits[k];
        DFG_OP_REQUIRES(ctx, end < static_cast<int64_t>(s.size()),
                        InvalidArgument("Invalid ragged splits"));
        if (k > 0) {
          std::vector<int64_t> piece(s.begin() + begin, s.begin() + end + 1);
          for (int64_t& x : piece) x -= s[begin];
          v->splits.push_back(SplitsTensor(piece, st));
        }
        begin = s[begin];
        end = s[end];
      }
      if (rank == 0) {
        TensorShape shape = values.shape();
        shape.RemoveDim(0);
        auto t = Tensor::TryAllocate(values.dtype(), shape);
        DFG_OP_REQUIRES_OK(ctx, t.status());
        CopyElements(values, r * shape.num_elements(), &*t, 0,
                     shape.num_elements());
        v->values = std::move(t).value();
      } else {
        auto t = SliceRows(values, begin, end);
        DFG_OP_REQUIRES_OK(ctx, t.status());
        v->values = std::move(t).value();
      }
      out.flat<Variant>()[r].value = std::move(v);
    }
    ctx->set_output(0, std::move(out));
  }

 private:
  bool batched_ = false;
};

class RaggedFromVariantOp : public OpKernel {
 public:
  explicit RaggedFromVariantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("input_ragged_rank", &in_rank_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_ragged_rank", &out_rank_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("Tsplits", &splits_type_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("Tvalues", &values_type_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& enc = ctx->input(0);
    const int64_t in_rank = in_rank_ == -1 ? out_rank_ - enc.dims() : in_rank_;
    DFG_OP_REQUIRES(ctx, in_rank + enc.dims() == out_rank_,
                    InvalidArgument("output_ragged_rank must be equal to "
                                    "input_ragged_rank + encoded_ragged.dims()"
                                    "; output_ragged_rank: {}, "
                                    "input_ragged_rank: {}, "
                                    "encoded_ragged.dims(): {}.",
                                    out_rank_, in_rank, enc.dims()));
    std::vector<const RaggedVariant*> parts;
    for (int64_t i = 0; i < enc.NumElements(); ++i) {
      const RaggedVariant* p = enc.flat<Variant>()[i].get<RaggedVariant>();
      DFG_OP_REQUIRES(ctx, p != nullptr,
                      InvalidArgument("Input Variant element at index {} "
                                      "doesn't hold a RaggedTensorVariant: {}",
                                      i, enc.flat<Variant>()[i].DebugString()));
      DFG_OP_REQUIRES(ctx, static_cast<int64_t>(p->splits.size()) == in_rank,
                      InvalidArgument("Encoded input RaggedTensorVariant has "
                                      "ragged_rank={}.  Expected ragged_rank="
                                      "{}.",
                                      p->splits.size(), in_rank));
      parts.push_back(p);
    }
    std::vector<std::vector<int64_t>> out(out_rank_);
    // The dense outer dims of `enc`: uniform splits.
    int64_t nrows = 1;
    for (int d = 0; d + 1 < enc.dims(); ++d) {
      nrows *= enc.dim_size(d);
      out[d].push_back(0);
      for (int64_t i = 1; i <= nrows; ++i) {
        out[d].push_back(i * enc.dim_size(d + 1));
      }
    }
    const int base = enc.dims() - 1;
    if (base >= 0) out[base].push_back(0);
    for (int64_t k = 0; k < in_rank; ++k) out[base + 1 + k].push_back(0);
    std::vector<Tensor> values;
    for (const RaggedVariant* p : parts) {
      const int64_t rows =
          in_rank == 0 ? p->values.dim_size(0) : p->splits[0].NumElements() - 1;
      if (base >= 0) out[base].push_back(out[base].back() + rows);
      for (int64_t k = 0; k < in_rank; ++k) {
        std::vector<int64_t>& o = out[base + 1 + k];
        const std::vector<int64_t> s = IntValues(p->splits[k]);
        const int64_t offset = o.back();
        for (size_t j = 1; j < s.size(); ++j) o.push_back(s[j] + offset);
      }
      values.push_back(p->values);
    }
    for (int k = 0; k < out_rank_; ++k) {
      ctx->set_output(k, SplitsTensor(out[k], splits_type_));
    }
    DFG_OP_REQUIRES_OK(ctx, ConcatValues(ctx, values, out_rank_));
  }

 private:
  Status ConcatValues(OpKernelContext* ctx, const std::vector<Tensor>& values,
                      int index) {
    const DataType dtype = values_type_;
    if (values.empty()) {
      Tensor* o = nullptr;
      return ctx->allocate_output(index, TensorShape({0}), &o);
    }
    TensorShape shape = values[0].shape();
    int64_t rows = 0;
    for (const Tensor& v : values) {
      if (v.dtype() != dtype) {
        return InvalidArgument("Expected values Tensor dtype: {}, found: {}",
                               DataTypeString(dtype),
                               DataTypeString(v.dtype()));
      }
      if (v.dims() < 1) {
        return InvalidArgument("Ragged values must be at least a vector");
      }
      rows += v.dim_size(0);
    }
    shape.set_dim(0, rows);
    Tensor* o = nullptr;
    DFG_RETURN_IF_ERROR(ctx->allocate_output(index, shape, &o));
    int64_t at = 0;
    for (const Tensor& v : values) {
      CopyElements(v, 0, o, at, v.NumElements());
      at += v.NumElements();
    }
    return Status::Ok();
  }

  int64_t in_rank_ = -1, out_rank_ = 0;
  DataType splits_type_ = tensorflow::DT_INT64;
  DataType values_type_ = tensorflow::DT_INVALID;
};

}  // namespace

void RegisterRaggedKernels(KernelRegistry* r) {
  r->Register<RaggedRangeOp>(
      "RaggedRange",
      {TypeConstraint("T", TypeList<float, double, int32_t, int64_t>())});
  r->Register<RaggedGatherOp>("RaggedGather");
  r->Register<RaggedFillEmptyRowsOp>("RaggedFillEmptyRows");
  r->Register<RaggedToVariantOp>("RaggedTensorToVariant");
  r->Register<RaggedFromVariantOp>("RaggedTensorFromVariant");
}

}  // namespace dfg
