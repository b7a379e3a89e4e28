// String kernels (TensorFlow's core/kernels/string_to_hash_bucket_op.cc,
// fingerprint_op.cc, tensor_to_hash_bucket_op.cc, string_lower_op.cc,
// string_upper_op.cc, string_strip_op.cc, string_length_op.cc,
// string_split_op.cc, string_ngrams_op.cc): hashing with TensorFlow's three
// hash functions (farmhash Fingerprint64, SipHash-2-4, Hash64), case
// mapping (ASCII, or UTF-8 through ICU), strip, length, split and n-grams.
#include <farmhash.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <cstring>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/string_hash.h"

namespace dfg {
namespace {

using tensorflow::DT_STRING;

// StringToHashBucket{Fast,,Strong}: hash(s) % num_buckets, as uint64.
class StringToHashBucketOp : public OpKernel {
 public:
  explicit StringToHashBucketOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_buckets", &num_buckets_));
    const std::string& op = def().op();
    kind_ = op == "StringToHashBucketFast" ? kFast
            : op == "StringToHashBucket"   ? kLegacy
                                           : kStrong;
    if (kind_ == kStrong) {
      std::vector<int64_t> key;
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("key", &key));
      DFG_OP_REQUIRES(ctx, key.size() == 2,
                      InvalidArgument("Key must have 2 elements"));
      std::memcpy(key_, key.data(), sizeof(key_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<int64_t>();
    const uint64_t n = static_cast<uint64_t>(num_buckets_);
    for (size_t i = 0; i < s.size(); ++i) {
      uint64_t h = kind_ == kFast     ? util::Fingerprint64(s[i])
                   : kind_ == kLegacy ? TfHash64(s[i])
                                      : SipHash24(key_, s[i]);
      o[i] = static_cast<int64_t>(h % n);
    }
  }

 private:
  enum Kind { kFast, kLegacy, kStrong };
  Kind kind_;
  int64_t num_buckets_ = 1;
  uint64_t key_[2] = {0, 0};
};

// _TensorToHashBucketFast: the Fingerprint64 of each integer's decimal text.
class TensorToHashBucketOp : public OpKernel {
 public:
  explicit TensorToHashBucketOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_buckets", &num_buckets_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto o = out->flat<int64_t>();
    const uint64_t n = static_cast<uint64_t>(num_buckets_);
    // TensorFlow registers the kernel for unsigned types but refuses them.
    DFG_OP_REQUIRES(
        ctx, Dispatch(SignedIntTypes(), in.dtype(), [](auto) {}),
        InvalidArgument("Type not supported: {}", DataTypeString(in.dtype())));
    Dispatch(SignedIntTypes(), in.dtype(), [&](auto t) {
      using T = decltype(t);
      auto v = in.flat<T>();
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string text = fmt::format("{}", v[i]);
        o[i] = static_cast<int64_t>(util::Fingerprint64(text) % n);
      }
    });
  }

 private:
  int64_t num_buckets_ = 1;
};

void PutLittleEndian(uint64_t v, uint8_t* out) {
  for (int b = 0; b < 8; ++b) out[b] = static_cast<uint8_t>(v >> (8 * b));
}

class FingerprintOp : public OpKernel {
 public:
  explicit FingerprintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype));
    DFG_OP_REQUIRES(
        ctx,
        dtype == DT_STRING ||
            Dispatch(NumberTypes() + TypeList<bool>(), dtype, [](auto) {}),
        InvalidArgument("Data type not supported: {}", DataTypeString(dtype)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& method = ctx->input(1);
    DFG_OP_REQUIRES(ctx, method.dims() == 0,
                    InvalidArgument("`method` should be a scalar string: {}",
                                    method.shape().DebugString()));
    const std::string& m = method.flat<std::string>()[0];
    DFG_OP_REQUIRES(ctx, m == "farmhash64",
                    InvalidArgument("Unsupported fingerprint method: {}", m));
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, in.dims() >= 1,
        InvalidArgument("`data` should have at least one dimension: {}",
                        in.shape().DebugString()));
    const int64_t rows = in.shape().dim_size(0);
    const int64_t per_row = rows == 0 ? 0 : in.NumElements() / rows;
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {rows, 8}, &out));
    uint8_t* o = out->flat<uint8_t>().data();
    if (in.dtype() == DT_STRING) {
      auto s = in.flat<std::string>();
      // A row of several strings: the fingerprint of their fingerprints.
      std::string buf(static_cast<size_t>(per_row) * 8, '\0');
      for (int64_t r = 0; r < rows; ++r) {
        if (per_row == 1) {
          PutLittleEndian(util::Fingerprint64(s[r]), o + 8 * r);
          continue;
        }
        for (int64_t j = 0; j < per_row; ++j) {
          PutLittleEndian(util::Fingerprint64(s[r * per_row + j]),
                          reinterpret_cast<uint8_t*>(buf.data()) + 8 * j);
        }
        PutLittleEndian(util::Fingerprint64(buf), o + 8 * r);
      }
      return;
    }
    const size_t row_bytes = in.TotalBytes() / std::max<int64_t>(rows, 1);
    const char* data = static_cast<const char*>(in.data());
    for (int64_t r = 0; r < rows; ++r) {
      PutLittleEndian(util::Fingerprint64(data + r * row_bytes, row_bytes),
                      o + 8 * r);
    }
  }
};

