// Tensor <-> TensorProto (TF-SEMANTICS.md §6.4): tensor_content, or the typed
// *_val field with the last value repeated to fill the shape. Variants are
// VariantTensorDataProtos: in variant_val, or serialized in tensor_content
// after their varint32 sizes (TensorFlow's EncodeVariantList).
#include <google/protobuf/io/coded_stream.h>

#include <cstring>
#include <string_view>

#include "lib/kernels/tensor.h"
#include "lib/kernels/variant.h"

namespace dfg {
namespace {

using tensorflow::ResourceHandleProto;

// Copies `n` source values (converted by `conv`) into `out`, repeating the
// last one; zero/default-fills when there are none.
template <typename T, typename Get>
void FillRepeated(std::span<T> out, int64_t in_n, Get get) {
  const int64_t n = static_cast<int64_t>(out.size());
  if (in_n <= 0) {
    for (auto& v : out) v = T();
    return;
  }
  const int64_t copy = std::min(n, in_n);
  for (int64_t i = 0; i < copy; ++i) out[i] = get(i);
  for (int64_t i = copy; i < n; ++i) out[i] = out[copy - 1];
}

template <typename T, typename Field>
void FillFrom(Tensor* t, const Field& field) {
  FillRepeated(t->flat<T>(), field.size(),
               [&](int64_t i) { return static_cast<T>(field.Get(i)); });
}

template <typename Q, typename Field>
void FillQuantized(Tensor* t, const Field& field) {
  FillRepeated(t->flat<Q>(), field.size(), [&](int64_t i) {
    Q q;
    q.value = static_cast<decltype(q.value)>(field.Get(i));
    return q;
  });
}

ResourceHandle HandleFromProto(const ResourceHandleProto& p) {
  ResourceHandle h;
  h.device = p.device();
  h.container = p.container();
  h.name = p.name();
  h.hash_code = p.hash_code();
  h.maybe_type_name = p.maybe_type_name();
  for (const auto& ds : p.dtypes_and_shapes()) {
    ResourceHandle::DtypeAndShape d;
    d.dtype = ds.dtype();
    d.unknown_rank = ds.shape().unknown_rank();
    for (const auto& dim : ds.shape().dim()) d.dims.push_back(dim.size());
    h.dtypes_and_shapes.push_back(std::move(d));
  }
  return h;
}

void HandleToProto(const ResourceHandle& h, ResourceHandleProto* p) {
  p->set_device(h.device);
  p->set_container(h.container);
  p->set_name(h.name);
  p->set_hash_code(h.hash_code);
  p->set_maybe_type_name(h.maybe_type_name);
  for (const auto& d : h.dtypes_and_shapes) {
    auto* ds = p->add_dtypes_and_shapes();
    ds->set_dtype(d.dtype);
    if (d.unknown_rank) ds->mutable_shape()->set_unknown_rank(true);
    for (int64_t s : d.dims) ds->mutable_shape()->add_dim()->set_size(s);
  }
}

void FillTypedField(const TensorProto& p, Tensor* t) {
  using namespace tensorflow;  // NOLINT: DT_ names
  switch (t->dtype()) {
    case DT_FLOAT:
      return FillFrom<float>(t, p.float_val());
    case DT_DOUBLE:
      return FillFrom<double>(t, p.double_val());
    case DT_INT32:
      return FillFrom<int32_t>(t, p.int_val());
    case DT_INT16:
      return FillFrom<int16_t>(t, p.int_val());
    case DT_INT8:
      return FillFrom<int8_t>(t, p.int_val());
    case DT_UINT8:
      return FillFrom<uint8_t>(t, p.int_val());
    case DT_UINT16:
      return FillFrom<uint16_t>(t, p.int_val());
    case DT_INT64:
      return FillFrom<int64_t>(t, p.int64_val());
    case DT_UINT32:
      return FillFrom<uint32_t>(t, p.uint32_val());
    case DT_UINT64:
      return FillFrom<uint64_t>(t, p.uint64_val());
    case DT_BOOL:
      return FillFrom<bool>(t, p.bool_val());
    case DT_QINT8:
      return FillQuantized<QInt8>(t, p.int_val());
    case DT_QUINT8:
      return FillQuantized<QUInt8>(t, p.int_val());
    case DT_QINT16:
      return FillQuantized<QInt16>(t, p.int_val());
    case DT_QUINT16:
      return FillQuantized<QUInt16>(t, p.int_val());
    case DT_QINT32:
      return FillQuantized<QInt32>(t, p.int_val());
    case DT_HALF:
      return FillRepeated(t->flat<Half>(), p.half_val_size(), [&](int64_t i) {
        return Half{static_cast<uint16_t>(p.half_val(i))};
      });
    case DT_BFLOAT16:
      return FillRepeated(
          t->flat<BFloat16>(), p.half_val_size(), [&](int64_t i) {
            return BFloat16{static_cast<uint16_t>(p.half_val(i))};
          });
    case DT_COMPLEX64:
      return FillRepeated(t->flat<std::complex<float>>(),
                          p.scomplex_val_size() / 2, [&](int64_t i) {
                            return std::complex<float>(
                                p.scomplex_val(2 * i),
                                p.scomplex_val(2 * i + 1));
                          });
    case DT_COMPLEX128:
      return FillRepeated(t->flat<std::complex<double>>(),
                          p.dcomplex_val_size() / 2, [&](int64_t i) {
                            return std::complex<double>(
                                p.dcomplex_val(2 * i),
                                p.dcomplex_val(2 * i + 1));
                          });
    case DT_STRING:
      return FillRepeated(t->flat<std::string>(), p.string_val_size(),
                          [&](int64_t i) { return p.string_val(i); });
    case DT_RESOURCE:
      return FillRepeated(
          t->flat<ResourceHandle>(), p.resource_handle_val_size(),
          [&](int64_t i) { return HandleFromProto(p.resource_handle_val(i)); });
    default:
      DFG_CHECK(false);
  }
}

bool ReadVarint32(std::string_view* in, uint32_t* v) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    if (in->empty()) return false;
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

Status DecodeStringContent(std::string_view content, Tensor* t) {
  auto out = t->flat<std::string>();
  std::vector<uint32_t> sizes(out.size());
  for (auto& s : sizes) {
    if (!ReadVarint32(&content, &s)) {
      return InvalidArgument("malformed string tensor_content");
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (content.size() < sizes[i]) {
      return InvalidArgument("malformed string tensor_content");
    }
    out[i].assign(content.substr(0, sizes[i]));
    content.remove_prefix(sizes[i]);
  }
  if (!content.empty()) {
    return InvalidArgument("malformed string tensor_content");
  }
  return Status::Ok();
}

Status DecodeContent(const std::string& content, Tensor* t) {
  if (t->dtype() == tensorflow::DT_STRING) {
    return DecodeStringContent(content, t);
  }
  if (t->dtype() == tensorflow::DT_RESOURCE) {
    return Unimplemented(
        "resource tensors in tensor_content are not supported");
  }
  if (content.size() != t->TotalBytes()) {
    return InvalidArgument(
        "tensor_content has {} bytes, but a {} tensor of shape {} needs {}",
        content.size(), DataTypeString(t->dtype()), t->shape().DebugString(),
        t->TotalBytes());
  }
  if (t->dtype() == tensorflow::DT_BOOL) {
    auto out = t->flat<bool>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = content[i] != 0;
  } else if (!content.empty()) {
    std::memcpy(t->data(), content.data(), content.size());
  }
  return Status::Ok();
}

}  // namespace

namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

Status BadVariantList() {
  return InvalidArgument(
      "Unable to parse tensor proto: the variant list in tensor_content is "
      "malformed");
}

// tensor_content of a variant tensor: n varint32 sizes, then n serialized
// VariantTensorDataProtos.
Status DecodeVariantList(const std::string& content, std::span<Variant> out) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(content.data()),
                      static_cast<int>(content.size()));
  std::vector<uint32_t> sizes(out.size());
  uint64_t total = 0;
  for (uint32_t& size : sizes) {
    if (!in.ReadVarint32(&size)) return BadVariantList();
    total += size;
  }
  if (total != static_cast<uint64_t>(in.BytesUntilLimit())) {
    return BadVariantList();
  }
  for (size_t i = 0; i < out.size(); ++i) {
    std::string bytes;
    tensorflow::VariantTensorDataProto data;
    if (!in.ReadString(&bytes, static_cast<int>(sizes[i])) ||
        !data.ParseFromString(bytes)) {
      return BadVariantList();
    }
    DFG_RETURN_IF_ERROR(DecodeVariant(data, &out[i]));
  }
  return Status::Ok();
}

