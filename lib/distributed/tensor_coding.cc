#include "lib/distributed/tensor_coding.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include <cstring>
#include <vector>

#include "lib/proto/worker.pb.h"

namespace dfg {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

constexpr size_t kZeroCopyThreshold = 1024;

// Types whose elements are plain bytes (TensorFlow's DataTypeCanUseMemcpy):
// only these travel as raw tensor_content slices; strings, resources and
// variants are encoded element by element.
bool CanUseMemcpy(int dtype) {
  return tensorflow::DataType_IsValid(dtype) &&
         IsSupportedTensorType(static_cast<DataType>(dtype)) &&
         dtype != tensorflow::DT_STRING && dtype != tensorflow::DT_RESOURCE &&
         dtype != tensorflow::DT_VARIANT;
}

void AppendVarint(std::string* out, uint64_t v) {
  uint8_t buf[10];
  uint8_t* end = CodedOutputStream::WriteVarint64ToArray(v, buf);
  out->append(reinterpret_cast<char*>(buf), end - buf);
}

void AppendTag(std::string* out, int field, WireFormatLite::WireType type) {
  AppendVarint(out, WireFormatLite::MakeTag(field, type));
}

void DestroyTensorRef(void* tensor) { delete static_cast<Tensor*>(tensor); }

void EncodeWhole(const Tensor& value, bool is_dead, int64_t start,
                 grpc::ByteBuffer* out) {
  tensorflow::RecvTensorResponse response;
  if (is_dead) {
    response.set_is_dead(true);
  } else {
    value.ToProto(response.mutable_tensor(), true);
  }
  response.set_send_start_micros(start);
  std::string bytes = response.SerializeAsString();
  grpc::Slice slice(bytes);
  *out = grpc::ByteBuffer(&slice, 1);
}

// Generic parse, for what the fast path does not expect.
Status DecodeWhole(grpc::ByteBuffer* in, Tensor* value, bool* is_dead) {
  tensorflow::RecvTensorResponse response;
  grpc::ProtoBufferReader reader(in);
  if (!response.ParseFromZeroCopyStream(&reader)) {
    return DataLoss("RecvTensorResponse does not parse");
  }
  *is_dead = response.is_dead();
  if (*is_dead) {
    *value = Tensor();
    return Status::Ok();
  }
  DFG_ASSIGN_OR_RETURN(*value, Tensor::FromProto(response.tensor()));
  return Status::Ok();
}

// Parses the TensorProto of field 1 when it is dtype, shape and
// tensor_content only; false (nothing consumed that matters) otherwise.
bool ParseTensorFast(CodedInputStream* in, Tensor* value) {
  int dtype = 0;
  TensorShapeProto shape_proto;
  bool have_content = false;
  while (true) {
    uint32_t tag = in->ReadTag();
    if (tag == 0) break;
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    const auto type = WireFormatLite::GetTagWireType(tag);
    const bool varint = type == WireFormatLite::WIRETYPE_VARINT;
    const bool bytes = type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    // dtype and shape must come before the content they describe.
    if (field == 1 && varint && !have_content) {
      uint32_t v = 0;
      if (!in->ReadVarint32(&v)) return false;
      dtype = static_cast<int>(v);
    } else if (field == 2 && bytes && !have_content) {
      uint32_t len = 0;
      if (!in->ReadVarint32(&len)) return false;
      auto limit = in->PushLimit(len);
      if (!shape_proto.MergeFromCodedStream(in)) return false;
      in->PopLimit(limit);
    } else if (field == 3 && varint) {  // version_number
      uint32_t v = 0;
      if (!in->ReadVarint32(&v)) return false;
    } else if (field == 4 && bytes && !have_content && CanUseMemcpy(dtype)) {
      uint32_t len = 0;
      if (!in->ReadVarint32(&len)) return false;
      auto shape = TensorShape::FromProto(shape_proto);
      if (!shape.ok()) return false;
      auto t = Tensor::TryAllocate(static_cast<DataType>(dtype), *shape);
      if (!t.ok() || t->TotalBytes() != len) return false;
      if (len > 0 && !in->ReadRaw(t->data(), static_cast<int>(len)))
        return false;
      *value = std::move(t).value();
      have_content = true;
    } else {
      return false;
    }
  }
  return have_content;
}

}  // namespace

void EncodeRecvTensorResponse(const Tensor& value, bool is_dead,
                              int64_t send_start_micros,
                              grpc::ByteBuffer* out) {
  const size_t bytes = is_dead ? 0 : value.TotalBytes();
  if (is_dead || bytes <= kZeroCopyThreshold || value.data() == nullptr ||
      !CanUseMemcpy(value.dtype())) {
    EncodeWhole(value, is_dead, send_start_micros, out);
    return;
  }
  // TensorProto without its content, then the content's tag and length.
  TensorProto meta;
  meta.set_dtype(value.dtype());
  value.shape().AsProto(meta.mutable_tensor_shape());
  std::string meta_bytes = meta.SerializeAsString();
  std::string content_header;
  AppendTag(&content_header, 4, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  AppendVarint(&content_header, bytes);
  std::string header;
  AppendTag(&header, 1, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  AppendVarint(&header, meta_bytes.size() + content_header.size() + bytes);
  header += meta_bytes;
  header += content_header;
  std::string trailer;
  if (send_start_micros != 0) {
    AppendTag(&trailer, 3, WireFormatLite::WIRETYPE_VARINT);
    AppendVarint(&trailer, static_cast<uint64_t>(send_start_micros));
  }
  std::vector<grpc::Slice> slices;
  slices.emplace_back(header);
  // The slice keeps a reference to the tensor until gRPC has sent it.
  slices.emplace_back(value.data(), bytes, DestroyTensorRef, new Tensor(value));
  if (!trailer.empty()) slices.emplace_back(trailer);
  *out = grpc::ByteBuffer(slices.data(), slices.size());
}

Status DecodeRecvTensorResponse(grpc::ByteBuffer* in, Tensor* value,
                                bool* is_dead) {
  bool fast_ok = true;
  bool dead = false;
  Tensor t;
  bool have_tensor = false;
  {
    grpc::ProtoBufferReader reader(in);
    CodedInputStream coded(&reader);
    coded.SetTotalBytesLimit(INT_MAX);
    while (fast_ok) {
      uint32_t tag = coded.ReadTag();
      if (tag == 0) break;
      int field = WireFormatLite::GetTagFieldNumber(tag);
      if (field == 1 && have_tensor) {
        fast_ok = false;  // merged messages: the generic parser's job
      } else if (field == 1 && WireFormatLite::GetTagWireType(tag) ==
                                   WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
        uint32_t len = 0;
        if (!coded.ReadVarint32(&len)) {
          fast_ok = false;
          break;
        }
        auto limit = coded.PushLimit(len);
        fast_ok = ParseTensorFast(&coded, &t);
        coded.PopLimit(limit);
        have_tensor = fast_ok;
      } else if (field == 2 && WireFormatLite::GetTagWireType(tag) ==
                                   WireFormatLite::WIRETYPE_VARINT) {
        uint32_t v = 0;
        fast_ok = coded.ReadVarint32(&v);
        dead = v != 0;
      } else {
        fast_ok = WireFormatLite::SkipField(&coded, tag);
      }
    }
    if (fast_ok && !coded.ConsumedEntireMessage()) fast_ok = false;
  }
  if (!fast_ok || (!dead && !have_tensor)) {
    return DecodeWhole(in, value, is_dead);
  }
  *is_dead = dead;
  *value = dead ? Tensor() : std::move(t);
  return Status::Ok();
}

}  // namespace dfg
