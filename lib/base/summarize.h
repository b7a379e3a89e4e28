// The pieces of TensorFlow's Tensor::SummarizeValue (the v1 form that error
// messages and attr summaries print: "1 2 3..." for a vector, "[1 2][3 4]"
// for a matrix), shared by lib/graph's attr summaries of TensorProtos and
// lib/kernels' Assert of Tensors: numbers as strings::StrCat prints them
// (FloatToBuffer / DoubleToBuffer) and the nested brackets of PrintOneDim.
#ifndef DFG_LIB_BASE_SUMMARIZE_H_
#define DFG_LIB_BASE_SUMMARIZE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace dfg {

// TensorFlow's FloatToBuffer: %.6g when it reads back as the same float,
// else %.9g; "nan" / "-nan" by the sign bit, "inf", "-inf".
std::string FloatToString(float f);

// TensorFlow's DoubleToBuffer: %.15g when it reads back, else %.17g.
std::string DoubleToString(double d);

// The first `limit` elements of a tensor of `shape` (row-major), element i
// printed by element(i): space-separated for a scalar or vector, nested in
// brackets per dimension otherwise, "..." where a row is cut (PrintOneDim).
// The caller appends "..." when the tensor has more than `limit` elements.
std::string SummarizeElements(
    std::span<const int64_t> shape, int64_t limit,
    const std::function<std::string(int64_t)>& element);

}  // namespace dfg

#endif  // DFG_LIB_BASE_SUMMARIZE_H_
