// TensorList kernels (TensorFlow's list_kernels): EmptyTensorList,
// TensorListReserve, TensorListFromTensor, TensorListSetItem,
// TensorListGetItem, TensorListPushBack, TensorListPopBack,
// TensorListStack, TensorListLength, TensorListElementShape.
//
// A list is a scalar DT_VARIANT tensor holding an immutable TensorList; an
// op that changes a list outputs a new one (the element tensors are shared,
// so that is a copy of handles, not of data). Reserved elements that were
// never set are uninitialized tensors; reading or stacking them gives zeros
// of the element shape, which must then be known.
#include <google/protobuf/io/coded_stream.h>

#include <cstring>
#include <limits>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/tensor_list.h"

namespace dfg {

Status ListShapeFromTensor(const Tensor& t, PartialShape* out) {
  if (!IsIntTensor(t)) {
    return InvalidArgument("element_shape must be int32 or int64, got {}",
                           DataTypeString(t.dtype()));
  }
  const std::vector<int64_t> v = IntValues(t);
  if (t.dims() == 0) {
    if (v[0] != -1) {
      return InvalidArgument(
          "The only valid scalar shape tensor is the fully unknown shape "
          "specified as -1.");
    }
    *out = PartialShape();
    return Status::Ok();
  }
  if (t.dims() != 1) {
    return InvalidArgument("Shape must be at most rank 1 but is rank {}",
                           t.dims());
  }
  for (int64_t d : v) {
    if (d < -1) {
      return InvalidArgument("Dimension {} must be >= -1", d);
    }
  }
  *out = PartialShape{false, v};
  return Status::Ok();
}

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

namespace {

void PutVarint64(std::string* out, uint64_t v) {
  uint8_t buf[10];
  uint8_t* end = CodedOutputStream::WriteVarint64ToArray(v, buf);
  out->append(reinterpret_cast<char*>(buf), end - buf);
}

}  // namespace

// As TensorFlow's TensorList::Encode: the set elements as tensors (typed
// fields); metadata = varint64 count of unset elements, their indices, the
// element dtype, max_num_elements (-1 as 2^64-1), then the element shape's
// TensorShapeProto.
void TensorList::Encode(tensorflow::VariantTensorDataProto* out) const {
  out->set_type_name(TypeName());
  std::vector<uint64_t> unset;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].IsInitialized()) {
      tensors[i].ToProto(out->add_tensors(), false);
    } else {
      unset.push_back(i);
    }
  }
  std::string metadata;
  PutVarint64(&metadata, unset.size());
  for (uint64_t i : unset) PutVarint64(&metadata, i);
  PutVarint64(&metadata, static_cast<uint64_t>(element_dtype));
  PutVarint64(&metadata,
              static_cast<uint64_t>(static_cast<int64_t>(max_num_elements)));
  TensorShapeProto shape;
  if (element_shape.unknown_rank) {
    shape.set_unknown_rank(true);
  } else {
    for (int64_t d : element_shape.dims) shape.add_dim()->set_size(d);
  }
  shape.AppendToString(&metadata);
  out->set_metadata(metadata);
}

void SetListOutput(OpKernelContext* ctx, int i,
                   std::shared_ptr<TensorList> list) {
  Tensor t(tensorflow::DT_VARIANT, TensorShape());
  t.scalar<Variant>().value = std::move(list);
  ctx->set_output(i, std::move(t));
}

Status GetListInput(OpKernelContext* ctx, int i, const TensorList** list) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != tensorflow::DT_VARIANT || t.NumElements() != 1) {
    return InvalidArgument("Input handle is not a list. Saw: '{}'",
                           t.DebugString());
  }
  const Variant& v = t.flat<Variant>()[0];
  *list = v.get<TensorList>();
  if (*list == nullptr) {
    return InvalidArgument("Input handle is not a list. Saw: '{}'",
                           v.DebugString());
  }
  return Status::Ok();
}

