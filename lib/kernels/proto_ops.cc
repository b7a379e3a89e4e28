// DecodeProtoV2 and EncodeProto (TensorFlow's core/kernels/decode_proto_op.cc
// and encode_proto_op.cc) through protobuf reflection. The message types are
// those of descriptor_source: "local://" is the binary's own generated pool —
// for dfg, dfg's protos (tensorflow.TensorProto, tensorflow.Example, ...),
// where TensorFlow's holds TensorFlow's; "bytes://<FileDescriptorSet>" or the
// path of a FileDescriptorSet file build a pool of their own.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>

#include "lib/kernels/file_policy.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

namespace pb = google::protobuf;
using pb::FieldDescriptor;
using tensorflow::DT_BOOL;
using tensorflow::DT_DOUBLE;
using tensorflow::DT_FLOAT;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_STRING;
using tensorflow::DT_UINT32;
using tensorflow::DT_UINT64;

// The dtypes a field's values may be written as (TensorFlow's
// CheckOutputType / IsCompatibleType).
bool Compatible(const FieldDescriptor* f, DataType t) {
  switch (f->type()) {
    case FieldDescriptor::TYPE_DOUBLE:
      return t == DT_DOUBLE;
    case FieldDescriptor::TYPE_FLOAT:
      return t == DT_FLOAT || t == DT_DOUBLE;
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_SINT64:
      return t == DT_INT64;
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      return t == DT_UINT64;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_SINT32:
      return t == DT_INT32 || t == DT_INT64;
    case FieldDescriptor::TYPE_ENUM:
      return t == DT_INT32;
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return t == DT_UINT32 || t == DT_UINT64;
    case FieldDescriptor::TYPE_BOOL:
      return t == DT_BOOL;
    default:  // string, bytes, message, group
      return t == DT_STRING;
  }
}

// The message type's descriptor from the pool descriptor_source names; the
// pool (and its database) stay alive in `holder`.
struct Pool {
  std::unique_ptr<pb::DescriptorPool> own;
  const pb::DescriptorPool* pool = nullptr;

  Status Init(const std::string& source, const OpKernelConstruction& ctx) {
    if (source == "local://") {
      pool = pb::DescriptorPool::generated_pool();
      return Status::Ok();
    }
    std::string bytes;
    if (source.rfind("bytes://", 0) == 0) {
      bytes = source.substr(8);
    } else {
      DFG_RETURN_IF_ERROR(CheckPath(ctx, source));
      std::ifstream f(source, std::ios::binary);
      if (!f) return NotFound("{}; No such file or directory", source);
      std::stringstream ss;
      ss << f.rdbuf();
      bytes = ss.str();
    }
    pb::FileDescriptorSet set;
    if (!set.ParseFromString(bytes)) {
      return InvalidArgument("Failed to parse descriptor set from {}", source);
    }
    own = std::make_unique<pb::DescriptorPool>();
    for (const auto& file : set.file()) own->BuildFile(file);
    pool = own.get();
    return Status::Ok();
  }
};

// Attrs and descriptors both ops share.
struct ProtoSpec {
  Pool pool;
  const pb::Descriptor* message = nullptr;
  std::vector<const FieldDescriptor*> fields;
  std::unique_ptr<pb::DynamicMessageFactory> factory;

