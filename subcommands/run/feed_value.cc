// Feed conversion and generated inputs. Elements go through one Number (what
// kind of value, and the value at full width) so that each element type is
// read and written by one template each, not one per pair of dtypes.
#include "subcommands/run/feed_value.h"

#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "lib/base/strings.h"
#include "lib/tensor_io/tensor_io.h"

namespace dfg {
namespace {

struct Number {
  enum Kind { kBool, kSigned, kUnsigned, kFloat, kComplex } kind;
  int64_t i = 0;
  uint64_t u = 0;
  double re = 0, im = 0;
};

template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
    std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>> ||
                            std::is_same_v<T, std::complex<double>>;
template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T>
constexpr bool kIsNumber =
    kIsFloat<T> || kIsComplex<T> || kIsInteger<T> || std::is_same_v<T, bool>;

double ToDouble(Half h) { return HalfToFloat(h); }
double ToDouble(BFloat16 b) { return BFloat16ToFloat(b); }
double ToDouble(double d) { return d; }

template <typename T>
Number Read(const T& v) {
  Number n{Number::kBool};
  if constexpr (std::is_same_v<T, bool>) {
    n.kind = Number::kBool, n.i = v, n.u = v, n.re = v;
  } else if constexpr (kIsInteger<T> && std::is_signed_v<T>) {
    n.kind = Number::kSigned, n.i = v, n.re = static_cast<double>(v);
  } else if constexpr (kIsInteger<T>) {
    n.kind = Number::kUnsigned, n.u = v, n.re = static_cast<double>(v);
  } else if constexpr (kIsComplex<T>) {
    n.kind = Number::kComplex, n.re = v.real(), n.im = v.imag();
  } else if constexpr (kIsFloat<T>) {
    n.kind = Number::kFloat, n.re = ToDouble(v);
  }
  return n;
}

// An integer dtype's value of `n`, or false when it does not hold it.
template <typename T>
bool WriteInteger(const Number& n, T* out) {
  using L = std::numeric_limits<T>;
  switch (n.kind) {
    case Number::kBool:
      *out = static_cast<T>(n.i);
      return true;
    case Number::kSigned:
      if (n.i < 0 && !L::is_signed) return false;
      if (L::is_signed && (n.i < static_cast<int64_t>(L::min()) ||
                           n.i > static_cast<int64_t>(L::max())))
        return false;
      if (!L::is_signed && static_cast<uint64_t>(n.i) > L::max()) return false;
      *out = static_cast<T>(n.i);
      return true;
    case Number::kUnsigned:
      if (n.u > static_cast<uint64_t>(L::max())) return false;
      *out = static_cast<T>(n.u);
      return true;
    case Number::kFloat:
      // [min, 2^digits): 2^63 as a double is one past int64's max.
      if (!std::isfinite(n.re) || n.re != std::trunc(n.re) ||
          n.re < static_cast<double>(L::min()) ||
          n.re >= std::ldexp(1.0, L::digits))
        return false;
      *out = static_cast<T>(n.re);
      return true;
    default:
      return false;
  }
}

template <typename T>
T FromDouble(double d) {
  if constexpr (std::is_same_v<T, Half>) {
    return FloatToHalf(static_cast<float>(d));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return FloatToBFloat16(static_cast<float>(d));
  } else {
    return static_cast<T>(d);
  }
}

// A finite value that rounds to an infinity does not fit.
template <typename T>
bool FitsFloat(double d, T* out) {
  *out = FromDouble<T>(d);
  return !std::isfinite(d) || std::isfinite(ToDouble(*out));
}

template <typename T>
bool Write(const Number& n, T* out) {
  if constexpr (kIsInteger<T>) {
    return WriteInteger(n, out);
  } else if constexpr (kIsFloat<T>) {
    if (n.kind == Number::kComplex) return false;
    double d = n.kind == Number::kSigned     ? static_cast<double>(n.i)
               : n.kind == Number::kUnsigned ? static_cast<double>(n.u)
                                             : n.re;
    return FitsFloat(d, out);
  } else if constexpr (kIsComplex<T>) {
    using P = typename T::value_type;
    P re, im;
    double d = n.kind == Number::kSigned     ? static_cast<double>(n.i)
               : n.kind == Number::kUnsigned ? static_cast<double>(n.u)
                                             : n.re;
    if (!FitsFloat(d, &re) || !FitsFloat(n.im, &im)) return false;
    *out = T(re, im);
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (n.kind != Number::kBool) return false;
    *out = n.i != 0;
    return true;
  } else {
    return false;
  }
}

std::string Show(const Number& n) {
  switch (n.kind) {
    case Number::kBool:
      return n.i ? "True" : "False";
    case Number::kSigned:
      return std::to_string(n.i);
    case Number::kUnsigned:
      return std::to_string(n.u);
    case Number::kFloat:
      return fmt::format("{}", n.re);
    default:
      return fmt::format("({}{:+}j)", n.re, n.im);
  }
}

// Reads every element of `from` (a number dtype) into `numbers`.
bool ReadAll(const Tensor& from, std::vector<Number>* numbers) {
  bool ok = false;
  VisitElementType(from.dtype(), [&](auto zero) {
    using S = decltype(zero);
    if constexpr (kIsNumber<S>) {
      for (const S& v : from.flat<S>()) numbers->push_back(Read(v));
      ok = true;
    }
  });
  return ok;
}

}  // namespace

StatusOr<Tensor> ConvertFeedDtype(const Tensor& value, DataType dtype) {
  const std::string from = NumpyDtypeName(value.dtype());
  const std::string to = NumpyDtypeName(dtype);
  std::vector<Number> numbers;
  auto cannot = [&] {
    return InvalidArgument(
        "the value is {} and the input takes {}; {} does not convert to {}",
        from, to, from, to);
  };
  if (!ReadAll(value, &numbers)) return cannot();
  auto out = Tensor::TryAllocate(dtype, value.shape());
  if (!out.ok()) return out.status();
  Status status = Status::Ok();
  bool visited = VisitElementType(dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!kIsNumber<T>) {
      status = cannot();
    } else {
      auto dst = out->flat<T>();
      for (size_t i = 0; i < numbers.size(); ++i) {
        if (Write(numbers[i], &dst[i])) continue;
        status = InvalidArgument(
            "the value is {} and the input takes {}; {} {} (element {}) does "
            "not fit {}",
            from, to, from, Show(numbers[i]), i, to);
        return;
      }
    }
  });
  if (!visited) return cannot();
  if (!status.ok()) return status;
  return std::move(out).value();
}

