// CTCLoss: the connectionist temporal classification loss and its gradient
// with respect to the logits, per batch entry, as TensorFlow's
// CTCLossCalculator computes it: a softmax over the classes (the last class
// is the blank), then the forward (alpha) and backward (beta) variables in
// log space over the label sequence with blanks interleaved (Graves' thesis,
// ch. 7). The labels arrive as a sparse [batch, max_len] tensor.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "lib/kernels/ctc_ops.h"
#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

using ctc::LogSumExp;
using ctc::LogZero;

std::string Join(const std::vector<int>& v) {
  return fmt::format("{}", fmt::join(v, ","));
}

// The labels of each batch entry from the sparse input, with TensorFlow's
// SparseTensor checks (ordered, in bounds, not repeated).
Status GroupLabels(const Tensor& indices, const Tensor& values, int64_t batch,
                   std::vector<std::vector<int>>* labels) {
  const int64_t n = indices.dim_size(0), rank = indices.dim_size(1);
  auto ix = indices.flat<int64_t>();
  auto v = values.flat<int32_t>();
  int64_t max_len = 0;
  for (int64_t i = 0; i < n && rank > 1; ++i) {
    max_len = std::max(max_len, ix[i * rank + 1] + 1);
  }
  const int64_t bounds[2] = {batch, max_len};
  labels->assign(batch, {});
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> cur(ix.begin() + i * rank,
                             ix.begin() + (i + 1) * rank);
    const std::string at =
        fmt::format("indices[{}] = [{}]", i, fmt::join(cur, ","));
    for (int64_t d = 0; d < rank && d < 2; ++d) {
      if (cur[d] < 0 || cur[d] >= bounds[d]) {
        return InvalidArgument(
            "label SparseTensor is not valid: {} is out of bounds: need 0 <= "
            "index < [{},{}]",
            at, batch, max_len);
      }
    }
    if (i > 0) {
      const std::vector<int64_t> prev(ix.begin() + (i - 1) * rank,
                                      ix.begin() + i * rank);
      if (cur < prev) {
        return InvalidArgument(
            "label SparseTensor is not valid: {} is out of order. Many sparse "
            "ops require sorted indices.\n    Use `tf.sparse.reorder` to "
            "create a correctly ordered copy.\n\n",
            at);
      }
      if (cur == prev) {
        return InvalidArgument(
            "label SparseTensor is not valid: {} is repeated", at);
      }
    }
    (*labels)[cur[0]].push_back(v[i]);
  }
  return Status::Ok();
}

// l' of batch entry b: the label sequence (collapsed, nulls dropped) with a
// blank before each label and one at the end. TensorFlow's checks.
Status LPrime(const std::vector<int>& label, int64_t b, int64_t classes,
              int64_t seq_len, bool collapse, bool ignore_longer,
              std::vector<int>* l_prime) {
  if (label.empty()) {
    return InvalidArgument("Labels length is zero in batch {}", b);
  }
  std::vector<int> l;
  bool finished = false;
  for (size_t i = 0; i < label.size(); ++i) {
    if (i > 0 && collapse && label[i] == label[i - 1]) continue;
    if (label[i] >= classes - 1) {
      finished = true;
    } else if (finished) {
      return InvalidArgument(
          "Saw a non-null label (index >= num_classes - 1) following a null "
          "label, batch: {} num_classes: {} labels: {} labels seen so far: {}",
          b, classes, Join(label), Join(l));
    } else {
      l.push_back(label[i]);
    }
  }
  for (int v : l) {
    if (v < 0) {
      return InvalidArgument(
          "All labels must be nonnegative integers, batch: {} labels: {}", b,
          Join(l));
    }
  }
  const int64_t required = static_cast<int64_t>(label.size());
  if (!ignore_longer && required > seq_len) {
    return InvalidArgument(
        "Not enough time for target transition sequence (required: {}, "
        "available: {}){}You can turn this error into a warning by using the "
        "flag ignore_longer_outputs_than_inputs",
        required, seq_len, b);
  }
  const int blank = static_cast<int>(classes - 1);
  l_prime->clear();
  for (int v : l) {
    l_prime->push_back(blank);
    l_prime->push_back(v);
  }
  l_prime->push_back(blank);
  return Status::Ok();
}

