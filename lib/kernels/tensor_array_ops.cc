// TensorArray kernels, as TF1's dynamic_rnn and its gradient use them
// (TensorFlow's tensor_array_ops.cc): TensorArrayV3, TensorArrayWriteV3,
// ReadV3, GatherV3, ScatterV3, ConcatV3, SplitV3, SizeV3, CloseV3 and
// TensorArrayGradV3; the same kernels run the deprecated string-handle
// forms (TensorArray*, TensorArray*V2, TensorArrayPack/Unpack) of graphs
// from older producers. The array itself is in tensor_array.h.
//
// An array is a step resource: TensorArrayV3 creates it in the step's
// container of the ResourceMgr (a Var holding a DT_VARIANT scalar that
// points to the array), its handle names it, and the session drops the
// container when the step ends. The float `flow` tensors only order the ops.
// Gradient arrays (TensorArrayGradV3, named "<array>@<source>") sum multiple
// writes to one index, as TensorFlow's do.
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/step_container.h"
#include "lib/kernels/tensor_array.h"

namespace dfg {
namespace {

using tensor_array::ArrayState;
using tensor_array::CheckOpen;
using tensor_array::CheckReadDtype;
using tensor_array::EmitJoined;
using tensor_array::GetArray;
using tensor_array::MakeHandle;
using tensor_array::Put;
using tensor_array::ReadLocked;
using tensor_array::SetFlow;
using tensor_array::SetHandleOutput;
using tensor_array::WriteLocked;

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    TensorShapeProto shape;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &shape));
    element_shape_ = PartialShapeFromProto(shape);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dynamic_size", &dynamic_size_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("clear_after_read", &clear_));
    if (ctx->HasAttr("identical_element_shapes")) {
      DFG_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("identical_element_shapes", &identical_shapes_));
    }
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_array_name", &name_));
    if (name_.empty()) name_ = name();
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& size = ctx->input(0);
    DFG_OP_REQUIRES(ctx, size.dims() == 0 && IsIntTensor(size),
                    InvalidArgument("TensorArray size must be scalar, but had "
                                    "shape: {}",
                                    size.shape().DebugString()));
    const int64_t n = IntValues(size)[0];
    DFG_OP_REQUIRES(ctx, n >= 0, InvalidArgument("Size should be >= 0."));
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    auto state = std::make_shared<ArrayState>();
    state->dtype = dtype_;
    state->element_shape = element_shape_;
    state->dynamic_size = dynamic_size_;
    state->clear_after_read = clear_;
    state->identical_element_shapes = identical_shapes_;
    state->name = name_ + "_" + std::to_string(counter_.fetch_add(1));
    state->elements.resize(n);
    const ResourceHandle h =
        MakeHandle(StepContainer(ctx->step_id()), state->name);
    DFG_OP_REQUIRES_OK(ctx, Put(rm, h, state));
    SetHandleOutput(ctx, h, state.get());
    // TensorArray and TensorArrayV2 have no flow output.
    if (num_outputs() == 2) ctx->set_output(1, Tensor::Scalar<float>(0));
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  PartialShape element_shape_;
  bool dynamic_size_ = false, clear_ = true, identical_shapes_ = false;
  std::string name_;
  std::atomic<int64_t> counter_{0};
};

// TensorArrayGradV3(handle, flow_in; source): the gradient array
// "<array>@<source>", made on first use with the forward array's size,
// dtype and element shape.
PartialShape Prepend(const std::vector<int64_t>& dims,
                     const PartialShape& shape) {
  if (dims.empty() || shape.unknown_rank) return shape;
  PartialShape out{false, dims};
  out.dims.insert(out.dims.end(), shape.dims.begin(), shape.dims.end());
  return out;
}

