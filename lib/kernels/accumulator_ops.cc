// Conditional accumulators of TF1 synchronous training (TensorFlow's
// conditional_accumulator*.h, sparse_conditional_accumulator.h):
// ConditionalAccumulator, SparseConditionalAccumulator and
// ResourceConditionalAccumulator make one; (Resource|Sparse)Accumulator
// ApplyGradient, TakeGradient, NumAccumulated and SetGlobalStep use it.
//
// An accumulator sums the gradients whose local_step is not older than its
// global step (older ones are dropped silently). TakeGradient waits until
// num_required gradients are in, returns their mean (or sum), resets the
// count and advances the global step. Dense gradients are summed whole;
// sparse ones (indices, values, shape) are merged by index, in the order
// TensorFlow merges them, and a MEAN divides each slice by the number of
// gradients that carried it. Kernels for half, float and double, as
// TensorFlow registers them.
#include <condition_variable>
#include <mutex>

#include "lib/kernels/container_info.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/partial_shape.h"

namespace dfg {
namespace {

using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_RESOURCE;
using tensorflow::DT_STRING;
using AccumTypes = TypeList<float, double, Half>;

constexpr char kTypeName[] = "N10tensorflow26ConditionalAccumulatorBaseE";

// y[yo + i] += x[xo + i] for i < n, in dtype `dt`.
void Add(DataType dt, const Tensor& x, int64_t xo, Tensor* y, int64_t yo,
         int64_t n) {
  Dispatch(AccumTypes(), dt, [&](auto v) {
    using T = decltype(v);
    std::span<const T> a = x.flat<T>();
    std::span<T> b = y->flat<T>();
    for (int64_t i = 0; i < n; ++i) {
      b[yo + i] = Store<T>(Load(b[yo + i]) + Load(a[xo + i]));
    }
  });
}

// y[off, off + n) /= d.
void Divide(DataType dt, Tensor* y, int64_t off, int64_t n, int64_t d) {
  Dispatch(AccumTypes(), dt, [&](auto v) {
    using T = decltype(v);
    std::span<T> b = y->flat<T>();
    const auto c = Load(Store<T>(d));
    for (int64_t i = 0; i < n; ++i) {
      b[off + i] = Store<T>(Load(b[off + i]) / c);
    }
  });
}

Tensor Copy(const Tensor& t) {
  Tensor c(t.dtype(), t.shape());
  CopyElements(t, 0, &c, 0, t.NumElements());
  return c;
}

class Accumulator : public ResourceBase {
 public:
  Accumulator(DataType dtype, PartialShape shape, bool mean, bool sparse)
      : dtype_(dtype), shape_(std::move(shape)), mean_(mean), sparse_(sparse) {}
  std::string DebugString() const override { return "Accumulator"; }
  DataType dtype() const { return dtype_; }
  bool sparse() const { return sparse_; }

  // Adds a dense gradient (when fresh enough).
  Status ApplyDense(int64_t local_step, const Tensor& grad) {
    std::unique_lock<std::mutex> lock(mu_);
    if (local_step < global_step_) return Status::Ok();
    if (counter_ > 0 && accum_.shape() != grad.shape()) {
      return InvalidArgument("Shape mismatch: expected {}, got {}",
                             accum_.shape().DebugString(),
                             grad.shape().DebugString());
    }
    if (!shape_.IsCompatibleWith(PartialShape::Of(grad.shape()))) {
      return InvalidArgument("Shape mismatch: expected {}, got {}",
                             shape_.DebugString(), grad.shape().DebugString());
    }
    if (counter_ == 0) {
      accum_ = Copy(grad);
    } else {
      Add(dtype_, grad, 0, &accum_, 0, grad.NumElements());
    }
    return Added(lock);
  }

  Status ApplySparse(int64_t local_step, const Tensor& idx, const Tensor& vals,
                     const Tensor* shape);

