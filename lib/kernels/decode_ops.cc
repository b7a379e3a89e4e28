// Decoding ops over string tensors: DecodeCSV, DecodeRaw, DecodePaddedRaw,
// DecodeCompressed, DecodeJSONExample, ParseTensor and SerializeTensor
// (TensorFlow's core/kernels/decode_csv_op.cc, decode_raw_op.cc,
// decode_padded_raw_op.cc, decode_compressed_op.cc, example_parsing_ops.cc
// and parse_tensor_op.cc), with TensorFlow's error texts.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver_util.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "lib/kernels/kernel_util.h"
#include "lib/proto/example.pb.h"

namespace dfg {
namespace {

using tensorflow::DT_DOUBLE;
using tensorflow::DT_FLOAT;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_STRING;

bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::string_view StripSpace(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

// absl::SimpleAtoi: surrounding whitespace, an optional sign, decimal digits
// that fit the type.
template <typename T>
bool SimpleAtoi(std::string_view text, T* out) {
  std::string_view s = StripSpace(text);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty() || s[0] == '+') return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// absl::SimpleAtof/SimpleAtod: surrounding whitespace, an optional '+' (not
// "+-"), then from_chars' grammar (inf, nan, "0x" hex floats); out of range
// gives inf or the underflowed value.
template <typename T>
bool SimpleAtof(std::string_view text, T* out) {
  std::string_view s = StripSpace(text);
  if (!s.empty() && s[0] == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s[0] == '-') return false;
  }
  // absl's from_chars also reads hex floats after a "0x" prefix.
  const bool negative = !s.empty() && s[0] == '-';
  std::string_view body = negative ? s.substr(1) : s;
  const bool hex =
      body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  if (hex) body.remove_prefix(2);
  auto [ptr, ec] = hex ? std::from_chars(body.data(), body.data() + body.size(),
                                         *out, std::chars_format::hex)
                       : std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc::invalid_argument) return false;
  if (ptr != s.data() + s.size()) return false;
  if (hex && negative) *out = -*out;
  if (ec == std::errc::result_out_of_range) {
    const std::string copy(s);
    *out = std::is_same_v<T, float> ? std::strtof(copy.c_str(), nullptr)
                                    : std::strtod(copy.c_str(), nullptr);
  }
  return true;
}

class DecodeCsvOp : public OpKernel {
 public:
  explicit DecodeCsvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string delim;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("OUT_TYPE", &out_types_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("field_delim", &delim));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("use_quote_delim", &use_quote_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("select_cols", &select_cols_));
    DFG_OP_REQUIRES(
        ctx, out_types_.size() == select_cols_.size() || select_cols_.empty(),
        InvalidArgument("select_cols should match output size"));
    for (size_t i = 1; i < select_cols_.size(); ++i) {
      DFG_OP_REQUIRES(
          ctx, select_cols_[i - 1] < select_cols_[i],
          InvalidArgument("select_cols should be strictly increasing indices"));
    }
    DFG_OP_REQUIRES(
        ctx, select_cols_.empty() || select_cols_.front() >= 0,
        InvalidArgument("select_cols should be non-negative indices"));
    DFG_OP_REQUIRES(ctx, delim.size() == 1,
                    InvalidArgument("field_delim should be only 1 char"));
    delim_ = delim[0];
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("na_value", &na_value_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = static_cast<int>(out_types_.size());
    for (int i = 0; i < n; ++i) {
      const Tensor& d = ctx->input(1 + i);
      DFG_OP_REQUIRES(
          ctx, d.dims() <= 1,
          InvalidArgument("Each record default should be at most rank 1"));
      DFG_OP_REQUIRES(ctx, d.NumElements() < 2,
                      InvalidArgument("There should only be 1 default per "
                                      "field but field {} has {}",
                                      i, d.NumElements()));
    }
    const Tensor& records = ctx->input(0);
    std::vector<Tensor*> out(n);
    for (int i = 0; i < n; ++i) {
      DFG_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(i, records.shape(), &out[i]));
    }
    auto recs = records.flat<std::string>();
    for (size_t r = 0; r < recs.size(); ++r) {
      std::vector<std::string> fields;
      DFG_OP_REQUIRES_OK(ctx, ExtractFields(recs[r], &fields));
      DFG_OP_REQUIRES(
          ctx, fields.size() == out_types_.size(),
          InvalidArgument("Expect {} fields but have {} in record {}", n,
                          fields.size(), r));
      for (int f = 0; f < n; ++f) {
        DFG_OP_REQUIRES_OK(
            ctx, StoreField(ctx->input(1 + f), f, r, fields[f], out[f]));
      }
    }
  }