// Loss and gradient of one batch entry. y: [T][C] softmax; the gradient
// rows (stride `row_stride`) start at `grad`.
template <typename T>
T EntryLoss(const std::vector<std::vector<T>>& y, const std::vector<int>& lp,
            bool merge, T* grad, int64_t row_stride) {
  const int64_t steps = static_cast<int64_t>(y.size());
  const int64_t classes = static_cast<int64_t>(y[0].size());
  const int u_size = static_cast<int>(lp.size());
  const int blank = static_cast<int>(classes - 1);
  std::vector<std::vector<T>> alpha(u_size,
                                    std::vector<T>(steps, LogZero<T>()));
  std::vector<std::vector<T>> beta = alpha;
  alpha[0][0] = std::log(y[0][blank]);
  if (u_size > 1) alpha[1][0] = std::log(y[0][lp[1]]);
  for (int64_t t = 1; t < steps; ++t) {
    const int64_t lo = std::max<int64_t>(0, u_size - 2 * (steps - t));
    const int64_t hi = std::min<int64_t>(u_size, 2 * (t + 1));
    for (int64_t u = lo; u < hi; ++u) {
      T sum = LogZero<T>();
      if (merge || lp[u] == blank) sum = alpha[u][t - 1];
      if (u > 0) sum = LogSumExp(sum, alpha[u - 1][t - 1]);
      if (u > 1 && lp[u] != blank && !(merge && lp[u] == lp[u - 2])) {
        sum = LogSumExp(sum, alpha[u - 2][t - 1]);
      }
      alpha[u][t] = std::log(y[t][lp[u]]) + sum;
    }
  }
  for (int u = std::max(0, u_size - 2); u < u_size; ++u) {
    beta[u][steps - 1] = 0;
  }
  for (int64_t t = steps - 2; t >= 0; --t) {
    const int64_t lo = std::max<int64_t>(0, u_size - 2 * (steps - t));
    const int64_t hi = std::min<int64_t>(u_size, 2 * (t + 1));
    for (int64_t u = lo; u < hi; ++u) {
      T& b = beta[u][t];
      if (merge || lp[u] == blank) {
        b = LogSumExp(b, beta[u][t + 1] + std::log(y[t + 1][lp[u]]));
      }
      if (u + 1 < u_size) {
        b = LogSumExp(b, beta[u + 1][t + 1] + std::log(y[t + 1][lp[u + 1]]));
      }
      if (u + 2 < u_size && lp[u] != blank && !(merge && lp[u] == lp[u + 2])) {
        b = LogSumExp(b, beta[u + 2][t + 1] + std::log(y[t + 1][lp[u + 2]]));
      }
    }
  }
  T log_p = LogZero<T>();
  for (int u = 0; u < u_size; ++u) {
    log_p = LogSumExp(log_p, alpha[u][0] + beta[u][0]);
  }
  for (int64_t t = 0; t < steps; ++t) {
    T* g = grad + t * row_stride;
    if (log_p == LogZero<T>()) {  // no valid path: TF's gradient is y
      for (int64_t c = 0; c < classes; ++c) g[c] = y[t][c];
      continue;
    }
    std::vector<T> prob_sum(classes, LogZero<T>());
    for (int u = 0; u < u_size; ++u) {
      prob_sum[lp[u]] = LogSumExp(prob_sum[lp[u]], alpha[u][t] + beta[u][t]);
    }
    for (int64_t c = 0; c < classes; ++c) {
      // TensorFlow's expf: the term has float precision for double too.
      g[c] = y[t][c] - std::exp(static_cast<float>(prob_sum[c] - log_p));
    }
  }
  return -log_p;
}