  // Waits for `n` gradients; the dense mean or sum into out[0], or the
  // sparse indices, values and shape into out[0..2].
  Status Take(int32_t n, std::vector<Tensor>* out) {
    if (n <= 0) {
      return InvalidArgument(
          "Argument num_required must be positive, but was {}", n);
    }
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return counter_ >= n; });
    ++global_step_;
    if (!sparse_) {
      if (mean_) Divide(dtype_, &accum_, 0, accum_.NumElements(), counter_);
      out->push_back(accum_);
    } else {
      const int64_t row = RowSize(accum_);
      if (mean_) {
        for (size_t i = 0; i < counts_.size(); ++i) {
          Divide(dtype_, &accum_, i * row, row, counts_[i]);
        }
      }
      out->push_back(Tensor::Vector<int64_t>(indices_));
      out->push_back(accum_);
      std::vector<int64_t> shape(accum_.dims());
      shape[0] =
          shape_.unknown_rank || shape_.dims.empty() ? -1 : shape_.dims[0];
      for (int i = 1; i < accum_.dims(); ++i) shape[i] = accum_.dim_size(i);
      out->push_back(Tensor::Vector<int64_t>(shape));
    }
    counter_ = 0;
    // The output shares the buffer: the next gradient starts a new one.
    accum_ = Tensor();
    return Status::Ok();
  }

  int32_t NumAccumulated() {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int32_t>(counter_);
  }
  void SetGlobalStep(int64_t step) {
    std::lock_guard<std::mutex> lock(mu_);
    global_step_ = step;
  }

 private:
  static int64_t RowSize(const Tensor& t) {
    return t.dims() == 0 || t.dim_size(0) == 0
               ? 0
               : t.NumElements() / t.dim_size(0);
  }
  Status Added(std::unique_lock<std::mutex>& lock) {
    ++counter_;
    lock.unlock();
    ready_.notify_all();
    return Status::Ok();
  }
  Status ValidateSparse(const Tensor& idx, const Tensor& vals,
                        const Tensor* shape) const;
  void MergeSparse(const Tensor& idx, const Tensor& vals);

  const DataType dtype_;
  const PartialShape shape_;
  const bool mean_, sparse_;
  std::mutex mu_;
  std::condition_variable ready_;
  int64_t counter_ = 0, global_step_ = 0;  // guarded by mu_
  Tensor accum_;                           // dense sum or sparse values
  std::vector<int64_t> indices_;           // sparse: the rows of accum_
  std::vector<int64_t> counts_;            // sparse: gradients per row
};

Status Accumulator::ValidateSparse(const Tensor& idx, const Tensor& vals,
                                   const Tensor* shape) const {
  const int rank = shape_.unknown_rank ? -1 : shape_.dims.size();
  if (shape != nullptr) {
    if (rank > shape->NumElements()) {
      return InvalidArgument(
          "Shape mismatch: expected shape rank at least {}, got {}", rank,
          shape->NumElements());
    }
    for (int i = 0; i < rank; ++i) {
      const int64_t got = shape->flat<int64_t>()[i];
      if (shape_.dims[i] != -1 && shape_.dims[i] != got) {
        return InvalidArgument(
            "Shape mismatch: expected shape dim {} to be {}, got {}", i,
            shape_.dims[i], got);
      }
    }
  }
  if (rank > 0 && shape_.dims[0] != -1 && idx.dims() > 0) {
    for (int64_t i = 0; i < idx.dim_size(0); ++i) {
      const int64_t v = idx.flat<int64_t>()[i];
      if (v >= shape_.dims[0]) {
        return InvalidArgument(
            "Shape mismatch: index of slice {} exceeded limits of shape; "
            "index is {} exceeded {}",
            i, v, shape_.dims[0]);
      }
    }
  }
  const Tensor* ref = counter_ > 0 ? &accum_ : nullptr;
  if (ref != nullptr && ref->dims() != vals.dims()) {
    return InvalidArgument("Shape mismatch: expected values rank {}, got {}",
                           ref->dims(), vals.dims());
  }
  if (ref == nullptr && rank > vals.dims()) {
    return InvalidArgument(
        "Shape mismatch: expected values rank at least {}, got {}", rank,
        vals.dims());
  }
  const int n = ref != nullptr ? ref->dims() : rank;
  for (int i = 1; i < n; ++i) {
    const int64_t want = ref != nullptr ? ref->dim_size(i) : shape_.dims[i];
    if (want != -1 && want != vals.dim_size(i)) {
      return InvalidArgument(
          "Shape mismatch: expected values dim {} to be {}, got {}", i, want,
          vals.dim_size(i));
    }
  }
  return Status::Ok();
}