 private:
  Status StoreField(const Tensor& def, int f, int64_t r, std::string& field,
                    Tensor* out) const {
    const DataType dtype = out_types_[f];
    if (field.empty() || field == na_value_) {
      if (def.NumElements() != 1) {
        return InvalidArgument("Field {} is required but missing in record {}!",
                               f, r);
      }
      CopyElements(def, 0, out, r, 1);
      return Status::Ok();
    }
    bool ok = true;
    const char* name = "";
    if (dtype == DT_INT32) {
      ok = SimpleAtoi(field, &out->flat<int32_t>()[r]), name = "int32";
    } else if (dtype == DT_INT64) {
      ok = SimpleAtoi(field, &out->flat<int64_t>()[r]), name = "int64";
    } else if (dtype == DT_FLOAT) {
      ok = SimpleAtof(field, &out->flat<float>()[r]), name = "float";
    } else if (dtype == DT_DOUBLE) {
      ok = SimpleAtof(field, &out->flat<double>()[r]), name = "double";
    } else {
      out->flat<std::string>()[r] = std::move(field);
    }
    if (!ok) {
      return InvalidArgument("Field {} in record {} is not a valid {}: {}", f,
                             r, name, field);
    }
    return Status::Ok();
  }

  bool Selected(size_t selector, int64_t parsed) const {
    return select_cols_.empty() || select_cols_[selector] == parsed;
  }

  // TensorFlow's ExtractFields: RFC 4180 fields, CR/LF between fields
  // skipped, only the selected columns kept.
  Status ExtractFields(std::string_view in,
                       std::vector<std::string>* result) const {
    if (in.empty()) return Status::Ok();
    size_t i = 0, selector = 0;
    int64_t parsed = 0;
    while (i < in.size()) {
      if (in[i] == '\n' || in[i] == '\r') {
        ++i;
        continue;
      }
      const bool include = Selected(selector, parsed);
      const bool quoted = use_quote_ && in[i] == '"';
      if (quoted) ++i;
      std::string field;
      if (!quoted) {
        for (; i < in.size() && in[i] != delim_; ++i) {
          if ((use_quote_ && in[i] == '"') || in[i] == '\n' || in[i] == '\r') {
            return InvalidArgument(
                "Unquoted fields cannot have quotes/CRLFs inside");
          }
          if (include) field += in[i];
        }
        ++i;
      } else {
        while (i < in.size() - 1 && (in[i] != '"' || in[i + 1] != delim_)) {
          if (in[i] != '"') {
            if (include) field += in[i];
            ++i;
            continue;
          }
          if (in[i + 1] != '"') {
            return InvalidArgument(
                "Quote inside a string has to be escaped by another quote");
          }
          if (include) field += '"';
          i += 2;
        }
        if (!(i < in.size() && in[i] == '"' &&
              (i == in.size() - 1 || in[i + 1] == delim_))) {
          return InvalidArgument(
              "Quoted field has to end with quote followed by delim or end");
        }
        i += 2;
      }
      ++parsed;
      if (include) {
        result->push_back(std::move(field));
        if (++selector == select_cols_.size()) return Status::Ok();
      }
    }
    if (Selected(selector, parsed) && in.back() == delim_) {
      result->emplace_back();
    }
    return Status::Ok();
  }

  std::vector<DataType> out_types_;
  std::vector<int64_t> select_cols_;
  char delim_ = ',';
  bool use_quote_ = true;
  std::string na_value_;
};

// Copies `bytes` elements of `size` bytes each, reversing each element's (or
// each complex part's) bytes when the data's byte order is not the host's.
void CopyBytes(const char* in, size_t bytes, size_t swap_size, bool swap,
               char* out) {
  if (!swap || swap_size == 1) {
    std::memcpy(out, in, bytes);
    return;
  }
  for (size_t p = 0; p + swap_size <= bytes; p += swap_size) {
    std::reverse_copy(in + p, in + p + swap_size, out + p);
  }
}