std::string EncodeVariantList(std::span<const Variant> values) {
  std::string sizes, rest;
  for (const Variant& v : values) {
    tensorflow::VariantTensorDataProto data;
    EncodeVariant(v, &data);
    std::string bytes = data.SerializeAsString();
    uint8_t buf[5];
    uint8_t* end = CodedOutputStream::WriteVarint32ToArray(
        static_cast<uint32_t>(bytes.size()), buf);
    sizes.append(reinterpret_cast<char*>(buf), end - buf);
    rest += bytes;
  }
  return sizes + rest;
}

// Variants nest (a list of lists); each level is a separate parse, so the
// depth is bounded here rather than by protobuf's recursion limit.
constexpr int kMaxVariantDepth = 64;
thread_local int variant_depth = 0;

StatusOr<Tensor> VariantFromProtoAtDepth(const TensorProto& proto);

StatusOr<Tensor> VariantFromProto(const TensorProto& proto) {
  if (variant_depth >= kMaxVariantDepth) {
    return InvalidArgument(
        "Unable to parse tensor proto: variants nested more than {} deep",
        kMaxVariantDepth);
  }
  ++variant_depth;
  StatusOr<Tensor> t = VariantFromProtoAtDepth(proto);
  --variant_depth;
  return t;
}

StatusOr<Tensor> VariantFromProtoAtDepth(const TensorProto& proto) {
  DFG_ASSIGN_OR_RETURN(TensorShape shape,
                       TensorShape::FromProto(proto.tensor_shape()));
  DFG_ASSIGN_OR_RETURN(Tensor t,
                       Tensor::TryAllocate(tensorflow::DT_VARIANT, shape));
  auto out = t.flat<Variant>();
  if (!proto.tensor_content().empty()) {
    DFG_RETURN_IF_ERROR(DecodeVariantList(proto.tensor_content(), out));
    return t;
  }
  const size_t n = std::min<size_t>(out.size(), proto.variant_val_size());
  for (size_t i = 0; i < n; ++i) {
    DFG_RETURN_IF_ERROR(DecodeVariant(proto.variant_val(i), &out[i]));
  }
  return t;
}

}  // namespace