// The list's element shape merged with the element_shape input `i`.
Status ListElementShape(OpKernelContext* ctx, const TensorList& l, int i,
                        PartialShape* out) {
  PartialShape in;
  DFG_RETURN_IF_ERROR(ListShapeFromTensor(ctx->input(i), &in));
  return l.element_shape.MergeWith(in, out);
}

StatusOr<Tensor> ZerosTensor(DataType dtype, const TensorShape& shape) {
  DFG_ASSIGN_OR_RETURN(Tensor t, Tensor::TryAllocate(dtype, shape));
  if (t.TotalBytes() > 0) std::memset(t.data(), 0, t.TotalBytes());
  return t;
}

namespace {

// The shape to give unset elements: the merge of `shape` with every set
// element's shape.
Status ShapeForUnset(const TensorList& l, PartialShape shape,
                     TensorShape* out) {
  if (!shape.IsFullyDefined()) {
    for (const Tensor& t : l.tensors) {
      if (!t.IsInitialized()) continue;
      DFG_RETURN_IF_ERROR(shape.MergeWith(PartialShape::Of(t.shape()), &shape));
    }
  }
  if (!shape.IsFullyDefined()) {
    return InvalidArgument(
        "Trying to read an uninitialized tensor but element_shape is not "
        "fully defined: {} and no list element is set.",
        shape.DebugString());
  }
  *out = TensorShape(std::span<const int64_t>(shape.dims));
  return Status::Ok();
}

class ListOpBase : public OpKernel {
 public:
  explicit ListOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    if (ctx->HasAttr("element_dtype")) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
    }
  }

 protected:
  Status CheckDtype(const TensorList& l) const {
    if (l.element_dtype == element_dtype_) return Status::Ok();
    return InvalidArgument(
        "Invalid data types; op elements {} but list "
        "elements {}",
        DataTypeString(element_dtype_), DataTypeString(l.element_dtype));
  }
  DataType element_dtype_ = tensorflow::DT_INVALID;
};

// EmptyTensorList(element_shape, max_num_elements) and
// TensorListReserve(element_shape, num_elements).
class NewListOp : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  void Compute(OpKernelContext* ctx) override {
    auto list = std::make_shared<TensorList>();
    list->element_dtype = element_dtype_;
    DFG_OP_REQUIRES_OK(
        ctx, ListShapeFromTensor(ctx->input(0), &list->element_shape));
    const Tensor& n = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, n.NumElements() == 1,
        InvalidArgument("{} must be a scalar",
                        type_string() == "EmptyTensorList" ? "max_num_elements"
                                                           : "num_elements"));
    const int64_t count = IntValues(n)[0];
    if (type_string() == "EmptyTensorList") {
      list->max_num_elements = static_cast<int>(count);
    } else {
      DFG_OP_REQUIRES(ctx, count >= 0,
                      InvalidArgument("The num_elements to reserve must be a "
                                      "non negative number, but got {}",
                                      count));
      list->tensors.assign(count, Tensor(element_dtype_));
    }
    SetListOutput(ctx, 0, std::move(list));
  }
};

class FromTensorOp : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    DFG_OP_REQUIRES(ctx, t.dims() >= 1,
                    InvalidArgument("Tensor must be at least a vector, but "
                                    "saw shape: {}",
                                    t.shape().DebugString()));
    PartialShape shape;
    DFG_OP_REQUIRES_OK(ctx, ListShapeFromTensor(ctx->input(1), &shape));
    TensorShape elem = t.shape();
    elem.RemoveDim(0);
    DFG_OP_REQUIRES(ctx, shape.IsCompatibleWith(PartialShape::Of(elem)),
                    InvalidArgument("Specified a list with shape {} from a "
                                    "tensor with shape {}",
                                    shape.DebugString(), elem.DebugString()));
    auto list = std::make_shared<TensorList>();
    list->element_dtype = t.dtype();
    list->element_shape = shape;
    const int64_t n = t.dim_size(0), size = elem.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      auto item = Tensor::TryAllocate(t.dtype(), elem);
      DFG_OP_REQUIRES_OK(ctx, item.status());
      CopyElements(t, i * size, &*item, 0, size);
      list->tensors.push_back(std::move(item).value());
    }
    SetListOutput(ctx, 0, std::move(list));
  }
};