// The byte size of T's elements, and of the unit whose bytes a byte-order
// swap reverses (a complex number's parts are swapped separately).
size_t ElementSize(DataType dtype, size_t* swap_size) {
  size_t size = 0;
  Dispatch(NumberTypes() + TypeList<bool>(), dtype,
           [&](auto v) { size = sizeof(v); });
  const bool complex =
      dtype == tensorflow::DT_COMPLEX64 || dtype == tensorflow::DT_COMPLEX128;
  *swap_size = complex ? size / 2 : size;
  return size;
}

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool little_endian = true;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("little_endian", &little_endian));
    swap_ = !little_endian;  // dfg runs on little-endian hosts only
    size_ = ElementSize(output_type(0), &swap_size_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    auto s = in.flat<std::string>();
    int64_t str_size = -1;
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t n = static_cast<int64_t>(s[i].size());
      if (str_size == -1) str_size = n;
      DFG_OP_REQUIRES(
          ctx, str_size == n,
          InvalidArgument("DecodeRaw requires input strings to all be the "
                          "same size, but element {} has size {} != {}",
                          i, str_size, n));
    }
    TensorShape shape = in.shape();
    Tensor* out = nullptr;
    if (str_size <= 0) {
      shape.AddDim(0);
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      return;
    }
    DFG_OP_REQUIRES(
        ctx, str_size % static_cast<int64_t>(size_) == 0,
        InvalidArgument("Input to DecodeRaw has length {} that is "
                        "not a multiple of {}, the size of {}",
                        str_size, size_, DataTypeString(output_type(0))));
    shape.AddDim(str_size / static_cast<int64_t>(size_));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    char* dst = static_cast<char*>(out->data());
    for (size_t i = 0; i < s.size(); ++i) {
      CopyBytes(s[i].data(), str_size, swap_size_, swap_, dst + i * str_size);
    }
  }

 private:
  bool swap_ = false;
  size_t size_ = 1;
  size_t swap_size_ = 1;
};

class DecodePaddedRawOp : public OpKernel {
 public:
  explicit DecodePaddedRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool little_endian = true;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("little_endian", &little_endian));
    swap_ = !little_endian;
    size_ = ElementSize(output_type(0), &swap_size_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& len = ctx->input(1);
    DFG_OP_REQUIRES(ctx, len.dims() == 0,
                    InvalidArgument("k must be scalar, got shape {}",
                                    len.shape().DebugString()));
    const int32_t fixed = len.scalar<int32_t>();
    DFG_OP_REQUIRES(ctx, fixed % static_cast<int64_t>(size_) == 0,
                    InvalidArgument("fixed_length ({}) must be a multiple of "
                                    "the size of out_type ({})",
                                    fixed, size_));
    DFG_OP_REQUIRES(
        ctx, fixed > 0,
        InvalidArgument("fixed_length ({}) must be greater than zero.", fixed));
    TensorShape shape = in.shape();
    shape.AddDim(fixed / static_cast<int64_t>(size_));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    auto s = in.flat<std::string>();
    if (s.empty()) return;
    char* dst = static_cast<char*>(out->data());
    std::memset(dst, 0, static_cast<size_t>(fixed) * s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      // Like TensorFlow, a swapped copy reads fixed_length bytes; a string
      // shorter than that is read as if zero-padded.
      std::string padded = s[i].substr(0, fixed);
      padded.resize(fixed, '\0');
      const size_t n = swap_ ? fixed : std::min<size_t>(s[i].size(), fixed);
      CopyBytes(padded.data(), n, swap_size_, swap_, dst + i * fixed);
    }
  }

 private:
  bool swap_ = false;
  size_t size_ = 1;
  size_t swap_size_ = 1;
};

constexpr char kSupportedCompressions[] =
    "Only ZLIB, ZSTD, GZIP or NONE are supported compressions";

// Inflates a zlib (or, with `gzip`, gzip) stream as TensorFlow's
// ZlibInputStream reads it whole: a truncated stream gives what it decoded;
// corrupt data is kDataLoss "inflate() failed with error <n>: <msg>".
Status Inflate(const std::string& in, bool gzip, std::string* out) {
  out->clear();
  if (in.empty()) return Status::Ok();
  z_stream z{};
  if (inflateInit2(&z, MAX_WBITS + (gzip ? 16 : 0)) != Z_OK) {
    return Internal("inflateInit2 failed");
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char buf[1 << 16];
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    const int err = inflate(&z, Z_NO_FLUSH);
    out->append(buf, sizeof(buf) - z.avail_out);
    if (err == Z_STREAM_END) {
      if (z.avail_in == 0) return Status::Ok();
      // Another stream follows (concatenated gzip members).
      inflateReset(&z);
      continue;
    }
    if (err == Z_BUF_ERROR ||
        (err == Z_OK && z.avail_in == 0 && z.avail_out != 0)) {
      return Status::Ok();
    }
    if (err != Z_OK) {
      std::string msg = fmt::format("inflate() failed with error {}", err);
      if (z.msg != nullptr) msg += fmt::format(": {}", z.msg);
      return DataLoss("{}", msg);
    }
  }
}

