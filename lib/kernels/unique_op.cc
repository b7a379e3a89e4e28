// Unique, UniqueV2 and UniqueWithCounts(V2) (TensorFlow's
// core/kernels/unique_op.cc): the distinct elements (or slices along `axis`)
// in order of first appearance, for each input position the index of its
// value in that list, and (WithCounts) how often each occurs. Values compare
// with ==, so -0.0 equals 0.0 and every NaN is distinct.
#include <limits>
#include <unordered_map>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using UniqueTypes = decltype(RealTypes() + TypeList<std::string, bool>());

template <typename T>
using Key = std::conditional_t<kIsHalfLike<T>, float, T>;

// For each of the n slices [outer, n, inner] the index of its first equal
// slice in first-appearance order; returns the number of distinct slices.
template <typename T>
int64_t Classify(const T* x, int64_t outer, int64_t n, int64_t inner,
                 std::vector<int64_t>* idx, std::vector<int64_t>* firsts) {
  if (outer == 1 && inner == 1) {
    std::unordered_map<Key<T>, int64_t> seen;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] =
          seen.try_emplace(Load(x[i]), static_cast<int64_t>(firsts->size()));
      if (inserted) firsts->push_back(i);
      (*idx)[i] = it->second;
    }
    return static_cast<int64_t>(firsts->size());
  }
  const auto at = [&](int64_t a, int64_t j, int64_t c) {
    return Load(x[(a * n + j) * inner + c]);
  };
  const auto same = [&](int64_t j, int64_t k) {
    for (int64_t a = 0; a < outer; ++a) {
      for (int64_t c = 0; c < inner; ++c) {
        if (!(at(a, j, c) == at(a, k, c))) return false;
      }
    }
    return true;
  };
  // Buckets by the slice's first element, then full comparison.
  std::unordered_map<Key<T>, std::vector<int64_t>> buckets;
  for (int64_t j = 0; j < n; ++j) {
    int64_t found = -1;
    const bool empty = outer == 0 || inner == 0;
    std::vector<int64_t>* bucket = nullptr;
    if (!empty) {
      bucket = &buckets[at(0, j, 0)];
      for (int64_t u : *bucket) {
        if (same((*firsts)[u], j)) {
          found = u;
          break;
        }
      }
    } else if (!firsts->empty()) {
      found = 0;
    }
    if (found < 0) {
      found = static_cast<int64_t>(firsts->size());
      firsts->push_back(j);
      if (bucket != nullptr) bucket->push_back(found);
    }
    (*idx)[j] = found;
  }
  return static_cast<int64_t>(firsts->size());
}

class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, input.NumElements() <= std::numeric_limits<int32_t>::max(),
        InvalidArgument("unique does not support input tensors larger than "
                        "{} elements",
                        std::numeric_limits<int32_t>::max()));
    int64_t axis = 0;
    DFG_OP_REQUIRES_OK(ctx, Axis(ctx, input, &axis));
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
    for (int d = axis + 1; d < input.dims(); ++d) inner *= input.dim_size(d);
    const int64_t n = input.dim_size(static_cast<int>(axis));
    std::vector<int64_t> idx(n), firsts;
    int64_t count = 0;
    Dispatch(UniqueTypes(), input.dtype(), [&](auto v) {
      using T = decltype(v);
      count = Classify(input.flat<T>().data(), outer, n, inner, &idx, &firsts);
    });
    TensorShape y_shape = input.shape();
    y_shape.set_dim(static_cast<int>(axis), count);
    Tensor* y = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, y_shape, &y));
    for (int64_t a = 0; a < outer; ++a) {
      for (int64_t u = 0; u < count; ++u) {
        CopyElements(input, (a * n + firsts[u]) * inner, y,
                     (a * count + u) * inner, inner);
      }
    }
    Tensor* out_idx = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({n}), &out_idx));
    for (int64_t i = 0; i < n; ++i) {
      if (out_idx->dtype() == tensorflow::DT_INT32) {
        out_idx->flat<int32_t>()[i] = static_cast<int32_t>(idx[i]);
      } else {
        out_idx->flat<int64_t>()[i] = idx[i];
      }
    }
    if (ctx->num_outputs() == 3) {  // UniqueWithCounts(V2)
      std::vector<int64_t> counts(count, 0);
      for (int64_t i : idx) ++counts[i];
      Tensor* out_count = nullptr;
      DFG_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(2, TensorShape({count}), &out_count));
      for (int64_t u = 0; u < count; ++u) {
        if (out_count->dtype() == tensorflow::DT_INT32) {
          out_count->flat<int32_t>()[u] = static_cast<int32_t>(counts[u]);
        } else {
          out_count->flat<int64_t>()[u] = counts[u];
        }
      }
    }
  }

 private:
  // Unique: the input must be a vector. UniqueV2: axis [] (same) or [a].
  static Status Axis(OpKernelContext* ctx, const Tensor& input, int64_t* axis) {
    const auto vector_only = [&]() {
      return input.dims() == 1 ? Status::Ok()
                               : InvalidArgument("unique expects a 1D vector.");
    };
    if (ctx->num_inputs() == 1) return vector_only();
    const Tensor& a = ctx->input(1);
    if (a.dims() != 1) return InvalidArgument("axis expects a 1D vector.");
    if (a.NumElements() > 1) {
      return InvalidArgument(
          "axis does not support input tensors larger than 1 elements");
    }
    if (a.NumElements() == 0) return vector_only();
    *axis = IntValues(a)[0];
    if (*axis < 0) *axis += input.dims();
    if (*axis < 0 || *axis >= input.dims()) {
      return InvalidArgument("axis has to be between [0, {})", input.dims());
    }
    return Status::Ok();
  }
};

}  // namespace

void RegisterUniqueKernels(KernelRegistry* r) {
  for (const char* op :
       {"Unique", "UniqueV2", "UniqueWithCounts", "UniqueWithCountsV2"}) {
    r->Register<UniqueOp>(op, {TypeConstraint("T", UniqueTypes())});
  }
}

}  // namespace dfg
