// DecodeProtoV2 and EncodeProto (TensorFlow's core/kernels/decode_proto_op.cc
// and encode_proto_op.cc) through protobuf reflection. The message types are
// those of descriptor_source: "local://" is the binary's own generated pool —
// for dfg, dfg's protos (tensorflow.TensorProto, tensorflow.Example, ...),
// where TensorFlow's holds TensorFlow's; "bytes://<FileDescriptorSet>" or the
// path of a FileDescriptorSet file build a pool of their own.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <memory>
#include <sstream>

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

  Status Init(const std::string& source) {
    if (source == "local://") {
      pool = pb::DescriptorPool::generated_pool();
      return Status::Ok();
    }
    std::string bytes;
    if (source.rfind("bytes://", 0) == 0) {
      bytes = source.substr(8);
    } else {
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
    DFG_RETURN_IF_ERROR(pool.Init(source));
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

}  // namespace

void RegisterProtoKernels(KernelRegistry* r) {
  r->Register<DecodeProtoOp>("DecodeProtoV2");
}

}  // namespace dfg
