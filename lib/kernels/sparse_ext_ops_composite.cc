// CompositeTensorVariantFromComponents / ToComponents: an ExtensionType (or
// other composite tensor) value boxed in a scalar DT_VARIANT, as tf.function
// and tf.data carry them: the component tensors with the serialized
// CompositeTensorVariantMetadata (a TypeSpecProto) of the value. Unboxing
// checks the TypeSpec class, the number of components and their dtypes, as
// TensorFlow does. The metadata is read from its wire form (field 1:
// type_spec_proto, whose field 1 is the type_spec_class enum).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/graph/wire_reader.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"
#include "lib/kernels/variant.h"

namespace dfg {
namespace {

// TypeSpecProto.TypeSpecClass names (struct.proto).
std::string TypeSpecClassName(int64_t c) {
  static const char* const kNames[] = {"UNKNOWN",
                                       "SPARSE_TENSOR_SPEC",
                                       "INDEXED_SLICES_SPEC",
                                       "RAGGED_TENSOR_SPEC",
                                       "TENSOR_ARRAY_SPEC",
                                       "DATA_DATASET_SPEC",
                                       "DATA_ITERATOR_SPEC",
                                       "OPTIONAL_SPEC",
                                       "PER_REPLICA_SPEC",
                                       "VARIABLE_SPEC",
                                       "ROW_PARTITION_SPEC",
                                       "",
                                       "REGISTERED_TYPE_SPEC",
                                       "EXTENSION_TYPE_SPEC"};
  if (c >= 0 && c < 14 && kNames[c][0] != '\0') return kNames[c];
  return std::to_string(c);
}

// The type_spec_class of serialized CompositeTensorVariantMetadata; false
// when the bytes do not parse.
bool ParseSpecClass(std::string_view metadata, int64_t* spec_class) {
  *spec_class = 0;
  WireReader outer(metadata);
  WireField f;
  while (outer.Next(&f)) {
    if (f.number != 1 || f.type != WireType::kLen) continue;
    WireReader inner(f.payload);
    WireField g;
    while (inner.Next(&g)) {
      if (g.number == 1 && g.type == WireType::kVarint) {
        *spec_class = static_cast<int64_t>(g.varint);
      }
    }
    if (!inner.error().empty()) return false;
  }
  return outer.error().empty();
}

class CompositeVariant : public VariantValue {
 public:
  std::string TypeName() const override {
    return "tensorflow::CompositeTensorVariant";
  }
  std::string DebugString() const override {
    return "CompositeTensorVariant(" + TypeSpecClassName(spec_class) + ")";
  }
  std::string metadata;
  int64_t spec_class = 0;
  std::vector<Tensor> components;
};

class FromComponentsOp : public OpKernel {
 public:
  explicit FromComponentsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("metadata", &metadata_));
    DFG_OP_REQUIRES(ctx, ParseSpecClass(metadata_, &spec_class_),
                    InvalidArgument("Error parsing metadata"));
  }
  void Compute(OpKernelContext* ctx) override {
    auto v = std::make_shared<CompositeVariant>();
    v->metadata = metadata_;
    v->spec_class = spec_class_;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      v->components.push_back(ctx->input(i));
    }
    Tensor t(tensorflow::DT_VARIANT, TensorShape());
    t.scalar<Variant>().value = std::move(v);
    ctx->set_output(0, std::move(t));
  }

 private:
  std::string metadata_;
  int64_t spec_class_ = 0;
};

