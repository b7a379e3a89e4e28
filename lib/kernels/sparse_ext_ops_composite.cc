// CompositeTensorVariantFromComponents / ToComponents: an ExtensionType (or
// other composite tensor) value boxed in a scalar DT_VARIANT, as tf.function
// and tf.data carry them: the component tensors with the serialized
// CompositeTensorVariantMetadata (a TypeSpecProto) of the value. Unboxing
// checks the TypeSpec class, the number of components and their dtypes, as
// TensorFlow does. The metadata is read from its wire form (field 1:
// type_spec_proto, whose field 1 is the type_spec_class enum).
#include <memory>
#include <string>
#include <vector>

#include "lib/graph/wire_reader.h"
#include "lib/kernels/kernel_util.h"
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

}  // namespace

void RegisterCompositeVariantKernels(KernelRegistry* r) {
  r->Register<FromComponentsOp>("CompositeTensorVariantFromComponents");
  r->Register<ToComponentsOp>("CompositeTensorVariantToComponents");
}

}  // namespace dfg