void VariantValue::Encode(tensorflow::VariantTensorDataProto* out) const {
  out->set_type_name(TypeName());
}

void EncodeVariant(const Variant& v, tensorflow::VariantTensorDataProto* out) {
  out->Clear();
  if (v.value != nullptr) v.value->Encode(out);
}

Status DecodeVariant(const tensorflow::VariantTensorDataProto& data,
                     Variant* out) {
  if (data.type_name().empty()) {
    if (!data.metadata().empty() || data.tensors_size() > 0) {
      return InvalidArgument(
          "Could not decode variant with type_name: \"\": it has metadata or "
          "tensors");
    }
    *out = Variant();
    return Status::Ok();
  }
  if (data.type_name() == "tensorflow::TensorList") {
    DFG_ASSIGN_OR_RETURN(out->value, DecodeTensorList(data));
    return Status::Ok();
  }
  return InvalidArgument(
      "Could not decode variant with type_name: \"{}\" (dfg decodes "
      "tensorflow::TensorList only)",
      data.type_name());
}

StatusOr<Tensor> Tensor::FromProto(const TensorProto& proto) {
  const DataType dtype = proto.dtype();
  if (dtype == tensorflow::DT_VARIANT) return VariantFromProto(proto);
  if (!IsSupportedTensorType(dtype)) {
    if (dtype == tensorflow::DT_VARIANT ||
        (dtype >= tensorflow::DT_FLOAT8_E5M2 && dtype <= 33)) {
      return Unimplemented("tensors of dtype {} are not supported",
                           DataTypeString(dtype));
    }
    return InvalidArgument("invalid tensor dtype {}", DataTypeString(dtype));
  }
  DFG_ASSIGN_OR_RETURN(TensorShape shape,
                       TensorShape::FromProto(proto.tensor_shape()));
  DFG_ASSIGN_OR_RETURN(Tensor t, TryAllocate(dtype, shape));
  if (!proto.tensor_content().empty()) {
    DFG_RETURN_IF_ERROR(DecodeContent(proto.tensor_content(), &t));
  } else {
    FillTypedField(proto, &t);
  }
  return t;
}