class SetItemOp : public ListOpBase {
 public:
  explicit SetItemOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    if (ctx->HasAttr("resize_if_index_out_of_bounds")) {
      DFG_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("resize_if_index_out_of_bounds", &resize_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    DFG_OP_REQUIRES_OK(ctx, CheckDtype(*l));
    DFG_OP_REQUIRES(ctx, ctx->input(1).NumElements() == 1,
                    InvalidArgument("index must be a scalar, got shape {}",
                                    ctx->input(1).shape().DebugString()));
    const int64_t index = IntValues(ctx->input(1))[0];
    const Tensor& item = ctx->input(2);
    DFG_OP_REQUIRES(
        ctx, l->element_shape.IsCompatibleWith(PartialShape::Of(item.shape())),
        InvalidArgument("Tried to set a tensor with incompatible "
                        "shape at a list index. Item element "
                        "shape: {} list shape: {}",
                        item.shape().DebugString(),
                        l->element_shape.DebugString()));
    const int64_t size = static_cast<int64_t>(l->tensors.size());
    DFG_OP_REQUIRES(ctx, index >= 0 && (index < size || resize_),
                    InvalidArgument("Trying to modify element {} in a list "
                                    "with {} elements.",
                                    index, size));
    auto out = std::make_shared<TensorList>(*l);
    if (index >= size) out->tensors.resize(index + 1, Tensor(element_dtype_));
    out->tensors[index] = item;
    SetListOutput(ctx, 0, std::move(out));
  }

 private:
  bool resize_ = false;
};

class GetItemOp : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    DFG_OP_REQUIRES_OK(ctx, CheckDtype(*l));
    DFG_OP_REQUIRES(ctx, ctx->input(1).NumElements() == 1,
                    InvalidArgument("index must be a scalar, got shape {}",
                                    ctx->input(1).shape().DebugString()));
    const int64_t index = IntValues(ctx->input(1))[0];
    const int64_t size = static_cast<int64_t>(l->tensors.size());
    DFG_OP_REQUIRES(ctx, index >= 0 && index < size,
                    InvalidArgument("Trying to access element {} in a list "
                                    "with {} elements.",
                                    index, size));
    const Tensor& t = l->tensors[index];
    if (t.IsInitialized()) {
      ctx->set_output(0, t);
      return;
    }
    PartialShape shape;
    DFG_OP_REQUIRES_OK(ctx, ListElementShape(ctx, *l, 2, &shape));
    TensorShape s;
    DFG_OP_REQUIRES_OK(ctx, ShapeForUnset(*l, shape, &s));
    auto zeros = ZerosTensor(element_dtype_, s);
    DFG_OP_REQUIRES_OK(ctx, zeros.status());
    ctx->set_output(0, std::move(zeros).value());
  }
};

class PushBackOp : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    const Tensor& item = ctx->input(1);
    DFG_OP_REQUIRES(ctx, element_dtype_ == item.dtype(),
                    InvalidArgument("Invalid data types; list elements {} but "
                                    "tried to append {}",
                                    DataTypeString(element_dtype_),
                                    DataTypeString(item.dtype())));
    DFG_OP_REQUIRES_OK(ctx, CheckDtype(*l));
    DFG_OP_REQUIRES(
        ctx, l->element_shape.IsCompatibleWith(PartialShape::Of(item.shape())),
        InvalidArgument("Tried to append a tensor with "
                        "incompatible shape to a list. Op element "
                        "shape: {} list shape: {}",
                        item.shape().DebugString(),
                        l->element_shape.DebugString()));
    DFG_OP_REQUIRES(
        ctx,
        l->max_num_elements == -1 ||
            static_cast<int64_t>(l->tensors.size()) < l->max_num_elements,
        InvalidArgument("Tried to push item into a full list list size: {}, "
                        "max_num_elements: {}",
                        l->tensors.size(), l->max_num_elements));
    auto out = std::make_shared<TensorList>(*l);
    out->tensors.push_back(item);
    SetListOutput(ctx, 0, std::move(out));
  }
};

