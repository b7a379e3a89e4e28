// Internal to the optimizer kernels (training_ops.cc, training_ext_ops.cc):
// the kernel shared by every Apply*/ResourceApply* op. An optimizer is a
// functor F with
//   static std::vector<ArgSpec> Args();  // the op's inputs, in order
//   template <typename T>
//   void Run(T* const* slots, const CalcType<T>* scalars, const T* grad,
//            int64_t n) const;           // slots[0] is the variable
// and optional bool members named like the op's attrs (nesterov,
// update_slots, multiply_linear_by_lr), which the kernel reads.
//
// The kernel locks the slots' mutexes (always: dfg never races updates, so
// `use_locking` only has to be a valid attr), checks TensorFlow's
// preconditions in its order, and updates element-wise. An update never
// writes into a buffer another tensor shares (a Const that initialized the
// variable, a value a reader holds): such a slot gets its own copy first, as
// TensorFlow's resource variables do (copy-on-write).
#ifndef DFG_LIB_KERNELS_TRAINING_OPS_H_
#define DFG_LIB_KERNELS_TRAINING_OPS_H_

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace training {

// kSlot: a variable (ref or resource); kScalar: a T scalar; kLegacyScalar:
// a T scalar or [1]; kStep: an int64 scalar (read as T); kGrad: shaped like
// the variable, or (with kIndices, the Sparse* forms) like the rows of the
// variable that the indices name.
enum Arg { kSlot, kScalar, kLegacyScalar, kStep, kGrad, kIndices };

struct ArgSpec {
  const char* name;
  Arg kind;
  // TensorFlow's text for a non-scalar scalar arg, before the shape, when it
  // is not "<name> is not a scalar: ".
  const char* not_scalar = nullptr;
};

// One variable slot while the kernel runs: its mutex and tensor.
struct Slot {
  std::mutex* mu = nullptr;
  Tensor* tensor = nullptr;
  std::shared_ptr<Var> keep;  // resource form: keeps the Var alive
};

// Ops whose update only reads float types: TensorFlow's CPU kernels cover
// half, bfloat16, float and double for every optimizer here.
using OptimizerTypes = FloatTypes;

template <typename F>
class ApplyOp : public OpKernel {
 public:
  ApplyOp(OpKernelConstruction* ctx, std::vector<ArgSpec> args, bool resource)
      : OpKernel(ctx), args_(std::move(args)), resource_(resource) {
    set_allows_uninitialized_input(true);
    bool use_locking = false;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
    if constexpr (requires(F f) { f.nesterov; }) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &f_.nesterov));
    }
    if constexpr (requires(F f) { f.update_slots; }) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("update_slots", &f_.update_slots));
    }
    if constexpr (requires(F f) { f.multiply_linear_by_lr; }) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("multiply_linear_by_lr",
                                           &f_.multiply_linear_by_lr));
    }
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype_));
    Dispatch(OptimizerTypes(), dtype_,
             [&](auto t) { run_ = &ApplyOp::Run<decltype(t)>; });
    DFG_OP_REQUIRES(ctx, run_ != nullptr,
                    InvalidArgument("{} does not support {}", ctx->def().op(),
                                    DataTypeString(dtype_)));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Slot> slots;
    for (int i = 0; i < static_cast<int>(args_.size()); ++i) {
      if (args_[i].kind != Arg::kSlot) continue;
      Slot slot;
      DFG_OP_REQUIRES_OK(ctx, GetSlot(ctx, i, &slot));
      slots.push_back(std::move(slot));
    }
    // Lock each distinct mutex once, in address order (no deadlock between
    // two optimizers sharing slots).
    std::vector<std::mutex*> mus;
    for (const Slot& s : slots) mus.push_back(s.mu);
    std::sort(mus.begin(), mus.end());
    mus.erase(std::unique(mus.begin(), mus.end()), mus.end());
    std::vector<std::unique_lock<std::mutex>> locks;
    for (std::mutex* mu : mus) locks.emplace_back(*mu);
    (this->*run_)(ctx, slots);
    locks.clear();
    if (!resource_ && ctx->status().ok()) {
      ctx->set_output_ref(0, slots[0].mu, slots[0].tensor);
    }
  }

 private:
  Status GetSlot(OpKernelContext* ctx, int i, Slot* slot) const {
    if (!resource_) {
      if (!ctx->input_is_ref(i)) {
        return InvalidArgument("{} input {} needs to be a ref type",
                               type_string(), args_[i].name);
      }
      slot->mu = ctx->input_ref_mutex(i);
      slot->tensor = ctx->mutable_input(i);
      return Status::Ok();
    }
    const Tensor& h = ctx->input(i);
    if (h.dtype() != tensorflow::DT_RESOURCE || h.NumElements() != 1) {
      return InvalidArgument("Expected a scalar resource handle for {}, got {}",
                             args_[i].name, h.shape().DebugString());
    }
    if (ctx->resource_manager() == nullptr) {
      return Internal("No resource manager.");
    }
    const ResourceHandle& handle = h.flat<ResourceHandle>()[0];
    DFG_ASSIGN_OR_RETURN(slot->keep, ctx->resource_manager()->Lookup(
                                         handle.container, handle.name));
    slot->mu = slot->keep->mu();
    slot->tensor = slot->keep->tensor();
    return Status::Ok();
  }

  // Preconditions in TensorFlow's order: slots initialized, scalars, then
  // every slot and the gradient shaped like var. Called under the locks.
  Status Check(OpKernelContext* ctx, const std::vector<Slot>& slots) const {
    int k = 0;
    for (int i = 0; i < static_cast<int>(args_.size()); ++i) {
      if (args_[i].kind != Arg::kSlot) continue;
      const Tensor* t = slots[k++].tensor;
      if (!t->IsInitialized()) {
        return FailedPrecondition(
            "Attempting to use uninitialized variables: {}",
            requested_input(i));
      }
      if (t->dtype() != dtype_) {
        return InvalidArgument("{} is a {} variable, expected {}",
                               requested_input(i), DataTypeString(t->dtype()),
                               DataTypeString(dtype_));
      }
    }
    for (int i = 0; i < static_cast<int>(args_.size()); ++i) {
      const TensorShape& s = ctx->input(i).shape();
      const bool scalar = s.dims() == 0;
      const bool legacy = s.dims() == 1 && s.dim_size(0) == 1;
      if (((args_[i].kind == Arg::kScalar || args_[i].kind == Arg::kStep) &&
           !scalar) ||
          (args_[i].kind == Arg::kLegacyScalar && !scalar && !legacy)) {
        if (args_[i].not_scalar != nullptr) {
          return InvalidArgument("{}{}", args_[i].not_scalar, s.DebugString());
        }
        return InvalidArgument("{} is not a scalar: {}", args_[i].name,
                               s.DebugString());
      }
    }
    const TensorShape& var = slots[0].tensor->shape();
    k = 0;
    for (int i = 0; i < static_cast<int>(args_.size()); ++i) {
      const TensorShape* s = nullptr;
      if (args_[i].kind == Arg::kSlot) {
        s = &slots[k++].tensor->shape();
        if (k == 1) continue;
      } else if (args_[i].kind == Arg::kGrad && !sparse()) {
        s = &ctx->input(i).shape();
      } else {
        continue;
      }
      if (!var.IsSameSize(*s)) {
        return InvalidArgument("var and {} do not have the same shape{} {}",
                               args_[i].name, var.DebugString(),
                               s->DebugString());
      }
    }
    return sparse() ? CheckSparse(ctx, var) : Status::Ok();
  }

  bool sparse() const { return Index(Arg::kIndices) >= 0; }
  int Index(Arg kind) const {
    for (int i = 0; i < static_cast<int>(args_.size()); ++i) {
      if (args_[i].kind == kind) return i;
    }
    return -1;
  }

  // The Sparse* forms: grad holds the rows of var the indices name.
  Status CheckSparse(OpKernelContext* ctx, const TensorShape& var) const {
    const Tensor& grad = ctx->input(Index(Arg::kGrad));
    const Tensor& indices = ctx->input(Index(Arg::kIndices));
    if (var.dims() < 1) {
      return InvalidArgument("var must be at least 1 dimensional");
    }
    if (indices.dims() != 1) {
      return InvalidArgument("indices must be one-dimensional");
    }
    int64_t inner = 1;
    for (int d = 1; d < var.dims(); ++d) {
      if (grad.dims() <= d || var.dim_size(d) != grad.dim_size(d)) {
        return InvalidArgument("var and grad must match in dimension {}", d);
      }
      inner *= grad.dim_size(d);
    }
    if (grad.dims() < 1 || grad.dim_size(0) != indices.dim_size(0)) {
      return InvalidArgument(
          "grad must be the same size as indices in the first dimension.");
    }
    if (inner <= 0) {
      return InvalidArgument("Inner dimension should be greater than zero.");
    }
    const std::vector<int64_t> idx = IntValues(indices);
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] >= 0 && idx[i] < var.dim_size(0)) continue;
      // KerasMomentum words it as the scatter ops do.
      if (this->type_string() == "ResourceSparseApplyKerasMomentum") {
        return InvalidArgument("indices[{}] = {} is not in [0, {})", i, idx[i],
                               var.dim_size(0));
      }
      return InvalidArgument("Index {} at offset {} in indices is out of range",
                             idx[i], i);
    }
    return Status::Ok();
  }

  template <typename T>
  void Run(OpKernelContext* ctx, std::vector<Slot>& slots) const {
    DFG_OP_REQUIRES_OK(ctx, Check(ctx, slots));
    std::vector<T*> data;
    for (Slot& s : slots) {
      // Copy-on-write: never update a buffer someone else holds.
      if (!s.tensor->RefCountIsOne() && s.tensor->NumElements() > 0) {
        *s.tensor = s.tensor->DeepCopy();
      }
      data.push_back(static_cast<T*>(s.tensor->data()));
    }
    std::vector<CalcType<T>> scalars;
    const T* grad = nullptr;
    for (int i = 0; i < static_cast<int>(args_.size()); ++i) {
      if (args_[i].kind == Arg::kGrad) {
        grad = static_cast<const T*>(ctx->input(i).data());
      } else if (args_[i].kind == Arg::kStep) {
        scalars.push_back(static_cast<CalcType<T>>(
            *static_cast<const int64_t*>(ctx->input(i).data())));
      } else if (args_[i].kind != Arg::kSlot &&
                 args_[i].kind != Arg::kIndices) {
        scalars.push_back(Load(*static_cast<const T*>(ctx->input(i).data())));
      }
    }
    const int64_t n = slots[0].tensor->NumElements();
    if (!sparse()) {
      f_.template Run<T>(data.data(), scalars.data(), grad, n);
      return;
    }
    // Row by row, in index order (a repeated index updates twice).
    const std::vector<int64_t> idx =
        IntValues(ctx->input(Index(Arg::kIndices)));
    const int64_t rows = slots[0].tensor->dim_size(0);
    const int64_t inner = rows == 0 ? 0 : n / rows;
    std::vector<T*> row(data.size());
    for (size_t i = 0; i < idx.size(); ++i) {
      for (size_t k = 0; k < data.size(); ++k)
        row[k] = data[k] + idx[i] * inner;
      f_.template Run<T>(row.data(), scalars.data(), grad + i * inner, inner);
    }
  }

  std::vector<ArgSpec> args_;
  bool resource_;
  DataType dtype_ = tensorflow::DT_INVALID;
  F f_;
  void (ApplyOp::*run_)(OpKernelContext*, std::vector<Slot>&) const = nullptr;
};