// StringLower / StringUpper: ASCII, or full Unicode case mapping with
// encoding 'utf-8'.
class StringCaseOp : public OpKernel {
 public:
  explicit StringCaseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    upper_ = def().op() == "StringUpper";
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("encoding", &encoding_));
    DFG_OP_REQUIRES(ctx, encoding_.empty() || encoding_ == "utf-8",
                    InvalidArgument("only utf-8 or '' (no encoding) is "
                                    "supported, received {}",
                                    encoding_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    for (size_t i = 0; i < s.size(); ++i) {
      if (encoding_.empty()) {
        std::string r = s[i];
        for (char& c : r) {
          if (upper_ && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
          if (!upper_ && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
        }
        o[i] = std::move(r);
      } else {
        icu::UnicodeString u = icu::UnicodeString::fromUTF8(s[i]);
        if (upper_) {
          u.toUpper();
        } else {
          u.toLower();
        }
        std::string r;
        u.toUTF8String(r);
        o[i] = std::move(r);
      }
    }
  }

 private:
  bool upper_ = false;
  std::string encoding_;
};

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

class StringStripOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    for (size_t i = 0; i < s.size(); ++i) {
      size_t b = 0, e = s[i].size();
      while (b < e && IsAsciiSpace(s[i][b])) ++b;
      while (e > b && IsAsciiSpace(s[i][e - 1])) --e;
      o[i] = s[i].substr(b, e - b);
    }
  }
};

class StringLengthOp : public OpKernel {
 public:
  explicit StringLengthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string unit;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("unit", &unit));
    utf8_ = unit == "UTF8_CHAR";
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<int32_t>();
    for (size_t i = 0; i < s.size(); ++i) {
      if (!utf8_) {
        o[i] = static_cast<int32_t>(s[i].size());
        continue;
      }
      int32_t n = 0;  // bytes that start a character
      for (char c : s[i]) n += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
      o[i] = n;
    }
  }

 private:
  bool utf8_ = false;
};

}  // namespace

void RegisterStringSplitKernels(KernelRegistry* r);
void RegisterStringConvertKernels(KernelRegistry* r);
void RegisterStringReduceKernels(KernelRegistry* r);
void RegisterUnicodeKernels(KernelRegistry* r);
void RegisterSummaryKernels(KernelRegistry* r);
void RegisterPngSummaryKernels(KernelRegistry* r);

void RegisterStringKernels(KernelRegistry* r) {
  for (const char* op : {"StringToHashBucketFast", "StringToHashBucket",
                         "StringToHashBucketStrong"}) {
    r->Register<StringToHashBucketOp>(op);
  }
  r->Register<TensorToHashBucketOp>("_TensorToHashBucketFast",
                                    {TypeConstraint("T", IntTypes())});
  r->Register<FingerprintOp>("Fingerprint");
  r->Register<StringCaseOp>("StringLower");
  r->Register<StringCaseOp>("StringUpper");
  r->Register<StringStripOp>("StringStrip");
  r->Register<StringLengthOp>("StringLength");
  RegisterStringSplitKernels(r);
  RegisterStringConvertKernels(r);
  RegisterStringReduceKernels(r);
  RegisterUnicodeKernels(r);
  RegisterSummaryKernels(r);
  RegisterPngSummaryKernels(r);
}

}  // namespace dfg