Status Accumulator::ApplySparse(int64_t local_step, const Tensor& idx,
                                const Tensor& vals, const Tensor* shape) {
  std::unique_lock<std::mutex> lock(mu_);
  if (local_step < global_step_) return Status::Ok();
  if (idx.dims() != 1) {
    return InvalidArgument(
        "Input indices should be vector but received shape: {}",
        idx.shape().DebugString());
  }
  if (vals.dims() == 0) {
    return InvalidArgument("Values cannot be 0-dimensional.");
  }
  if (vals.dim_size(0) != idx.dim_size(0)) {
    return InvalidArgument("Expected {} non-empty input values, got {}",
                           idx.dim_size(0), vals.dim_size(0));
  }
  DFG_RETURN_IF_ERROR(ValidateSparse(idx, vals, shape));
  if (counter_ == 0) {
    std::span<const int64_t> v = idx.flat<int64_t>();
    indices_.assign(v.begin(), v.end());
    counts_.assign(indices_.size(), 1);
    accum_ = Copy(vals);
  } else {
    MergeSparse(idx, vals);
  }
  return Added(lock);
}

// TensorFlow's merge of two index lists, each taken to be ascending: a row
// in both is summed, the others are copied, in merged order.
void Accumulator::MergeSparse(const Tensor& idx, const Tensor& vals) {
  std::span<const int64_t> g = idx.flat<int64_t>();
  const int64_t row = RowSize(vals);
  std::vector<int64_t> indices, counts;
  std::vector<std::pair<int64_t, int64_t>> from;  // (accum row, grad row)
  size_t i = 0, j = 0;
  while (i < indices_.size() || j < g.size()) {
    if (j == g.size() || (i < indices_.size() && indices_[i] < g[j])) {
      from.emplace_back(i, -1);
      indices.push_back(indices_[i]);
      counts.push_back(counts_[i++]);
    } else if (i == indices_.size() || indices_[i] > g[j]) {
      from.emplace_back(-1, j);
      indices.push_back(g[j++]);
      counts.push_back(1);
    } else {
      from.emplace_back(i, j);
      indices.push_back(indices_[i]);
      counts.push_back(counts_[i++] + 1);
      ++j;
    }
  }
  TensorShape shape = vals.shape();
  shape.set_dim(0, static_cast<int64_t>(indices.size()));
  Tensor sum(dtype_, shape);
  for (size_t k = 0; k < from.size(); ++k) {
    const auto [a, b] = from[k];
    if (a >= 0) {
      CopyElements(accum_, a * row, &sum, k * row, row);
      if (b >= 0) Add(dtype_, vals, b * row, &sum, k * row, row);
    } else {
      CopyElements(vals, b * row, &sum, k * row, row);
    }
  }
  indices_ = std::move(indices);
  counts_ = std::move(counts);
  accum_ = std::move(sum);
}

