// CTC: CTCGreedyDecoder (best path: the arg max class at each step, blanks
// and — with merge_repeated — repeats dropped; log_probability is minus the
// sum of the maxima); CTCLoss (ctc_loss_op.cc) and CTCBeamSearchDecoder
// (ctc_beam_search_op.cc) register from here. Decoded paths come out as
// TensorFlow gives them: a sparse [batch, max_len] tensor (indices,
// values, dense_shape) per path.
#include <cmath>

#include "lib/kernels/cwise_ops.h"

namespace dfg {

// The checks of TensorFlow's CTCDecodeHelper, in its words (shared with
// ctc_beam_search_op.cc).
Status ValidateCtcDecoderInputs(const Tensor& inputs, const Tensor& seq_len) {
  if (inputs.dims() != 3) {
    return InvalidArgument("inputs is not a 3-Tensor");
  }
  if (inputs.NumElements() == 0) {
    return InvalidArgument("inputs must not be empty");
  }
  const int64_t max_time = inputs.dim_size(0), batch = inputs.dim_size(1);
  if (seq_len.dims() != 1) {
    return InvalidArgument("sequence_length is not a vector");
  }
  if (seq_len.dim_size(0) != batch) {
    return FailedPrecondition(
        "len(sequence_length) != batch_size.  len(sequence_length):  {} "
        "batch_size: {}",
        seq_len.dim_size(0), batch);
  }
  auto lens = seq_len.flat<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    if (!(lens[b] <= max_time)) {
      return FailedPrecondition("sequence_length({}) <= {}", b, max_time);
    }
  }
  return Status::Ok();
}

// Writes path p of every batch entry (sequences[b][p]) as sparse outputs
// p, top + p and 2 * top + p.
Status StoreCtcDecoded(OpKernelContext* ctx,
                       const std::vector<std::vector<std::vector<int>>>& seqs,
                       int top) {
  const int64_t batch = static_cast<int64_t>(seqs.size());
  for (int p = 0; p < top; ++p) {
    int64_t total = 0, longest = 0;
    for (const auto& s : seqs) {
      total += static_cast<int64_t>(s[p].size());
      longest = std::max<int64_t>(longest, s[p].size());
    }
    Tensor *indices = nullptr, *values = nullptr, *shape = nullptr;
    DFG_RETURN_IF_ERROR(
        ctx->allocate_output(p, TensorShape({total, 2}), &indices));
    DFG_RETURN_IF_ERROR(
        ctx->allocate_output(top + p, TensorShape({total}), &values));
    DFG_RETURN_IF_ERROR(
        ctx->allocate_output(2 * top + p, TensorShape({2}), &shape));
    auto ix = indices->flat<int64_t>();
    auto v = values->flat<int64_t>();
    int64_t k = 0;
    for (int64_t b = 0; b < batch; ++b) {
      for (size_t t = 0; t < seqs[b][p].size(); ++t, ++k) {
        ix[2 * k] = b;
        ix[2 * k + 1] = static_cast<int64_t>(t);
        v[k] = seqs[b][p][t];
      }
    }
    shape->flat<int64_t>()[0] = batch;
    shape->flat<int64_t>()[1] = longest;
  }
  return Status::Ok();
}

namespace {

class CTCGreedyDecoderOp : public OpKernel {
 public:
  explicit CTCGreedyDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("merge_repeated", &merge_repeated_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("blank_index", &blank_index_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, ValidateCtcDecoderInputs(inputs, seq_len));
    const int64_t batch = inputs.dim_size(1), classes = inputs.dim_size(2);
    const int64_t blank =
        blank_index_ < 0 ? classes + blank_index_ : blank_index_;
    DFG_OP_REQUIRES(
        ctx, blank >= 0 && blank < classes,
        InvalidArgument("blank_index expected to be between {} and {} but was "
                        "{}",
                        -classes, classes - 1, blank_index_));
    Tensor* log_prob = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(3, TensorShape({batch, 1}), &log_prob));
    std::vector<std::vector<std::vector<int>>> seqs(
        batch, std::vector<std::vector<int>>(1));
    Dispatch(TypeList<float, double>(), inputs.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* x = inputs.flat<T>().data();
      auto lp = log_prob->flat<T>();
      auto lens = seq_len.flat<int32_t>();
      for (int64_t b = 0; b < batch; ++b) {
        T sum = 0;
        int prev = -1;
        for (int64_t t = 0; t < lens[b]; ++t) {
          const T* row = x + (t * batch + b) * classes;
          int best = 0;
          for (int64_t c = 1; c < classes; ++c) {
            if (row[c] > row[best]) best = static_cast<int>(c);
          }
          sum += -row[best];
          if (best != blank && !(merge_repeated_ && best == prev)) {
            seqs[b][0].push_back(best);
          }
          prev = best;
        }
        lp[b] = sum;
      }
    });
    DFG_OP_REQUIRES_OK(ctx, StoreCtcDecoded(ctx, seqs, 1));
  }

 private:
  bool merge_repeated_ = false;
  int64_t blank_index_ = -1;
};

}  // namespace

void RegisterCtcLossKernels(KernelRegistry* r);
void RegisterCtcBeamSearchKernels(KernelRegistry* r);

void RegisterCtcKernels(KernelRegistry* r) {
  RegisterCtcLossKernels(r);
  RegisterCtcBeamSearchKernels(r);
  r->Register<CTCGreedyDecoderOp>(
      "CTCGreedyDecoder", {TypeConstraint("T", TypeList<float, double>())});
}

}  // namespace dfg
