// Tensor::SummarizeValue: a NumPy-like print ("[[1 2]\n [3 4]]"), truncated
// after max_entries elements.
#include <fmt/format.h>

#include <cmath>

#include "lib/base/strings.h"
#include "lib/kernels/tensor.h"
#include "lib/kernels/variant.h"

namespace dfg {
namespace {

// NaN prints as "nan" whatever its sign bit, as NumPy does.
std::string FloatText(double v) {
  return std::isnan(v) ? std::string("nan") : fmt::format("{}", v);
}

template <typename T>
std::string Element(const T& v) {
  return fmt::format("{}", v);
}
template <>
std::string Element(const float& v) {
  return std::isnan(v) ? std::string("nan") : fmt::format("{}", v);
}
template <>
std::string Element(const double& v) {
  return FloatText(v);
}
template <>
std::string Element(const bool& v) {
  return v ? "True" : "False";
}
template <>
std::string Element(const int8_t& v) {
  return fmt::format("{}", static_cast<int>(v));
}
template <>
std::string Element(const uint8_t& v) {
  return fmt::format("{}", static_cast<int>(v));
}
template <>
std::string Element(const Half& v) {
  return Element(HalfToFloat(v));
}
template <>
std::string Element(const BFloat16& v) {
  return Element(BFloat16ToFloat(v));
}
template <>
std::string Element(const std::string& v) {
  return QuoteHexEscaped(v);
}
template <>
std::string Element(const ResourceHandle& v) {
  return fmt::format(
      "<ResourceHandle(name=\"{}\", device=\"{}\", "
      "container=\"{}\")>",
      v.name, v.device, v.container);
}
template <typename C>
std::string Complex(const C& v) {
  return fmt::format("({}{}{}j)", v.real(), v.imag() < 0 ? "" : "+", v.imag());
}
template <>
std::string Element(const std::complex<float>& v) {
  return Complex(v);
}
template <>
std::string Element(const std::complex<double>& v) {
  return Complex(v);
}
template <typename Q>
std::string Quantized(const Q& v) {
  return fmt::format("{}", static_cast<int64_t>(v.value));
}
template <>
std::string Element(const QInt8& v) {
  return Quantized(v);
}
template <>
std::string Element(const QUInt8& v) {
  return Quantized(v);
}
template <>
std::string Element(const QInt16& v) {
  return Quantized(v);
}
template <>
std::string Element(const QUInt16& v) {
  return Quantized(v);
}
template <>
std::string Element(const QInt32& v) {
  return Quantized(v);
}

// Prints the nested arrays, each element right-aligned to `width` (NumPy's
// column alignment), "..." in place of the elements from `limit` on. A loop
// with a cursor per dimension, not recursion: a Const of rank 100,000 has
// that many levels.
void PrintNested(const std::vector<std::string>& elems, size_t width,
                 const TensorShape& shape, int64_t limit, std::string* out) {
  const int rank = shape.dims();
  std::vector<int64_t> next(rank, 0);  // the next sub-array of each open dim
  int64_t index = 0;
  bool more = true;
  int dim = 0;
  *out += '[';
  while (dim >= 0) {
    int64_t& i = next[dim];
    if (!more || i == shape.dim_size(dim)) {
      *out += ']';
      --dim;
      continue;
    }
    if (i > 0) {
      if (dim == rank - 1) {
        *out += ' ';
      } else {
        out->append(rank - dim - 1, '\n');
        out->append(dim + 1, ' ');
      }
    }
    ++i;
    if (dim < rank - 1) {
      next[++dim] = 0;
      *out += '[';
    } else if (index >= limit) {
      *out += "...";
      more = false;  // the open brackets close
    } else {
      const std::string& e = elems[index++];
      if (e.size() < width) out->append(width - e.size(), ' ');
      *out += e;
    }
  }
}

}  // namespace

std::string Tensor::SummarizeValue(int64_t max_entries) const {
  if (!IsInitialized()) return "<uninitialized>";
  const int64_t n = NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::vector<std::string> elems;
  if (dtype_ == tensorflow::DT_VARIANT) {
    auto data = flat<Variant>();
    const int64_t count = dims() == 0 ? 1 : limit;
    for (int64_t i = 0; i < count; ++i) elems.push_back(data[i].DebugString());
  }
  VisitElementType(dtype_, [&](auto v) {
    auto data = flat<decltype(v)>();
    const int64_t count = dims() == 0 ? 1 : limit;
    elems.reserve(count);
    for (int64_t i = 0; i < count; ++i) elems.push_back(Element(data[i]));
  });
  if (dims() == 0) return elems[0];
  // Strings are not aligned (NumPy pads them inside their quotes).
  size_t width = 0;
  if (dtype_ != tensorflow::DT_STRING) {
    for (const auto& e : elems) width = std::max(width, e.size());
  }
  std::string out;
  PrintNested(elems, width, shape_, limit, &out);
  return out;
}

std::string Tensor::DebugString(int64_t max_entries) const {
  return fmt::format("Tensor<type: {} shape: {} values: {}>",
                     DataTypeString(dtype_), shape_.DebugString(),
                     SummarizeValue(max_entries));
}

}  // namespace dfg