class PopBackOp : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    DFG_OP_REQUIRES_OK(ctx, CheckDtype(*l));
    DFG_OP_REQUIRES(ctx, !l->tensors.empty(),
                    InvalidArgument("Trying to pop from an empty list."));
    const Tensor& t = l->tensors.back();
    if (t.IsInitialized()) {
      ctx->set_output(1, t);
    } else {
      PartialShape shape;
      DFG_OP_REQUIRES_OK(ctx, ListElementShape(ctx, *l, 1, &shape));
      DFG_OP_REQUIRES(ctx, shape.IsFullyDefined(),
                      InvalidArgument("Trying to read an uninitialized tensor "
                                      "but element_shape is not fully "
                                      "defined.{}",
                                      shape.DebugString()));
      auto zeros = ZerosTensor(
          element_dtype_, TensorShape(std::span<const int64_t>(shape.dims)));
      DFG_OP_REQUIRES_OK(ctx, zeros.status());
      ctx->set_output(1, std::move(zeros).value());
    }
    auto out = std::make_shared<TensorList>(*l);
    out->tensors.pop_back();
    SetListOutput(ctx, 0, std::move(out));
  }
};

class StackOp : public ListOpBase {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : ListOpBase(ctx) {
    set_is_expensive(true);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_elements", &num_elements_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    DFG_OP_REQUIRES_OK(ctx, CheckDtype(*l));
    const int64_t n = static_cast<int64_t>(l->tensors.size());
    DFG_OP_REQUIRES(ctx, num_elements_ == -1 || n == num_elements_,
                    InvalidArgument("Operation expected a list with {} "
                                    "elements but got a list with {} "
                                    "elements.",
                                    num_elements_, n));
    PartialShape shape;
    DFG_OP_REQUIRES_OK(ctx, ListElementShape(ctx, *l, 1, &shape));
    DFG_OP_REQUIRES(ctx, shape.IsFullyDefined() || n > 0,
                    InvalidArgument("Tried to stack elements of an empty list "
                                    "with non-fully-defined element_shape: {}",
                                    shape.DebugString()));
    TensorShape elem;
    Status s = ShapeForUnset(*l, shape, &elem);
    DFG_OP_REQUIRES(ctx, s.ok(),
                    InvalidArgument("Tried to stack list which only contains "
                                    "uninitialized tensors and has a "
                                    "non-fully-defined element_shape: {}",
                                    shape.DebugString()));
    TensorShape out_shape = elem;
    out_shape.InsertDim(0, n);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->TotalBytes() > 0) std::memset(out->data(), 0, out->TotalBytes());
    const int64_t size = elem.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& t = l->tensors[i];
      if (!t.IsInitialized()) continue;  // zeros
      DFG_OP_REQUIRES(
          ctx, t.shape() == elem,
          InvalidArgument("Incompatible shapes during merge: {} "
                          "vs. {}",
                          elem.DebugString(), t.shape().DebugString()));
      CopyElements(t, 0, out, i * size, size);
    }
  }

 private:
  int64_t num_elements_ = -1;
};

class LengthOp : public OpKernel {
 public:
  explicit LengthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    ctx->set_output(
        0, Tensor::Scalar<int32_t>(static_cast<int32_t>(l->tensors.size())));
  }
};

