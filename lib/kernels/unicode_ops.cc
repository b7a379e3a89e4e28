// UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeTranscode
// and UnicodeScript (TensorFlow's core/kernels/unicode_ops.cc,
// unicode_script_op.cc), on ICU as TensorFlow does: an input of any ICU
// encoding is read one code point at a time by a UConverter whose error
// callback flags malformed input and substitutes it; the errors attr then
// replaces ('replace'), drops ('ignore') or fails on ('strict') each flagged
// code point, and replace_control_characters treats U+0000..U+001F alike.
#include <unicode/appendable.h>
#include <unicode/schriter.h>
#include <unicode/uchar.h>
#include <unicode/ucnv.h>
#include <unicode/ucnv_cb.h>
#include <unicode/ucnv_err.h>
#include <unicode/unistr.h>
#include <unicode/uscript.h>

#include <functional>
#include <memory>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

enum class Encoding { kUtf8, kUtf16Be, kUtf32Be };

Status ParseEncoding(const std::string& name, Encoding* out) {
  if (name == "UTF-8") {
    *out = Encoding::kUtf8;
  } else if (name == "UTF-16-BE") {
    *out = Encoding::kUtf16Be;
  } else if (name == "UTF-32-BE") {
    *out = Encoding::kUtf32Be;
  } else {
    return InvalidArgument(
        "Invalid encoding \"{}\": Should be one of: UTF-8, UTF-16-BE, "
        "UTF-32-BE",
        name);
  }
  return Status::Ok();
}

std::string Encode(Encoding e, const icu::UnicodeString& in) {
  std::string out;
  if (e == Encoding::kUtf8) {
    in.toUTF8String(out);
  } else if (e == Encoding::kUtf16Be) {
    const char16_t* buf = in.getBuffer();
    for (int i = 0; i < in.length(); ++i) {
      out.push_back(static_cast<char>(buf[i] >> 8));
      out.push_back(static_cast<char>(buf[i] & 0xFF));
    }
  } else {
    icu::StringCharacterIterator it(in);
    while (it.hasNext()) {
      const UChar32 c = it.next32PostInc();
      for (int s = 24; s >= 0; s -= 8) {
        out.push_back(static_cast<char>((c >> s) & 0xFF));
      }
    }
  }
  return out;
}

struct ErrorOptions {
  UChar32 subst = 0xFFFD;
  bool elide = false;
  bool strict = false;
  bool replace_control = false;

  bool Handles(UChar32 c, bool malformed) const {
    return (replace_control && c <= 0x1F) || malformed;
  }
};

Status GetErrorOptions(OpKernelConstruction* ctx, ErrorOptions* out) {
  std::string policy;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("errors", &policy));
  out->elide = policy == "ignore";
  out->strict = policy == "strict";
  int64_t subst;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("replacement_char", &subst));
  if (subst < UCHAR_MIN_VALUE || subst > UCHAR_MAX_VALUE) {
    return InvalidArgument("replacement_char out of unicode codepoint range");
  }
  out->subst = static_cast<UChar32>(subst);
  if (ctx->HasAttr("replace_control_characters")) {
    DFG_RETURN_IF_ERROR(
        ctx->GetAttr("replace_control_characters", &out->replace_control));
  }
  return Status::Ok();
}

// Flags malformed input, then substitutes as ICU's default callback does.
void FlagAndSubstitute(const void* context, UConverterToUnicodeArgs* args,
                       const char* units, int32_t length,
                       UConverterCallbackReason reason, UErrorCode* err) {
  bool* malformed = const_cast<bool*>(static_cast<const bool*>(context));
  if (reason == UCNV_UNASSIGNED || reason == UCNV_ILLEGAL ||
      reason == UCNV_IRREGULAR) {
    *malformed = true;
  }
  UCNV_TO_U_CALLBACK_SUBSTITUTE(nullptr, args, units, length, reason, err);
}

struct ConverterCloser {
  void operator()(UConverter* c) const { ucnv_close(c); }
};
using Converter = std::unique_ptr<UConverter, ConverterCloser>;

StatusOr<Converter> OpenConverter(const std::string& name) {
  UErrorCode status = U_ZERO_ERROR;
  Converter c(ucnv_open(name.c_str(), &status));
  if (U_FAILURE(status) || c == nullptr) {
    return InvalidArgument("Could not create converter for input encoding: {}",
                           name);
  }
  return c;
}

// Calls fn(code point, bytes consumed, malformed) for each code point of s.
void ForEachCodePoint(const std::string& s, UConverter* cnv,
                      const std::function<void(UChar32, int, bool)>& fn) {
  ucnv_reset(cnv);
  bool malformed = false;
  UErrorCode status = U_ZERO_ERROR;
  ucnv_setToUCallBack(cnv, FlagAndSubstitute, &malformed, nullptr, nullptr,
                      &status);
  const char* src = s.data();
  const char* limit = s.data() + s.size();
  while (src < limit) {
    const char* before = src;
    const UChar32 c = ucnv_getNextUChar(cnv, &src, limit, &status);
    if (U_FAILURE(status)) src = limit;
    fn(c, static_cast<int>(src - before), malformed);
    malformed = false;
  }
}

class UnicodeDecodeOp : public OpKernel {
 public:
  explicit UnicodeDecodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    offsets_ = def().op() == "UnicodeDecodeWithOffsets";
    DFG_OP_REQUIRES_OK(ctx, GetErrorOptions(ctx, &options_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("input_encoding", &encoding_));
    DFG_OP_REQUIRES_OK(ctx, OpenConverter(encoding_).status());
  }