class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("source", &source_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto fwd = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, fwd.status());
    auto fh = tensor_array::InputHandle(ctx);
    DFG_OP_REQUIRES_OK(ctx, fh.status());
    const ResourceHandle h =
        MakeHandle(fh->container, fh->name + "@" + source_);
    ResourceMgr* rm = ctx->resource_manager();
    // TensorArrayGradWithShape: dims prepended to every element's shape.
    std::vector<int64_t> prepend;
    if (num_inputs() == 3) prepend = IntValues(ctx->input(2));
    auto state = std::make_shared<ArrayState>();
    if (!rm->Lookup(h.container, h.name).ok()) {
      {
        std::lock_guard<std::mutex> lock((*fwd)->mu);
        DFG_OP_REQUIRES_OK(ctx, CheckOpen(**fwd));
        // The forward array cannot grow once its gradient exists.
        (*fwd)->dynamic_size = false;
        state->dtype = (*fwd)->dtype;
        state->element_shape = Prepend(prepend, (*fwd)->element_shape);
        for (const auto& e : (*fwd)->elements) {
          state->elements.emplace_back();
          if (!e.written) continue;
          TensorShape shape = e.value.shape();
          for (size_t i = prepend.size(); i-- > 0;) {
            shape.InsertDim(0, prepend[i]);
          }
          state->elements.back().shape = shape;
        }
      }
      state->multiple_writes_aggregate = true;
      state->clear_after_read = true;
      state->name = h.name;
      DFG_OP_REQUIRES_OK(ctx, Put(rm, h, state));
    } else {
      auto existing =
          GetStepResource<tensor_array::TensorArrayValue>(rm, h, "TensorArray");
      DFG_OP_REQUIRES_OK(ctx, existing.status());
      state = *existing;
    }
    SetHandleOutput(ctx, h, state.get());
    // TensorArrayGrad and TensorArrayGradV2 have no flow output.
    if (num_outputs() == 2) SetFlow(ctx, 1, 1);
  }

 private:
  std::string source_;
};

class WriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto a = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, a.status());
    DFG_OP_REQUIRES(ctx, ctx->input(1).NumElements() == 1,
                    InvalidArgument("index must be a scalar, got shape {}",
                                    ctx->input(1).shape().DebugString()));
    const int64_t index = IntValues(ctx->input(1))[0];
    std::lock_guard<std::mutex> lock((*a)->mu);
    DFG_OP_REQUIRES_OK(ctx, WriteLocked(**a, index, ctx->input(2)));
    SetFlow(ctx, 0, 3);
  }
};

class ReadOp : public OpKernel {
 public:
  explicit ReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto a = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, a.status());
    DFG_OP_REQUIRES(ctx, ctx->input(1).NumElements() == 1,
                    InvalidArgument("index must be a scalar, got shape {}",
                                    ctx->input(1).shape().DebugString()));
    const int64_t index = IntValues(ctx->input(1))[0];
    std::lock_guard<std::mutex> lock((*a)->mu);
    DFG_OP_REQUIRES_OK(ctx, CheckReadDtype(**a, dtype_));
    auto t = ReadLocked(**a, index);
    DFG_OP_REQUIRES_OK(ctx, t.status());
    ctx->set_output(0, std::move(t).value());
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    TensorShapeProto shape;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &shape));
    element_shape_ = PartialShapeFromProto(shape);
    pack_ = def().op() == "TensorArrayPack";
  }
  void Compute(OpKernelContext* ctx) override {
    auto a = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, a.status());
    std::vector<int64_t> indices;
    if (!pack_) {
      const Tensor& it = ctx->input(1);
      DFG_OP_REQUIRES(ctx, it.dims() == 1,
                      InvalidArgument("Expected indices to be a vector, but "
                                      "received shape: {}",
                                      it.shape().DebugString()));
      indices = IntValues(it);
    }
    std::lock_guard<std::mutex> lock((*a)->mu);
    DFG_OP_REQUIRES_OK(ctx, CheckReadDtype(**a, dtype_));
    if (pack_) {  // TensorArrayPack: every element, in order
      indices.resize((*a)->elements.size());
      std::iota(indices.begin(), indices.end(), int64_t{0});
    }
    std::vector<Tensor> parts;
    for (int64_t index : indices) {
      auto t = ReadLocked(**a, index);
      DFG_OP_REQUIRES_OK(ctx, t.status());
      DFG_OP_REQUIRES(
          ctx, parts.empty() || t->shape() == parts[0].shape(),
          InvalidArgument("TensorArray has inconsistent shapes.  Index 0 has "
                          "shape: {} but index {} has shape: {}",
                          parts[0].shape().DebugString(), parts.size(),
                          t->shape().DebugString()));
      parts.push_back(std::move(t).value());
    }
    TensorShape shape;
    if (parts.empty()) {
      PartialShape s;
      DFG_OP_REQUIRES_OK(ctx,
                         element_shape_.MergeWith((*a)->element_shape, &s));
      DFG_OP_REQUIRES(ctx, s.IsFullyDefined(),
                      Unimplemented("TensorArray has size zero, but element "
                                    "shape {} is not fully defined. Currently "
                                    "only static shapes are supported when "
                                    "packing zero-size TensorArrays.",
                                    s.DebugString()));
      shape = s.AsShape();
    } else {
      shape = parts[0].shape();
    }
    shape.InsertDim(0, static_cast<int64_t>(parts.size()));
    EmitJoined(ctx, parts, shape);
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  PartialShape element_shape_;
  bool pack_ = false;
};