// ConditionalAccumulator, SparseConditionalAccumulator,
// ResourceConditionalAccumulator.
class AccumulatorOp : public OpKernel {
 public:
  explicit AccumulatorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    TensorShapeProto shape;
    std::string reduction;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("reduction_type", &reduction));
    shape_ = PartialShapeFromProto(shape);
    mean_ = reduction == "MEAN";
    sparse_ = def().op() == "SparseConditionalAccumulator";
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    auto info = GetContainerInfo(*this, *rm, false);
    DFG_OP_REQUIRES_OK(ctx, info.status());
    auto made = rm->LookupOrCreateResource(
        info->container, kTypeName, info->name,
        [&]() -> StatusOr<std::shared_ptr<ResourceBase>> {
          return std::shared_ptr<ResourceBase>(
              std::make_shared<Accumulator>(dtype_, shape_, mean_, sparse_));
        });
    DFG_OP_REQUIRES_OK(ctx, made.status());
    if (output_type(0) == DT_RESOURCE) {
      ResourceHandle h;
      h.device = def().device();
      h.container = info->container;
      h.name = info->name;
      h.maybe_type_name = kTypeName;
      ctx->set_output(0, Tensor::Scalar<ResourceHandle>(std::move(h)));
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!handle_.IsInitialized()) {
      handle_ = Tensor::Vector<std::string>({info->container, info->name});
    }
    ctx->set_output_ref(0, &mu_, &handle_);
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  PartialShape shape_;
  bool mean_ = true, sparse_ = false;
  std::mutex mu_;
  Tensor handle_;  // [container, name], guarded by mu_
};

// The accumulator input 0 names (a resource, or a Ref to [container, name]).
StatusOr<std::shared_ptr<Accumulator>> GetAccumulator(OpKernelContext* ctx) {
  ResourceMgr* rm = ctx->resource_manager();
  if (rm == nullptr) return Internal("No resource manager.");
  std::string container, name;
  if (ctx->input_dtype(0) == DT_RESOURCE) {
    const Tensor& t = ctx->input(0);
    if (t.NumElements() != 1) {
      return InvalidArgument("Expected a scalar resource handle, got shape {}",
                             t.shape().DebugString());
    }
    container = t.flat<ResourceHandle>()[0].container;
    name = t.flat<ResourceHandle>()[0].name;
  } else {
    std::unique_lock<std::mutex> lock;
    if (ctx->input_is_ref(0)) {
      lock = std::unique_lock<std::mutex>(*ctx->input_ref_mutex(0));
    }
    const Tensor& t = ctx->input(0);
    if (t.dtype() != DT_STRING || t.NumElements() != 2) {
      return InvalidArgument(
          "Resource handle must have 2 elements, but had shape: {}",
          t.shape().DebugString());
    }
    container = t.flat<std::string>()[0];
    name = t.flat<std::string>()[1];
  }
  DFG_ASSIGN_OR_RETURN(auto r, rm->LookupResource(container, kTypeName, name));
  auto acc = std::dynamic_pointer_cast<Accumulator>(r);
  if (acc == nullptr) return Internal("{} is not an accumulator", name);
  return acc;
}

std::string TypesString(const std::vector<DataType>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) {
    s += (i > 0 ? ", " : "") + DataTypeString(types[i]);
  }
  return s;
}

// TensorFlow's MatchSignature: input 0 is the handle.
Status MatchSignature(const OpKernel& k, std::vector<DataType> in,
                      const std::vector<DataType>& out) {
  in.insert(in.begin(), k.input_type(0));
  if (in != k.input_types() || out != k.output_types()) {
    return InvalidArgument("Signature mismatch, have: {}->{} expected: {}->{}",
                           TypesString(k.input_types()),
                           TypesString(k.output_types()), TypesString(in),
                           TypesString(out));
  }
  return Status::Ok();
}

Status ScalarArg(const Tensor& t, const char* name) {
  if (t.dims() == 0) return Status::Ok();
  return InvalidArgument("Argument {} must be scalar, but had bad shape {}",
                         name, t.shape().DebugString());
}

enum class AccOp { kApply, kSparseApply, kTake, kNum, kSetStep };