  // The pool, the message and the named fields (any dtype).
  Status InitFields(OpKernelConstruction* ctx) {
    std::string type, source;
    std::vector<std::string> names;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("message_type", &type));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("field_names", &names));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("descriptor_source", &source));
    DFG_RETURN_IF_ERROR(pool.Init(source, *ctx));
    message = pool.pool->FindMessageTypeByName(type);
    if (message == nullptr) {
      return InvalidArgument("No descriptor found for message type {}", type);
    }
    for (const std::string& name : names) {
      const FieldDescriptor* f = message->FindFieldByName(name);
      if (f == nullptr) {
        return InvalidArgument("Unknown field: {} in message type {}", name,
                               type);
      }
      fields.push_back(f);
    }
    factory = std::make_unique<pb::DynamicMessageFactory>(pool.pool);
    return Status::Ok();
  }

  Status Init(OpKernelConstruction* ctx, const std::vector<DataType>& types) {
    std::string type, source;
    std::vector<std::string> names;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("message_type", &type));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("field_names", &names));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("descriptor_source", &source));
    if (names.size() != types.size()) {
      return InvalidArgument(
          "field_names and output_types attributes must have the same "
          "length");
    }
    DFG_RETURN_IF_ERROR(pool.Init(source, *ctx));
    message = pool.pool->FindMessageTypeByName(type);
    if (message == nullptr) {
      return InvalidArgument("No descriptor found for message type {}", type);
    }
    for (size_t i = 0; i < names.size(); ++i) {
      const FieldDescriptor* f = message->FindFieldByName(names[i]);
      if (f == nullptr) {
        return InvalidArgument("Unknown field: {} in message type {}", names[i],
                               type);
      }
      if (!Compatible(f, types[i])) {
        return InvalidArgument("Unexpected output type for {}: {} to {}",
                               f->full_name(), f->type_name(),
                               tensorflow::DataType_Name(types[i]));
      }
      fields.push_back(f);
    }
    factory = std::make_unique<pb::DynamicMessageFactory>(pool.pool);
    return Status::Ok();
  }

  std::unique_ptr<pb::Message> New() const {
    return std::unique_ptr<pb::Message>(factory->GetPrototype(message)->New());
  }
};

int Count(const pb::Message& m, const FieldDescriptor* f) {
  const pb::Reflection* r = m.GetReflection();
  return f->is_repeated() ? r->FieldSize(m, f) : (r->HasField(m, f) ? 1 : 0);
}

// Value `i` of field `f` (the field's default when `i` is past its values)
// stored as out[at] in the output dtype.
void Store(const pb::Message& m, const FieldDescriptor* f, int i, Tensor* out,
           int64_t at) {
  const pb::Reflection* r = m.GetReflection();
  const bool have = i < Count(m, f);
  const bool rep = f->is_repeated();
  auto put = [&](auto v) {
    Dispatch(
        TypeList<float, double, int32_t, int64_t, uint32_t, uint64_t, bool>(),
        out->dtype(), [&](auto t) {
          out->flat<decltype(t)>()[at] = static_cast<decltype(t)>(v);
        });
  };
  switch (f->cpp_type()) {
#define DFG_PROTO_CASE(CPP, Getter, Default)    \
  case FieldDescriptor::CPPTYPE_##CPP:          \
    put(!have ? f->Default()                    \
        : rep ? r->GetRepeated##Getter(m, f, i) \
              : r->Get##Getter(m, f));          \
    break;
    DFG_PROTO_CASE(INT32, Int32, default_value_int32)
    DFG_PROTO_CASE(INT64, Int64, default_value_int64)
    DFG_PROTO_CASE(UINT32, UInt32, default_value_uint32)
    DFG_PROTO_CASE(UINT64, UInt64, default_value_uint64)
    DFG_PROTO_CASE(DOUBLE, Double, default_value_double)
    DFG_PROTO_CASE(FLOAT, Float, default_value_float)
    DFG_PROTO_CASE(BOOL, Bool, default_value_bool)
#undef DFG_PROTO_CASE
    case FieldDescriptor::CPPTYPE_ENUM:
      put(!have ? f->default_value_enum()->number()
          : rep ? r->GetRepeatedEnumValue(m, f, i)
                : r->GetEnumValue(m, f));
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      out->flat<std::string>()[at] = !have ? f->default_value_string()
                                     : rep ? r->GetRepeatedString(m, f, i)
                                           : r->GetString(m, f);
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      out->flat<std::string>()[at] =
          !have ? std::string()
          : rep ? r->GetRepeatedMessage(m, f, i).SerializeAsString()
                : r->GetMessage(m, f).SerializeAsString();
      break;
  }
}

class DecodeProtoOp : public OpKernel {
 public:
  explicit DecodeProtoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<DataType> types;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_types", &types));
    DFG_OP_REQUIRES_OK(ctx, spec_.Init(ctx, types));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("message_format", &format_));
    DFG_OP_REQUIRES(ctx, format_ == "binary" || format_ == "text",
                    InvalidArgument("format must be one of binary or text"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    auto s = in.flat<std::string>();
    DFG_OP_REQUIRES(
        ctx, !s.empty(),
        InvalidArgument("Bufs argument must contain at least one value"));
    std::vector<std::unique_ptr<pb::Message>> messages;
    for (size_t i = 0; i < s.size(); ++i) {
      messages.push_back(spec_.New());
      const bool ok =
          format_ == "binary"
              ? messages.back()->ParseFromString(s[i])
              : pb::TextFormat::ParseFromString(s[i], messages.back().get());
      DFG_OP_REQUIRES(ctx, ok,
                      DataLoss("Unable to parse message {} of type {}", i,
                               spec_.message->full_name()));
    }
    const size_t n = spec_.fields.size();
    TensorShape sizes_shape = in.shape();
    sizes_shape.AddDim(n);
    Tensor* sizes = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, sizes_shape, &sizes));
    for (size_t f = 0; f < n; ++f) {
      int max_count = 1;
      for (size_t b = 0; b < messages.size(); ++b) {
        const int c = Count(*messages[b], spec_.fields[f]);
        sizes->flat<int32_t>()[b * n + f] = c;
        max_count = std::max(max_count, c);
      }
      TensorShape shape = in.shape();
      shape.AddDim(max_count);
      Tensor* out = nullptr;
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1 + f, shape, &out));
      for (size_t b = 0; b < messages.size(); ++b) {
        for (int i = 0; i < max_count; ++i) {
          Store(*messages[b], spec_.fields[f], i, out, b * max_count + i);
        }
      }
    }
  }

 private:
  ProtoSpec spec_;
  std::string format_;
};