// Also TensorArrayUnpack(handle, value, flow_in): value[i] to index i.
class ScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto a = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, a.status());
    const bool unpack = num_inputs() == 3;
    const Tensor& value = ctx->input(unpack ? 1 : 2);
    std::vector<int64_t> indices;
    if (unpack) {
      indices.resize(value.dims() > 0 ? value.dim_size(0) : 0);
      std::iota(indices.begin(), indices.end(), int64_t{0});
    } else {
      const Tensor& it = ctx->input(1);
      DFG_OP_REQUIRES(ctx, it.dims() == 1,
                      InvalidArgument("Expected indices to be a vector, but "
                                      "received shape: {}",
                                      it.shape().DebugString()));
      indices = IntValues(it);
    }
    const int64_t n = static_cast<int64_t>(indices.size());
    DFG_OP_REQUIRES(
        ctx, value.dims() >= 1 && value.dim_size(0) == n,
        InvalidArgument("Expected len(indices) == values.shape[0], "
                        "but saw: {} vs. {}",
                        n, value.dims() > 0 ? value.dim_size(0) : 0));
    TensorShape elem = value.shape();
    elem.RemoveDim(0);
    std::lock_guard<std::mutex> lock((*a)->mu);
    for (int64_t i = 0; i < n; ++i) {
      auto part = Tensor::TryAllocate(value.dtype(), elem);
      DFG_OP_REQUIRES_OK(ctx, part.status());
      CopyElements(value, i * elem.num_elements(), &*part, 0,
                   elem.num_elements());
      DFG_OP_REQUIRES_OK(ctx, WriteLocked(**a, indices[i], *part));
    }
    SetFlow(ctx, 0, unpack ? 2 : 3);
  }
};