Status ZstdDecompress(const std::string& in, std::string* out) {
  const unsigned long long size =  // NOLINT(runtime/int)
      ZSTD_getFrameContentSize(in.data(), in.size());
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) {
    return InvalidArgument("Failed to determine decompressed size");
  }
  if (size > (1ull << 30)) {
    return InvalidArgument("Decompressed size exceeds 1GB limit");
  }
  out->resize(size);
  const size_t n = ZSTD_decompress(out->data(), size, in.data(), in.size());
  if (ZSTD_isError(n)) {
    return InvalidArgument("Failed to decompress zstd input: {}",
                           ZSTD_getErrorName(n));
  }
  out->resize(n);
  return Status::Ok();
}

class DecodeCompressedOp : public OpKernel {
 public:
  explicit DecodeCompressedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("compression_type", &type_));
    DFG_OP_REQUIRES(
        ctx,
        type_.empty() || type_ == "ZLIB" || type_ == "GZIP" || type_ == "ZSTD",
        InvalidArgument("{}", kSupportedCompressions));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    for (size_t i = 0; i < s.size(); ++i) {
      if (type_.empty()) {
        o[i] = s[i];
      } else if (type_ == "ZSTD") {
        DFG_OP_REQUIRES_OK(ctx, ZstdDecompress(s[i], &o[i]));
      } else {
        DFG_OP_REQUIRES_OK(ctx, Inflate(s[i], type_ == "GZIP", &o[i]));
      }
    }
  }

 private:
  std::string type_;
};

// JSON (proto3 JSON mapping of tensorflow.Example) to the binary Example,
// through dfg's own generated Example type.
class DecodeJsonExampleOp : public OpKernel {
 public:
  explicit DecodeJsonExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    tensorflow::Example::descriptor();  // links the type into the pool
    resolver_.reset(google::protobuf::util::NewTypeResolverForDescriptorPool(
        "type.googleapis.com",
        google::protobuf::DescriptorPool::generated_pool()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    for (size_t i = 0; i < s.size(); ++i) {
      const auto status = google::protobuf::util::JsonToBinaryString(
          resolver_.get(), "type.googleapis.com/tensorflow.Example", s[i],
          &o[i]);
      DFG_OP_REQUIRES(ctx, status.ok(),
                      InvalidArgument("Error while parsing JSON: {}",
                                      std::string(status.message())));
    }
  }

 private:
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver_;
};

class ParseTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 0,
                    InvalidArgument("Expected `serialized` to be a scalar, "
                                    "got shape: {}",
                                    in.shape().DebugString()));
    const std::string& s = in.scalar<std::string>();
    TensorProto proto;
    DFG_OP_REQUIRES(ctx, proto.ParseFromString(s),
                    InvalidArgument("Could not parse `serialized` as "
                                    "TensorProto: '{}'",
                                    s));
    StatusOr<Tensor> t = Tensor::FromProto(proto);
    DFG_OP_REQUIRES(ctx, t.ok(),
                    InvalidArgument("Cannot parse tensor from proto: {}",
                                    proto.DebugString()));
    DFG_OP_REQUIRES(ctx, t->dtype() == output_type(0),
                    InvalidArgument("Type mismatch between parsed tensor ({}) "
                                    "and dtype ({})",
                                    DataTypeString(t->dtype()),
                                    DataTypeString(output_type(0))));
    ctx->set_output(0, std::move(*t));
  }
};

class SerializeTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorProto proto;
    ctx->input(0).ToProto(&proto, /*use_tensor_content=*/true);
    Tensor out(DT_STRING, TensorShape());
    DFG_OP_REQUIRES(ctx, proto.SerializeToString(&out.scalar<std::string>()),
                    Internal("failed to serialize the tensor"));
    ctx->set_output(0, std::move(out));
  }
};

}  // namespace

void RegisterDecodeKernels(KernelRegistry* r) {
  r->Register<DecodeCsvOp>("DecodeCSV");
  r->Register<DecodeRawOp>("DecodeRaw");
  // The op allows half, but TensorFlow registers no half kernel.
  r->Register<DecodePaddedRawOp>(
      "DecodePaddedRaw",
      {TypeConstraint("out_type",
                      TypeList<float, double, int32_t, uint16_t, uint8_t,
                               int16_t, int8_t, int64_t, BFloat16>())});
  r->Register<DecodeCompressedOp>("DecodeCompressed");
  r->Register<DecodeJsonExampleOp>("DecodeJSONExample");
  r->Register<ParseTensorOp>("ParseTensor");
  r->Register<SerializeTensorOp>("SerializeTensor");
}

}  // namespace dfg
