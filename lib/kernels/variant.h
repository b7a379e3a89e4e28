// DT_VARIANT elements: a type-erased value shared between tensors
// (TensorFlow's Variant, reduced to what dfg's kernels store in it: a
// TensorList).
//
// A Variant points to an immutable VariantValue: kernels that "modify" a
// value (TensorListSetItem...) build a new one, so that every tensor holding
// the old value keeps seeing it, as TensorFlow's copy-on-write lists do.
// Variant tensors flow between kernels, through Identity, control flow,
// While loops and Send/Recv; in a TensorProto (RecvTensor, RunGraph) each
// element is a VariantTensorDataProto {type_name, metadata, tensors}, as
// TensorFlow's Variant::Encode writes it (tensor_proto.cc). They have no
// .npy form.
#ifndef DFG_LIB_KERNELS_VARIANT_H_
#define DFG_LIB_KERNELS_VARIANT_H_

#include <memory>
#include <string>

#include "lib/base/status.h"
#include "lib/kernels/element_types.h"

namespace tensorflow {
class VariantTensorDataProto;
}  // namespace tensorflow

namespace dfg {

class VariantValue {
 public:
  virtual ~VariantValue() = default;
  // TensorFlow's type name, e.g. "tensorflow::TensorList".
  virtual std::string TypeName() const = 0;
  // A short description for error messages and printing.
  virtual std::string DebugString() const = 0;
  // TensorFlow's Encode: type_name, metadata and tensors. The default
  // writes the type name only (values that never leave their process).
  virtual void Encode(tensorflow::VariantTensorDataProto* out) const;
};

struct Variant {
  std::shared_ptr<const VariantValue> value;  // null: an empty variant

  // The value as a T, or null when it holds something else.
  template <typename T>
  const T* get() const {
    return dynamic_cast<const T*>(value.get());
  }
  std::string DebugString() const {
    return value ? value->DebugString() : std::string("<empty variant>");
  }
};

template <>
struct DataTypeToEnum<Variant> {
  static constexpr DataType value = tensorflow::DT_VARIANT;
};

// A variant as TensorFlow encodes it; an empty variant is an empty proto.
void EncodeVariant(const Variant& v, tensorflow::VariantTensorDataProto* out);

// TensorFlow's DecodeUnaryVariant over the types dfg has (TensorList).
// Errors (kInvalidArgument): an unknown type_name ("Could not decode variant
// with type_name: ..."), data its decoder refuses.
Status DecodeVariant(const tensorflow::VariantTensorDataProto& data,
                     Variant* out);

// TensorList::Decode (tensor_list_ops.cc). Errors (kInvalidArgument):
// malformed metadata or tensors.
StatusOr<std::shared_ptr<const VariantValue>> DecodeTensorList(
    const tensorflow::VariantTensorDataProto& data);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_VARIANT_H_