template <AccOp kOp>
class AccumulatorUseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto acc = GetAccumulator(ctx);
    DFG_OP_REQUIRES_OK(ctx, acc.status());
    Accumulator& a = **acc;
    const DataType dt = a.dtype();
    if constexpr (kOp == AccOp::kApply || kOp == AccOp::kSparseApply) {
      DFG_OP_REQUIRES_OK(
          ctx,
          kOp == AccOp::kApply
              ? MatchSignature(*this, {DT_INT64, dt}, {})
              : MatchSignature(*this, {DT_INT64, DT_INT64, dt, DT_INT64}, {}));
      DFG_OP_REQUIRES_OK(ctx, ScalarArg(ctx->input(1), "local_step"));
      const int64_t step = ctx->input(1).scalar<int64_t>();
      if constexpr (kOp == AccOp::kApply) {
        DFG_OP_REQUIRES_OK(ctx, a.ApplyDense(step, ctx->input(2)));
      } else {
        bool known = false;
        DFG_OP_REQUIRES_OK(ctx, GetAttrValue("has_known_shape", &known));
        DFG_OP_REQUIRES_OK(ctx,
                           a.ApplySparse(step, ctx->input(2), ctx->input(3),
                                         known ? &ctx->input(4) : nullptr));
      }
    } else if constexpr (kOp == AccOp::kTake) {
      const bool sparse = num_outputs() == 3;
      DFG_OP_REQUIRES_OK(
          ctx,
          MatchSignature(*this, {DT_INT32},
                         sparse ? std::vector<DataType>{DT_INT64, dt, DT_INT64}
                                : std::vector{dt}));
      DFG_OP_REQUIRES_OK(ctx, ScalarArg(ctx->input(1), "num_required"));
      std::vector<Tensor> out;
      DFG_OP_REQUIRES_OK(ctx, a.Take(ctx->input(1).scalar<int32_t>(), &out));
      for (size_t i = 0; i < out.size(); ++i) {
        ctx->set_output(i, std::move(out[i]));
      }
    } else if constexpr (kOp == AccOp::kNum) {
      DFG_OP_REQUIRES_OK(ctx, MatchSignature(*this, {}, {DT_INT32}));
      ctx->set_output(0, Tensor::Scalar<int32_t>(a.NumAccumulated()));
    } else {
      DFG_OP_REQUIRES_OK(ctx, MatchSignature(*this, {DT_INT64}, {}));
      DFG_OP_REQUIRES_OK(ctx, ScalarArg(ctx->input(1), "new_global_step"));
      a.SetGlobalStep(ctx->input(1).scalar<int64_t>());
    }
  }

 private:
  Status GetAttrValue(const char* name, bool* v) const {
    auto it = def().attr().find(name);
    if (it == def().attr().end()) {
      return InvalidArgument("No attr named '{}' in NodeDef", name);
    }
    *v = it->second.b();
    return Status::Ok();
  }
};

}  // namespace

void RegisterAccumulatorKernels(KernelRegistry* r) {
  const auto types = TypeConstraint("dtype", AccumTypes());
  for (const char* op :
       {"ConditionalAccumulator", "SparseConditionalAccumulator",
        "ResourceConditionalAccumulator"}) {
    r->Register<AccumulatorOp>(op, {types});
  }
  for (const std::string prefix : {"", "Resource"}) {
    r->Register<AccumulatorUseOp<AccOp::kApply>>(prefix +
                                                 "AccumulatorApplyGradient");
    r->Register<AccumulatorUseOp<AccOp::kTake>>(prefix +
                                                "AccumulatorTakeGradient");
    r->Register<AccumulatorUseOp<AccOp::kNum>>(prefix +
                                               "AccumulatorNumAccumulated");
    r->Register<AccumulatorUseOp<AccOp::kSetStep>>(prefix +
                                                   "AccumulatorSetGlobalStep");
  }
  r->Register<AccumulatorUseOp<AccOp::kSparseApply>>(
      "SparseAccumulatorApplyGradient");
  r->Register<AccumulatorUseOp<AccOp::kTake>>("SparseAccumulatorTakeGradient");
}

}  // namespace dfg