  void Compute(OpKernelContext* ctx) override {
    auto cnv = OpenConverter(encoding_);
    DFG_OP_REQUIRES_OK(ctx, cnv.status());
    auto s = ctx->input(0).flat<std::string>();
    std::vector<int64_t> splits = {0};
    std::vector<int32_t> chars;
    std::vector<int64_t> starts;
    bool failed = false;
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t offset = 0;
      ForEachCodePoint(s[i], cnv->get(), [&](UChar32 c, int n, bool bad) {
        failed |= options_.strict && bad;
        if (options_.Handles(c, bad)) {
          if (options_.elide) {
            offset += n;
            return;
          }
          c = options_.subst;
        }
        chars.push_back(c);
        starts.push_back(offset);
        offset += n;
      });
      splits.push_back(static_cast<int64_t>(chars.size()));
    }
    DFG_OP_REQUIRES(ctx, !failed,
                    InvalidArgument("Invalid formatting on input string"));
    Tensor *splits_t, *chars_t;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, {static_cast<int64_t>(splits.size())},
                                  &splits_t));
    Dispatch(TypeList<int32_t, int64_t>(), splits_t->dtype(), [&](auto t) {
      using T = decltype(t);
      auto o = splits_t->flat<T>();
      for (size_t i = 0; i < splits.size(); ++i)
        o[i] = static_cast<T>(splits[i]);
    });
    const int64_t n = static_cast<int64_t>(chars.size());
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, {n}, &chars_t));
    std::copy(chars.begin(), chars.end(), chars_t->flat<int32_t>().begin());
    if (offsets_) {
      Tensor* starts_t;
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, {n}, &starts_t));
      std::copy(starts.begin(), starts.end(),
                starts_t->flat<int64_t>().begin());
    }
  }

 private:
  bool offsets_ = false;
  ErrorOptions options_;
  std::string encoding_;
};

class UnicodeTranscodeOp : public OpKernel {
 public:
  explicit UnicodeTranscodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, GetErrorOptions(ctx, &options_));
    std::string out;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_encoding", &out));
    DFG_OP_REQUIRES_OK(ctx, ParseEncoding(out, &output_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("input_encoding", &input_));
    DFG_OP_REQUIRES_OK(ctx, OpenConverter(input_).status());
  }

  void Compute(OpKernelContext* ctx) override {
    auto cnv = OpenConverter(input_);
    DFG_OP_REQUIRES_OK(ctx, cnv.status());
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    bool any_bad = false;
    for (size_t i = 0; i < s.size(); ++i) {
      icu::UnicodeString u;
      ForEachCodePoint(s[i], cnv->get(), [&](UChar32 c, int, bool bad) {
        if (options_.Handles(c, bad)) {
          any_bad = true;
          if (options_.elide) return;
          c = options_.subst;
        }
        u.append(c);
      });
      o[i] = Encode(output_, u);
    }
    DFG_OP_REQUIRES(ctx, !(options_.strict && any_bad),
                    InvalidArgument("Invalid formatting on input string"));
  }

 private:
  ErrorOptions options_;
  Encoding output_ = Encoding::kUtf8;
  std::string input_;
};

class UnicodeEncodeOp : public OpKernel {
 public:
  explicit UnicodeEncodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string out;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_encoding", &out));
    DFG_OP_REQUIRES_OK(ctx, ParseEncoding(out, &output_));
    DFG_OP_REQUIRES_OK(ctx, GetErrorOptions(ctx, &options_));
  }

  void Compute(OpKernelContext* ctx) override {
    auto values = ctx->input(0).flat<int32_t>();
    const std::vector<int64_t> splits = IntValues(ctx->input(1));
    DFG_OP_REQUIRES(ctx, !splits.empty(),
                    InvalidArgument("Input_splits must have at least one "
                                    "value"));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, {static_cast<int64_t>(splits.size()) - 1},
                                  &out));
    auto o = out->flat<std::string>();
    int64_t idx = 0;
    for (size_t i = 1; i < splits.size(); ++i) {
      icu::UnicodeString u;
      icu::UnicodeStringAppendable appendable(u);
      for (; idx < splits[i] && idx < static_cast<int64_t>(values.size());
           ++idx) {
        UChar32 c = values[idx];
        if (c > UCHAR_MAX_VALUE || c < UCHAR_MIN_VALUE || U_IS_SURROGATE(c)) {
          DFG_OP_REQUIRES(ctx, !options_.strict,
                          InvalidArgument("Code point is out of range for "
                                          "Unicode, or is a surrogate."));
          if (options_.elide) continue;
          c = options_.subst;
        }
        appendable.appendCodePoint(c);
      }
      o[i - 1] = Encode(output_, u);
    }
  }

 private:
  Encoding output_ = Encoding::kUtf8;
  ErrorOptions options_;
};

class UnicodeScriptOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto v = in.flat<int32_t>();
    auto o = out->flat<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) {
      UErrorCode status = U_ZERO_ERROR;
      const UScriptCode code = uscript_getScript(v[i], &status);
      o[i] = U_SUCCESS(status) ? static_cast<int32_t>(code) : -1;
    }
  }
};

}  // namespace

void RegisterUnicodeKernels(KernelRegistry* r) {
  r->Register<UnicodeDecodeOp>("UnicodeDecode");
  r->Register<UnicodeDecodeOp>("UnicodeDecodeWithOffsets");
  r->Register<UnicodeTranscodeOp>("UnicodeTranscode");
  r->Register<UnicodeEncodeOp>("UnicodeEncode");
  r->Register<UnicodeScriptOp>("UnicodeScript");
}

}  // namespace dfg
