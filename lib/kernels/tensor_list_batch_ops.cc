// TensorListConcatLists (two batches of lists, element by element) and
// TensorListPushBackBatch (one row of a tensor onto each list of a batch):
// the batched list ops of TensorFlow's list_kernels.
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/tensor_list.h"

namespace dfg {
namespace {

class ConcatListsOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, a.shape() == b.shape(),
        InvalidArgument("Incompatible input TensorList tensor "
                        "shapes: {} vs. {}",
                        a.shape().DebugString(), b.shape().DebugString()));
    Tensor out(tensorflow::DT_VARIANT, a.shape());
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      const TensorList* la = a.flat<Variant>()[i].get<TensorList>();
      const TensorList* lb = b.flat<Variant>()[i].get<TensorList>();
      DFG_OP_REQUIRES_OK(ctx, Check(la, lb, a, b, i));
      auto l = std::make_shared<TensorList>(*la);
      l->tensors.insert(l->tensors.end(), lb->tensors.begin(),
                        lb->tensors.end());
      out.flat<Variant>()[i].value = std::move(l);
    }
    ctx->set_output(0, std::move(out));
  }

 private:
  Status Check(const TensorList* la, const TensorList* lb, const Tensor& a,
               const Tensor& b, int64_t i) const {
    if (la == nullptr) {
      return InvalidArgument(
          "input_a is not a TensorList at index {}.  Saw: "
          "'{}'",
          i, a.flat<Variant>()[i].DebugString());
    }
    if (lb == nullptr) {
      return InvalidArgument(
          "input_b is not a TensorList at index {}.  Saw: "
          "'{}'",
          i, b.flat<Variant>()[i].DebugString());
    }
    for (auto [name, l] :
         {std::pair{"input_a", la}, std::pair{"input_b", lb}}) {
      if (l->element_dtype != element_dtype_) {
        return InvalidArgument("{}[{}].dtype != element_dtype.  Saw: {} vs. {}",
                               name, i, DataTypeString(l->element_dtype),
                               DataTypeString(element_dtype_));
      }
    }
    if (la->element_shape.unknown_rank != lb->element_shape.unknown_rank ||
        la->element_shape.dims != lb->element_shape.dims) {
      return InvalidArgument(
          "input_a and input_b TensorList element shapes "
          "are not identical at index {}.  Saw {} vs. {}",
          i, la->element_shape.DebugString(), lb->element_shape.DebugString());
    }
    return Status::Ok();
  }
};

class PushBackBatchOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& item = ctx->input(1);
    DFG_OP_REQUIRES(ctx, element_dtype_ == item.dtype(),
                    InvalidArgument("Invalid data types; list elements {} but "
                                    "tried to append {}",
                                    DataTypeString(element_dtype_),
                                    DataTypeString(item.dtype())));
    DFG_OP_REQUIRES(ctx, item.dims() >= 1,
                    InvalidArgument("Expected tensor to be at least a vector, "
                                    "but saw shape: {}",
                                    item.shape().DebugString()));
    const Tensor& lists = ctx->input(0);
    DFG_OP_REQUIRES(ctx, lists.dims() == 1,
                    InvalidArgument("Expected input_handles to be a vector, "
                                    "but saw shape: {}",
                                    lists.shape().DebugString()));
    const int64_t batch = lists.NumElements();
    DFG_OP_REQUIRES(ctx, item.dim_size(0) == batch,
                    InvalidArgument("Expected tensor.shape[0] == "
                                    "input_handles.size, but saw {} vs. {}",
                                    item.dim_size(0), batch));
    TensorShape elem = item.shape();
    elem.RemoveDim(0);
    Tensor out(tensorflow::DT_VARIANT, lists.shape());
    for (int64_t b = 0; b < batch; ++b) {
      const Variant& v = lists.flat<Variant>()[b];
      const TensorList* l = v.get<TensorList>();
      DFG_OP_REQUIRES(ctx, l != nullptr,
                      InvalidArgument("Input handle at index {} is not a list. "
                                      "Saw: '{}'",
                                      b, v.DebugString()));
      DFG_OP_REQUIRES(
          ctx, l->element_shape.IsCompatibleWith(PartialShape::Of(elem)),
          InvalidArgument("Tried to append a tensor with incompatible shape "
                          "to a list at index {}. Op element shape: {} list "
                          "shape: {}",
                          b, elem.DebugString(),
                          l->element_shape.DebugString()));
      DFG_OP_REQUIRES(ctx, element_dtype_ == l->element_dtype,
                      InvalidArgument("Invalid data type at index {}; op "
                                      "elements {} but list elements {}",
                                      b, DataTypeString(element_dtype_),
                                      DataTypeString(l->element_dtype)));
      auto t = Tensor::TryAllocate(item.dtype(), elem);
      DFG_OP_REQUIRES_OK(ctx, t.status());
      CopyElements(item, b * elem.num_elements(), &*t, 0, elem.num_elements());
      auto nl = std::make_shared<TensorList>(*l);
      nl->tensors.push_back(std::move(t).value());
      out.flat<Variant>()[b].value = std::move(nl);
    }
    ctx->set_output(0, std::move(out));
  }
};

}  // namespace

void RegisterTensorListBatchKernels(KernelRegistry* r) {
  r->Register<ConcatListsOp>("TensorListConcatLists");
  r->Register<PushBackBatchOp>("TensorListPushBackBatch");
}

}  // namespace dfg
