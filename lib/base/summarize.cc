#include "lib/base/summarize.h"

#include <fmt/printf.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>

namespace dfg {
namespace {

// PrintOneDim: dimension `dim` from element *index on, at most `limit`.
void PrintOneDim(int dim, std::span<const int64_t> shape, int64_t limit,
                 const std::function<std::string(int64_t)>& element,
                 int64_t* index, std::string* out) {
  if (*index >= limit) return;
  const int64_t count = shape[dim];
  if (dim == static_cast<int>(shape.size()) - 1) {
    for (int64_t i = 0; i < count; ++i) {
      if (*index >= limit) {
        if (dim != 0) *out += "...";
        return;
      }
      if (i > 0) *out += " ";
      *out += element((*index)++);
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    bool open = false;
    if (*index < limit) {
      *out += "[";
      open = true;
    }
    PrintOneDim(dim + 1, shape, limit, element, index, out);
    if (*index < limit || open) *out += "]";
  }
}

}  // namespace

std::string FloatToString(float f) {
  if (std::isnan(f)) return std::signbit(f) ? "-nan" : "nan";
  std::string s = fmt::sprintf("%.*g", FLT_DIG, f);
  if (std::strtof(s.c_str(), nullptr) != f)
    s = fmt::sprintf("%.*g", FLT_DIG + 3, f);
  return s;
}

std::string DoubleToString(double d) {
  if (std::isnan(d)) return std::signbit(d) ? "-nan" : "nan";
  std::string s = fmt::sprintf("%.*g", DBL_DIG, d);
  if (std::strtod(s.c_str(), nullptr) != d)
    s = fmt::sprintf("%.*g", DBL_DIG + 2, d);
  return s;
}

std::string SummarizeElements(
    std::span<const int64_t> shape, int64_t limit,
    const std::function<std::string(int64_t)>& element) {
  std::string out;
  if (shape.empty()) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) out += " ";
      out += element(i);
    }
    return out;
  }
  int64_t index = 0;
  PrintOneDim(0, shape, limit, element, &index, &out);
  return out;
}

}  // namespace dfg