StatusOr<std::optional<GeneratedFeed>> ParseGeneratedFeed(
    std::string_view spec) {
  GeneratedFeed feed;
  if (spec == "zeros") return std::optional(feed);
  if (spec == "ones") {
    feed.kind = GeneratedFeed::Kind::kOnes;
    return std::optional(feed);
  }
  if (spec != "random" && spec.substr(0, 7) != "random:") {
    return std::optional<GeneratedFeed>();
  }
  feed.kind = GeneratedFeed::Kind::kRandom;
  if (spec.size() > 6) {
    std::string seed(spec.substr(7));
    size_t used = 0;
    try {
      feed.seed = std::stoull(seed, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (seed.empty() || used != seed.size() || seed[0] == '-') {
      return InvalidArgument(
          "random:SEED takes a non-negative integer seed, got '{}'", seed);
    }
  }
  return std::optional(feed);
}

namespace {

StatusOr<TensorShape> GeneratedShape(const TensorShapeProto& shape,
                                     int64_t batch) {
  if (shape.unknown_rank()) {
    return InvalidArgument(
        "its shape (rank too) is unknown, so zeros/ones/random cannot shape "
        "it; feed a file or a literal");
  }
  std::vector<int64_t> dims;
  std::vector<std::string> unknown;
  for (int i = 0; i < shape.dim_size(); ++i) {
    int64_t d = shape.dim(i).size();
    if (d < 0 && i == 0 && batch > 0) d = batch;
    if (d < 0) unknown.push_back(std::to_string(i));
    dims.push_back(d);
  }
  if (!unknown.empty()) {
    std::string shown;
    for (int64_t d : dims) {
      shown += (shown.empty() ? "" : ",") + (d < 0 ? "?" : std::to_string(d));
    }
    return InvalidArgument(
        "dimension {} of its shape [{}] {} unknown; {}",
        fmt::join(unknown, ", "), shown, unknown.size() > 1 ? "are" : "is",
        unknown[0] == "0" && unknown.size() == 1
            ? "give it with --batch N"
            : "feed a file or a literal (--batch N gives dimension 0 only)");
  }
  if (!TensorShape::IsValid(dims)) {
    return InvalidArgument("its shape is too large to make");
  }
  return TensorShape(dims);
}

// Uniform in [0, 1) from the top 53 bits: the same on every platform, unlike
// std::uniform_real_distribution.
double Uniform(std::mt19937_64& gen) {
  return static_cast<double>(gen() >> 11) * std::ldexp(1.0, -53);
}

}  // namespace

StatusOr<Tensor> MakeGeneratedFeed(const GeneratedFeed& spec, DataType dtype,
                                   const TensorShapeProto& shape,
                                   int64_t batch) {
  DFG_ASSIGN_OR_RETURN(TensorShape dims, GeneratedShape(shape, batch));
  DFG_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(dtype, dims));
  std::mt19937_64 gen(spec.seed);
  Status status = Status::Ok();
  bool visited = VisitElementType(dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, std::string>) {
      if (spec.kind != GeneratedFeed::Kind::kZeros) {
        status = InvalidArgument(
            "it is a string input: only zeros (empty strings) can be made; "
            "feed a literal such as '\"text\"'");
      }
    } else if constexpr (!kIsNumber<T>) {
      status = InvalidArgument("a {} input cannot be made; feed a file",
                               DataTypeString(dtype));
    } else {
      for (T& v : out.flat<T>()) {
        Number n{Number::kFloat};
        if (spec.kind == GeneratedFeed::Kind::kOnes) n.re = 1;
        if (spec.kind == GeneratedFeed::Kind::kRandom) {
          n.re = Uniform(gen);
          if constexpr (kIsInteger<T>) n.re = std::floor(n.re * 10);
          if constexpr (std::is_same_v<T, bool>) n.re = n.re < 0.5 ? 0 : 1;
          if constexpr (kIsComplex<T>) n.im = Uniform(gen);
        }
        if constexpr (std::is_same_v<T, bool>) n.kind = Number::kBool;
        n.i = static_cast<int64_t>(n.re);
        Write(n, &v);
      }
    }
  });
  if (!visited) {
    return InvalidArgument("a {} input cannot be made; feed a file",
                           DataTypeString(dtype));
  }
  if (!status.ok()) return status;
  return out;
}

}  // namespace dfg
