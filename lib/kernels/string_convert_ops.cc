// AsString, StringToNumber, EncodeBase64, DecodeBase64 and Substr
// (TensorFlow's core/kernels/as_string_op.cc, string_to_number_op.cc,
// base64_ops.cc, substr_op.cc).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using tensorflow::DT_BOOL;
using tensorflow::DT_STRING;

bool IsFloatLike(DataType t) {
  return Dispatch(FloatTypes() + ComplexTypes(), t, [](auto) {});
}

// AsString formats every element with one printf format built from the
// attrs: "%" fill width .precision conversion; bools are "true"/"false".
class AsStringOp : public OpKernel {
 public:
  explicit AsStringOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t precision, width;
    bool scientific, shortest;
    std::string fill;
    DataType dtype;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("precision", &precision));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("scientific", &scientific));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shortest", &shortest));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("width", &width));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("fill", &fill));
    if (dtype != DT_STRING && !IsFloatLike(dtype)) {
      DFG_OP_REQUIRES(ctx, !(scientific || shortest),
                      InvalidArgument("scientific and shortest format not "
                                      "supported for datatype {}",
                                      DataTypeString(dtype)));
      DFG_OP_REQUIRES(ctx, precision < 0,
                      InvalidArgument("precision not supported for datatype {}",
                                      DataTypeString(dtype)));
    }
    DFG_OP_REQUIRES(
        ctx, fill.size() <= 1,
        InvalidArgument("Fill string must be one or fewer characters"));
    DFG_OP_REQUIRES(
        ctx, !(scientific && shortest),
        InvalidArgument("Cannot select both scientific and shortest notation"));
    DFG_OP_REQUIRES(
        ctx,
        fill.empty() || std::string(" +-0#").find(fill[0]) != std::string::npos,
        InvalidArgument("Fill argument not supported: \"{}\"", fill));
    format_ = "%" + fill;
    if (width > -1) format_ += std::to_string(width);
    if (precision > -1) format_ += "." + std::to_string(precision);
    if (dtype == DT_STRING) {
      format_ += "s";
    } else if (IsFloatLike(dtype)) {
      format_ += shortest ? "g" : scientific ? "e" : "f";
      if (Dispatch(ComplexTypes(), dtype, [](auto) {})) {
        format_ = "(" + format_ + "," + format_ + ")";
      }
    } else if (Dispatch(UnsignedIntTypes(), dtype, [](auto) {})) {
      format_ += "llu";
    } else {
      format_ += "lld";
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto o = out->flat<std::string>();
    Dispatch(AllTypes(), in.dtype(), [&](auto t) {
      using T = decltype(t);
      auto v = in.flat<T>();
      for (size_t i = 0; i < v.size(); ++i) o[i] = Format(v[i]);
    });
  }

 private:
  template <typename... A>
  std::string Print(A... args) const {
    const int n = std::snprintf(nullptr, 0, format_.c_str(), args...);
    std::string s(n, '\0');
    std::snprintf(s.data(), n + 1, format_.c_str(), args...);
    return s;
  }

  template <typename T>
  std::string Format(const T& v) const {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_same_v<T, std::string>) {
      return Print(v.c_str());
    } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                         std::is_same_v<T, std::complex<double>>) {
      return Print(static_cast<double>(v.real()),
                   static_cast<double>(v.imag()));
    } else if constexpr (kIsHalfLike<T> || std::is_floating_point_v<T>) {
      return Print(static_cast<double>(Load(v)));
    } else if constexpr (std::is_unsigned_v<T>) {
      return Print(static_cast<unsigned long long>(v));  // NOLINT(runtime/int)
    } else {
      return Print(static_cast<long long>(v));  // NOLINT(runtime/int)
    }
  }

  std::string format_;
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// TensorFlow's safe_strto*: surrounding whitespace allowed, nothing else
// after the number; integers are decimal with an optional sign (none but
// '+' for unsigned) and must fit; floats parse as strtof/strtod do (hex,
// inf, nan; out of range rounds to inf or 0).
template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  const std::string s(Trim(text));
  if (s.empty()) return false;
  char* end = nullptr;
  if constexpr (std::is_floating_point_v<T>) {
    *out = std::is_same_v<T, float> ? std::strtof(s.c_str(), &end)
                                    : std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
  } else {
    size_t i = 0;
    bool negative = false;
    if (s[0] == '+' || s[0] == '-') {
      negative = s[0] == '-';
      i = 1;
    }
    if (i == s.size() || (negative && std::is_unsigned_v<T>)) return false;
    unsigned __int128 v = 0;
    const unsigned __int128 limit =
        negative ? static_cast<unsigned __int128>(
                       -static_cast<__int128>(std::numeric_limits<T>::min()))
                 : std::numeric_limits<T>::max();
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + (s[i] - '0');
      if (v > limit) return false;
    }
    *out = negative ? static_cast<T>(-static_cast<__int128>(v))
                    : static_cast<T>(v);
    return true;
  }
}

class StringToNumberOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    Status status;
    Dispatch(TypeList<float, double, int32_t, int64_t, uint32_t, uint64_t>(),
             out->dtype(), [&](auto t) {
               using T = decltype(t);
               auto o = out->flat<T>();
               for (size_t i = 0; i < s.size() && status.ok(); ++i) {
                 if (!ParseNumber(s[i], &o[i])) {
                   status = InvalidArgument(
                       "StringToNumberOp could not correctly convert string: "
                       "{}",
                       s[i]);
                 }
               }
             });
    DFG_OP_REQUIRES_OK(ctx, status);
  }
};

// TensorFlow's base64 is the web-safe alphabet ('-' and '_').
constexpr char kBase64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode64(std::string_view in, bool pad) {
  std::string out;
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v =
        (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kBase64[(v >> s) & 63];
  }
  const size_t rest = in.size() - i;
  if (rest > 0) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (rest == 2) v |= uint8_t(in[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    if (rest == 2) out += kBase64[(v >> 6) & 63];
    if (pad) out.append(3 - rest, '=');
  }
  return out;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Padding is allowed in the last block of four only.
Status Decode64(std::string_view in, std::string* out) {
  out->clear();
  if (in.empty()) return Status::Ok();
  size_t full = (in.size() - 1) / 4 * 4;  // chars before the last block
  std::string_view last = in.substr(full);
  while (!last.empty() && last.back() == '=') last.remove_suffix(1);
  if (last.size() == 1) {
    return InvalidArgument("Base64 string length cannot be 1 modulo 4.");
  }
  const std::string body = std::string(in.substr(0, full)) + std::string(last);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : body) {
    const int v = Base64Value(c);
    if (v < 0) return InvalidArgument("Invalid character found in base64.");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return Status::Ok();
}

class Base64Op : public OpKernel {
 public:
  explicit Base64Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    encode_ = def().op() == "EncodeBase64";
    if (encode_) DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("pad", &pad_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto s = in.flat<std::string>();
    auto o = out->flat<std::string>();
    for (size_t i = 0; i < s.size(); ++i) {
      if (encode_) {
        o[i] = Encode64(s[i], pad_);
      } else {
        DFG_OP_REQUIRES_OK(ctx, Decode64(s[i], &o[i]));
      }
    }
  }

 private:
  bool encode_ = false;
  bool pad_ = false;
};

}  // namespace

void RegisterSubstrKernels(KernelRegistry* r);

void RegisterStringConvertKernels(KernelRegistry* r) {
  r->Register<AsStringOp>(
      "AsString", {TypeConstraint("T", RealTypes() + ComplexTypes() +
                                           TypeList<bool, std::string>())});
  r->Register<StringToNumberOp>("StringToNumber");
  r->Register<Base64Op>("EncodeBase64");
  r->Register<Base64Op>("DecodeBase64");
  RegisterSubstrKernels(r);
}

}  // namespace dfg
