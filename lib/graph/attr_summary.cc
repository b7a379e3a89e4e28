// TensorFlow's attr_value_util.cc printing: floats as FloatToBuffer, shapes
// as TensorShape::DebugString, tensors as Tensor::SummarizeValue (first three
// values, nested brackets), long lists shortened.
#include "lib/graph/attr_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "lib/base/float16.h"
#include "lib/base/strings.h"
#include "lib/base/summarize.h"
#include "lib/graph/types.h"

namespace dfg {
namespace {

using tensorflow::AttrValue;
using tensorflow::TensorProto;
using tensorflow::TensorShapeProto;

std::string SummarizeString(const std::string& str) {
  std::string escaped = CEscape(str);
  if (escaped.size() >= 80) {
    return fmt::format("\"{}...{}\"", escaped.substr(0, 10),
                       escaped.substr(escaped.size() - 10));
  }
  return fmt::format("\"{}\"", escaped);
}

// TensorShape::DebugString of a shape proto: "[2,?]", "<unknown>".
std::string ShapeString(const TensorShapeProto& shape) {
  std::string s;
  if (shape.unknown_rank()) {
    s = "<unknown>";
    if (shape.dim_size() == 0) return s;
  }
  s += "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i > 0) s += ",";
    int64_t size = shape.dim(i).size();
    s += size == -1 ? std::string("?") : std::to_string(size);
  }
  return s + "]";
}

// Element i of a repeated field, with TensorFlow's FromProto fill rule: a
// short list repeats its last value, an empty one means zeros.
template <typename Field>
auto Fill(const Field& field, int64_t i, decltype(field.Get(0)) zero) {
  if (field.empty()) return zero;
  return field.Get(static_cast<int>(std::min<int64_t>(i, field.size() - 1)));
}

template <typename T>
T FromContent(const std::string& content, int64_t i) {
  T value;
  std::memcpy(&value, content.data() + i * sizeof(T), sizeof(T));
  return value;
}

// A printer of element i, or nullptr when the proto does not decode.
std::function<std::string(int64_t)> ElementPrinter(const TensorProto& proto,
                                                   int64_t n) {
  using namespace tensorflow;  // NOLINT: DataType enumerators
  // The printers outlive this frame: they hold the proto by pointer.
  const TensorProto* tp = &proto;
  const TensorProto& t = proto;
  const std::string& c = t.tensor_content();
  size_t size = DataTypeSize(t.dtype());
  bool content = !c.empty();
  if (content && (size == 0 || c.size() != n * size)) return nullptr;
  auto ints = [tp, content](auto tag) -> std::function<std::string(int64_t)> {
    using T = decltype(tag);
    return [tp, content](int64_t i) {
      const TensorProto& t = *tp;
      int64_t v =
          content ? static_cast<int64_t>(FromContent<T>(t.tensor_content(), i))
                  : Fill(t.int_val(), i, 0);
      return std::to_string(static_cast<T>(v));
    };
  };
  switch (t.dtype()) {
    case DT_FLOAT:
      return [tp, content](int64_t i) {
        const TensorProto& t = *tp;
        return FloatToString(content ? FromContent<float>(t.tensor_content(), i)
                                     : Fill(t.float_val(), i, 0.0f));
      };
    case DT_DOUBLE:
      return [tp, content](int64_t i) {
        const TensorProto& t = *tp;
        return DoubleToString(content
                                  ? FromContent<double>(t.tensor_content(), i)
                                  : Fill(t.double_val(), i, 0.0));
      };
    case DT_HALF:
    case DT_BFLOAT16:
      return [tp, content](int64_t i) {
        const TensorProto& t = *tp;
        uint16_t bits = content
                            ? FromContent<uint16_t>(t.tensor_content(), i)
                            : static_cast<uint16_t>(Fill(t.half_val(), i, 0));
        return FloatToString(t.dtype() == DT_HALF ? HalfBitsToFloat(bits)
                                                  : BFloat16BitsToFloat(bits));
      };
    case DT_INT32:
    case DT_QINT32:
      return ints(int32_t{});
    case DT_INT16:
    case DT_QINT16:
      return ints(int16_t{});
    case DT_UINT16:
    case DT_QUINT16:
      return ints(uint16_t{});
    case DT_INT8:
    case DT_QINT8:
      return ints(int8_t{});
    case DT_UINT8:
    case DT_QUINT8:
      return ints(uint8_t{});
    case DT_INT64:
      return [tp, content](int64_t i) {
        const TensorProto& t = *tp;
        return std::to_string(content
                                  ? FromContent<int64_t>(t.tensor_content(), i)
                                  : Fill(t.int64_val(), i, int64_t{0}));
      };
    case DT_UINT32:
      return [tp, content](int64_t i) {
        const TensorProto& t = *tp;
        return std::to_string(content
                                  ? FromContent<uint32_t>(t.tensor_content(), i)
                                  : Fill(t.uint32_val(), i, uint32_t{0}));
      };
    case DT_UINT64:
      return [tp, content](int64_t i) {
        const TensorProto& t = *tp;
        return std::to_string(content
                                  ? FromContent<uint64_t>(t.tensor_content(), i)
                                  : Fill(t.uint64_val(), i, uint64_t{0}));
      };
    case DT_BOOL:
      return [tp, content](int64_t i) {
        const TensorProto& t = *tp;
        bool b = content ? FromContent<uint8_t>(t.tensor_content(), i) != 0
                         : Fill(t.bool_val(), i, false);
        return std::string(b ? "1" : "0");
      };
    case DT_STRING:
      if (content) return nullptr;
      return [tp](int64_t i) {
        const TensorProto& t = *tp;
        if (t.string_val().empty()) return std::string();
        return Utf8SafeCEscape(t.string_val(
            static_cast<int>(std::min<int64_t>(i, t.string_val_size() - 1))));
      };
    case DT_COMPLEX64:
    case DT_COMPLEX128:
      return [tp, content](int64_t i) {
        const TensorProto& t = *tp;
        double re, im;
        if (t.dtype() == DT_COMPLEX64) {
          re = content ? FromContent<float>(t.tensor_content(), 2 * i)
                       : Fill(t.scomplex_val(), 2 * i, 0.0f);
          im = content ? FromContent<float>(t.tensor_content(), 2 * i + 1)
                       : Fill(t.scomplex_val(), 2 * i + 1, 0.0f);
          return fmt::format("({},{})", FloatToString(re), FloatToString(im));
        }
        re = content ? FromContent<double>(t.tensor_content(), 2 * i)
                     : Fill(t.dcomplex_val(), 2 * i, 0.0);
        im = content ? FromContent<double>(t.tensor_content(), 2 * i + 1)
                     : Fill(t.dcomplex_val(), 2 * i + 1, 0.0);
        return fmt::format("({},{})", DoubleToString(re), DoubleToString(im));
      };
    default:
      return [](int64_t) { return std::string("?"); };
  }
}

std::string SummarizeTensor(const TensorProto& t) {
  int64_t n = 1;
  bool valid_shape = !t.tensor_shape().unknown_rank();
  bool too_big = false;  // the element count or byte size overflows int64
  std::vector<int64_t> shape;
  for (const auto& d : t.tensor_shape().dim()) {
    if (d.size() < 0) valid_shape = false;
    shape.push_back(d.size());
    too_big |= __builtin_mul_overflow(n, std::max<int64_t>(d.size(), 0), &n);
  }
  int64_t bytes = 0;
  too_big |= __builtin_mul_overflow(
      n, static_cast<int64_t>(DataTypeSize(t.dtype())), &bytes);
  if (!valid_shape || too_big || bytes > (int64_t{32} << 20)) {
    return fmt::format("<TensorProto: {}>", t.ShortDebugString());
  }
  std::function<std::string(int64_t)> element;
  if (t.dtype() != tensorflow::DT_INVALID && !IsRefType(t.dtype()))
    element = ElementPrinter(t, n);
  if (!element)
    return fmt::format("<Invalid TensorProto: {}>", t.ShortDebugString());

  int64_t limit = std::min<int64_t>(3, n);
  std::string values = SummarizeElements(shape, limit, element);
  if (n > limit) values += "...";
  std::string shape_text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    shape_text += (i > 0 ? "," : "") + std::to_string(shape[i]);
  return fmt::format("Tensor<type: {} shape: {}] values: {}>",
                     DataTypeString(t.dtype()), shape_text, values);
}

std::string SummarizeFunc(const tensorflow::NameAttrList& func) {
  std::vector<std::string> entries;
  for (const auto& [name, value] : func.attr())
    entries.push_back(fmt::format("{}={}", name, SummarizeAttrValue(value)));
  std::sort(entries.begin(), entries.end());
  return fmt::format("{}[{}]", func.name(), fmt::join(entries, ", "));
}

std::string SummarizeList(const AttrValue::ListValue& list) {
  std::vector<std::string> pieces;
  if (list.s_size() > 0) {
    for (const auto& s : list.s()) pieces.push_back(SummarizeString(s));
  } else if (list.i_size() > 0) {
    for (int64_t i : list.i()) pieces.push_back(std::to_string(i));
  } else if (list.f_size() > 0) {
    for (float f : list.f()) pieces.push_back(FloatToString(f));
  } else if (list.b_size() > 0) {
    for (bool b : list.b()) pieces.push_back(b ? "true" : "false");
  } else if (list.type_size() > 0) {
    for (int t : list.type())
      pieces.push_back(tensorflow::DataType_Name(static_cast<DataType>(t)));
  } else if (list.shape_size() > 0) {
    for (const auto& s : list.shape()) pieces.push_back(ShapeString(s));
  } else if (list.tensor_size() > 0) {
    for (const auto& t : list.tensor()) pieces.push_back(SummarizeTensor(t));
  } else if (list.func_size() > 0) {
    for (const auto& f : list.func()) pieces.push_back(SummarizeFunc(f));
  }
  // TensorFlow shortens long lists and appends a fingerprint; dfg keeps the
  // shortening (first 5, "...", last 6) without the hash.
  if (pieces.size() >= 30) {
    pieces.erase(pieces.begin() + 5, pieces.end() - 6);
    pieces[5] = "...";
  }
  return fmt::format("[{}]", fmt::join(pieces, ", "));
}

}  // namespace

std::string SummarizeAttrValue(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS:
      return SummarizeString(value.s());
    case AttrValue::kI:
      return std::to_string(value.i());
    case AttrValue::kF:
      return FloatToString(value.f());
    case AttrValue::kB:
      return value.b() ? "true" : "false";
    case AttrValue::kType:
      return tensorflow::DataType_Name(value.type());
    case AttrValue::kShape:
      return ShapeString(value.shape());
    case AttrValue::kTensor:
      return SummarizeTensor(value.tensor());
    case AttrValue::kList:
      return SummarizeList(value.list());
    case AttrValue::kFunc:
      return SummarizeFunc(value.func());
    case AttrValue::kPlaceholder:
      return "$" + value.placeholder();
    case AttrValue::VALUE_NOT_SET:
      break;
  }
  return "<Unknown AttrValue type>";
}

}  // namespace dfg
