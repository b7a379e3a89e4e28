// The C++ element type of each tensor dtype, and the 16-bit float formats.
//
// Tensor stores every dtype in a plain C++ type: float, int32_t, bool (one
// byte), std::complex<float>, std::string (DT_STRING), ResourceHandle
// (DT_RESOURCE). DT_HALF and DT_BFLOAT16 are stored as their 16 raw bits in
// `Half` / `BFloat16` (layout-compatible with Eigen::half / Eigen::bfloat16);
// arithmetic converts through float. Quantized dtypes get small wrappers so
// that each dtype has a distinct C++ type. DT_VARIANT and the float8/int4
// types have no element type: tensors of them cannot be created.
#ifndef DFG_LIB_KERNELS_ELEMENT_TYPES_H_
#define DFG_LIB_KERNELS_ELEMENT_TYPES_H_

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/graph/types.h"

namespace dfg {

struct Half {
  uint16_t bits = 0;
};
struct BFloat16 {
  uint16_t bits = 0;
};

// IEEE binary16 <-> float; FloatToHalf rounds to nearest even (NaN stays NaN,
// overflow gives +-inf).
float HalfToFloat(Half h);
Half FloatToHalf(float f);
// bfloat16 = the top 16 bits of a float. FloatToBFloat16 rounds to nearest
// even (TensorFlow's default); FloatToBFloat16Truncate drops the low bits
// (Cast with Truncate=true). NaN stays a quiet NaN.
float BFloat16ToFloat(BFloat16 b);
BFloat16 FloatToBFloat16(float f);
BFloat16 FloatToBFloat16Truncate(float f);

// Quantized dtypes: the integer value, no scale (as TensorFlow's qint8...).
struct QInt8 {
  int8_t value = 0;
};
struct QUInt8 {
  uint8_t value = 0;
};
struct QInt16 {
  int16_t value = 0;
};
struct QUInt16 {
  uint16_t value = 0;
};
struct QInt32 {
  int32_t value = 0;
};

// A DT_RESOURCE element: which resource (ResourceHandleProto's fields).
struct ResourceHandle {
  std::string device;
  std::string container;
  std::string name;
  uint64_t hash_code = 0;
  std::string maybe_type_name;
  struct DtypeAndShape {
    DataType dtype = tensorflow::DT_INVALID;
    std::vector<int64_t> dims;  // empty with unknown_rank = true if unknown
    bool unknown_rank = false;
  };
  std::vector<DtypeAndShape> dtypes_and_shapes;
};

// DataTypeToEnum<T>::value: the dtype stored as T.
template <typename T>
struct DataTypeToEnum;
#define DFG_MATCH_TYPE_AND_ENUM(TYPE, ENUM)             \
  template <>                                           \
  struct DataTypeToEnum<TYPE> {                         \
    static constexpr DataType value = tensorflow::ENUM; \
  }
DFG_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
DFG_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
DFG_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
DFG_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
DFG_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
DFG_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
DFG_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
DFG_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
DFG_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
DFG_MATCH_TYPE_AND_ENUM(std::complex<float>, DT_COMPLEX64);
DFG_MATCH_TYPE_AND_ENUM(std::complex<double>, DT_COMPLEX128);
DFG_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
DFG_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
DFG_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
DFG_MATCH_TYPE_AND_ENUM(QInt8, DT_QINT8);
DFG_MATCH_TYPE_AND_ENUM(QUInt8, DT_QUINT8);
DFG_MATCH_TYPE_AND_ENUM(QInt16, DT_QINT16);
DFG_MATCH_TYPE_AND_ENUM(QUInt16, DT_QUINT16);
DFG_MATCH_TYPE_AND_ENUM(QInt32, DT_QINT32);
DFG_MATCH_TYPE_AND_ENUM(BFloat16, DT_BFLOAT16);
DFG_MATCH_TYPE_AND_ENUM(Half, DT_HALF);
DFG_MATCH_TYPE_AND_ENUM(ResourceHandle, DT_RESOURCE);
#undef DFG_MATCH_TYPE_AND_ENUM

// True for the dtypes a Tensor can hold (the types above).
bool IsSupportedTensorType(DataType t);

// Calls fn(T{}) with the element type of `dtype` (any supported dtype);
// returns false (without calling) for unsupported ones.
template <typename Fn>
bool VisitElementType(DataType dtype, Fn&& fn) {
  switch (dtype) {
#define DFG_CASE(TYPE, ENUM) \
  case tensorflow::ENUM:     \
    fn(TYPE{});              \
    return true;
    DFG_CASE(float, DT_FLOAT)
    DFG_CASE(double, DT_DOUBLE)
    DFG_CASE(int32_t, DT_INT32)
    DFG_CASE(uint32_t, DT_UINT32)
    DFG_CASE(uint16_t, DT_UINT16)
    DFG_CASE(uint8_t, DT_UINT8)
    DFG_CASE(int16_t, DT_INT16)
    DFG_CASE(int8_t, DT_INT8)
    DFG_CASE(std::string, DT_STRING)
    DFG_CASE(std::complex<float>, DT_COMPLEX64)
    DFG_CASE(std::complex<double>, DT_COMPLEX128)
    DFG_CASE(int64_t, DT_INT64)
    DFG_CASE(uint64_t, DT_UINT64)
    DFG_CASE(bool, DT_BOOL)
    DFG_CASE(QInt8, DT_QINT8)
    DFG_CASE(QUInt8, DT_QUINT8)
    DFG_CASE(QInt16, DT_QINT16)
    DFG_CASE(QUInt16, DT_QUINT16)
    DFG_CASE(QInt32, DT_QINT32)
    DFG_CASE(BFloat16, DT_BFLOAT16)
    DFG_CASE(Half, DT_HALF)
    DFG_CASE(ResourceHandle, DT_RESOURCE)
#undef DFG_CASE
    default:
      return false;
  }
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_ELEMENT_TYPES_H_