class ElementShapeOp : public OpKernel {
 public:
  explicit ElementShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    const PartialShape& s = l->element_shape;
    std::vector<int64_t> v = s.unknown_rank ? std::vector<int64_t>{-1} : s.dims;
    TensorShape shape;
    if (!s.unknown_rank) shape.AddDim(static_cast<int64_t>(v.size()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    for (size_t i = 0; i < v.size(); ++i) {
      if (out->dtype() == tensorflow::DT_INT32) {
        out->flat<int32_t>()[i] = static_cast<int32_t>(v[i]);
      } else {
        out->flat<int64_t>()[i] = v[i];
      }
    }
  }
};

}  // namespace

StatusOr<std::shared_ptr<const VariantValue>> DecodeTensorList(
    const tensorflow::VariantTensorDataProto& data) {
  const auto bad = [] {
    return InvalidArgument(
        "Could not decode variant with type_name: \"tensorflow::TensorList\"");
  };
  const std::string& metadata = data.metadata();
  CodedInputStream in(reinterpret_cast<const uint8_t*>(metadata.data()),
                      static_cast<int>(metadata.size()));
  uint64_t num_unset = 0;
  if (!in.ReadVarint64(&num_unset) ||
      num_unset > (uint64_t{1} << 31) - data.tensors_size()) {
    return bad();
  }
  const uint64_t total = num_unset + data.tensors_size();
  auto list = std::make_shared<TensorList>();
  // Each unset index takes a byte of metadata at least.
  list->tensors.reserve(
      std::min<uint64_t>(total, metadata.size() + data.tensors_size()));
  int next_tensor = 0;
  for (uint64_t k = 0; k < num_unset; ++k) {
    uint64_t index = 0;
    if (!in.ReadVarint64(&index) || index >= total ||
        index < list->tensors.size()) {
      return bad();
    }
    while (list->tensors.size() < index) {
      if (next_tensor >= data.tensors_size()) return bad();
      DFG_ASSIGN_OR_RETURN(Tensor t,
                           Tensor::FromProto(data.tensors(next_tensor++)));
      list->tensors.push_back(std::move(t));
    }
    list->tensors.emplace_back();
  }
  while (next_tensor < data.tensors_size()) {
    DFG_ASSIGN_OR_RETURN(Tensor t,
                         Tensor::FromProto(data.tensors(next_tensor++)));
    list->tensors.push_back(std::move(t));
  }
  uint64_t dtype = 0, max_elements = 0;
  if (!in.ReadVarint64(&dtype) || !in.ReadVarint64(&max_elements) ||
      dtype > static_cast<uint64_t>(std::numeric_limits<int>::max()) ||
      !tensorflow::DataType_IsValid(static_cast<int>(dtype))) {
    return bad();
  }
  if (max_elements == std::numeric_limits<uint64_t>::max()) {
    list->max_num_elements = -1;
  } else if (max_elements > std::numeric_limits<int>::max()) {
    return bad();
  } else {
    list->max_num_elements = static_cast<int>(max_elements);
  }
  list->element_dtype = static_cast<DataType>(dtype);
  std::string rest;
  TensorShapeProto shape;
  if (!in.ReadString(&rest, in.BytesUntilLimit()) ||
      !shape.ParseFromString(rest)) {
    return bad();
  }
  list->element_shape = PartialShapeFromProto(shape);
  for (int64_t d : list->element_shape.dims) {
    if (d < -1) return bad();
  }
  return std::shared_ptr<const VariantValue>(std::move(list));
}

void RegisterTensorListKernels(KernelRegistry* r) {
  r->Register<NewListOp>("EmptyTensorList");
  r->Register<NewListOp>("TensorListReserve");
  r->Register<FromTensorOp>("TensorListFromTensor");
  r->Register<SetItemOp>("TensorListSetItem");
  r->Register<GetItemOp>("TensorListGetItem");
  r->Register<PushBackOp>("TensorListPushBack");
  r->Register<PopBackOp>("TensorListPopBack");
  r->Register<StackOp>("TensorListStack");
  r->Register<LengthOp>("TensorListLength");
  r->Register<ElementShapeOp>("TensorListElementShape");
}

}  // namespace dfg
