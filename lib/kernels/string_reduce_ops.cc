// ReduceJoin, UnsortedSegmentJoin and StringSplit (v1) (TensorFlow's
// core/kernels/reduce_join_op.cc, unsorted_segment_join_op.cc,
// string_split_op.cc); StringFormat and the file ops are in
// string_format_ops.cc.
#include <algorithm>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Row-major strides of `shape`.
std::vector<int64_t> Strides(const TensorShape& shape) {
  std::vector<int64_t> s(shape.dims(), 1);
  for (int d = shape.dims() - 2; d >= 0; --d) {
    s[d] = s[d + 1] * shape.dim_size(d + 1);
  }
  return s;
}

class ReduceJoinOp : public OpKernel {
 public:
  explicit ReduceJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    std::vector<bool> reduced(rank, false);
    for (int64_t d : IntValues(ctx->input(1))) {
      DFG_OP_REQUIRES(ctx, d >= -rank && d < rank,
                      OutOfRange("Invalid reduction dimension {} for input "
                                 "with {} dimension(s)",
                                 d, rank));
      const int64_t k = d < 0 ? d + rank : d;
      DFG_OP_REQUIRES(ctx, !reduced[k],
                      InvalidArgument("Duplicate reduction dimension {}", d));
      reduced[k] = true;
    }
    std::vector<int64_t> out_dims, kept_dims, cut_dims;
    for (int d = 0; d < rank; ++d) {
      (reduced[d] ? cut_dims : kept_dims).push_back(d);
      if (!reduced[d]) out_dims.push_back(in.dim_size(d));
      if (reduced[d] && keep_dims_) out_dims.push_back(1);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape(std::span<const int64_t>(out_dims)), &out));
    const std::vector<int64_t> stride = Strides(in.shape());
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    int64_t cut_count = 1;
    for (int64_t d : cut_dims) cut_count *= in.dim_size(d);
    for (size_t i = 0; i < o.size(); ++i) {
      int64_t base = 0, rest = static_cast<int64_t>(i);
      for (auto it = kept_dims.rbegin(); it != kept_dims.rend(); ++it) {
        base += (rest % in.dim_size(*it)) * stride[*it];
        rest /= in.dim_size(*it);
      }
      std::string joined;
      for (int64_t j = 0; j < cut_count; ++j) {
        int64_t at = base, r = j;
        for (auto it = cut_dims.rbegin(); it != cut_dims.rend(); ++it) {
          at += (r % in.dim_size(*it)) * stride[*it];
          r /= in.dim_size(*it);
        }
        if (j > 0) joined += separator_;
        joined += s[at];
      }
      o[i] = std::move(joined);
    }
  }

 private:
  bool keep_dims_ = false;
  std::string separator_;
};

class UnsortedSegmentJoinOp : public OpKernel {
 public:
  explicit UnsortedSegmentJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    const Tensor& num_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, num_t.dims() == 0,
                    InvalidArgument("Number of segments cannot be empty."));
    const int64_t num = IntValues(num_t)[0];
    DFG_OP_REQUIRES(
        ctx, num >= 0,
        InvalidArgument("Number of segments must be non-negative but got {}",
                        num));
    DFG_OP_REQUIRES(ctx, ids_t.dims() <= in.dims(),
                    InvalidArgument("Segment_id rank should be less than or "
                                    "equal to input rank."));
    for (int d = 0; d < ids_t.dims(); ++d) {
      DFG_OP_REQUIRES(ctx, ids_t.dim_size(d) == in.dim_size(d),
                      InvalidArgument("Segment dimension is {} while input "
                                      "dimension is {} in rank {}",
                                      ids_t.dim_size(d), in.dim_size(d), d));
    }
    TensorShape shape({num});
    for (int d = ids_t.dims(); d < in.dims(); ++d) shape.AddDim(in.dim_size(d));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const std::vector<int64_t> ids = IntValues(ids_t);
    const int64_t inner =
        ids.empty() ? 0 : in.NumElements() / static_cast<int64_t>(ids.size());
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    std::vector<bool> started(o.size(), false);
    for (size_t i = 0; i < ids.size(); ++i) {
      DFG_OP_REQUIRES(ctx, ids[i] >= 0 && ids[i] < num,
                      InvalidArgument("segment_ids are not allowed to exceed "
                                      "num_segments or to have negative "
                                      "values."));
      for (int64_t e = 0; e < inner; ++e) {
        const int64_t k = ids[i] * inner + e;
        if (started[k]) o[k] += separator_;
        started[k] = true;
        o[k] += s[i * inner + e];
      }
    }
  }

 private:
  std::string separator_;
};

// StringSplit: on any one of the delimiter's bytes, or into single bytes
// when the delimiter is empty; an empty input string has no tokens.
class StringSplitOp : public OpKernel {
 public:
  explicit StringSplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("skip_empty", &skip_empty_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& delim = ctx->input(1);
    DFG_OP_REQUIRES(ctx, in.dims() == 1,
                    InvalidArgument("input must be a vector, got shape: {}",
                                    in.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, delim.dims() == 0,
                    InvalidArgument("delimiter must be a scalar, got shape: {}",
                                    delim.shape().DebugString()));
    const std::string& d = delim.flat<std::string>()[0];
    auto s = in.flat<std::string>();
    std::vector<std::vector<std::string>> rows(s.size());
    int64_t total = 0, widest = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (!s[i].empty()) rows[i] = Split(s[i], d);
      total += static_cast<int64_t>(rows[i].size());
      widest = std::max<int64_t>(widest, rows[i].size());
    }
    Tensor *indices, *values, *shape;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {total, 2}, &indices));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, {total}, &values));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, {2}, &shape));
    auto ix = indices->flat<int64_t>();
    auto v = values->flat<std::string>();
    int64_t k = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      for (size_t j = 0; j < rows[i].size(); ++j, ++k) {
        ix[2 * k] = static_cast<int64_t>(i);
        ix[2 * k + 1] = static_cast<int64_t>(j);
        v[k] = std::move(rows[i][j]);
      }
    }
    shape->flat<int64_t>()[0] = static_cast<int64_t>(s.size());
    shape->flat<int64_t>()[1] = widest;
  }

 private:
  std::vector<std::string> Split(const std::string& s,
                                 const std::string& d) const {
    std::vector<std::string> out;
    if (d.empty()) {
      for (char c : s) out.emplace_back(1, c);
      return out;
    }
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i) {
      if (i == s.size() || d.find(s[i]) != std::string::npos) {
        if (!skip_empty_ || i > start)
          out.push_back(s.substr(start, i - start));
        start = i + 1;
      }
    }
    return out;
  }

  bool skip_empty_ = true;
};

}  // namespace

void RegisterStringFormatKernels(KernelRegistry* r);

void RegisterStringReduceKernels(KernelRegistry* r) {
  r->Register<ReduceJoinOp>("ReduceJoin");
  r->Register<UnsortedSegmentJoinOp>("UnsortedSegmentJoin");
  r->Register<StringSplitOp>("StringSplit");
  RegisterStringFormatKernels(r);
}

}  // namespace dfg