namespace {

template <typename T, typename Field>
void AddAll(const Tensor& t, Field* field) {
  for (const T& v : t.flat<T>()) field->Add(v);
}

template <typename Q, typename Field>
void AddQuantized(const Tensor& t, Field* field) {
  for (const Q& v : t.flat<Q>()) field->Add(v.value);
}

void ToTypedField(const Tensor& t, TensorProto* p) {
  using namespace tensorflow;  // NOLINT: DT_ names
  switch (t.dtype()) {
    case DT_FLOAT:
      return AddAll<float>(t, p->mutable_float_val());
    case DT_DOUBLE:
      return AddAll<double>(t, p->mutable_double_val());
    case DT_INT32:
      return AddAll<int32_t>(t, p->mutable_int_val());
    case DT_INT16:
      return AddAll<int16_t>(t, p->mutable_int_val());
    case DT_INT8:
      return AddAll<int8_t>(t, p->mutable_int_val());
    case DT_UINT8:
      return AddAll<uint8_t>(t, p->mutable_int_val());
    case DT_UINT16:
      return AddAll<uint16_t>(t, p->mutable_int_val());
    case DT_INT64:
      return AddAll<int64_t>(t, p->mutable_int64_val());
    case DT_UINT32:
      return AddAll<uint32_t>(t, p->mutable_uint32_val());
    case DT_UINT64:
      return AddAll<uint64_t>(t, p->mutable_uint64_val());
    case DT_BOOL:
      return AddAll<bool>(t, p->mutable_bool_val());
    case DT_QINT8:
      return AddQuantized<QInt8>(t, p->mutable_int_val());
    case DT_QUINT8:
      return AddQuantized<QUInt8>(t, p->mutable_int_val());
    case DT_QINT16:
      return AddQuantized<QInt16>(t, p->mutable_int_val());
    case DT_QUINT16:
      return AddQuantized<QUInt16>(t, p->mutable_int_val());
    case DT_QINT32:
      return AddQuantized<QInt32>(t, p->mutable_int_val());
    case DT_HALF:
      for (Half h : t.flat<Half>()) p->add_half_val(h.bits);
      return;
    case DT_BFLOAT16:
      for (BFloat16 h : t.flat<BFloat16>()) p->add_half_val(h.bits);
      return;
    case DT_COMPLEX64:
      for (auto c : t.flat<std::complex<float>>()) {
        p->add_scomplex_val(c.real());
        p->add_scomplex_val(c.imag());
      }
      return;
    case DT_COMPLEX128:
      for (auto c : t.flat<std::complex<double>>()) {
        p->add_dcomplex_val(c.real());
        p->add_dcomplex_val(c.imag());
      }
      return;
    case DT_STRING:
      for (const auto& s : t.flat<std::string>()) p->add_string_val(s);
      return;
    case DT_RESOURCE:
      for (const auto& h : t.flat<ResourceHandle>()) {
        HandleToProto(h, p->add_resource_handle_val());
      }
      return;
    default:
      return;
  }
}

}  // namespace

void Tensor::ToProto(TensorProto* proto, bool use_tensor_content) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (buf_ == nullptr) return;
  if (dtype_ == tensorflow::DT_VARIANT) {
    if (use_tensor_content) {
      proto->set_tensor_content(EncodeVariantList(flat<Variant>()));
    } else {
      for (const Variant& v : flat<Variant>()) {
        EncodeVariant(v, proto->add_variant_val());
      }
    }
    return;
  }
  const bool fixed_size =
      dtype_ != tensorflow::DT_STRING && dtype_ != tensorflow::DT_RESOURCE;
  if (use_tensor_content && fixed_size) {
    proto->set_tensor_content(static_cast<const char*>(data()), TotalBytes());
  } else {
    ToTypedField(*this, proto);
  }
}

}  // namespace dfg