using pb::internal::WireFormatLite;
using pb::io::CodedOutputStream;

// Element i of row `row` of a value tensor (its last dimension the values of
// one message) as T.
template <typename T>
T Value(const Tensor& v, int64_t row, int64_t i) {
  const int64_t width = v.dim_size(v.dims() - 1);
  T out{};
  Dispatch(
      TypeList<float, double, int32_t, int64_t, uint32_t, uint64_t, bool>(),
      v.dtype(), [&](auto t) {
        out = static_cast<T>(v.flat<decltype(t)>()[row * width + i]);
      });
  return out;
}

// One value of field `f` without its tag (TensorFlow's Write*NoTag per
// field type).
void WriteOne(const FieldDescriptor& f, const Tensor& v, int64_t row, int64_t i,
              CodedOutputStream* out) {
  using W = WireFormatLite;
  switch (f.type()) {
    case FieldDescriptor::TYPE_DOUBLE:
      return W::WriteDoubleNoTag(Value<double>(v, row, i), out);
    case FieldDescriptor::TYPE_FLOAT:
      return W::WriteFloatNoTag(Value<float>(v, row, i), out);
    case FieldDescriptor::TYPE_INT64:
      return W::WriteInt64NoTag(Value<int64_t>(v, row, i), out);
    case FieldDescriptor::TYPE_UINT64:
      return W::WriteUInt64NoTag(Value<uint64_t>(v, row, i), out);
    case FieldDescriptor::TYPE_INT32:
      return W::WriteInt32NoTag(Value<int32_t>(v, row, i), out);
    case FieldDescriptor::TYPE_FIXED64:
      return W::WriteFixed64NoTag(Value<uint64_t>(v, row, i), out);
    case FieldDescriptor::TYPE_FIXED32:
      return W::WriteFixed32NoTag(Value<uint32_t>(v, row, i), out);
    case FieldDescriptor::TYPE_BOOL:
      return W::WriteBoolNoTag(Value<bool>(v, row, i), out);
    case FieldDescriptor::TYPE_UINT32:
      return W::WriteUInt32NoTag(Value<uint32_t>(v, row, i), out);
    case FieldDescriptor::TYPE_ENUM:
      return W::WriteEnumNoTag(Value<int32_t>(v, row, i), out);
    case FieldDescriptor::TYPE_SFIXED32:
      return W::WriteSFixed32NoTag(Value<int32_t>(v, row, i), out);
    case FieldDescriptor::TYPE_SFIXED64:
      return W::WriteSFixed64NoTag(Value<int64_t>(v, row, i), out);
    case FieldDescriptor::TYPE_SINT32:
      return W::WriteSInt32NoTag(Value<int32_t>(v, row, i), out);
    case FieldDescriptor::TYPE_SINT64:
      return W::WriteSInt64NoTag(Value<int64_t>(v, row, i), out);
    default: {  // string, bytes, message
      const std::string& s =
          v.flat<std::string>()[row * v.dim_size(v.dims() - 1) + i];
      out->WriteVarint32(static_cast<uint32_t>(s.size()));
      out->WriteString(s);
    }
  }
}

