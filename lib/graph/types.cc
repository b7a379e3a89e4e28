#include "lib/graph/types.h"

#include <fmt/format.h>

#include <array>

namespace dfg {
namespace {

constexpr int kRefOffset = 100;

struct TypeInfo {
  DataType type;
  const char* name;  // TensorFlow's DataTypeString
  size_t size;       // TensorFlow's DataTypeSize
};

// Every non-ref type of types.proto, with TF's printed name and element size.
// Sub-byte types (int4, float4...) occupy one byte per element in memory, as
// in TensorFlow.
constexpr std::array<TypeInfo, 33> kTypes = {{
    {tensorflow::DT_FLOAT, "float", 4},
    {tensorflow::DT_DOUBLE, "double", 8},
    {tensorflow::DT_INT32, "int32", 4},
    {tensorflow::DT_UINT8, "uint8", 1},
    {tensorflow::DT_INT16, "int16", 2},
    {tensorflow::DT_INT8, "int8", 1},
    {tensorflow::DT_STRING, "string", 0},
    {tensorflow::DT_COMPLEX64, "complex64", 8},
    {tensorflow::DT_INT64, "int64", 8},
    {tensorflow::DT_BOOL, "bool", 1},
    {tensorflow::DT_QINT8, "qint8", 1},
    {tensorflow::DT_QUINT8, "quint8", 1},
    {tensorflow::DT_QINT32, "qint32", 4},
    {tensorflow::DT_BFLOAT16, "bfloat16", 2},
    {tensorflow::DT_QINT16, "qint16", 2},
    {tensorflow::DT_QUINT16, "quint16", 2},
    {tensorflow::DT_UINT16, "uint16", 2},
    {tensorflow::DT_COMPLEX128, "complex128", 16},
    {tensorflow::DT_HALF, "half", 2},
    {tensorflow::DT_RESOURCE, "resource", 0},
    {tensorflow::DT_VARIANT, "variant", 0},
    {tensorflow::DT_UINT32, "uint32", 4},
    {tensorflow::DT_UINT64, "uint64", 8},
    {tensorflow::DT_FLOAT8_E5M2, "float8_e5m2", 1},
    {tensorflow::DT_FLOAT8_E4M3FN, "float8_e4m3fn", 1},
    {tensorflow::DT_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz", 1},
    {tensorflow::DT_FLOAT8_E4M3B11FNUZ, "float8_e4m3b11fnuz", 1},
    {tensorflow::DT_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz", 1},
    {tensorflow::DT_INT4, "int4", 1},
    {tensorflow::DT_UINT4, "uint4", 1},
    {tensorflow::DT_INT2, "int2", 1},
    {tensorflow::DT_UINT2, "uint2", 1},
    {tensorflow::DT_FLOAT4_E2M1FN, "float4_e2m1fn", 1},
}};

// The table is in enum order starting at DT_FLOAT = 1.
const TypeInfo* Find(DataType t) {
  int i = static_cast<int>(t) - 1;
  if (i < 0 || i >= static_cast<int>(kTypes.size())) return nullptr;
  return &kTypes[i];
}

// Numpy-style aliases TensorFlow's DataTypeFromString accepts.
std::optional<DataType> ParseAlias(std::string_view name) {
  if (name == "float32") return tensorflow::DT_FLOAT;
  if (name == "float64") return tensorflow::DT_DOUBLE;
  if (name == "float16") return tensorflow::DT_HALF;
  return std::nullopt;
}

std::optional<DataType> ParseBase(std::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (name == info.name) return info.type;
  }
  if (auto alias = ParseAlias(name)) return alias;
  // Enum spelling: "DT_FLOAT", "DT_FLOAT_REF".
  DataType t;
  if (name.substr(0, 3) == "DT_" &&
      tensorflow::DataType_Parse(std::string(name), &t) &&
      t != tensorflow::DT_INVALID) {
    return t;
  }
  return std::nullopt;
}

}  // namespace

bool IsRefType(DataType t) { return static_cast<int>(t) > kRefOffset; }

DataType BaseType(DataType t) {
  return IsRefType(t) ? static_cast<DataType>(t - kRefOffset) : t;
}

DataType MakeRefType(DataType t) {
  return IsRefType(t) ? t : static_cast<DataType>(t + kRefOffset);
}

std::string DataTypeString(DataType t) {
  if (t == tensorflow::DT_INVALID) return "INVALID";
  if (const TypeInfo* info = Find(t)) return info->name;
  // Only a known type has a ref form: 9999 read from a corrupt file is no
  // "9899_ref", nor 99 levels of "_ref".
  if (IsRefType(t)) {
    if (const TypeInfo* info = Find(BaseType(t)))
      return std::string(info->name) + "_ref";
  }
  return fmt::format("unknown dtype {}", static_cast<int>(t));
}

std::optional<DataType> ParseDataType(std::string_view name) {
  if (auto t = ParseBase(name)) return t;
  constexpr std::string_view kRef = "_ref";
  if (name.size() > kRef.size() &&
      name.substr(name.size() - kRef.size()) == kRef) {
    auto base = ParseBase(name.substr(0, name.size() - kRef.size()));
    if (base && !IsRefType(*base)) return MakeRefType(*base);
  }
  return std::nullopt;
}

size_t DataTypeSize(DataType t) {
  // Like TensorFlow, ref types have no element size of their own.
  const TypeInfo* info = Find(t);
  return info == nullptr ? 0 : info->size;
}

}  // namespace dfg
