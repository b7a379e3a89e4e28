// AddN and ZerosLike of DT_VARIANT tensors holding TensorLists: what the
// gradients of loops that accumulate into lists (while_v2's TensorList
// accumulators, tf.TensorArray in a tf.function) run when a list gets two
// gradient contributions or a zero one. TensorFlow dispatches these through
// its variant op registry (ADD_VARIANT_BINARY_OP, ZEROS_LIKE_VARIANT_UNARY_OP);
// dfg's only variant with arithmetic is the TensorList, so the kernels work
// on lists directly: element by element, an unset element of one list taking
// the other's, as TensorListBinaryAdd and TensorListZerosLike do.
#include <memory>
#include <string>

#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/tensor_list.h"

namespace dfg {
namespace {

using ElementTypes = decltype(NumberTypes() + TypeList<bool>());

Status ZerosLikeElement(const Tensor& x, Tensor* out);

// The list a scalar variant holds; TensorFlow's message for anything else.
StatusOr<const TensorList*> ListOf(const Tensor& t, const char* what) {
  const Variant& v = t.scalar<Variant>();
  const TensorList* l = v.get<TensorList>();
  if (l == nullptr) {
    return InvalidArgument("{}: no variant arithmetic for '{}'", what,
                           v.DebugString());
  }
  return l;
}

StatusOr<Tensor> ZerosLikeList(const TensorList& x) {
  auto y = std::make_shared<TensorList>();
  y->element_dtype = x.element_dtype;
  y->element_shape = x.element_shape;
  y->max_num_elements = x.max_num_elements;
  y->tensors.reserve(x.tensors.size());
  for (const Tensor& t : x.tensors) {
    Tensor z;
    DFG_RETURN_IF_ERROR(ZerosLikeElement(t, &z));
    y->tensors.push_back(std::move(z));
  }
  Tensor out(tensorflow::DT_VARIANT, TensorShape());
  out.scalar<Variant>().value = std::move(y);
  return out;
}

// TensorFlow's ZerosLikeTensor: zeros of an element's dtype and shape; an
// unset element stays unset; a nested list is zeroed element by element.
Status ZerosLikeElement(const Tensor& x, Tensor* out) {
  if (!x.IsInitialized()) {
    *out = Tensor();
    return Status::Ok();
  }
  if (x.dtype() == tensorflow::DT_VARIANT) {
    DFG_ASSIGN_OR_RETURN(const TensorList* l, ListOf(x, "ZerosLike"));
    DFG_ASSIGN_OR_RETURN(*out, ZerosLikeList(*l));
    return Status::Ok();
  }
  if (!Dispatch(ElementTypes(), x.dtype(), [](auto) {})) {
    return InvalidArgument(
        "Trying to compute zeros_like for unsupported dtype {}",
        DataTypeString(x.dtype()));
  }
  DFG_ASSIGN_OR_RETURN(*out, ZerosTensor(x.dtype(), x.shape()));
  return Status::Ok();
}

StatusOr<Tensor> AddLists(const TensorList& a, const TensorList& b);

// TensorFlow's BinaryAddTensors: an unset element takes the other's value.
Status AddElements(const Tensor& a, const Tensor& b, Tensor* out) {
  if (!a.IsInitialized()) {
    *out = b;
    return Status::Ok();
  }
  if (!b.IsInitialized()) {
    *out = a;
    return Status::Ok();
  }
  if (a.dtype() != b.dtype()) {
    return InvalidArgument(
        "Trying to add two tensors with incompatible element types. One is "
        "{} and the other is {}",
        DataTypeString(a.dtype()), DataTypeString(b.dtype()));
  }
  if (!a.shape().IsSameSize(b.shape())) {
    return InvalidArgument(
        "Trying to add two tensors with incompatible element shapes. One is "
        "{} and the other is {}",
        a.shape().DebugString(), b.shape().DebugString());
  }
  if (a.dtype() == tensorflow::DT_VARIANT) {
    DFG_ASSIGN_OR_RETURN(const TensorList* la, ListOf(a, "AddN"));
    DFG_ASSIGN_OR_RETURN(const TensorList* lb, ListOf(b, "AddN"));
    DFG_ASSIGN_OR_RETURN(*out, AddLists(*la, *lb));
    return Status::Ok();
  }
  DFG_ASSIGN_OR_RETURN(*out, Tensor::TryAllocate(a.dtype(), a.shape()));
  const bool known = Dispatch(NumberTypes(), a.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* x = static_cast<const T*>(a.data());
    const T* y = static_cast<const T*>(b.data());
    T* z = static_cast<T*>(out->data());
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      z[i] = Store<T>(Load(x[i]) + Load(y[i]));
    }
  });
  if (!known) {
    return InvalidArgument("Trying to add two tensors of unsupported dtype {}",
                           DataTypeString(a.dtype()));
  }
  return Status::Ok();
}

// TensorFlow's TensorListBinaryAdd.
StatusOr<Tensor> AddLists(const TensorList& a, const TensorList& b) {
  if (a.element_dtype != b.element_dtype) {
    return InvalidArgument(
        "Trying to add two lists of tensors of different dtypes. One is {} "
        "and the other is {}",
        DataTypeString(a.element_dtype), DataTypeString(b.element_dtype));
  }
  if (!a.element_shape.IsCompatibleWith(b.element_shape)) {
    return InvalidArgument(
        "Trying to add two lists of tensors with incompatible element "
        "shapes. One is {} and the other is {}",
        a.element_shape.DebugString(), b.element_shape.DebugString());
  }
  auto out = std::make_shared<TensorList>();
  out->element_dtype = a.element_dtype;
  DFG_RETURN_IF_ERROR(
      a.element_shape.MergeWith(b.element_shape, &out->element_shape));
  if (a.tensors.size() != b.tensors.size()) {
    return InvalidArgument(
        "Trying to add two lists of tensors with different lengths. One is "
        "{} and the other is {}",
        a.tensors.size(), b.tensors.size());
  }
  out->tensors.resize(a.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    DFG_RETURN_IF_ERROR(
        AddElements(a.tensors[i], b.tensors[i], &out->tensors[i]));
  }
  Tensor t(tensorflow::DT_VARIANT, TensorShape());
  t.scalar<Variant>().value = std::move(out);
  return t;
}

class VariantZerosLikeOp : public OpKernel {
 public:
  explicit VariantZerosLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, x.dims() == 0,
        InvalidArgument("ZerosLike non-scalar Tensor with dtype=DT_VARIANT is "
                        "not supported."));
    Tensor out;
    DFG_OP_REQUIRES_OK(ctx, ZerosLikeElement(x, &out));
    ctx->set_output(0, std::move(out));
  }
};

class VariantAddNOp : public OpKernel {
 public:
  explicit VariantAddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      DFG_OP_REQUIRES(
          ctx, ctx->input(i).dims() == 0,
          InvalidArgument("AddN of non-scalar Tensor with dtype=DT_VARIANT is "
                          "not supported; inputs[{}] has shape {}.",
                          i, ctx->input(i).shape().DebugString()));
    }
    Tensor sum = ctx->input(0);
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      Tensor next;
      DFG_OP_REQUIRES_OK(ctx, AddElements(sum, ctx->input(i), &next));
      sum = std::move(next);
    }
    ctx->set_output(0, std::move(sum));
  }
};

}  // namespace

void RegisterTensorListMathKernels(KernelRegistry* r) {
  const auto variant = TypeConstraint("T", TypeList<Variant>());
  r->Register<VariantAddNOp>("AddN", {variant});
  r->Register<VariantZerosLikeOp>("ZerosLike", {variant});
}

}  // namespace dfg