class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto a = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, a.status());
    std::lock_guard<std::mutex> lock((*a)->mu);
    DFG_OP_REQUIRES_OK(ctx, CheckReadDtype(**a, dtype_));
    std::vector<Tensor> parts;
    std::vector<int64_t> lengths;
    int64_t rows = 0;
    for (size_t i = 0; i < (*a)->elements.size(); ++i) {
      auto t = ReadLocked(**a, static_cast<int64_t>(i));
      DFG_OP_REQUIRES_OK(ctx, t.status());
      DFG_OP_REQUIRES(ctx, t->dims() >= 1,
                      InvalidArgument("Concat saw a scalar shape at index {} "
                                      "but requires at least vectors.",
                                      i));
      TensorShape rest = t->shape(),
                  first = parts.empty() ? rest : parts[0].shape();
      rest.RemoveDim(0);
      first.RemoveDim(0);
      DFG_OP_REQUIRES(
          ctx, rest == first,
          InvalidArgument("TensorArray has inconsistent shapes.  "
                          "Index 0 has (excepting dimension 0) "
                          "shape: {} but index {} has (excepting "
                          "dimension 0) shape: {}",
                          first.DebugString(), i, rest.DebugString()));
      lengths.push_back(t->dim_size(0));
      rows += t->dim_size(0);
      parts.push_back(std::move(t).value());
    }
    DFG_OP_REQUIRES(ctx, !parts.empty(),
                    Unimplemented("TensorArray has size zero, but element "
                                  "shape is not fully defined."));
    TensorShape shape = parts[0].shape();
    shape.set_dim(0, rows);
    EmitJoined(ctx, parts, shape);
    ctx->set_output(1, Tensor::Vector<int64_t>(lengths));
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto a = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, a.status());
    const Tensor& value = ctx->input(1);
    const std::vector<int64_t> lengths = IntValues(ctx->input(2));
    DFG_OP_REQUIRES(ctx, value.dims() >= 1,
                    InvalidArgument("Expected value to be at least a vector, "
                                    "but received shape: {}",
                                    value.shape().DebugString()));
    int64_t total = 0;
    for (int64_t l : lengths) {
      DFG_OP_REQUIRES(ctx, l >= 0,
                      InvalidArgument("Expected lengths to be non-negative, "
                                      "but saw {}",
                                      l));
      total += l;
    }
    DFG_OP_REQUIRES(ctx, total == value.dim_size(0),
                    InvalidArgument("Expected sum of lengths to be equal to "
                                    "values.shape[0], but sum of lengths is {} "
                                    "and value's shape is: {}",
                                    total, value.shape().DebugString()));
    const int64_t row =
        value.dim_size(0) == 0 ? 0 : value.NumElements() / value.dim_size(0);
    std::lock_guard<std::mutex> lock((*a)->mu);
    int64_t offset = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      TensorShape s = value.shape();
      s.set_dim(0, lengths[i]);
      auto part = Tensor::TryAllocate(value.dtype(), s);
      DFG_OP_REQUIRES_OK(ctx, part.status());
      CopyElements(value, offset * row, &*part, 0, lengths[i] * row);
      offset += lengths[i];
      DFG_OP_REQUIRES_OK(ctx, WriteLocked(**a, static_cast<int64_t>(i), *part));
    }
    SetFlow(ctx, 0, 3);
  }
};

class SizeOp : public OpKernel {
 public:
  explicit SizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    auto a = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, a.status());
    std::lock_guard<std::mutex> lock((*a)->mu);
    DFG_OP_REQUIRES_OK(ctx, CheckOpen(**a));
    ctx->set_output(0, Tensor::Scalar<int32_t>(
                           static_cast<int32_t>((*a)->elements.size())));
  }
};

class CloseOp : public OpKernel {
 public:
  explicit CloseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    auto a = GetArray(ctx);
    DFG_OP_REQUIRES_OK(ctx, a.status());
    std::lock_guard<std::mutex> lock((*a)->mu);
    (*a)->closed = true;
    (*a)->elements.clear();
  }
};

}  // namespace

void RegisterTensorArrayKernels(KernelRegistry* r) {
  r->Register<TensorArrayOp>("TensorArrayV3");
  r->Register<TensorArrayGradOp>("TensorArrayGradV3");
  r->Register<WriteOp>("TensorArrayWriteV3");
  r->Register<ReadOp>("TensorArrayReadV3");
  r->Register<GatherOp>("TensorArrayGatherV3");
  r->Register<ScatterOp>("TensorArrayScatterV3");
  r->Register<ConcatOp>("TensorArrayConcatV3");
  r->Register<SplitOp>("TensorArraySplitV3");
  r->Register<SizeOp>("TensorArraySizeV3");
  r->Register<CloseOp>("TensorArrayCloseV3");
  // The TF1 forms: string handles (v1 a Ref to one), no flow output from
  // the creation and grad ops.
  for (const std::string v : {"", "V2"}) {
    r->Register<TensorArrayOp>("TensorArray" + v);
    r->Register<TensorArrayGradOp>("TensorArrayGrad" + v);
    r->Register<WriteOp>("TensorArrayWrite" + v);
    r->Register<ReadOp>("TensorArrayRead" + v);
    r->Register<GatherOp>("TensorArrayGather" + v);
    r->Register<ScatterOp>("TensorArrayScatter" + v);
    r->Register<ConcatOp>("TensorArrayConcat" + v);
    r->Register<SplitOp>("TensorArraySplit" + v);
    r->Register<SizeOp>("TensorArraySize" + v);
    r->Register<CloseOp>("TensorArrayClose" + v);
  }
  r->Register<TensorArrayGradOp>("TensorArrayGradWithShape");
  r->Register<GatherOp>("TensorArrayPack");
  r->Register<ScatterOp>("TensorArrayUnpack");
}

}  // namespace dfg