Status ValidateLossInputs(OpKernelContext* ctx) {
  const Tensor &inputs = ctx->input(0), &indices = ctx->input(1),
               &values = ctx->input(2), &seq_len = ctx->input(3);
  if (inputs.dims() != 3) return InvalidArgument("inputs is not a 3-Tensor");
  if (seq_len.dims() != 1) {
    return InvalidArgument("sequence_length is not a vector");
  }
  if (indices.dims() != 2) {
    return InvalidArgument("labels_indices is not a matrix");
  }
  if (values.dims() != 1)
    return InvalidArgument("labels_values is not a vector");
  const int64_t batch = inputs.dim_size(1);
  if (batch != seq_len.dim_size(0)) {
    return InvalidArgument(
        "len(sequence_length) != batch_size.  len(sequence_length):  {} "
        "batch_size: {}",
        seq_len.dim_size(0), batch);
  }
  if (indices.dim_size(0) != values.dim_size(0)) {
    return InvalidArgument(
        "labels_indices and labels_values must contain the same number of "
        "rows, but saw shapes: {} vs. {}",
        indices.shape().DebugString(), values.shape().DebugString());
  }
  if (batch == 0) return InvalidArgument("batch_size must not be 0");
  return Status::Ok();
}

class CTCLossOp : public OpKernel {
 public:
  explicit CTCLossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(
        ctx, ctx->GetAttr("preprocess_collapse_repeated", &collapse_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ctc_merge_repeated", &merge_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ignore_longer_outputs_than_inputs",
                                         &ignore_longer_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(ctx, ValidateLossInputs(ctx));
    const Tensor& inputs = ctx->input(0);
    const int64_t time = inputs.dim_size(0), batch = inputs.dim_size(1),
                  classes = inputs.dim_size(2);
    std::vector<std::vector<int>> labels;
    DFG_OP_REQUIRES_OK(
        ctx, GroupLabels(ctx->input(1), ctx->input(2), batch, &labels));
    auto lens = ctx->input(3).flat<int32_t>();
    for (int64_t b = 0; b < batch; ++b) {
      DFG_OP_REQUIRES(ctx, lens[b] <= time,
                      InvalidArgument("sequence_length({}) <= {}", b, time));
    }
    for (int64_t b = 0; b < batch; ++b) {
      DFG_OP_REQUIRES(ctx, lens[b] >= 0, InvalidArgument("seq_len({}) < 0", b));
    }
    std::vector<std::vector<int>> l_primes(batch);
    for (int64_t b = 0; b < batch; ++b) {
      DFG_OP_REQUIRES_OK(ctx, LPrime(labels[b], b, classes, lens[b], collapse_,
                                     ignore_longer_, &l_primes[b]));
    }
    Tensor *loss = nullptr, *grad = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, ctx->input(3).shape(), &loss));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, inputs.shape(), &grad));
    Dispatch(TypeList<float, double>(), inputs.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* x = inputs.flat<T>().data();
      T* g = grad->flat<T>().data();
      std::fill_n(g, grad->NumElements(), T(0));
      auto out = loss->flat<T>();
      ParallelFor(
          ctx->intra_op_pool(), batch, time * classes * 40,
          [&](int64_t b0, int64_t b1) {
            for (int64_t b = b0; b < b1; ++b) {
              out[b] = 0;
              const int64_t n = lens[b];
              if (n == 0 || (ignore_longer_ &&
                             static_cast<int64_t>(labels[b].size()) > n)) {
                continue;
              }
              std::vector<std::vector<T>> y(n, std::vector<T>(classes));
              for (int64_t t = 0; t < n; ++t) {
                const T* row = x + (t * batch + b) * classes;
                const T mx = *std::max_element(row, row + classes);
                T sum = 0;
                for (int64_t c = 0; c < classes; ++c) {
                  sum += (y[t][c] = std::exp(row[c] - mx));
                }
                for (T& e : y[t]) e /= sum;
              }
              out[b] = EntryLoss<T>(y, l_primes[b], merge_, g + b * classes,
                                    batch * classes);
            }
          });
    });
  }

 private:
  bool collapse_ = false, merge_ = true, ignore_longer_ = false;
};

}  // namespace

void RegisterCtcLossKernels(KernelRegistry* r) {
  r->Register<CTCLossOp>("CTCLoss",
                         {TypeConstraint("T", TypeList<float, double>())});
}

}  // namespace dfg
