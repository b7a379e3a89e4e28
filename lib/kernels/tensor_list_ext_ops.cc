// The TensorList kernels beyond create/get/set/push/pop/stack (TensorFlow's
// list_kernels): TensorListConcat/ConcatV2 (tf.TensorArray.concat),
// TensorListGather, TensorListScatter/ScatterV2,
// TensorListScatterIntoExistingList, TensorListSplit and TensorListResize
// (TensorListConcatLists and TensorListPushBackBatch:
// tensor_list_batch_ops.cc).
//
// Every kernel works on any element dtype: elements are copied as raw
// element ranges (CopyElements), as TensorFlow's kernels registered for
// every POD, string and variant type do.
#include <algorithm>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/tensor_list.h"

namespace dfg {
namespace {

PartialShape DropFirstDim(const PartialShape& s) {
  if (s.unknown_rank || s.dims.empty()) return s;
  return PartialShape{false, {s.dims.begin() + 1, s.dims.end()}};
}

TensorShape DropFirstDim(const TensorShape& s) {
  TensorShape r = s;
  r.RemoveDim(0);
  return r;
}

// The rows of `value` as element tensors placed at `indices` of `list`.
Status ScatterRows(const Tensor& value, const std::vector<int64_t>& indices,
                   TensorList* list) {
  const TensorShape elem = DropFirstDim(value.shape());
  const int64_t size = elem.num_elements();
  for (size_t k = 0; k < indices.size(); ++k) {
    DFG_ASSIGN_OR_RETURN(Tensor t, Tensor::TryAllocate(value.dtype(), elem));
    CopyElements(value, static_cast<int64_t>(k) * size, &t, 0, size);
    list->tensors[indices[k]] = std::move(t);
  }
  return Status::Ok();
}

// Copies the list elements `which` (zeros for unset ones) into `out` one
// after the other; `row_elems(i)` is element i's element count.
template <typename RowElems>
void CopyRows(const TensorList& l, const std::vector<int64_t>& which,
              RowElems row_elems, Tensor* out) {
  int64_t offset = 0;
  for (int64_t i : which) {
    const int64_t n = row_elems(i);
    const Tensor& t = l.tensors[i];
    if (t.IsInitialized()) CopyElements(t, 0, out, offset, n);
    offset += n;
  }
}

void ZeroFill(Tensor* t) {
  if (t->TotalBytes() > 0 && t->dtype() != tensorflow::DT_STRING &&
      t->dtype() != tensorflow::DT_VARIANT) {
    std::memset(t->data(), 0, t->TotalBytes());
  }
}

// TensorListConcat (element_shape attr) and TensorListConcatV2
// (element_shape and leading_dims inputs).
class ConcatOp : public ListKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* ctx) : ListKernel(ctx) {
    if (ctx->HasAttr("element_shape")) {
      TensorShapeProto p;
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &p));
      PartialShape s = PartialShapeFromProto(p);
      if (!s.unknown_rank) except_first_ = DropFirstDim(s);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    DFG_OP_REQUIRES_OK(ctx, CheckDtype(*l));
    const bool v2 = ctx->num_inputs() > 1;
    int64_t first_dim = -1;
    PartialShape rest = except_first_;
    if (v2) {
      PartialShape s;
      DFG_OP_REQUIRES_OK(ctx, ListElementShape(ctx, *l, 1, &s));
      DFG_OP_REQUIRES(ctx, s.unknown_rank || !s.dims.empty(),
                      InvalidArgument("Concat requires elements to be at least "
                                      "vectors, found scalars instead."));
      if (!s.unknown_rank) first_dim = s.dims[0];
      rest = DropFirstDim(s);
    }
    DFG_OP_REQUIRES(ctx, !l->tensors.empty() || rest.IsFullyDefined(),
                    InvalidArgument("All except the first dimension must be "
                                    "fully defined when concating an empty "
                                    "tensor list. element_shape: {}",
                                    rest.DebugString()));
    if (!l->element_shape.IsFullyDefined()) {
      DFG_OP_REQUIRES_OK(ctx, InferShapes(*l, &rest, &first_dim));
    }
    DFG_OP_REQUIRES(ctx, rest.IsFullyDefined(),
                    InvalidArgument("Trying to concat list with only "
                                    "uninitialized tensors but "
                                    "element_shape_except_first_dim_ is not "
                                    "fully defined: {}",
                                    rest.DebugString()));
    std::vector<int64_t> lengths;
    DFG_OP_REQUIRES_OK(ctx, Lengths(ctx, *l, v2, first_dim, &lengths));
    Tensor* len_out = nullptr;
    const int64_t n = static_cast<int64_t>(lengths.size());
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({n}), &len_out));
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      len_out->flat<int64_t>()[i] = lengths[i];
      total += lengths[i];
    }
    TensorShape out_shape = rest.AsShape();
    const int64_t row = out_shape.num_elements();
    out_shape.InsertDim(0, total);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    ZeroFill(out);
    std::vector<int64_t> all(n);
    for (int64_t i = 0; i < n; ++i) all[i] = i;
    CopyRows(
        *l, all, [&](int64_t i) { return lengths[i] * row; }, out);
  }

 private:
  // Merges the set elements' shapes (all but dim 0) into `rest`; checks and
  // infers the common leading dim.
  static Status InferShapes(const TensorList& l, PartialShape* rest,
                            int64_t* first_dim) {
    bool check = *first_dim == -1;
    int64_t inferred = *first_dim;
    for (size_t i = 0; i < l.tensors.size(); ++i) {
      const Tensor& t = l.tensors[i];
      if (!t.IsInitialized()) continue;
      if (t.dims() < 1) {
        return InvalidArgument(
            "Concat saw a scalar shape at index {} but requires at least "
            "vectors.",
            i);
      }
      DFG_RETURN_IF_ERROR(
          rest->MergeWith(PartialShape::Of(DropFirstDim(t.shape())), rest));
      const int64_t d0 = t.dim_size(0);
      if (*first_dim != -1 && *first_dim != d0) {
        return InvalidArgument(
            "First entry of element_shape input does not match the first dim "
            "of list element at index: {} Expected: {} Actual: {}",
            i, *first_dim, d0);
      }
      if (check) {
        if (inferred == -1) {
          inferred = d0;
        } else if (inferred != d0) {
          inferred = -1;
          check = false;
        }
      }
    }
    *first_dim = inferred;
    return Status::Ok();
  }

  static Status Lengths(OpKernelContext* ctx, const TensorList& l, bool v2,
                        int64_t first_dim, std::vector<int64_t>* lengths) {
    std::vector<int64_t> leading;
    if (v2) leading = IntValues(ctx->input(2));
    for (size_t i = 0; i < l.tensors.size(); ++i) {
      const Tensor& t = l.tensors[i];
      if (t.IsInitialized()) {
        lengths->push_back(t.dim_size(0));
      } else if (i >= leading.size() && first_dim != -1) {
        lengths->push_back(first_dim);
      } else if (!v2) {
        return InvalidArgument(
            "Concating lists with uninitialized tensors is not supported in "
            "this version of TensorListConcat. Consider updating your "
            "GraphDef to run the newer version.");
      } else if (i >= leading.size()) {
        return InvalidArgument(
            "List contains uninitialized tensor at index {} but leading_dims "
            "has only {} elements.",
            i, leading.size());
      } else {
        lengths->push_back(leading[i]);
      }
    }
    return Status::Ok();
  }

  PartialShape except_first_;
};

class GatherOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    DFG_OP_REQUIRES_OK(ctx, CheckDtype(*l));
    const std::vector<int64_t> indices = IntValues(ctx->input(1));
    PartialShape shape;
    DFG_OP_REQUIRES_OK(ctx, ListElementShape(ctx, *l, 2, &shape));
    DFG_OP_REQUIRES(ctx, shape.IsFullyDefined() || !indices.empty(),
                    InvalidArgument("Tried to gather 0-elements from a list "
                                    "with non-fully-defined shape: {}",
                                    shape.DebugString()));
    const int64_t size = static_cast<int64_t>(l->tensors.size());
    if (!l->element_shape.IsFullyDefined()) {
      for (int64_t i : indices) {
        DFG_OP_REQUIRES(ctx, 0 <= i && i < size,
                        InvalidArgument("Trying to gather element {} in a list "
                                        "with {} elements.",
                                        i, size));
        const Tensor& t = l->tensors[i];
        if (!t.IsInitialized()) continue;
        DFG_OP_REQUIRES_OK(
            ctx, shape.MergeWith(PartialShape::Of(t.shape()), &shape));
      }
    }
    DFG_OP_REQUIRES(ctx, shape.IsFullyDefined(),
                    InvalidArgument("Tried to gather uninitialized tensors "
                                    "from a list with non-fully-defined "
                                    "element_shape: {}",
                                    shape.DebugString()));
    TensorShape out_shape = shape.AsShape();
    const int64_t row = out_shape.num_elements();
    out_shape.InsertDim(0, static_cast<int64_t>(indices.size()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    for (int64_t i : indices) {
      DFG_OP_REQUIRES(ctx, i < size,
                      InvalidArgument("Index {} out o range; list only has {} "
                                      "elements.",
                                      i, size));
    }
    ZeroFill(out);
    CopyRows(
        *l, indices, [&](int64_t) { return row; }, out);
  }
};