// The first `count` values of field `f` for message `row`: packed (one
// length-delimited record) when the field's options say packed, as
// TensorFlow's WriteField does, else one tagged record each.
void WriteField(const FieldDescriptor& f, const Tensor& v, int64_t row,
                int count, CodedOutputStream* out) {
  using W = WireFormatLite;
  if (f.options().packed()) {
    std::string packed;
    {
      pb::io::StringOutputStream s(&packed);
      CodedOutputStream body(&s);
      for (int i = 0; i < count; ++i) WriteOne(f, v, row, i, &body);
    }
    W::WriteTag(f.number(), W::WIRETYPE_LENGTH_DELIMITED, out);
    out->WriteVarint32(static_cast<uint32_t>(packed.size()));
    out->WriteString(packed);
    return;
  }
  const auto wire =
      W::WireTypeForFieldType(static_cast<W::FieldType>(f.type()));
  for (int i = 0; i < count; ++i) {
    W::WriteTag(f.number(), wire, out);
    WriteOne(f, v, row, i, out);
  }
}

class EncodeProtoOp : public OpKernel {
 public:
  explicit EncodeProtoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("field_names", &names_));
    // Types are checked per step, against the values given.
    DFG_OP_REQUIRES_OK(ctx, spec_.InitFields(ctx));
    order_.resize(spec_.fields.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      return spec_.fields[a]->number() < spec_.fields[b]->number();
    });
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const size_t n = spec_.fields.size();
    DFG_OP_REQUIRES(
        ctx, static_cast<size_t>(ctx->num_inputs() - 1) == n,
        InvalidArgument("Length of inputs list must match field_names"));
    TensorShape prefix;
    for (size_t i = 0; i < n; ++i) {
      const Tensor& v = ctx->input(1 + i);
      DFG_OP_REQUIRES(ctx, Compatible(spec_.fields[i], v.dtype()),
                      InvalidArgument("Incompatible type for field {}.  Saw "
                                      "dtype: {} but field type is: {}",
                                      names_[i], DataTypeString(v.dtype()),
                                      spec_.fields[i]->type_name()));
      DFG_OP_REQUIRES(ctx, v.dims() >= 2,
                      InvalidArgument("Invalid shape for field {}.  Saw shape "
                                      "{} but it should be at least a matrix.",
                                      names_[i], v.shape().DebugString()));
      TensorShape p = v.shape();
      p.RemoveDim(p.dims() - 1);
      DFG_OP_REQUIRES(
          ctx, i == 0 || p == prefix,
          InvalidArgument("Values must match up to the last dimension"));
      prefix = p;
    }
    TensorShape want = prefix;
    want.AddDim(n);
    DFG_OP_REQUIRES(
        ctx, sizes.shape() == want,
        InvalidArgument("sizes should be batch_size + "
                        "[len(field_names)].  Saw: {} but "
                        "expected: {}",
                        sizes.shape().DebugString(), want.DebugString()));
    const int64_t messages = prefix.num_elements();
    auto sz = sizes.flat<int32_t>();
    for (size_t i = 0; i < n; ++i) {
      const Tensor& v = ctx->input(1 + i);
      const int64_t max = v.dim_size(v.dims() - 1);
      for (int64_t m = 0; m < messages; ++m) {
        DFG_OP_REQUIRES(ctx, sz[m * n + i] <= max,
                        InvalidArgument("Size to write must not be larger than "
                                        "value tensor; but saw: {} > {} at "
                                        "message {} field {}",
                                        sz[m * n + i], max, m, i));
      }
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, prefix, &out));
    for (int64_t m = 0; m < messages; ++m) {
      pb::io::StringOutputStream s(&out->flat<std::string>()[m]);
      CodedOutputStream coded(&s);
      for (size_t i : order_) {
        const int count = sz[m * n + i];
        if (count > 0) {
          WriteField(*spec_.fields[i], ctx->input(1 + i), m, count, &coded);
        }
      }
    }
  }

 private:
  ProtoSpec spec_;
  std::vector<std::string> names_;
  std::vector<size_t> order_;
};

}  // namespace

void RegisterProtoKernels(KernelRegistry* r) {
  r->Register<DecodeProtoOp>("DecodeProtoV2");
  r->Register<EncodeProtoOp>("EncodeProto");
}

}  // namespace dfg
