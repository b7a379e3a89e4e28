// Runtime-side state kernels of TF1 graphs: CheckNumericsV2 (which tells
// -Inf from +Inf), CountUpTo and ResourceCountUpTo, VariableShape,
// RefSelect, TemporaryVariable and DestroyTemporaryVariable (a variable that
// lives in the step's container), and the resource mutexes of
// tf.CriticalSection (MutexV2, MutexLock, ConsumeMutexLock).
#include <cmath>
#include <condition_variable>

#include "lib/kernels/container_info.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/step_container.h"
#include "lib/kernels/variant.h"

namespace dfg {
namespace {

class CheckNumericsV2Op : public OpKernel {
 public:
  explicit CheckNumericsV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    bool neg_inf = false, pos_inf = false, nan = false;
    Dispatch(FloatTypes(), in.dtype(), [&](auto v) {
      for (const auto& e : in.flat<decltype(v)>()) {
        const auto x = Load(e);
        nan |= std::isnan(x);
        neg_inf |= std::isinf(x) && x < 0;
        pos_inf |= std::isinf(x) && x > 0;
      }
    });
    ctx->set_output(0, in);
    std::vector<std::string> found;
    if (neg_inf) found.push_back("-Inf");
    if (pos_inf) found.push_back("+Inf");
    if (nan) found.push_back("NaN");
    if (found.empty()) return;
    const std::string what =
        found.size() == 3   ? found[0] + ", " + found[1] + ", and " + found[2]
        : found.size() == 2 ? found[0] + " and " + found[1]
                            : found[0];
    ctx->SetStatus(
        InvalidArgument("{} : Tensor had {} values", message_, what));
  }

 private:
  std::string message_;
};

// Returns the scalar `v` before adding one, unless it has reached `limit`.
template <typename T>
StatusOr<Tensor> CountUp(Tensor* v, int64_t limit) {
  if (v->dims() != 0) {
    return InvalidArgument("input is not a scalar: {}",
                           v->shape().DebugString());
  }
  const T before = v->scalar<T>();
  if (before >= limit) return OutOfRange("Reached limit of {}", limit);
  Tensor next = Tensor::Scalar<T>(before + 1);
  *v = std::move(next);
  return Tensor::Scalar<T>(before);
}

// CountUpTo (a ref input) and ResourceCountUpTo.
class CountUpToOp : public OpKernel {
 public:
  explicit CountUpToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("limit", &limit_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::mutex* mu = nullptr;
    Tensor* v = nullptr;
    std::shared_ptr<Var> var;
    if (input_type(0) == tensorflow::DT_RESOURCE) {
      ResourceMgr* rm = ctx->resource_manager();
      DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
      const ResourceHandle& h = ctx->input(0).flat<ResourceHandle>()[0];
      auto found = rm->Lookup(h.container, h.name);
      DFG_OP_REQUIRES_OK(ctx, found.status());
      var = *found;
      mu = var->mu();
      v = var->tensor();
    } else {
      DFG_OP_REQUIRES(ctx, ctx->input_is_ref(0),
                      InvalidArgument("input needs to be a ref type"));
      mu = ctx->input_ref_mutex(0);
      v = ctx->mutable_input(0);
    }
    std::lock_guard<std::mutex> lock(*mu);
    DFG_OP_REQUIRES(ctx, v->IsInitialized(),
                    FailedPrecondition("Attempting to use uninitialized value "
                                       "{}",
                                       requested_input(0)));
    StatusOr<Tensor> before = output_type(0) == tensorflow::DT_INT32
                                  ? CountUp<int32_t>(v, limit_)
                                  : CountUp<int64_t>(v, limit_);
    DFG_OP_REQUIRES_OK(ctx, before.status());
    ctx->set_output(0, *std::move(before));
  }

 private:
  int64_t limit_ = 0;
};

class VariableShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    const ResourceHandle& h = ctx->input(0).flat<ResourceHandle>()[0];
    auto var = rm->Lookup(h.container, h.name);
    DFG_OP_REQUIRES_OK(ctx, var.status());
    std::lock_guard<std::mutex> lock(*(*var)->mu());
    const TensorShape& shape = (*var)->tensor()->shape();
    std::vector<int64_t> dims(shape.dim_sizes().begin(),
                              shape.dim_sizes().end());
    if (output_type(0) == tensorflow::DT_INT64) {
      ctx->set_output(0, Tensor::Vector<int64_t>(dims));
      return;
    }
    std::vector<int32_t> small(dims.begin(), dims.end());
    ctx->set_output(0, Tensor::Vector<int32_t>(small));
  }
};

class RefSelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(0);
    DFG_OP_REQUIRES(ctx, index.dims() == 0,
                    InvalidArgument("Index must be a scalar, but it has shape "
                                    "{}",
                                    index.shape().DebugString()));
    const int32_t i = index.scalar<int32_t>();
    const int n = num_inputs() - 1;
    DFG_OP_REQUIRES(ctx, i >= 0 && i < n,
                    InvalidArgument("Index must be in the range [0, {}) but "
                                    "got {}",
                                    n, i));
    DFG_OP_REQUIRES(ctx, ctx->input_is_ref(i + 1),
                    InvalidArgument("input {} needs to be a ref type", i + 1));
    ctx->set_output_ref(0, ctx->input_ref_mutex(i + 1),
                        ctx->mutable_input(i + 1));
  }
};

// The step-container name of a temporary variable.
std::string TmpVarName(const std::string& name) { return "tmp_var/" + name; }