// TensorListScatter(tensor, indices, element_shape) and TensorListScatterV2
// (+ num_elements).
class ScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& shape_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, shape_t.dims() < 2,
                    InvalidArgument("TensorListScatter: element_shape must be "
                                    "at most rank 1 but has the shape of {}",
                                    shape_t.shape().DebugString()));
    auto list = std::make_shared<TensorList>();
    DFG_OP_REQUIRES_OK(ctx, ListShapeFromTensor(shape_t, &list->element_shape));
    int64_t num_elements = -1;
    if (ctx->num_inputs() >= 4) {
      DFG_OP_REQUIRES(ctx, ctx->input(3).dims() == 0,
                      InvalidArgument("num_elements must be a scalar"));
      num_elements = ctx->input(3).scalar<int32_t>();
    }
    DFG_OP_REQUIRES(ctx, num_elements >= -1,
                    InvalidArgument("TensorListScatter expects num_elements "
                                    ">= -1, found: {}",
                                    num_elements));
    list->element_dtype = value.dtype();
    DFG_OP_REQUIRES(ctx, value.dims() >= 1,
                    InvalidArgument("Tensor must be at least a vector, but "
                                    "saw shape: {}",
                                    value.shape().DebugString()));
    const TensorShape elem = DropFirstDim(value.shape());
    DFG_OP_REQUIRES(
        ctx, list->element_shape.IsCompatibleWith(PartialShape::Of(elem)),
        InvalidArgument("Specified a list with shape {} from a tensor with "
                        "shape {}",
                        list->element_shape.DebugString(), elem.DebugString()));
    const std::vector<int64_t> indices = IntValues(ctx->input(1));
    DFG_OP_REQUIRES(ctx,
                    static_cast<int64_t>(indices.size()) == value.dim_size(0),
                    InvalidArgument("Invalid number of rows in input tensor. "
                                    "Expected: {} Actual: {}",
                                    indices.size(), value.dim_size(0)));
    int64_t highest = -1;
    for (int64_t i : indices) {
      DFG_OP_REQUIRES(ctx, i >= 0,
                      InvalidArgument("Indices in TensorListScatter must all "
                                      "be non-negative."));
      DFG_OP_REQUIRES(ctx, num_elements == -1 || i < num_elements,
                      InvalidArgument("TensorListScatter: Trying to scatter "
                                      "at index {} in list with size {}",
                                      i, num_elements));
      highest = std::max(highest, i);
    }
    list->tensors.assign(std::max(highest + 1, num_elements),
                         Tensor(value.dtype()));
    DFG_OP_REQUIRES_OK(ctx, ScatterRows(value, indices, list.get()));
    SetListOutput(ctx, 0, std::move(list));
  }
};

class ScatterIntoExistingOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    const Tensor& value = ctx->input(1);
    const Tensor& indices_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, value.dtype() == l->element_dtype,
                    InvalidArgument("Invalid data types; input tensor type: "
                                    "{} list element_type: {}",
                                    DataTypeString(value.dtype()),
                                    DataTypeString(l->element_dtype)));
    DFG_OP_REQUIRES(ctx, value.dims() >= 1,
                    InvalidArgument("Tensor must be at least a vector, but "
                                    "saw shape: {}",
                                    value.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, indices_t.dims() == 1,
                    InvalidArgument("Expected indices to be a vector, but "
                                    "received shape: {}",
                                    indices_t.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, indices_t.NumElements() == value.dim_size(0),
        InvalidArgument("Expected len(indices) == tensor.shape[0], "
                        "but saw: {} vs. {}",
                        indices_t.NumElements(), value.dim_size(0)));
    const std::vector<int64_t> indices = IntValues(indices_t);
    for (int64_t i : indices) {
      // TensorFlow writes out of bounds here; refuse instead.
      DFG_OP_REQUIRES(ctx, i >= 0,
                      InvalidArgument("Indices in TensorListScatter must all "
                                      "be non-negative."));
    }
    auto out = std::make_shared<TensorList>(*l);
    int64_t highest = -1;
    for (int64_t i : indices) highest = std::max(highest, i);
    if (highest + 1 > static_cast<int64_t>(out->tensors.size())) {
      out->tensors.resize(highest + 1, Tensor(l->element_dtype));
    }
    DFG_OP_REQUIRES_OK(ctx, ScatterRows(value, indices, out.get()));
    SetListOutput(ctx, 0, std::move(out));
  }
};

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto list = std::make_shared<TensorList>();
    PartialShape& shape = list->element_shape;
    DFG_OP_REQUIRES_OK(ctx, ListShapeFromTensor(ctx->input(1), &shape));
    DFG_OP_REQUIRES(ctx, shape.unknown_rank || !shape.dims.empty(),
                    InvalidArgument("TensorListSplit requires element_shape "
                                    "to be at least of rank 1, but saw: {}",
                                    shape.DebugString()));
    const Tensor& value = ctx->input(0);
    list->element_dtype = value.dtype();
    DFG_OP_REQUIRES(ctx, value.dims() >= 1,
                    InvalidArgument("Tensor must be at least a vector, but "
                                    "saw shape: {}",
                                    value.shape().DebugString()));
    const TensorShape rest = DropFirstDim(value.shape());
    DFG_OP_REQUIRES(
        ctx, DropFirstDim(shape).IsCompatibleWith(PartialShape::Of(rest)),
        InvalidArgument("tensor shape {} is not compatible with element_shape "
                        "{}",
                        value.shape().DebugString(), shape.DebugString()));
    const Tensor& lengths_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, lengths_t.dims() == 1,
                    InvalidArgument("Expected lengths to be a vector, received "
                                    "shape: {}",
                                    lengths_t.shape().DebugString()));
    const int64_t rows = value.dim_size(0), row = rest.num_elements();
    int64_t start = 0, end = 0;
    for (int64_t length : IntValues(lengths_t)) {
      DFG_OP_REQUIRES(ctx, length >= 0,
                      InvalidArgument("Invalid value in lengths: {}", length));
      end = start + length;
      DFG_OP_REQUIRES(ctx, end <= rows,
                      InvalidArgument("Attempting to slice [{}, {}] from "
                                      "tensor with length {}",
                                      start, end, rows));
      TensorShape piece = rest;
      piece.InsertDim(0, length);
      auto t = Tensor::TryAllocate(value.dtype(), piece);
      DFG_OP_REQUIRES_OK(ctx, t.status());
      CopyElements(value, start * row, &*t, 0, length * row);
      list->tensors.push_back(std::move(t).value());
      start = end;
    }
    DFG_OP_REQUIRES(ctx, end == rows,
                    InvalidArgument("Unused values in tensor. Length of "
                                    "tensor: {} Values used: {}",
                                    rows, end));
    SetListOutput(ctx, 0, std::move(list));
  }
};

class ResizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* l = nullptr;
    DFG_OP_REQUIRES_OK(ctx, GetListInput(ctx, 0, &l));
    const int64_t size = IntValues(ctx->input(1))[0];
    DFG_OP_REQUIRES(ctx, size >= 0,
                    InvalidArgument("TensorListSlice expects size to be "
                                    "non-negative. Got: {}",
                                    size));
    auto out = std::make_shared<TensorList>(*l);
    out->tensors.resize(size, Tensor(l->element_dtype));
    SetListOutput(ctx, 0, std::move(out));
  }
};

}  // namespace

void RegisterTensorListBatchKernels(KernelRegistry* r);
void RegisterTensorListMathKernels(KernelRegistry* r);

void RegisterTensorListExtKernels(KernelRegistry* r) {
  r->Register<ConcatOp>("TensorListConcat");
  r->Register<ConcatOp>("TensorListConcatV2");
  r->Register<GatherOp>("TensorListGather");
  r->Register<ScatterOp>("TensorListScatter");
  r->Register<ScatterOp>("TensorListScatterV2");
  r->Register<ScatterIntoExistingOp>("TensorListScatterIntoExistingList");
  r->Register<SplitOp>("TensorListSplit");
  r->Register<ResizeOp>("TensorListResize");
  RegisterTensorListBatchKernels(r);
  RegisterTensorListMathKernels(r);
}

}  // namespace dfg
