#include "lib/graph/types.h"

#include "lib/testing/catch.h"

namespace dfg {
namespace {

using tensorflow::DT_BFLOAT16;
using tensorflow::DT_COMPLEX128;
using tensorflow::DT_DOUBLE;
using tensorflow::DT_FLOAT;
using tensorflow::DT_FLOAT4_E2M1FN;
using tensorflow::DT_FLOAT8_E4M3B11FNUZ;
using tensorflow::DT_FLOAT_REF;
using tensorflow::DT_HALF;
using tensorflow::DT_INT32;
using tensorflow::DT_INT32_REF;
using tensorflow::DT_INVALID;
using tensorflow::DT_RESOURCE;
using tensorflow::DT_STRING;
using tensorflow::DT_UINT2;
using tensorflow::DT_VARIANT;

TEST_CASE("DataTypeString prints TensorFlow's names", "[graph]") {
  CHECK(DataTypeString(DT_FLOAT) == "float");
  CHECK(DataTypeString(DT_DOUBLE) == "double");
  CHECK(DataTypeString(DT_INT32) == "int32");
  CHECK(DataTypeString(DT_HALF) == "half");
  CHECK(DataTypeString(DT_BFLOAT16) == "bfloat16");
  CHECK(DataTypeString(DT_COMPLEX128) == "complex128");
  CHECK(DataTypeString(DT_RESOURCE) == "resource");
  CHECK(DataTypeString(DT_VARIANT) == "variant");
  CHECK(DataTypeString(DT_FLOAT8_E4M3B11FNUZ) == "float8_e4m3b11fnuz");
  CHECK(DataTypeString(DT_FLOAT4_E2M1FN) == "float4_e2m1fn");
  CHECK(DataTypeString(DT_UINT2) == "uint2");
  CHECK(DataTypeString(DT_INVALID) == "INVALID");
  CHECK(DataTypeString(static_cast<DataType>(77)) == "unknown dtype 77");
  CHECK(DataTypeString(static_cast<DataType>(9999)) == "unknown dtype 9999");
  CHECK(DataTypeString(static_cast<DataType>(177)) == "unknown dtype 177");
  CHECK(DataTypeString(static_cast<DataType>(-3)) == "unknown dtype -3");
}

TEST_CASE("ref types carry the _ref suffix and strip back to their base",
          "[graph]") {
  CHECK(DataTypeString(DT_FLOAT_REF) == "float_ref");
  CHECK(IsRefType(DT_FLOAT_REF));
  CHECK_FALSE(IsRefType(DT_FLOAT));
  CHECK(BaseType(DT_FLOAT_REF) == DT_FLOAT);
  CHECK(BaseType(DT_FLOAT) == DT_FLOAT);
  CHECK(MakeRefType(DT_INT32) == DT_INT32_REF);
  CHECK(MakeRefType(DT_INT32_REF) == DT_INT32_REF);
}

TEST_CASE("ParseDataType accepts TF names, enum names and numpy aliases",
          "[graph]") {
  CHECK(ParseDataType("float") == DT_FLOAT);
  CHECK(ParseDataType("DT_FLOAT") == DT_FLOAT);
  CHECK(ParseDataType("float32") == DT_FLOAT);
  CHECK(ParseDataType("float64") == DT_DOUBLE);
  CHECK(ParseDataType("float16") == DT_HALF);
  CHECK(ParseDataType("string") == DT_STRING);
  CHECK(ParseDataType("float_ref") == DT_FLOAT_REF);
  CHECK(ParseDataType("DT_INT32_REF") == DT_INT32_REF);
  CHECK(ParseDataType("float4_e2m1fn") == DT_FLOAT4_E2M1FN);
  CHECK_FALSE(ParseDataType("Float").has_value());
  CHECK_FALSE(ParseDataType("DT_INVALID").has_value());
  CHECK_FALSE(ParseDataType("INVALID").has_value());
  CHECK_FALSE(ParseDataType("").has_value());
  CHECK_FALSE(ParseDataType("float_ref_ref").has_value());
}

TEST_CASE("every type name parses back to its type", "[graph]") {
  for (int t = 1; t <= 33; ++t) {
    DataType dt = static_cast<DataType>(t);
    CHECK(ParseDataType(DataTypeString(dt)) == dt);
    CHECK(ParseDataType(DataTypeString(MakeRefType(dt))) == MakeRefType(dt));
  }
}

TEST_CASE("DataTypeSize gives bytes per element", "[graph]") {
  CHECK(DataTypeSize(DT_FLOAT) == 4);
  CHECK(DataTypeSize(DT_DOUBLE) == 8);
  CHECK(DataTypeSize(DT_HALF) == 2);
  CHECK(DataTypeSize(DT_COMPLEX128) == 16);
  CHECK(DataTypeSize(tensorflow::DT_BOOL) == 1);
  CHECK(DataTypeSize(tensorflow::DT_QINT32) == 4);
  CHECK(DataTypeSize(tensorflow::DT_FLOAT8_E5M2) == 1);
  CHECK(DataTypeSize(DT_STRING) == 0);
  CHECK(DataTypeSize(DT_RESOURCE) == 0);
  CHECK(DataTypeSize(DT_VARIANT) == 0);
  CHECK(DataTypeSize(DT_INVALID) == 0);
}

}  // namespace
}  // namespace dfg
