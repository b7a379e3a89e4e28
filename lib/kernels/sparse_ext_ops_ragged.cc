// RaggedCross (tf.ragged.cross, tf.ragged.cross_hashed): the feature cross
// of ragged, sparse and dense rank-2 inputs in the order `input_order` names
// them ('R', 'S', 'D'), as a ragged tensor (values, row_splits). The crosses
// themselves come from sparse_ext_ops.cc; out_values_type picks text or hash.
#include <string>
#include <vector>

#include "lib/kernels/sparse_ext_ops.h"

namespace dfg {
namespace {

// TensorFlow's RaggedTensorVerifySplits with the last element checked.
Status VerifySplits(const Tensor& splits, int64_t num_values) {
  if (splits.dims() != 1) {
    return InvalidArgument(
        "Invalid ragged splits: ragged splits must be rank 1 but is rank {}",
        splits.dims());
  }
  const std::vector<int64_t> s = IntValues(splits);
  if (s.empty()) {
    return InvalidArgument(
        "Invalid ragged splits: ragged splits must have at least one splits, "
        "but is empty");
  }
  if (s[0] != 0) {
    return InvalidArgument(
        "Invalid ragged splits: first element of ragged splits  must be 0 but "
        "is {}",
        s[0]);
  }
  int64_t last = 0;
  for (size_t j = 1; j < s.size(); ++j) {
    if (s[j] < last) {
      return InvalidArgument(
          "Invalid ragged splits: ragged splits must be monotonically "
          "increasing, but ragged_splits[{}]={} is smaller than "
          "row_splits[{}]={}",
          j, s[j], j - 1, last);
    }
    last = s[j];
  }
  if (last != num_values) {
    return InvalidArgument(
        "Invalid ragged splits: last element of ragged splits must be the "
        "number of ragged values({}) but is {}",
        num_values, last);
  }
  return Status::Ok();
}

class RaggedCrossOp : public OpKernel {
 public:
  explicit RaggedCrossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_buckets", &spec_.num_buckets));
    int64_t key = 0;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("hash_key", &key));
    spec_.hash_key = static_cast<uint64_t>(key);
    std::vector<DataType> rv, rs, sv, dt;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ragged_values_types", &rv));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ragged_splits_types", &rs));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("sparse_values_types", &sv));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_types", &dt));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("input_order", &order_));
    DataType out_type;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("out_values_type", &out_type));
    spec_.kind =
        out_type == tensorflow::DT_INT64 ? CrossSpec::kHash : CrossSpec::kText;
    DFG_OP_REQUIRES(
        ctx, rv.size() == rs.size(),
        InvalidArgument("ragged values and splits must have the same length"));
    nr_ = static_cast<int>(rv.size());
    ns_ = static_cast<int>(sv.size());
    nd_ = static_cast<int>(dt.size());
    DFG_OP_REQUIRES(ctx, static_cast<size_t>(nr_ + ns_ + nd_) == order_.size(),
                    InvalidArgument("Invalid length for input_order"));
  }

  void Compute(OpKernelContext* ctx) override {
    int64_t batch = 0;
    DFG_OP_REQUIRES_OK(ctx, Validate(ctx, &batch));
    std::vector<Column> cols;
    DFG_OP_REQUIRES_OK(ctx, BuildColumns(ctx, batch, &cols));
    Tensor* splits = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({batch + 1}), &splits));
    std::vector<int64_t> out_start(batch);
    int64_t total = 0;
    for (int64_t b = 0; b < batch; ++b) {
      out_start[b] = total;
      const int64_t k = CrossCount(cols, b);
      DFG_OP_REQUIRES(ctx, k >= 0, InvalidArgument("Invalid RaggedTensor"));
      total += k;
    }
    for (int64_t b = 0; b <= batch; ++b) {
      const int64_t v = b < batch ? out_start[b] : total;
      if (splits->dtype() == tensorflow::DT_INT32) {
        splits->flat<int32_t>()[b] = static_cast<int32_t>(v);
      } else {
        splits->flat<int64_t>()[b] = v;
      }
    }
    Tensor* values = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({total}), &values));
    WriteCrosses(cols, out_start, spec_, values);
  }

 private:
  // Inputs: ragged values [nr], ragged splits [nr], sparse indices [ns],
  // sparse values [ns], sparse shapes [ns], dense [nd].
  const Tensor& RaggedValues(OpKernelContext* c, int i) const {
    return c->input(i);
  }
  const Tensor& RaggedSplits(OpKernelContext* c, int i) const {
    return c->input(nr_ + i);
  }
  const Tensor& SparseIndices(OpKernelContext* c, int i) const {
    return c->input(2 * nr_ + i);
  }
  const Tensor& SparseValues(OpKernelContext* c, int i) const {
    return c->input(2 * nr_ + ns_ + i);
  }
  const Tensor& SparseShape(OpKernelContext* c, int i) const {
    return c->input(2 * nr_ + 2 * ns_ + i);
  }
  const Tensor& Dense(OpKernelContext* c, int i) const {
    return c->input(2 * nr_ + 3 * ns_ + i);
  }

  Status Validate(OpKernelContext* ctx, int64_t* batch) const {
    const Status rank2 =
        InvalidArgument("tf.ragged.cross only supports inputs with rank=2.");
    for (int i = 0; i < nr_; ++i) {
      if (RaggedValues(ctx, i).dims() != 1 || RaggedSplits(ctx, i).dims() != 1)
        return rank2;
      DFG_RETURN_IF_ERROR(VerifySplits(RaggedSplits(ctx, i),
                                       RaggedValues(ctx, i).NumElements()));
    }
    for (int i = 0; i < ns_; ++i) {
      if (SparseIndices(ctx, i).dims() != 2 ||
          SparseValues(ctx, i).dims() != 1 || SparseShape(ctx, i).dims() != 1)
        return InvalidArgument("Invalid SparseTensor {}", i);
      if (SparseShape(ctx, i).NumElements() != 2) return rank2;
    }
    for (int i = 0; i < nd_; ++i) {
      if (Dense(ctx, i).dims() != 2) return rank2;
    }
    *batch = nr_ > 0   ? RaggedSplits(ctx, 0).NumElements() - 1
             : nd_ > 0 ? Dense(ctx, 0).dim_size(0)
             : ns_ > 0 ? SparseShape(ctx, 0).flat<int64_t>()[0]
                       : 0;
    const Status mismatch =
        InvalidArgument("inputs must all have the same batch dimension size.");
    for (int i = 0; i < nr_; ++i) {
      if (RaggedSplits(ctx, i).NumElements() - 1 != *batch) return mismatch;
    }
    for (int i = 0; i < ns_; ++i) {
      if (SparseShape(ctx, i).flat<int64_t>()[0] != *batch) return mismatch;
    }
    for (int i = 0; i < nd_; ++i) {
      if (Dense(ctx, i).dim_size(0) != *batch) return mismatch;
    }
    return Status::Ok();
  }

  // The columns in input_order; a sparse column's row b ends after the
  // entries whose batch index is <= b (TensorFlow's reading).
  Status BuildColumns(OpKernelContext* ctx, int64_t batch,
                      std::vector<Column>* cols) const {
    int next[3] = {0, 0, 0};
    for (char kind : order_) {
      Column c;
      const int which = kind == 'R' ? 0 : kind == 'S' ? 1 : 2;
      const int have[3] = {nr_, ns_, nd_};
      if ((kind == 'R' || kind == 'S' || kind == 'D') &&
          next[which] >= have[which]) {
        return InvalidArgument(
            "input_order \"{}\" specifies reading a {} at index {} from a "
            "list of {} {}.",
            order_,
            kind == 'R'   ? "ragged tensor value"
            : kind == 'S' ? "sparse tensor value"
                          : "dense tensor",
            next[which], have[which], kind == 'D' ? "tensors" : "values");
      }
      if (kind == 'R') {
        const int i = next[0]++;
        c.values = &RaggedValues(ctx, i);
        const std::vector<int64_t> s = IntValues(RaggedSplits(ctx, i));
        for (int64_t b = 0; b < batch; ++b) {
          c.start.push_back(s[b]);
          c.count.push_back(s[b + 1] - s[b]);
        }
      } else if (kind == 'S') {
        const int i = next[1]++;
        c.values = &SparseValues(ctx, i);
        const int64_t* idx = SparseIndices(ctx, i).flat<int64_t>().data();
        const int64_t n = c.values->NumElements();
        int64_t cur = 0;
        for (int64_t b = 0; b < batch; ++b) {
          c.start.push_back(cur);
          while (cur < n && idx[cur * SparseIndices(ctx, i).dim_size(1)] <= b)
            ++cur;
          c.count.push_back(cur - c.start.back());
        }
      } else if (kind == 'D') {
        c = DenseColumn(Dense(ctx, next[2]++));
      } else {
        return InvalidArgument("Unexpected input_order value.");
      }
      cols->push_back(std::move(c));
    }
    return Status::Ok();
  }

  CrossSpec spec_;
  std::string order_;
  int nr_ = 0, ns_ = 0, nd_ = 0;
};

}  // namespace

void RegisterRaggedCrossKernels(KernelRegistry* r) {
  r->Register<RaggedCrossOp>("RaggedCross");
}

}  // namespace dfg