class ToComponentsOp : public OpKernel {
 public:
  explicit ToComponentsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string metadata;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("metadata", &metadata));
    DFG_OP_REQUIRES(ctx, ParseSpecClass(metadata, &spec_class_),
                    InvalidArgument("Error parsing `metadata`"));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("Tcomponents", &dtypes_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const CompositeVariant* v =
        t.dtype() == tensorflow::DT_VARIANT && t.NumElements() > 0
            ? t.flat<Variant>()[0].get<CompositeVariant>()
            : nullptr;
    DFG_OP_REQUIRES(ctx, v != nullptr,
                    InvalidArgument("The input `encoded` is not a valid "
                                    "CompositeTensorVariant tensor, got {}",
                                    t.DebugString()));
    DFG_OP_REQUIRES(ctx, v->spec_class == spec_class_,
                    InvalidArgument("Expected a {} (based on `type_spec`), "
                                    "but `encoded` contains a {}",
                                    TypeSpecClassName(spec_class_),
                                    TypeSpecClassName(v->spec_class)));
    DFG_OP_REQUIRES(ctx, v->components.size() == dtypes_.size(),
                    InvalidArgument("Encoded value has {} tensor components; "
                                    "expected {} components based on "
                                    "type_spec",
                                    v->components.size(), dtypes_.size()));
    for (size_t i = 0; i < dtypes_.size(); ++i) {
      const Tensor& c = v->components[i];
      DFG_OP_REQUIRES(ctx, c.dtype() == dtypes_[i],
                      InvalidArgument("Tensor component {} had dtype {}; "
                                      "expected dtype {}",
                                      i, tensorflow::DataType_Name(c.dtype()),
                                      tensorflow::DataType_Name(dtypes_[i])));
      ctx->set_output(static_cast<int>(i), c);
    }
  }

 private:
  int64_t spec_class_ = 0;
  std::vector<DataType> dtypes_;
};

// The values of a ragged tensor in a variant (ragged_ops.cc's
// RaggedTensorVariant), read through its TensorFlow encoding: the splits
// tensors, then the values. Null when the variant holds something else.
StatusOr<std::optional<Tensor>> RaggedValues(const Variant& v) {
  if (!v.value || v.value->TypeName() != "tensorflow::RaggedTensorVariant") {
    return std::optional<Tensor>();
  }
  tensorflow::VariantTensorDataProto proto;
  v.value->Encode(&proto);
  if (proto.tensors_size() == 0) return Internal("empty ragged variant");
  DFG_ASSIGN_OR_RETURN(
      Tensor t, Tensor::FromProto(proto.tensors(proto.tensors_size() - 1)));
  return std::optional<Tensor>(std::move(t));
}

// RaggedTensorToVariantGradient: the gradients of a batch of ragged
// variants concatenated into the flat values' gradient; a missing (empty)
// variant stands for zeros of its row's size.
class RaggedToVariantGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const std::vector<int64_t> splits = IntValues(ctx->input(1));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, MakeShape(ctx->input(2), &shape));
    const DataType dtype = output_type(0);
    std::vector<Tensor> values;
    for (int64_t i = 0; i < grads.NumElements(); ++i) {
      auto v = RaggedValues(grads.flat<Variant>()[i]);
      DFG_OP_REQUIRES_OK(ctx, v.status());
      if (v->has_value()) {
        values.push_back(**v);
        continue;
      }
      DFG_OP_REQUIRES(ctx, i + 1 < static_cast<int64_t>(splits.size()),
                      InvalidArgument("row_splits too short"));
      TensorShape zeros = shape;
      zeros.set_dim(0, splits[i + 1] - splits[i]);
      auto z = ZerosOf(dtype, zeros);
      DFG_OP_REQUIRES_OK(ctx, z.status());
      values.push_back(*std::move(z));
    }
    if (values.size() == 1) {  // returned as is, whatever `shape` says
      ctx->set_output(0, values[0]);
      return;
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int64_t offset = 0;
    for (const Tensor& t : values) {
      const int64_t n = std::min(t.NumElements(), out->NumElements() - offset);
      CopyElements(t, 0, out, offset, n);
      offset += n;
    }
  }

 private:
  static Status MakeShape(const Tensor& dims, TensorShape* shape) {
    std::vector<int64_t> d = IntValues(dims);
    return MakeDenseShape(d, shape);
  }
  static StatusOr<Tensor> ZerosOf(DataType dtype, const TensorShape& shape) {
    Tensor t(dtype, shape);
    if (dtype == tensorflow::DT_STRING) return t;
    if (t.TotalBytes() > 0) std::memset(t.data(), 0, t.TotalBytes());
    return t;
  }
};

}  // namespace

void RegisterCompositeVariantKernels(KernelRegistry* r) {
  r->Register<RaggedToVariantGradOp>("RaggedTensorToVariantGradient");
  r->Register<FromComponentsOp>("CompositeTensorVariantFromComponents");
  r->Register<ToComponentsOp>("CompositeTensorVariantToComponents");
}

}  // namespace dfg