template <typename F, bool kResource>
class Optimizer : public ApplyOp<F> {
 public:
  explicit Optimizer(OpKernelConstruction* ctx)
      : ApplyOp<F>(ctx, F::Args(), kResource) {}
};

// `ref_op` may be null (an optimizer with only a resource form); `types`
// narrows OptimizerTypes to the ones TensorFlow registers.
template <typename F>
void RegisterBoth(KernelRegistry* r, const char* ref_op,
                  const char* resource_op,
                  std::vector<DataType> types = DataTypes(OptimizerTypes())) {
  if (ref_op != nullptr) {
    r->Register<Optimizer<F, false>>(ref_op, {{"T", types}});
  }
  r->Register<Optimizer<F, true>>(resource_op, {{"T", types}});
}

template <typename F, bool kResource>
class SparseOptimizer : public ApplyOp<F> {
 public:
  explicit SparseOptimizer(OpKernelConstruction* ctx)
      : ApplyOp<F>(ctx, SparseArgs(), kResource) {}

 private:
  // F's args with the indices after the gradient (named "grad").
  static std::vector<ArgSpec> SparseArgs() {
    std::vector<ArgSpec> args;
    for (ArgSpec a : F::Args()) {
      if (a.kind == kGrad) a.name = "grad";
      args.push_back(a);
      if (a.kind == kGrad) args.push_back({"indices", kIndices});
    }
    return args;
  }
};

// Sparse<Name> and ResourceSparse<Name>; `ref_op` may be null.
template <typename F>
void RegisterSparse(KernelRegistry* r, const char* ref_op,
                    const char* resource_op, std::vector<DataType> types) {
  const KernelTypeConstraint idx{"Tindices",
                                 {tensorflow::DT_INT32, tensorflow::DT_INT64}};
  if (ref_op != nullptr) {
    r->Register<SparseOptimizer<F, false>>(ref_op, {{"T", types}, idx});
  }
  r->Register<SparseOptimizer<F, true>>(resource_op, {{"T", types}, idx});
}

}  // namespace training
}  // namespace dfg

#endif  // DFG_LIB_KERNELS_TRAINING_OPS_H_