class TemporaryVariableOp : public OpKernel {
 public:
  explicit TemporaryVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    TensorShapeProto shape;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("var_name", &var_name_));
    if (var_name_.empty()) var_name_ = name();
    auto full = TensorShape::FromProto(shape);
    DFG_OP_REQUIRES_OK(ctx, full.status());
    shape_ = *full;
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    const std::string container = StepContainer(ctx->step_id());
    DFG_OP_REQUIRES(
        ctx, !rm->Lookup(container, TmpVarName(var_name_)).ok(),
        AlreadyExists(
            "Resource {}/{}/N10tensorflow19TemporaryVariableOp6TmpVarE",
            container, var_name_));
    auto var = rm->LookupOrCreate(container, TmpVarName(var_name_), dtype_);
    DFG_OP_REQUIRES_OK(ctx, var.status());
    auto value = Tensor::TryAllocate(dtype_, shape_);
    DFG_OP_REQUIRES_OK(ctx, value.status());
    std::lock_guard<std::mutex> lock(*(*var)->mu());
    *(*var)->tensor() = *std::move(value);
    (*var)->is_initialized = true;
    // The step's container keeps the variable alive until the step ends.
    ctx->set_output_ref(0, (*var)->mu(), (*var)->tensor());
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  TensorShape shape_;
  std::string var_name_;
};

class DestroyTemporaryVariableOp : public OpKernel {
 public:
  explicit DestroyTemporaryVariableOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES(ctx, IsRefType(ctx->input_type(0)),
                    InvalidArgument("lhs input needs to be a ref type"));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("var_name", &var_name_));
    DFG_OP_REQUIRES(ctx, !var_name_.empty(),
                    InvalidArgument("Missing var_name attribute"));
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor value;
    {
      std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(0));
      value = *ctx->mutable_input(0);
    }
    ctx->set_output(0, std::move(value));
    const std::string container = StepContainer(ctx->step_id());
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->resource_manager()->Delete(container, kVarTypeName,
                                                       TmpVarName(var_name_)));
  }

 private:
  std::string var_name_;
};

// A mutex of tf.CriticalSection: MutexLock waits for it and holds it as
// long as some tensor holds the lock's variant.
class Mutex : public ResourceBase {
 public:
  std::string DebugString() const override { return "Mutex"; }
  void Acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    free_.wait(lock, [&] { return !locked_; });
    locked_ = true;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      locked_ = false;
    }
    free_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable free_;
  bool locked_ = false;  // guarded by mu_
};

constexpr char kMutexTypeName[] = "N10tensorflow5MutexE";

class MutexLockValue : public VariantValue {
 public:
  explicit MutexLockValue(std::shared_ptr<Mutex> m) : mutex_(std::move(m)) {}
  ~MutexLockValue() override { mutex_->Release(); }
  std::string TypeName() const override {
    return "tensorflow::(anonymous namespace)::SharedLockReleaser";
  }
  std::string DebugString() const override { return "SharedLockReleaser"; }

 private:
  std::shared_ptr<Mutex> mutex_;
};

class MutexV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    auto info = GetContainerInfo(*this, *rm, false);
    DFG_OP_REQUIRES_OK(ctx, info.status());
    auto made = rm->LookupOrCreateResource(
        info->container, kMutexTypeName, info->name,
        []() -> StatusOr<std::shared_ptr<ResourceBase>> {
          return std::shared_ptr<ResourceBase>(std::make_shared<Mutex>());
        });
    DFG_OP_REQUIRES_OK(ctx, made.status());
    ResourceHandle h;
    h.device = def().device();
    h.container = info->container;
    h.name = info->name;
    h.maybe_type_name = kMutexTypeName;
    ctx->set_output(0, Tensor::Scalar<ResourceHandle>(std::move(h)));
  }
};

class MutexLockOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    const ResourceHandle& h = ctx->input(0).flat<ResourceHandle>()[0];
    auto r = rm->LookupResource(h.container, kMutexTypeName, h.name);
    DFG_OP_REQUIRES_OK(ctx, r.status());
    auto mutex = std::dynamic_pointer_cast<Mutex>(*r);
    DFG_OP_REQUIRES(ctx, mutex != nullptr,
                    Internal("{} is not a mutex", h.name));
    mutex->Acquire();
    Tensor lock(tensorflow::DT_VARIANT, TensorShape());
    lock.scalar<Variant>().value = std::make_shared<MutexLockValue>(mutex);
    ctx->set_output(0, std::move(lock));
  }
};

class ConsumeMutexLockOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    DFG_OP_REQUIRES(ctx, t.dims() == 0,
                    InvalidArgument("Expected input to be a scalar, saw "
                                    "shape: {}",
                                    t.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, t.scalar<Variant>().get<MutexLockValue>() != nullptr,
        InvalidArgument("Expected input to contain a SharedLockReleaser "
                        "object, but saw variant: '{}'",
                        t.scalar<Variant>().DebugString()));
  }
};

}  // namespace

void RegisterMiscStateKernels(KernelRegistry* r) {
  r->Register<CheckNumericsV2Op>("CheckNumericsV2",
                                 {TypeConstraint("T", FloatTypes())});
  const auto ints = TypeConstraint("T", TypeList<int32_t, int64_t>());
  r->Register<CountUpToOp>("CountUpTo", {ints});
  r->Register<CountUpToOp>("ResourceCountUpTo", {ints});
  r->Register<VariableShapeOp>(
      "VariableShape",
      {TypeConstraint("out_type", TypeList<int32_t, int64_t>())});
  r->Register<RefSelectOp>("RefSelect");
  r->Register<TemporaryVariableOp>("TemporaryVariable");
  r->Register<DestroyTemporaryVariableOp>("DestroyTemporaryVariable");
  r->Register<MutexV2Op>("MutexV2");
  r->Register<MutexLockOp>("MutexLock");
  r->Register<ConsumeMutexLockOp>("ConsumeMutexLock");
}

}  // namespace dfg
