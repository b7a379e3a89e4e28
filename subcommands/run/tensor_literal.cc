// JSON literals for --feed. The shape comes from the nesting; every leaf is
// converted to the dtype with the range checks numpy's np.array(v, dtype)
// would apply when casting is "safe".
#include "subcommands/run/tensor_literal.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "lib/kernels/element_types.h"
#include "subcommands/run/json_depth.h"

namespace dfg {
namespace {

using Json = nlohmann::json;

// The shape of nested lists, from the first element at each depth; then
// Flatten checks every list against it.
std::vector<int64_t> LiteralShape(const Json& value) {
  std::vector<int64_t> dims;
  const Json* at = &value;
  while (at->is_array()) {
    dims.push_back(static_cast<int64_t>(at->size()));
    if (at->empty()) break;
    at = &(*at)[0];
  }
  return dims;
}

Status Flatten(const Json& value, const std::vector<int64_t>& dims,
               size_t depth, std::vector<const Json*>* leaves) {
  if (depth == dims.size()) {
    if (value.is_array()) {
      return InvalidArgument(
          "lists are not rectangular (a list where a "
          "value was expected at depth {})",
          depth);
    }
    leaves->push_back(&value);
    return Status::Ok();
  }
  if (!value.is_array() || static_cast<int64_t>(value.size()) != dims[depth]) {
    return InvalidArgument(
        "lists are not rectangular (expected {} elements at depth {})",
        dims[depth], depth);
  }
  for (const Json& element : value) {
    DFG_RETURN_IF_ERROR(Flatten(element, dims, depth + 1, leaves));
  }
  return Status::Ok();
}

Status DoesNotFit(const Json& value, DataType dtype) {
  return InvalidArgument("{} does not fit dtype {}", value.dump(),
                         DataTypeString(dtype));
}

StatusOr<double> AsDouble(const Json& value, DataType dtype) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return DoesNotFit(value, dtype);
}

template <typename T>
StatusOr<T> AsInteger(const Json& value, DataType dtype) {
  if (value.is_number_unsigned()) {
    uint64_t v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      return DoesNotFit(value, dtype);
    }
    return static_cast<T>(v);
  }
  if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    if (v < 0 && !std::numeric_limits<T>::is_signed) {
      return DoesNotFit(value, dtype);
    }
    if (std::numeric_limits<T>::is_signed &&
        (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
         v > static_cast<int64_t>(std::numeric_limits<T>::max()))) {
      return DoesNotFit(value, dtype);
    }
    return static_cast<T>(v);
  }
  if (value.is_number_float()) {
    double d = value.get<double>();
    // Integral floats (2.0) fit; 2.5, nan and out-of-range values do not.
    // The bound is 2^digits, exclusive: T's max as a double rounds up to it
    // for 64-bit T (9223372036854775807.0 is 2^63).
    if (std::isfinite(d) && d == std::trunc(d) &&
        d >= static_cast<double>(std::numeric_limits<T>::min()) &&
        d < std::ldexp(1.0, std::numeric_limits<T>::digits)) {
      return static_cast<T>(d);
    }
  }
  return DoesNotFit(value, dtype);
}

template <typename T>
Status FillIntegers(const std::vector<const Json*>& leaves, Tensor* t) {
  auto out = t->flat<T>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    DFG_ASSIGN_OR_RETURN(out[i], AsInteger<T>(*leaves[i], t->dtype()));
  }
  return Status::Ok();
}

// float, double, half, bfloat16 through `convert` (double -> element);
// `back` (element -> double) tells a finite number that became an infinity
// (1e39 as float32), which does not fit.
template <typename T, typename F, typename B>
Status FillFloats(const std::vector<const Json*>& leaves, Tensor* t, F convert,
                  B back) {
  auto out = t->flat<T>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    DFG_ASSIGN_OR_RETURN(double d, AsDouble(*leaves[i], t->dtype()));
    out[i] = convert(d);
    if (std::isfinite(d) && !std::isfinite(back(out[i])))
      return DoesNotFit(*leaves[i], t->dtype());
  }
  return Status::Ok();
}

Status Fill(const std::vector<const Json*>& leaves, Tensor* t) {
  switch (t->dtype()) {
    case tensorflow::DT_FLOAT:
      return FillFloats<float>(
          leaves, t, [](double d) { return static_cast<float>(d); },
          [](float f) { return f; });
    case tensorflow::DT_DOUBLE:
      return FillFloats<double>(
          leaves, t, [](double d) { return d; }, [](double d) { return d; });
    case tensorflow::DT_HALF:
      return FillFloats<Half>(
          leaves, t,
          [](double d) { return FloatToHalf(static_cast<float>(d)); },
          HalfToFloat);
    case tensorflow::DT_BFLOAT16:
      return FillFloats<BFloat16>(
          leaves, t,
          [](double d) { return FloatToBFloat16(static_cast<float>(d)); },
          BFloat16ToFloat);
    case tensorflow::DT_INT8:
      return FillIntegers<int8_t>(leaves, t);
    case tensorflow::DT_INT16:
      return FillIntegers<int16_t>(leaves, t);
    case tensorflow::DT_INT32:
      return FillIntegers<int32_t>(leaves, t);
    case tensorflow::DT_INT64:
      return FillIntegers<int64_t>(leaves, t);
    case tensorflow::DT_UINT8:
      return FillIntegers<uint8_t>(leaves, t);
    case tensorflow::DT_UINT16:
      return FillIntegers<uint16_t>(leaves, t);
    case tensorflow::DT_UINT32:
      return FillIntegers<uint32_t>(leaves, t);
    case tensorflow::DT_UINT64:
      return FillIntegers<uint64_t>(leaves, t);
    case tensorflow::DT_BOOL: {
      auto out = t->flat<bool>();
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i]->is_boolean()) return DoesNotFit(*leaves[i], t->dtype());
        out[i] = leaves[i]->get<bool>();
      }
      return Status::Ok();
    }
    case tensorflow::DT_STRING: {
      auto out = t->flat<std::string>();
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i]->is_string()) return DoesNotFit(*leaves[i], t->dtype());
        out[i] = leaves[i]->get<std::string>();
      }
      return Status::Ok();
    }
    default:
      return InvalidArgument(
          "a JSON literal cannot give a {} tensor; use a .npy file",
          DataTypeString(t->dtype()));
  }
}

}  // namespace

bool LooksLikeTensorLiteral(std::string_view value) {
  if (value.empty()) return false;
  char c = value[0];
  return c == '[' || c == '-' || c == '"' ||
         std::isdigit(static_cast<unsigned char>(c)) ||
         value.substr(0, 4) == "true" || value.substr(0, 5) == "false";
}

StatusOr<Tensor> ParseTensorLiteral(std::string_view json, DataType dtype,
                                    std::string_view what) {
  // One level per dimension, and TensorFlow allows at most 254 of them.
  Status depth = CheckJsonDepth(json, 254);
  if (!depth.ok()) {
    return InvalidArgument("{}: {}; a tensor has at most 254 dimensions", what,
                           depth.message());
  }
  Json value;
  try {  // nlohmann reports the position only through its exception
    value = Json::parse(json.begin(), json.end());
  } catch (const Json::exception& e) {
    size_t at = 0;
    if (const auto* p = dynamic_cast<const Json::parse_error*>(&e))
      at = p->byte;
    return InvalidArgument("{}: '{}' is not valid JSON (at byte {})", what,
                           json, at);
  }
  std::vector<int64_t> dims = LiteralShape(value);
  std::vector<const Json*> leaves;
  Status s = Flatten(value, dims, 0, &leaves);
  if (!s.ok()) return InvalidArgument("{}: {}", what, s.message());
  if (!TensorShape::IsValid(dims)) {
    return InvalidArgument("{}: the literal's shape is too large", what);
  }
  auto tensor = Tensor::TryAllocate(dtype, TensorShape(dims));
  if (!tensor.ok())
    return InvalidArgument("{}: {}", what, tensor.status().message());
  s = Fill(leaves, &*tensor);
  if (!s.ok()) return InvalidArgument("{}: {}", what, s.message());
  return std::move(tensor).value();
}

}  // namespace dfg
